/*
 * modelgen.h - builds small jcal-post models for the report and export
 * tests: through the model's reader callbacks (as the trace reader would
 * call them), from scripts of named methods, or from the fig4a golden
 * events; and writes the same script as a real trace file for the exports
 * that re-read the trace.
 *
 * A script is text, one event per line: "metric E|X|T method", '#' starts
 * a comment; method names are looked up in (and added to) a table whose
 * ids start at 1. The same scripts also make tree snapshots
 * (mg_snapshot_file). mg_meta, when set, holds more meta records the files
 * get ({key, value, ..., NULL}: a host's fingerprint, pid, labels) and
 * mg_nometrics leaves out the "metrics" and "metric.0.*" records (given
 * in mg_meta instead).
 */
#ifndef JCAL_TEST_MODELGEN_H
#define JCAL_TEST_MODELGEN_H

#include <stdio.h>
#include <string.h>

#include "common/lathist.h"
#include "common/tree_snapshot.h"
#include "native-tests/golden.h"
#include "postproc/model.h"
#include "postproc/report.h"
#include "native-tests/tracegen.h"

struct mg_names {
	char name[32][64];
	unsigned n;
};

static const char *const *mg_meta;
static int mg_nometrics;
/* mg_snapshot_file: the trees keep the histograms of their calls, written
 * as the agent writes them (open calls counted as ending at the last
 * event, calltree_hists_copy). */
static int mg_snapshot_hists;

/* The meta records of a file: mode, the metric, then mg_meta's. */
static inline void mg_write_meta(struct trace_recbuf *rb, const char *metric, const char *unit)
{
	trace_rec_meta(rb, "mode", "events");
	if (!mg_nometrics) {
		trace_rec_meta(rb, "metrics", metric ? metric : "ticks");
		trace_rec_meta(rb, "metric.0.name", metric ? metric : "ticks");
		trace_rec_meta(rb, "metric.0.unit", unit ? unit : "ticks");
	}
	for (const char *const *p = mg_meta; p && p[0] && p[1]; p += 2)
		trace_rec_meta(rb, p[0], p[1]);
}

/* Id of a method name ("pkg.Class.m" or "m"), added when new. */
static inline uint32_t mg_id(struct mg_names *t, const char *name)
{
	for (unsigned i = 0; i < t->n; i++)
		if (!strcmp(t->name[i], name))
			return i + 1;
	if (t->n == 32)
		return 0;
	snprintf(t->name[t->n], sizeof(t->name[0]), "%s", name);
	return ++t->n;
}

/* Splits "pkg.Class.m" into the JVM class descriptor "Lpkg/Class;", "m"
 * and the descriptor "()V"; a name without a dot has no class, and a name
 * with a descriptor of its own ("p.C.m()Ljava/lang/Object;") keeps it. */
static inline void mg_split(const char *full, char *cls, size_t clen, char *meth, size_t mlen,
			    char *sig, size_t slen)
{
	const char *paren = strchr(full, '('), *dot;
	size_t n = paren ? (size_t)(paren - full) : strlen(full);

	snprintf(sig, slen, "%s", paren ? paren : "()V");
	cls[0] = '\0';
	dot = memrchr(full, '.', n);
	if (!dot) {
		snprintf(meth, mlen, "%.*s", (int)n, full);
		return;
	}
	snprintf(meth, mlen, "%.*s", (int)(full + n - dot - 1), dot + 1);
	snprintf(cls, clen, "L%.*s;", (int)(dot - full), full);
	for (char *p = cls; *p; p++)
		if (*p == '.')
			*p = '/';
}

/* Parses one script line; returns 1 for an event, 0 for a comment or blank,
 * -1 for garbage. */
static inline int mg_parse(const char *line, unsigned long long *v, unsigned *trans, char *name)
{
	char tr;

	while (*line == ' ' || *line == '\t')
		line++;
	if (!*line || *line == '#' || *line == '\n')
		return 0;
	if (sscanf(line, "%llu %c %63s", v, &tr, name) != 3)
		return -1;
	*trans = tr == 'E' ? JCAL_TR_ENTRY : tr == 'X' ? JCAL_TR_EXIT : JCAL_TR_THROW;
	return 1;
}

/* Builds m from scripts[i] for threads 1..n named names[i]; metric
 * "ticks" (unit "ticks") unless metric/unit are given. Returns 0 or -1. */
static inline int mg_model(struct model *m, const char *const *scripts, const char *const *names,
			   unsigned n, const char *metric, const char *unit)
{
	struct trace_visitor v;
	struct mg_names tab = {0};
	char cls[64], name[64], meth[64], sig[64];

	model_init(m, NULL);
	model_visitor(m, &v);
	v.meta(v.ctx, "mode", "events");
	v.meta(v.ctx, "metrics", metric ? metric : "ticks");
	v.meta(v.ctx, "metric.0.name", metric ? metric : "ticks");
	v.meta(v.ctx, "metric.0.unit", unit ? unit : "ticks");
	for (unsigned ti = 0; ti < n; ti++) {
		struct trace_thread tt = {0};
		const char *p = scripts[ti];

		tt.serial = ti + 1;
		tt.java_tid = ti + 1;
		tt.os_tid = 4242 + ti;
		tt.name = names[ti];
		if (v.thread_start(v.ctx, &tt))
			return -1;
		while (p && *p) {
			struct trace_event e = {.thread = ti + 1, .nmetrics = 1};
			unsigned long long val;
			unsigned trans;
			int r = mg_parse(p, &val, &trans, name);

			if (r < 0)
				return -1;
			if (r > 0) {
				e.transition = trans;
				e.type = JCAL_MT_INTERP_STATIC;
				e.method = mg_id(&tab, name);
				e.metric[0] = val;
				if (v.event(v.ctx, &e))
					return -1;
			}
			p = strchr(p, '\n');
			if (p)
				p++;
		}
	}
	for (unsigned i = 0; i < tab.n; i++) {
		struct trace_method tm = {0};

		mg_split(tab.name[i], cls, sizeof(cls), meth, sizeof(meth), sig, sizeof(sig));
		tm.id = i + 1;
		tm.modifiers = JCAL_ACC_STATIC;
		tm.class_sig = cls;
		tm.name = meth;
		tm.sig = sig;
		if (v.method(v.ctx, &tm))
			return -1;
	}
	{
		struct trace_end end = {0, 1, 0};

		v.end(v.ctx, &end);
	}
	if (model_finish(m) || model_names(m, 0))
		return -1;
	return 0;
}

/* Reads a golden events file ("fig4a.events") into one script string
 * (static buffer). */
static inline const char *mg_golden_script(const char *file)
{
	static char buf[16384];
	char lines[256][256];
	int n = golden_lines(file, lines, 256);
	size_t pos = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && pos < sizeof(buf) - 300; i++)
		pos += (size_t)snprintf(buf + pos, sizeof(buf) - pos, "%s\n", lines[i]);
	return buf;
}

/* The fig4a golden vector as one thread "main": methods A B C X. */
static inline int mg_fig4a(struct model *m)
{
	const char *s = mg_golden_script("fig4a.events");
	const char *names[] = {"main"};

	return mg_model(m, &s, names, 1, NULL, NULL);
}

/* Writes scripts as a real trace file at path (same ids and names as
 * mg_model). Returns 0 or -1. */
static inline int mg_trace_file(const char *path, const char *const *scripts,
				const char *const *names, unsigned n, const char *metric,
				const char *unit)
{
	struct tracegen tg;
	struct mg_names tab = {0};
	char cls[64], name[64], meth[64], sig[64];
	uint64_t events = 0;

	/* ids first, so METHOD records come before the events */
	for (unsigned ti = 0; ti < n; ti++)
		for (const char *p = scripts[ti]; p && *p;) {
			unsigned long long val;
			unsigned trans;

			if (mg_parse(p, &val, &trans, name) > 0)
				mg_id(&tab, name);
			p = strchr(p, '\n');
			if (p)
				p++;
		}
	if (tg_open(&tg, path))
		return -1;
	mg_write_meta(&tg.rb, metric, unit);
	for (unsigned i = 0; i < tab.n; i++) {
		mg_split(tab.name[i], cls, sizeof(cls), meth, sizeof(meth), sig, sizeof(sig));
		trace_rec_method(&tg.rb, i + 1, JCAL_ACC_STATIC, cls, meth, sig);
	}
	for (unsigned ti = 0; ti < n; ti++)
		trace_rec_thread_start(&tg.rb, ti + 1, ti + 1, 4242 + ti, 0, 0, names[ti], 1,
				       (uint64_t[]){0});
	tg_flush(&tg);
	for (unsigned ti = 0; ti < n; ti++) {
		tg_events_begin(&tg, ti + 1, 1);
		for (const char *p = scripts[ti]; p && *p;) {
			unsigned long long val;
			unsigned trans;
			uint64_t metricv[1];

			if (mg_parse(p, &val, &trans, name) > 0) {
				metricv[0] = val;
				tg_event(&tg, trans, JCAL_MT_INTERP_STATIC, mg_id(&tab, name),
					 metricv);
				events++;
			}
			p = strchr(p, '\n');
			if (p)
				p++;
		}
		tg_events_end(&tg);
	}
	trace_rec_end(&tg.rb, events, n, 0); /* END's counts must match the file */
	return tg_close(&tg);
}

static inline int mg_snapshot_flush(void *ctx, struct trace_recbuf *rb)
{
	size_t n = trace_recbuf_finish(rb);
	int err = fwrite(rb->buf, 1, n, ctx) == n ? 0 : -1;

	trace_recbuf_clear(rb);
	return err;
}

/* Writes scripts as a tree snapshot at path (format 3.x: the same ids and
 * names as mg_trace_file, each thread's tree built from its script, raw
 * figures only, as an agent without a calibration table writes it).
 * Returns 0 or -1. */
static inline int mg_snapshot_file(const char *path, const char *const *scripts,
				   const char *const *names, unsigned n)
{
	struct mg_names tab = {0};
	uint8_t h[TRACE_FILE_HEADER_LEN];
	struct trace_recbuf rb;
	char cls[64], name[64], meth[64], sig[64];
	FILE *f = fopen(path, "wb");
	struct tree_snapshot_sink sink = {mg_snapshot_flush, f};
	int err = 0;

	if (!f)
		return -1;
	for (unsigned ti = 0; ti < n; ti++)
		for (const char *p = scripts[ti]; p && *p;) {
			unsigned long long val;
			unsigned trans;

			if (mg_parse(p, &val, &trans, name) > 0)
				mg_id(&tab, name);
			p = strchr(p, '\n');
			if (p)
				p++;
		}
	trace_snapshot_header(h);
	err |= fwrite(h, 1, sizeof(h), f) != sizeof(h);
	trace_recbuf_init(&rb);
	mg_write_meta(&rb, NULL, NULL);
	for (unsigned i = 0; i < tab.n; i++) {
		mg_split(tab.name[i], cls, sizeof(cls), meth, sizeof(meth), sig, sizeof(sig));
		trace_rec_method(&rb, i + 1, JCAL_ACC_STATIC, cls, meth, sig);
	}
	for (unsigned ti = 0; ti < n && !err; ti++) {
		struct calltree t;

		trace_rec_thread_start(&rb, ti + 1, ti + 1, 4242 + ti, 0, 0, names[ti], 1,
				       (uint64_t[]){0});
		if (calltree_init(&t, 1, NULL) || (mg_snapshot_hists && calltree_keep_hists(&t))) {
			calltree_free(&t);
			err = 1;
			break;
		}
		for (const char *p = scripts[ti]; p && *p;) {
			unsigned long long val;
			unsigned trans;
			uint64_t v[1];

			if (mg_parse(p, &val, &trans, name) > 0) {
				v[0] = val;
				err |= calltree_event(&t, mg_id(&tab, name), trans,
						      JCAL_MT_INTERP_STATIC, v) != 0;
			}
			p = strchr(p, '\n');
			if (p)
				p++;
		}
		if (mg_snapshot_hists) { /* the copies, open calls in, take the originals' place */
			struct lathist **c = malloc((size_t)t.cap * sizeof(*c));

			err |= !c || calltree_hists_copy(&t, c) != 0;
			for (uint32_t i = 0; c && i < t.nnodes; i++) {
				lathist_free(t.hist[i]);
				t.hist[i] = err ? NULL : c[i];
			}
			free(c);
		}
		err |= tree_snapshot_write(&rb, ti + 1, &t, TRACE_TREE_ENDED, &sink) != 0;
		calltree_free(&t);
	}
	trace_rec_end(&rb, 0, n, 0);
	err |= mg_snapshot_flush(f, &rb) != 0;
	trace_recbuf_free(&rb);
	err |= fclose(f) != 0;
	return err ? -1 : 0;
}

/* Loads the trace or snapshot at path into m (model_init with comp, NULL
 * for none), finished and named. Returns 0, or -1 (m is then only fit for
 * model_free). */
static inline int mg_load(struct model *m, const char *path, const struct calltree_comp *comp)
{
	struct trace_result res;

	model_init(m, comp);
	if (model_load(m, path, &res) != TRACE_OK || model_finish(m) || model_names(m, 0))
		return -1;
	return 0;
}

/* Runs fn(m, o) into a memory string (free it); o->out is set here. */
static inline char *mg_run(int (*fn)(const struct model *, const struct report_opts *),
			   const struct model *m, struct report_opts *o, int *status)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	o->out = f;
	*status = fn(m, o);
	fclose(f);
	o->out = NULL;
	return s;
}

/* Compares got with golden file name; JCAL_GOLDEN_UPDATE=1 rewrites it.
 * Returns 1 when equal (or rewritten). */
static inline int mg_golden_equal(const char *got, const char *name)
{
	char *want;
	int eq;

	if (getenv("JCAL_GOLDEN_UPDATE")) {
		char path[512];
		FILE *f;

		snprintf(path, sizeof(path), "native-tests/golden/%s", name);
		f = fopen(path, "w");
		if (!f)
			return 0;
		fputs(got, f);
		fclose(f);
		return 1;
	}
	want = golden_text(name);
	eq = want && got && !strcmp(got, want);
	if (!eq)
		fprintf(stderr, "  golden %s differs:\n--- got ---\n%s--- expected ---\n%s", name,
			got ? got : "(null)", want ? want : "(missing)\n");
	free(want);
	return eq;
}

#endif
