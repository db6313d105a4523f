/*
 * report_summary.c - the summary report: what the trace is (agent, JVM,
 * host, metric), how many events of which kind, threads, methods, how
 * unbalanced the events were, whether the trace is complete, and which
 * calibration was applied.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "postproc/offcpu.h"
#include "postproc/wait_summary.h"
#include "postproc/output.h"
#include "postproc/report.h"
#include "postproc/report_util.h"
#include "common/satsum.h"
#include "postproc/throttled.h"

struct totals {
	struct calltree_stats s; /* every thread's, added up */
	uint64_t contexts;
	uint64_t deep;	    /* contexts deeper than the depth limit */
	uint32_t max_level; /* deepest context */
	uint64_t cum[JCAL_MAX_METRICS], raw_cum[JCAL_MAX_METRICS];
	/* Threads with metric values at start and end: their span in all and
	 * the part their trees hold (raw, metric shown). */
	uint64_t spanned, span, span_in_trees;
};

static void add_up(const struct model_thread *const *list, size_t n, unsigned mi, uint32_t limit,
		   struct totals *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < n; i++) {
		const struct calltree *tr = &list[i]->tree;
		const struct calltree_stats *s = &tr->stats;

		calltree_stats_add(&t->s, s);
		t->contexts += list[i]->shell ? list[i]->shell_contexts
			       : tr->nnodes   ? tr->nnodes - 1
					      : 0;
		if (tr->max_level > t->max_level)
			t->max_level = tr->max_level;
		if (list[i]->shell)
			t->deep += list[i]->shell_deep;
		else if (tr->max_level > limit)
			for (uint32_t k = 0; k < tr->nnodes; k++)
				t->deep += tr->nodes[k].level > limit;
		/* the tree's own metrics: a figure past them is another node's */
		for (unsigned k = 0; k < tr->nmetrics && k < JCAL_MAX_METRICS; k++) {
			satsum_addto(&t->cum[k], calltree_fig(tr, CALLTREE_ROOT, k)->cum,
				     SATSUM_CUM);
			satsum_addto(&t->raw_cum[k], calltree_fig(tr, CALLTREE_ROOT, k)->raw_cum,
				     SATSUM_RAW_CUM);
		}
		if (mi < list[i]->nstart_metric && mi < list[i]->nend_metric) {
			const uint64_t *a = list[i]->start_metric, *b = list[i]->end_metric;

			t->spanned++;
			/* an end below the start (a damaged record) spans nothing */
			satsum_addto(&t->span, b[mi] > a[mi] ? b[mi] - a[mi] : 0, SATSUM_SPAN);
			satsum_addto(&t->span_in_trees,
				     tr->nnodes ? calltree_fig(tr, CALLTREE_ROOT, mi)->raw_cum : 0,
				     SATSUM_SPAN);
		}
	}
}

/* What the ended threads spent outside their trees (0 when their trees
 * hold more than their span: damaged figures). */
static uint64_t outside_trees(const struct totals *t)
{
	return t->span > t->span_in_trees ? t->span - t->span_in_trees : 0;
}

/* "2024-05-01 12:00:00 UTC" from a nanosecond epoch time string. */
static void format_time(const char *ns, char *buf, size_t len)
{
	char *end;
	unsigned long long v = ns ? strtoull(ns, &end, 10) : 0;
	time_t sec = (time_t)(v / 1000000000ull);
	struct tm tm;

	if (!ns || *end || !v || !gmtime_r(&sec, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "%s", ns ? ns : "?");
}

static const char *completeness(const struct model *m, const struct report_opts *o, char *buf,
				size_t len)
{
	if (o->res && o->res->status == TRACE_TRUNCATED && !m->has_end)
		snprintf(buf, len, "truncated (read up to the last complete record; %s)",
			 trace_no_end_str(o->res));
	else if (o->res && o->res->status == TRACE_TRUNCATED)
		return "truncated (read up to the last complete record)";
	else if (!m->has_end && o->res)
		snprintf(buf, len, "incomplete (no END record: %s)", trace_no_end_str(o->res));
	else if (!m->has_end)
		return "incomplete (no END record)";
	else
		return "complete";
	return buf;
}

/* One "  label: value" line of the text summary, labels aligned; label and
 * value escaped (output.h), as they hold meta values, names and paths. */
static void row(FILE *f, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void row(FILE *f, const char *label, const char *fmt, ...)
{
	char *value = NULL;
	va_list ap;
	int n;

	fputs("  ", f);
	text_escape_n(f, label, 22);
	fputc(' ', f);
	va_start(ap, fmt);
	n = vasprintf(&value, fmt, ap);
	va_end(ap);
	text_escape(f, n < 0 ? "(out of memory)" : value);
	fputc('\n', f);
	free(value);
}

static const char *or_unknown(const char *s)
{
	return s && *s ? s : "?";
}

static const char *or_none(const char *s)
{
	return s && *s ? s : "none";
}

/* A merged profile's meta record, or "several" when its inputs differ. */
static const char *or_several(const char *s)
{
	return s && *s ? s : "several";
}

/* A tree snapshot's rows: when it was taken, maxcontexts= and what it
 * folded, and its compensation in the agent (meta records). */
static void snapshot_text(FILE *f, const struct model *m, const struct totals *t)
{
	const char *max = model_meta(m, "snapshot.maxcontexts"), *v;
	char buf[128];

	format_time(model_meta(m, "snapshot.time_ns"), buf, sizeof(buf));
	row(f, "tree snapshot:", "taken %s (%s); no events: the agent built the trees", buf,
	    or_unknown(model_meta(m, "snapshot.when")));
	row(f, "maxcontexts:",
	    "%s; %" PRIu64 " contexts folded into \"<cold contexts>\" (%" PRIu64
	    " calls) in %s folds",
	    max && strcmp(max, "0") ? max : "no limit", t->s.folded_contexts, t->s.folded_calls,
	    or_unknown(model_meta(m, "snapshot.folds")));
	if ((v = model_meta(m, "snapshot.ended_merged")) && strcmp(v, "0"))
		row(f, "ended threads merged:",
		    "%s (their trees are one thread, \"<ended threads>\"; the 256 threads that "
		    "ended last keep their own)",
		    v);
	if ((v = model_meta(m, "snapshot.hists")) && !strcmp(v, "off"))
		row(f, "histograms:", "none (the agent ran with hists=off: no --report latency)");
	if ((v = model_meta(m, "snapshot.slow.ns")))
		row(f, "slow calls:",
		    "%s kept of the %s calls of at least %s ns (%s; slow= keeps at most %s; "
		    "--report slow)",
		    or_unknown(model_meta(m, "snapshot.slow.kept")),
		    or_unknown(model_meta(m, "snapshot.slow.over")), v,
		    or_unknown(model_meta(m, "snapshot.slow.metric")),
		    or_unknown(model_meta(m, "snapshot.slow.max")));
	if ((v = model_meta(m, "snapshot.lost_events")) && strcmp(v, "0"))
		row(f, "events not in the trees:", "%s (the agent ran out of memory)", v);
	if (!model_meta(m, "snapshot.calib.table"))
		return;
	row(f, "key coverage:", "%s distinct keys in the trees, %s of them in the table",
	    or_unknown(model_meta(m, "snapshot.calib.keys_seen")),
	    or_unknown(model_meta(m, "snapshot.calib.keys_found")));
	row(f, "compensated deltas:", "%s of metric 0 (%s; other metrics raw), all threads",
	    or_unknown(model_meta(m, "snapshot.calib.deltas")),
	    m->nmetrics ? m->metric[0].name : "?");
	row(f, "clamped deltas:", "%s (below the compensation value: counted as 0)",
	    or_unknown(model_meta(m, "snapshot.calib.clamped")));
	row(f, "fallback deltas:", "%s static-ness ignored, %s smallest comp of the table",
	    or_unknown(model_meta(m, "snapshot.calib.fallback_static")),
	    or_unknown(model_meta(m, "snapshot.calib.fallback_global")));
}

/* The calibration rows: table, key coverage, clamped and fallback deltas. */
static void calib_text(FILE *f, const struct model *m, const struct calib_apply *c)
{
	const struct calib_table *t = &c->table;

	row(f, "calibration table:", "%u keys, unit %s, created %s, env: %s", t->nkeys,
	    or_unknown(t->unit), or_unknown(t->created), or_unknown(t->env_method));
	row(f, "key coverage:", "%u distinct keys in the trace, %u of them in the table",
	    c->keys_seen, c->keys_found);
	row(f,
	    "compensated deltas:", "%" PRIu64 " of metric 0 (%s; other metrics raw), all threads",
	    c->deltas, m->nmetrics ? m->metric[0].name : "?");
	row(f, "clamped deltas:", "%" PRIu64 " (below the compensation value: counted as 0)",
	    c->clamped);
	row(f, "fallback deltas:",
	    "%" PRIu64 " (key not in the table: %" PRIu64 " static-ness ignored, %" PRIu64
	    " smallest comp of the table)",
	    c->fallback_similar + c->fallback_global, c->fallback_similar, c->fallback_global);
	if (c->has_ref)
		row(f, "in-run vs stored:",
		    "comp moved by %+.1f%% (median of %u keys; %+.0f%%..%+.0f%%) from %s",
		    100 * c->shift_median, c->shift_keys, 100 * c->shift_low, 100 * c->shift_high,
		    c->ref_path);
}

static void threads_text(FILE *f, const struct model *m, const struct model_thread *const *list,
			 size_t n, unsigned mi)
{
	fputs("Threads\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct model_thread *th = list[i];

		fprintf(f, "  #%-4" PRIu32 " ", th->serial);
		text_escape_n(f, th->name, 24);
		fprintf(f,
			" %-8s java tid %-6" PRIu64 " os tid %-7" PRIu32 " %10" PRIu64
			" events  cum %" PRIu64 "\n",
			model_thread_kind(th), th->java_tid, th->os_tid, th->tree.stats.events,
			model_value(m, mi, calltree_fig(&th->tree, CALLTREE_ROOT, mi)->cum));
	}
}

/* With tsc and cputime: per thread its wall time and the part of it off
 * the CPU (offcpu.h). */
static void offcpu_text(FILE *f, const struct model *m, const struct model_thread *const *list,
			size_t n)
{
	uint64_t wall, off;

	if (!n || offcpu_thread(m, &list[0]->tree, &wall, &off))
		return;
	fputs("Off the CPU (wall time minus CPU time, raw, ns)\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct model_thread *th = list[i];

		if (offcpu_thread(m, &th->tree, &wall, &off))
			continue;
		fprintf(f, "  #%-4" PRIu32 " ", th->serial);
		text_escape_n(f, th->name, 24);
		fprintf(f, " wall %12" PRIu64 "  off CPU %12" PRIu64 " (%6.2f%%)\n", wall, off,
			report_pct(off, wall));
	}
}

/* The rows that say what the one recording is. */
static void trace_rows(FILE *f, const struct model *m, const struct report_opts *o)
{
	char buf[128], label[64], status[256];

	text_escapef(f, "Trace %s", o->trace_path ? o->trace_path : "");
	fputc('\n', f);
	row(f, "status:", "%s", completeness(m, o, status, sizeof(status)));
	/* A recording that ended before its JVM did: duration=, maxsize= or stop. */
	if (model_meta(m, "stop.reason"))
		row(f, "stopped:", "%s", model_meta(m, "stop.reason"));
	if (model_meta(m, "attached"))
		row(f, "attached:", "to a running JVM (probes from the attach on)");
	/* mode=events with include=/exclude=: what the agent left out. */
	if (model_meta(m, "filter.methods"))
		row(f, "filtered:",
		    "%s events of %s methods not recorded (include=%s exclude=%s): their time is "
		    "their callers'",
		    model_meta(m, "filter.events"), model_meta(m, "filter.methods"),
		    or_none(model_meta(m, "filter.include")),
		    or_none(model_meta(m, "filter.exclude")));
	/* mode=bci, clock=agentfree: what the agent took out of the figures */
	if (model_meta(m, "agent_work.classes")) {
		const char *w = model_meta(m, "agent_work.metric");
		uint64_t v = model_value(m, 0, w ? strtoull(w, NULL, 10) : 0);

		if (report_metric_is_time(m, 0))
			snprintf(buf, sizeof(buf), "%.1f ms", (double)v / 1e6);
		else
			snprintf(buf, sizeof(buf), "%" PRIu64 " %s", v,
				 m->nmetrics ? m->metric[0].name : "");
		row(f, "class work:",
		    "%s classes rewritten on the traced threads; the agent's %s on classes taken "
		    "out of those threads' figures (clock=agentfree)",
		    model_meta(m, "agent_work.classes"), buf);
	}
	if (o->res)
		row(f, "format:", "%u.%u, %" PRIu64 " bytes, %" PRIu64 " chunks",
		    o->res->version_major, o->res->version_minor, o->res->file_bytes,
		    o->res->chunks);
	row(f, "agent:", "%s, mode %s", or_unknown(model_meta(m, "agent.version")),
	    or_unknown(model_meta(m, "mode")));
	row(f, "jvm:", "%s, %s", or_unknown(model_meta(m, "jvm.name")),
	    or_unknown(model_meta(m, "jvm.version")));
	row(f, "pid:", "%s", or_unknown(model_meta(m, "pid")));
	format_time(model_meta(m, "start.time_ns"), buf, sizeof(buf));
	row(f, "started:", "%s", buf);
	row(f, "options:", "%s", or_unknown(model_meta(m, "options")));
	for (size_t i = 0; i < m->nmeta; i++)
		if (!strncmp(m->meta[i].key, "host.", 5)) {
			snprintf(label, sizeof(label), "%s:", m->meta[i].key);
			row(f, label, "%s", m->meta[i].value);
		}
}

/* The same for a merged profile: how many inputs of which kind, and what
 * every input shares (the rest is in the Inputs section). */
static void merged_rows(FILE *f, const struct model *m)
{
	size_t snaps = 0, ended = 0, hosts = 0;

	for (size_t i = 0; i < m->ninputs; i++) {
		size_t k = 0;

		snaps += m->inputs[i].snapshot != 0;
		while (k < i && strcmp(m->inputs[k].host, m->inputs[i].host))
			k++;
		hosts += k == i;
	}
	ended = m->has_end ? m->ninputs : 0;
	fprintf(f,
		"Profile of %zu inputs (counts added; each input compensated with its own "
		"table)\n",
		m->ninputs);
	row(f, "status:", "%s", ended ? "complete (every input)" : "an input is incomplete");
	row(f, "inputs:", "%zu trace%s, %zu tree snapshot%s, from %zu host%s", m->ninputs - snaps,
	    m->ninputs - snaps == 1 ? "" : "s", snaps, snaps == 1 ? "" : "s", hosts,
	    hosts == 1 ? "" : "s");
	row(f, "agent:", "%s, mode %s", or_several(model_meta(m, "agent.version")),
	    or_several(model_meta(m, "mode")));
	row(f, "jvm:", "%s, %s", or_several(model_meta(m, "jvm.name")),
	    or_several(model_meta(m, "jvm.version")));
}

/* A merged profile's inputs, one stanza each. */
static void inputs_text(FILE *f, const struct model *m)
{
	fputs("Inputs\n", f);
	for (size_t i = 0; i < m->ninputs; i++) {
		const struct model_input *in = &m->inputs[i];

		text_escapef(f, "  [%zu] %s", i + 1, in->path);
		fputs("\n      ", f);
		text_escapef(
		    f, "%s  host %s  pid %s  jvm %s  metric %s  %" PRIu64 " events  %zu thread%s",
		    in->snapshot ? "tree snapshot" : "trace", or_unknown(in->host),
		    or_unknown(in->pid), or_unknown(in->jvm), in->metrics, in->events, in->threads,
		    in->threads == 1 ? "" : "s");
		fputs("\n      calibration: ", f);
		text_escape(f, in->calib ? in->calib : "none (raw figures)");
		fputc('\n', f);
		if (!in->nlabels)
			continue;
		fputs("      labels:", f);
		for (size_t k = 0; k < in->nlabels; k++)
			text_escapef(f, " %s=%s", in->labels[k].key, in->labels[k].value);
		fputc('\n', f);
	}
}

static int text(const struct model *m, const struct report_opts *o,
		const struct model_thread *const *list, size_t n, const struct totals *t)
{
	FILE *f = o->out;
	char buf[128], label[64], line[256];
	unsigned mi = o->metric;
	size_t pos;

	if (m->ninputs)
		merged_rows(f, m);
	else
		trace_rows(f, m, o);
	for (unsigned i = 0; i < m->nmetrics; i++) {
		report_metric_label(m, i, buf, sizeof(buf));
		snprintf(label, sizeof(label), "metric %u:", i);
		row(f, label, "%s%s%s%s, total %" PRIu64 "%s", buf, m->metric[i].why[0] ? " (" : "",
		    m->metric[i].why, m->metric[i].why[0] ? ")" : "", model_value(m, i, t->cum[i]),
		    i == mi && m->nmetrics > 1 ? "  [shown]" : "");
	}
	row(f, "events:", "%" PRIu64 " (E %" PRIu64 ", X %" PRIu64 ", T %" PRIu64 ")", t->s.events,
	    t->s.by_transition[JCAL_TR_ENTRY], t->s.by_transition[JCAL_TR_EXIT],
	    t->s.by_transition[JCAL_TR_THROW]);
	line[0] = '\0';
	pos = 0;
	for (unsigned k = 0; k < JCAL_MT_COUNT && pos < sizeof(line); k++)
		if (t->s.by_type[k])
			pos += (size_t)snprintf(line + pos, sizeof(line) - pos, "%s%c %" PRIu64,
						pos ? ", " : "", jcal_mtype_letter(k),
						t->s.by_type[k]);
	row(f, "events per type:", "%s", pos ? line : "none");
	if (m->has_end)
		row(f, "lost events:", "%" PRIu64, m->end.lost_events);
	if (n != m->nthreads)
		row(f, "threads:", "%zu of %zu (--thread)", n, m->nthreads);
	else
		row(f, "threads:", "%zu", n);
	if (m->nmethods_merged)
		row(f, "methods:",
		    "%zu defined, %zu of them copies of another (same class, name "
		    "and signature, another class loader) counted as one",
		    m->nmethods_defined, m->nmethods_merged);
	else
		row(f, "methods:", "%zu defined", m->nmethods_defined);
	row(f, "calling contexts:", "%" PRIu64, t->contexts);
	if (t->deep)
		row(f, "deeper than limit:",
		    "%" PRIu64 " contexts (deepest %" PRIu32 ") below --max-depth %" PRIu32
		    ": folded into \"<deeper frames folded>\" by tree, callers and exports",
		    t->deep, t->max_level, report_max_depth(o));
	row(f, "compiled code:", "%" PRIu64 " loads, %" PRIu64 " unloads", m->compiled_loads,
	    m->compiled_unloads);
	row(f, "unmatched exits:", "%" PRIu64 " (frames live before tracing started)",
	    t->s.unmatched_exits);
	row(f, "mismatched exits:", "%" PRIu64 " (%" PRIu64 " frames unwound)",
	    t->s.mismatched_exits, t->s.frames_unwound);
	row(f, "open frames closed:", "%" PRIu64 " (still live at the thread's last event)",
	    t->s.open_frames);
	if (t->s.backwards)
		row(f, "metric went backwards:", "%" PRIu64 " deltas (charged as 0)",
		    t->s.backwards);
	if (t->s.controls[JCAL_CTL_START] || t->s.controls[JCAL_CTL_STOP] ||
	    t->s.controls[JCAL_CTL_MARK])
		row(f, "regions (jcal.Control):",
		    "%" PRIu64 " starts, %" PRIu64 " stops, %" PRIu64
		    " marks; untraced gaps between a stop and the next start are charged to "
		    "no method",
		    t->s.controls[JCAL_CTL_START], t->s.controls[JCAL_CTL_STOP],
		    t->s.controls[JCAL_CTL_MARK]);
	if (t->spanned)
		row(f, "outside any tree:",
		    "%" PRIu64 " of %" PRIu64 " (%s) over %" PRIu64
		    " ended threads: before a thread's "
		    "first event and after its last",
		    model_value(m, mi, outside_trees(t)), model_value(m, mi, t->span),
		    m->metric[mi].unit[0] ? m->metric[mi].unit : "raw", t->spanned);
	row(f, "calibration:", "%s", o->calib_desc ? o->calib_desc : "none (raw figures)");
	if (o->calib)
		calib_text(f, m, o->calib);
	if (m->snapshot)
		snapshot_text(f, m, t);
	if (throttled_summary_text(m, o)) /* mode=bci, throttle= */
		return -1;
	if (m->ninputs)
		inputs_text(f, m);
	threads_text(f, m, list, n, mi);
	offcpu_text(f, m, list, n);
	return wait_summary_text(f, m, list, n); /* the JVM's monitor events */
}

static void json_kv_str(FILE *f, const char *key, const char *v, int comma)
{
	if (comma)
		fputc(',', f);
	json_string(f, key);
	fputc(':', f);
	json_string(f, v);
}

/* ...and as the JSON key "inputs". */
static void inputs_json(FILE *f, const struct model *m)
{
	fputs(",\n\"inputs\":[", f);
	for (size_t i = 0; i < m->ninputs; i++) {
		const struct model_input *in = &m->inputs[i];

		fputs(i ? ",\n{" : "\n{", f);
		json_kv_str(f, "path", in->path, 0);
		json_kv_str(f, "kind", in->snapshot ? "snapshot" : "trace", 1);
		json_kv_str(f, "host", in->host, 1);
		json_kv_str(f, "pid", in->pid, 1);
		json_kv_str(f, "jvm", in->jvm, 1);
		json_kv_str(f, "metrics", in->metrics, 1);
		json_kv_str(f, "calib", in->calib, 1);
		fprintf(f, ",\"calibrated\":%s,\"events\":%" PRIu64 ",\"threads\":%zu,\"labels\":{",
			in->calibrated ? "true" : "false", in->events, in->threads);
		for (size_t k = 0; k < in->nlabels; k++)
			json_kv_str(f, in->labels[k].key, in->labels[k].value, k > 0);
		fputs("}}", f);
	}
	fputs("\n]", f);
}

static int json(const struct model *m, const struct report_opts *o,
		const struct model_thread *const *list, size_t n, const struct totals *t)
{
	FILE *f = o->out;

	fputs("{", f);
	json_kv_str(f, "trace", o->trace_path, 0);
	fprintf(f, ",\"complete\":%s,\"truncated\":%s", m->has_end ? "true" : "false",
		o->res && o->res->status == TRACE_TRUNCATED ? "true" : "false");
	if (o->res)
		fprintf(f, ",\"format\":\"%u.%u\",\"bytes\":%" PRIu64 ",\"chunks\":%" PRIu64,
			o->res->version_major, o->res->version_minor, o->res->file_bytes,
			o->res->chunks);
	fputs(",\"meta\":{", f);
	for (size_t i = 0; i < m->nmeta; i++)
		json_kv_str(f, m->meta[i].key, m->meta[i].value, i > 0);
	fprintf(f, "},\n\"events\":%" PRIu64 ",\"threads\":%zu,\"threads_total\":%zu", t->s.events,
		n, m->nthreads);
	fputs(",\n\"metrics\":[", f);
	for (unsigned i = 0; i < m->nmetrics; i++) {
		fputs(i ? ",{" : "{", f);
		json_kv_str(f, "name", m->metric[i].name, 0);
		json_kv_str(f, "unit", m->metric[i].unit, 1);
		fputs(",\"why\":", f);
		json_string(f, m->metric[i].why[0] ? m->metric[i].why : NULL);
		fprintf(f, ",\"total\":%" PRIu64 ",\"raw_total\":%" PRIu64 "}",
			model_value(m, i, t->cum[i]), model_value(m, i, t->raw_cum[i]));
	}
	fputs("],\n\"types\":{", f);
	for (unsigned k = 0; k < JCAL_MT_COUNT; k++)
		fprintf(f, "%s\"%c\":%" PRIu64, k ? "," : "", jcal_mtype_letter(k),
			t->s.by_type[k]);
	fputs("},\"transitions\":{", f);
	for (unsigned k = 0; k < JCAL_TR_COUNT; k++)
		fprintf(f, "%s\"%c\":%" PRIu64, k ? "," : "", jcal_transition_letter(k),
			t->s.by_transition[k]);
	fprintf(f,
		"},\n\"methods\":%zu,\"contexts\":%" PRIu64 ",\"unmatched_exits\":%" PRIu64
		",\"mismatched_exits\":%" PRIu64 ",\"frames_unwound\":%" PRIu64
		",\"open_frames_closed\":%" PRIu64 ",\"backwards_deltas\":%" PRIu64
		",\"outside_trees\":{\"threads\":%" PRIu64 ",\"span\":%" PRIu64
		",\"in_trees\":%" PRIu64 ",\"outside\":%" PRIu64 "}"
		",\"regions\":{\"starts\":%" PRIu64 ",\"stops\":%" PRIu64 ",\"marks\":%" PRIu64 "}",
		m->nmethods_defined, t->contexts, t->s.unmatched_exits, t->s.mismatched_exits,
		t->s.frames_unwound, t->s.open_frames, t->s.backwards, t->spanned,
		model_value(m, o->metric, t->span), model_value(m, o->metric, t->span_in_trees),
		model_value(m, o->metric, outside_trees(t)), t->s.controls[JCAL_CTL_START],
		t->s.controls[JCAL_CTL_STOP], t->s.controls[JCAL_CTL_MARK]);
	if (t->deep)
		fprintf(f, ",\"max_depth\":%" PRIu32 ",\"deeper_contexts\":%" PRIu64,
			report_max_depth(o), t->deep);
	if (m->has_end)
		fprintf(f, ",\"lost_events\":%" PRIu64, m->end.lost_events);
	else
		fputs(",\"lost_events\":null", f);
	fputs(",\n\"calib\":", f);
	if (o->calib) {
		const struct calib_apply *c = o->calib;

		fputs("{", f);
		json_kv_str(f, "table", c->path, 0);
		fprintf(f, ",\"fingerprint_match\":%s,\"differing_fields\":",
			c->fp_known && !c->fp_match ? "false" : "true");
		json_string(f, c->fp_known && !c->fp_match ? c->fp_diff : NULL);
		json_kv_str(f, "unit", c->table.unit, 1);
		json_kv_str(f, "created", c->table.created, 1);
		json_kv_str(f, "env_method", c->table.env_method, 1);
		fprintf(f,
			",\"metric\":0,\"keys_in_table\":%u,\"keys_seen\":%u,\"keys_found\":%u"
			",\"deltas\":%" PRIu64 ",\"clamped\":%" PRIu64 ",\"fallback\":%" PRIu64
			",\"fallback_static\":%" PRIu64 ",\"fallback_global\":%" PRIu64,
			c->table.nkeys, c->keys_seen, c->keys_found, c->deltas, c->clamped,
			c->fallback_similar + c->fallback_global, c->fallback_similar,
			c->fallback_global);
		if (c->has_ref) {
			fputs(",\"inrun_vs_stored\":{", f);
			json_kv_str(f, "stored", c->ref_path, 0);
			fprintf(f, ",\"keys\":%u,\"median_shift\":%.4f,\"low\":%.4f,\"high\":%.4f}",
				c->shift_keys, c->shift_median, c->shift_low, c->shift_high);
		}
		fputs("}", f);
	} else {
		fputs("null", f);
	}
	if (throttled_summary_json(m, o)) /* mode=bci, throttle= */
		return -1;
	if (m->ninputs)
		inputs_json(f, m);
	fputs(",\n\"thread_list\":[", f);
	for (size_t i = 0; i < n; i++) {
		const struct model_thread *th = list[i];
		uint64_t wall, off;

		fprintf(f, "%s{\"serial\":%" PRIu32 ",\"name\":", i ? ",\n" : "\n", th->serial);
		json_string(f, th->name);
		fprintf(f,
			",\"java_tid\":%" PRIu64 ",\"os_tid\":%" PRIu32 ",\"kind\":\"%s\""
			",\"events\":%" PRIu64 ",\"cum\":%" PRIu64,
			th->java_tid, th->os_tid, model_thread_kind(th), th->tree.stats.events,
			model_value(m, o->metric,
				    calltree_fig(&th->tree, CALLTREE_ROOT, o->metric)->cum));
		/* with tsc and cputime: its wall time and the part off the CPU */
		if (!offcpu_thread(m, &th->tree, &wall, &off))
			fprintf(f, ",\"wall\":%" PRIu64 ",\"offcpu\":%" PRIu64, wall, off);
		if (wait_summary_json(f, m, th)) /* the JVM's monitor events */
			return -1;
		fputc('}', f);
	}
	fputs("\n]}\n", f);
	return 0;
}

/* A merged profile's inputs as "input.I.KEY,VALUE" rows (I from 1). */
static void inputs_csv(FILE *f, const struct model *m)
{
	fprintf(f, "inputs,%zu\n", m->ninputs);
	for (size_t i = 0; i < m->ninputs; i++) {
		const struct model_input *in = &m->inputs[i];
		const char *keys[] = {"path", "kind", "host", "pid", "jvm", "metrics", "calib"};
		const char *vals[] = {
		    in->path,	 in->snapshot ? "snapshot" : "trace", in->host, in->pid, in->jvm,
		    in->metrics, in->calib ? in->calib : "none"};

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			fprintf(f, "input.%zu.%s,", i + 1, keys[k]);
			csv_field(f, vals[k]);
			fputc('\n', f);
		}
		fprintf(f, "input.%zu.events,%" PRIu64 "\ninput.%zu.threads,%zu\n", i + 1,
			in->events, i + 1, in->threads);
		for (size_t k = 0; k < in->nlabels; k++) {
			char key[128];

			snprintf(key, sizeof(key), "input.%zu.label.%s", i + 1, in->labels[k].key);
			csv_field(f, key);
			fputc(',', f);
			csv_field(f, in->labels[k].value);
			fputc('\n', f);
		}
	}
}

/* With tsc and cputime: "thread.SERIAL.wall" and "thread.SERIAL.offcpu"
 * rows (offcpu.h). */
static void offcpu_csv(FILE *f, const struct model *m, const struct model_thread *const *list,
		       size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t wall, off;

		if (!offcpu_thread(m, &list[i]->tree, &wall, &off))
			fprintf(f,
				"thread.%" PRIu32 ".wall,%" PRIu64 "\nthread.%" PRIu32
				".offcpu,%" PRIu64 "\n",
				list[i]->serial, wall, list[i]->serial, off);
	}
}

static int csv(const struct model *m, const struct report_opts *o,
	       const struct model_thread *const *list, size_t n, const struct totals *t)
{
	FILE *f = o->out;
	char buf[32];

	fputs("key,value\n", f);
	fprintf(f, "events,%" PRIu64 "\nthreads,%zu\n", t->s.events, n);
	for (unsigned k = 0; k < JCAL_MT_COUNT; k++)
		fprintf(f, "type.%c,%" PRIu64 "\n", jcal_mtype_letter(k), t->s.by_type[k]);
	for (unsigned k = 0; k < JCAL_TR_COUNT; k++)
		fprintf(f, "transition.%c,%" PRIu64 "\n", jcal_transition_letter(k),
			t->s.by_transition[k]);
	for (unsigned i = 0; i < m->nmetrics; i++) {
		snprintf(buf, sizeof(buf), "metric.%u.name,", i);
		fputs(buf, f);
		csv_field(f, m->metric[i].name);
		fprintf(f, "\nmetric.%u.unit,", i);
		csv_field(f, m->metric[i].unit);
		fprintf(f, "\nmetric.%u.total,%" PRIu64 "\n", i, model_value(m, i, t->cum[i]));
	}
	fprintf(f,
		"methods,%zu\ncontexts,%" PRIu64 "\nunmatched_exits,%" PRIu64
		"\nmismatched_exits,%" PRIu64 "\nframes_unwound,%" PRIu64
		"\nopen_frames_closed,%" PRIu64 "\nbackwards_deltas,%" PRIu64 "\ncomplete,%d\n",
		m->nmethods_defined, t->contexts, t->s.unmatched_exits, t->s.mismatched_exits,
		t->s.frames_unwound, t->s.open_frames, t->s.backwards, m->has_end);
	if (t->deep)
		fprintf(f, "max_depth,%" PRIu32 "\ndeeper_contexts,%" PRIu64 "\n",
			report_max_depth(o), t->deep);
	if (m->snapshot)
		fprintf(f, "snapshot,1\nfolded_contexts,%" PRIu64 "\nfolded_calls,%" PRIu64 "\n",
			t->s.folded_contexts, t->s.folded_calls);
	fputs("calib,", f);
	csv_field(f, o->calib_desc ? o->calib_desc : "none");
	fputc('\n', f);
	if (o->calib) {
		const struct calib_apply *c = o->calib;

		fprintf(f,
			"calib.keys_in_table,%u\ncalib.keys_seen,%u\ncalib.keys_found,%u\n"
			"calib.deltas,%" PRIu64 "\ncalib.clamped,%" PRIu64
			"\ncalib.fallback,%" PRIu64 "\ncalib.fallback_static,%" PRIu64
			"\ncalib.fallback_global,%" PRIu64 "\ncalib.fingerprint_match,%d\n",
			c->table.nkeys, c->keys_seen, c->keys_found, c->deltas, c->clamped,
			c->fallback_similar + c->fallback_global, c->fallback_similar,
			c->fallback_global, !(c->fp_known && !c->fp_match));
	}
	if (throttled_summary_csv(m, o)) /* mode=bci, throttle= */
		return -1;
	offcpu_csv(f, m, list, n);
	if (wait_summary_csv(f, m, list, n)) /* the JVM's monitor events */
		return -1;
	if (m->ninputs)
		inputs_csv(f, m);
	for (size_t i = 0; i < m->nmeta; i++) {
		char *key;

		if (asprintf(&key, "meta.%s", m->meta[i].key) < 0)
			return -1;
		csv_field(f, key);
		free(key);
		fputc(',', f);
		csv_field(f, m->meta[i].value);
		fputc('\n', f);
	}
	return 0;
}

int report_summary(const struct model *m, const struct report_opts *o)
{
	const struct model_thread **list;
	struct totals t;
	size_t n;
	int err = 0;

	if (report_threads(m, o, &list, &n))
		return -1;
	add_up(list, n, o->metric, report_max_depth(o), &t);
	switch (o->format) {
	case REPORT_TEXT:
		err = text(m, o, list, n, &t);
		break;
	case REPORT_CSV:
		err = csv(m, o, list, n, &t);
		break;
	case REPORT_JSON:
		err = json(m, o, list, n, &t);
		break;
	}
	free(list);
	return err;
}
