/*
 * report_slow.c - the slow report (docs/jcal-post.md, slow): the longest
 * single calls (slow.h) of a trace, or those the agent kept in a snapshot
 * (slow=), each with its method, duration, thread, start on the wall
 * clock, calling context and largest callees, in text, CSV or JSON.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "postproc/output.h"
#include "postproc/report.h"
#include "postproc/report_util.h"
#include "postproc/slow.h"

/* The path of c, root first, as text ("a > b"), CSV ("a;b", written
 * raw: the caller quotes) or a JSON array; frames left out of a
 * snapshot's path first, as "... N frames". */
static void path(FILE *f, const struct model *m, const struct slow_call *c, enum report_format fmt)
{
	if (c->omitted && fmt == REPORT_TEXT)
		fprintf(f, "... %" PRIu32 " frames > ", c->omitted);
	else if (c->omitted && fmt == REPORT_CSV)
		fprintf(f, "... %" PRIu32 " frames;", c->omitted);
	report_path(f, m, c->path, c->depth, fmt);
}

/* The callees of c as CSV ("name=duration;...", written raw). */
static void csv_callees(FILE *f, const struct model *m, unsigned mi, const struct slow_call *c)
{
	for (unsigned i = 0; i < c->ncallees; i++)
		fprintf(f, "%s%s=%" PRIu64, i ? ";" : "", model_method_name(m, c->callee[i].method),
			calls_value(m, mi, c->callee[i].value));
}

/* A CSV field written by fn into memory first, then quoted as needed. */
static void csv_built(FILE *f, const struct model *m, unsigned mi, const struct slow_call *c,
		      int callees)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (!mem)
		return;
	if (callees)
		csv_callees(mem, m, mi, c);
	else
		path(mem, m, c, REPORT_CSV);
	if (!fclose(mem))
		csv_field(f, buf);
	free(buf);
}

static void start_text(const struct slow_call *c, char *buf, size_t len)
{
	if (c->start_ns)
		slow_time(c->start_ns, buf, len);
	else
		buf[0] = '\0';
}

static const char *thread_name(const struct slow_call *c)
{
	return c->th ? c->th->name : "";
}

static void text_call(const struct model *m, const struct report_opts *o, const struct slow *s,
		      size_t i)
{
	const struct slow_call *c = &s->calls[i];
	uint64_t d = calls_value(m, s->metric, c->value);
	char start[64];

	start_text(c, start, sizeof(start));
	fprintf(o->out, "%3zu  %" PRIu64 "  ", i + 1, d);
	text_escape(o->out, model_method_name(m, c->method));
	fputs("  thread \"", o->out);
	text_escape(o->out, thread_name(c));
	fprintf(o->out, "\" #%" PRIu32, c->serial);
	if (start[0])
		fprintf(o->out, "  start %s", start);
	fputs(c->live ? "  (live before tracing)\n     path  " : "\n     path  ", o->out);
	path(o->out, m, c, REPORT_TEXT);
	fputc('\n', o->out);
	fprintf(o->out, "     self   %*" PRIu64 " %6.2f%%%s\n", (int)report_width(1, d),
		calls_value(m, s->metric, c->self),
		report_pct(calls_value(m, s->metric, c->self), d),
		c->partial ? "  (with its callees before the agent folded its tree)" : "");
	for (unsigned k = 0; k < c->ncallees; k++) {
		uint64_t v = calls_value(m, s->metric, c->callee[k].value);

		fprintf(o->out, "     %s %*" PRIu64 " %6.2f%%  ", k ? "      " : "callee",
			(int)report_width(1, d), v, report_pct(v, d));
		text_escape(o->out, model_method_name(m, c->callee[k].method));
		fputc('\n', o->out);
	}
}

/* A snapshot's calls: which the agent kept. */
static void text_kept(const struct model *m, const struct report_opts *o, const struct slow *s)
{
	fprintf(o->out,
		"Kept by the agent (slow=): the %" PRIu64 " longest calls of at least %" PRIu64
		" ns; %" PRIu64 " calls were that long",
		s->kept_max, s->kept_ns, s->kept_over);
	if (m->nslow < s->kept_over)
		fprintf(o->out, ", the %zu longest kept", m->nslow);
	fputs("\n", o->out);
}

static void text(const struct model *m, const struct report_opts *o, const struct slow *s)
{
	char label[128];

	report_metric_label(m, s->metric, label, sizeof(label));
	fputs("Slowest calls  metric ", o->out);
	text_escape(o->out, label);
	fprintf(o->out, "%s  %zu of %" PRIu64 " calls, longest first\n",
		o->calibrated ? "  calibrated" : "", s->n, s->seen);
	if (s->kept)
		text_kept(m, o, s);
	if (!s->n)
		fputs(s->kept ? "No call was that long.\n" : "No method recorded a call.\n",
		      o->out);
	for (size_t i = 0; i < s->n; i++)
		text_call(m, o, s, i);
}

static void csv(const struct model *m, const struct report_opts *o, const struct slow *s)
{
	fputs("rank,method,duration,thread,start,start_ns,path,self,callees\n", o->out);
	for (size_t i = 0; i < s->n; i++) {
		const struct slow_call *c = &s->calls[i];
		char label[300], start[64];

		start_text(c, start, sizeof(start));
		snprintf(label, sizeof(label), "%s#%" PRIu32, thread_name(c), c->serial);
		fprintf(o->out, "%zu,", i + 1);
		csv_field(o->out, model_method_name(m, c->method));
		fprintf(o->out, ",%" PRIu64 ",", calls_value(m, s->metric, c->value));
		csv_field(o->out, label);
		fprintf(o->out, ",%s,", start);
		if (c->start_ns)
			fprintf(o->out, "%" PRIu64, c->start_ns);
		fputc(',', o->out);
		csv_built(o->out, m, s->metric, c, 0);
		fprintf(o->out, ",%" PRIu64 ",", calls_value(m, s->metric, c->self));
		csv_built(o->out, m, s->metric, c, 1);
		fputc('\n', o->out);
	}
}

static void json_call(const struct model *m, const struct report_opts *o, const struct slow *s,
		      size_t i)
{
	const struct slow_call *c = &s->calls[i];
	char start[64];

	start_text(c, start, sizeof(start));
	fprintf(o->out, "%s{\"rank\":%zu,\"method\":", i ? ",\n" : "\n", i + 1);
	json_string(o->out, model_method_name(m, c->method));
	fprintf(o->out,
		",\"duration\":%" PRIu64 ",\"thread\":", calls_value(m, s->metric, c->value));
	json_string(o->out, thread_name(c));
	fprintf(o->out, ",\"serial\":%" PRIu32 ",\"start\":", c->serial);
	if (c->start_ns)
		fprintf(o->out, "\"%s\",\"start_ns\":%" PRIu64, start, c->start_ns);
	else
		fputs("null,\"start_ns\":null", o->out);
	fprintf(o->out, ",\"live\":%s,\"path\":", c->live ? "true" : "false");
	report_path(o->out, m, c->path, c->depth, REPORT_JSON);
	if (s->kept)
		fprintf(o->out, ",\"path_omitted\":%" PRIu32 ",\"partial\":%s", c->omitted,
			c->partial ? "true" : "false");
	fprintf(o->out, ",\"self\":%" PRIu64 ",\"callees\":[", calls_value(m, s->metric, c->self));
	for (unsigned k = 0; k < c->ncallees; k++) {
		fputs(k ? ",{\"method\":" : "{\"method\":", o->out);
		json_string(o->out, model_method_name(m, c->callee[k].method));
		fprintf(o->out, ",\"duration\":%" PRIu64 "}",
			calls_value(m, s->metric, c->callee[k].value));
	}
	fputs("]}", o->out);
}

static void json(const struct model *m, const struct report_opts *o, const struct slow *s)
{
	fputs("{\"metric\":{\"name\":", o->out);
	json_string(o->out, m->metric[s->metric].name);
	fputs(",\"unit\":", o->out);
	json_string(o->out, m->metric[s->metric].unit);
	fprintf(o->out, "},\"calibrated\":%s,\"seen\":%" PRIu64, o->calibrated ? "true" : "false",
		s->seen);
	if (s->kept)
		fprintf(o->out,
			",\"kept\":{\"min_ns\":%" PRIu64 ",\"max\":%" PRIu64 ",\"over\":%" PRIu64
			"}",
			s->kept_ns, s->kept_max, s->kept_over);
	fputs(",\"calls\":[", o->out);
	for (size_t i = 0; i < s->n; i++)
		json_call(m, o, s, i);
	fputs("\n]}\n", o->out);
}

int report_slow(const struct model *m, const struct report_opts *o)
{
	struct slow_opts so = {0};
	struct slow s;
	char errbuf[REPORT_ERR_LEN];
	char *err = o->err ? o->err : errbuf;

	so.path = o->trace_path;
	so.metric = o->metric;
	so.sel = o->sel;
	so.shp = o->shaping;
	so.top = o->top;
	so.progress = o->progress;
	so.inputs = o->inputs;
	if (slow_build(m, &so, &s, err, REPORT_ERR_LEN))
		return -1;
	if (o->format == REPORT_TEXT)
		text(m, o, &s);
	else if (o->format == REPORT_CSV)
		csv(m, o, &s);
	else
		json(m, o, &s);
	slow_free(&s);
	return 0;
}
