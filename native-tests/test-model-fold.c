/*
 * test-model-fold.c - threads folded into one tree as they end
 * (postproc/model_fold.c, model_fold in postproc/model.h): on random
 * traces of many threads (foldgen.h) that end out of order, interleave
 * their chunks, leave frames open or never end, every report that may
 * fold (flat and callers; tree, hot, arcs and the context exports with
 * --merge-threads, --min-pct after the merge, --thread) prints byte for
 * byte what it prints from the threads kept apart, folded at their end
 * (on the reading thread, or after the tree workers built them) or after
 * the read; a thread that comes back after its end breaks the fold, and
 * jcal-post's load (postproc/input.c) then reads the file again. Runs
 * threads: also run under ThreadSanitizer (make tsan).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "native-tests/foldgen.h"
#include "native-tests/threadgen.h"
#include "native-tests/modelgen.h"
#include "native-tests/test.h"
#include "postproc/input.h"
#include "postproc/report.h"
#include "postproc/shaping.h"

static char dir[64];

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* A fold or none: NOFOLD, or the flags of model_fold. */
#define NOFOLD (~0u)

/* Loads path as jcal-post does, folding with flags (NOFOLD: not), jobs
 * tree workers that decode chunks. Returns 0 or -1. */
static int load(struct model *m, const char *path, unsigned flags, const struct threadsel *sel,
		unsigned jobs)
{
	struct trace_result res;

	model_init(m, NULL);
	if (flags != NOFOLD && model_fold(m, sel, flags))
		return -1;
	model_jobs(m, jobs, jobs > 0);
	if (model_load(m, path, &res) != TRACE_OK || model_redo(m))
		return -1;
	return model_finish(m) || model_names(m, 0) ? -1 : 0;
}

/* One report of a model as jcal-post's run_report() makes it: shaped when
 * so asks for it, the selection sel unless the model is folded. */
static char *report(int (*fn)(const struct model *, const struct report_opts *), struct model *m,
		    enum report_format fmt, enum tree_order order, const struct threadsel *sel,
		    struct shape_opts so)
{
	static struct shape_info info;
	struct report_opts o = {0};
	char err[REPORT_ERR_LEN] = "";
	char *s;
	int st;

	memset(&info, 0, sizeof(info));
	so.sel = m->folded ? NULL : sel;
	o.sel = m->folded || so.merge ? NULL : sel;
	if (shape_active(&so) && shape_apply(m, &so, &info))
		return NULL;
	o.format = fmt;
	o.order = order;
	o.shaped = &info;
	o.shaping = &so;
	o.err = err;
	s = mg_run(fn, m, &o, &st);
	if (st) {
		free(s);
		return NULL;
	}
	return s;
}

struct kind {
	const char *name;
	int (*fn)(const struct model *, const struct report_opts *);
	enum report_format fmt;
	enum tree_order order;
};

/* The reports a fold serves, without --merge-threads and with it. */
static const struct kind plain_kinds[] = {
    {"flat", report_flat, REPORT_TEXT, 0},	    {"flat csv", report_flat, REPORT_CSV, 0},
    {"flat json", report_flat, REPORT_JSON, 0},	    {"callers", report_callers, REPORT_TEXT, 0},
    {"callers csv", report_callers, REPORT_CSV, 0},
};
static const struct kind merged_kinds[] = {
    {"tree", report_tree, REPORT_TEXT, TREE_ORDER_CUM},
    {"tree call", report_tree, REPORT_TEXT, TREE_ORDER_CALL},
    {"tree csv call", report_tree, REPORT_CSV, TREE_ORDER_CALL},
    {"tree json", report_tree, REPORT_JSON, TREE_ORDER_CALL},
    {"hot", report_hot, REPORT_TEXT, 0},
    {"arcs", report_arcs, REPORT_TEXT, 0},
    {"arcs csv", report_arcs, REPORT_CSV, 0},
    {"callers", report_callers, REPORT_TEXT, 0},
    {"flat", report_flat, REPORT_TEXT, 0},
    {"collapsed", export_collapsed, REPORT_TEXT, 0},
    {"speedscope", export_speedscope, REPORT_TEXT, 0},
    {"pprof", export_pprof, REPORT_TEXT, 0},
    {"html", export_html, REPORT_TEXT, 0},
};

/* Every kind of kinds from the threads apart and folded with flags and
 * jobs: the same bytes. Returns the number of kinds that differ. */
static int compare(const char *trace, const struct kind *kinds, size_t nkinds,
		   const struct threadsel *sel, struct shape_opts so, unsigned flags, unsigned jobs)
{
	int bad = 0;

	for (size_t k = 0; k < nkinds; k++) {
		struct model a, b;
		char *x = NULL, *y = NULL;

		if (load(&a, trace, NOFOLD, sel, 0) || load(&b, trace, flags, sel, jobs)) {
			bad++;
		} else {
			x = report(kinds[k].fn, &a, kinds[k].fmt, kinds[k].order, sel, so);
			y = report(kinds[k].fn, &b, kinds[k].fmt, kinds[k].order, sel, so);
			if (!x || !y || strcmp(x, y)) {
				fprintf(stderr, "  %s: %s, fold 0x%x, %u jobs: differs\n", trace,
					kinds[k].name, flags, jobs);
				if (x && y && getenv("FOLD_SHOW"))
					fprintf(stderr, "--- apart\n%s--- folded\n%s", x, y);
				bad++;
			}
		}
		free(x);
		free(y);
		model_free(&a);
		model_free(&b);
	}
	return bad;
}

/* Flat and callers: the threads folded as they end, with and without tree
 * workers, or after the read; every thread or a selection. */
static void test_flat_callers(void)
{
	static const char *pats[] = {"worker-3", "#5", "main"};
	const struct threadsel some = {pats, 3};
	const unsigned flags[] = {MODEL_FOLD_WHILE_READING, 0};
	char trace[128];

	for (unsigned seed = 1; seed <= 6; seed++) {
		path_of(trace, sizeof(trace), "plain.bin");
		CHECK_EQ_I(foldgen_write(trace, 40 + seed * 7, 1 + seed % 2, seed * 7919, 1), 0);
		for (size_t f = 0; f < 2; f++)
			for (unsigned jobs = 0; jobs <= 2; jobs += 2) {
				struct shape_opts so = {0};

				CHECK_EQ_I(compare(trace, plain_kinds, 5, NULL, so, flags[f], jobs),
					   0);
				CHECK_EQ_I(
				    compare(trace, plain_kinds, 5, &some, so, flags[f], jobs), 0);
			}
	}
}

/* --merge-threads: the group is the merged thread, its children in the
 * order merging the threads by serial gives, its figures and counts
 * theirs; --min-pct folds the merged tree alike. */
static void test_merged(void)
{
	static const char *pats[] = {"worker-*"};
	const struct threadsel workers = {pats, 1};
	char trace[128];

	for (unsigned seed = 1; seed <= 4; seed++) {
		struct shape_opts so = {0};

		so.merge = 1;
		path_of(trace, sizeof(trace), "merged.bin");
		CHECK_EQ_I(foldgen_write(trace, 30 + seed * 11, 1 + seed % 2, seed * 104729, 1), 0);
		CHECK_EQ_I(compare(trace, merged_kinds, 13, NULL, so,
				   MODEL_FOLD_WHILE_READING | MODEL_FOLD_STATS, 2),
			   0);
		CHECK_EQ_I(compare(trace, merged_kinds, 13, &workers, so,
				   MODEL_FOLD_WHILE_READING | MODEL_FOLD_STATS, 0),
			   0);
		so.min_pct = 2;
		CHECK_EQ_I(compare(trace, merged_kinds, 4, NULL, so, MODEL_FOLD_STATS, 0), 0);
	}
}

/* Serial 0 and serials out of order: the merged thread's number. */
static void test_serials(void)
{
	char trace[128];
	struct shape_opts so = {0};

	so.merge = 1;
	path_of(trace, sizeof(trace), "zero.bin");
	CHECK_EQ_I(foldgen_write(trace, 20, 1, 99, 0), 0);
	CHECK_EQ_I(compare(trace, merged_kinds, 2, NULL, so,
			   MODEL_FOLD_WHILE_READING | MODEL_FOLD_STATS, 0),
		   0);
}

/* Memory: a folded thread's record is gone once it ended; the model keeps
 * the group, and the runs of folded serials (one run here). */
static void test_records_go(void)
{
	char trace[128];
	struct trace_result res;
	struct model m;

	path_of(trace, sizeof(trace), "records.bin");
	CHECK_EQ_I(threadgen_write(trace, 5000, 1), 0);
	model_init(&m, NULL);
	CHECK_EQ_I(model_fold(&m, NULL, MODEL_FOLD_WHILE_READING), 0);
	CHECK_EQ_I(model_load(&m, trace, &res), TRACE_OK);
	/* main never ends: the one record left */
	CHECK_EQ_U(m.nthreads, 1);
	CHECK_EQ_I(model_finish(&m), 0);
	CHECK_EQ_U(m.nthreads, 1);
	CHECK(m.folded);
	CHECK_EQ_U(model_thread_count(m.thread_list[0]), 5001);
	CHECK_EQ_U(calltree_fig(&m.thread_list[0]->tree, CALLTREE_ROOT, 0)->cum, 5000u * 5);
	model_free(&m);
}

/* A trace whose thread has events after its THREAD_END (no agent writes
 * one): the fold while reading stops at it, and input_open reads the file
 * again folding after the read: the flat profile is that of the threads
 * apart. */
static void test_thread_back(void)
{
	static struct tracegen tg;
	static const unsigned tr[] = {JCAL_TR_ENTRY, JCAL_TR_EXIT};
	char trace[128], *x, *y;
	struct input a, b;
	struct cli c;
	struct model m;
	struct trace_result res;
	uint64_t v[1] = {0};
	int st;

	path_of(trace, sizeof(trace), "back.bin");
	CHECK_EQ_I(tg_open(&tg, trace), 0);
	trace_rec_meta(&tg.rb, "metrics", "ticks");
	trace_rec_method(&tg.rb, 1, 0, "LA;", "a", "()V");
	trace_rec_thread_start(&tg.rb, 1, 1, 1, 0, 1, "t", 1, v);
	tg_flush(&tg);
	for (int round = 0; round < 2; round++) {
		tg_events_begin(&tg, 1, 1);
		for (int e = 0; e < 2; e++) {
			v[0] += 3;
			tg_event(&tg, tr[e], JCAL_MT_INTERP, 1, v);
		}
		tg_events_end(&tg);
		trace_rec_thread_end(&tg.rb, 1, 2, 2, 1, v);
		tg_flush(&tg);
	}
	trace_rec_end(&tg.rb, 4, 1, 0);
	CHECK_EQ_I(tg_close(&tg), 0);

	model_init(&m, NULL);
	CHECK_EQ_I(model_fold(&m, NULL, MODEL_FOLD_WHILE_READING), 0);
	CHECK_EQ_I(model_load(&m, trace, &res), TRACE_ABORTED);
	CHECK(model_fold_broken(&m));
	CHECK(strstr(m.err, "thread #1: records after its THREAD_END") != NULL);
	model_free(&m);

	CHECK_EQ_I(cli_init(&c, 1), 0);
	c.raw = 1;
	c.jobs = 0;
	CHECK_EQ_I(input_open(&a, &c, trace), 0);
	c.fold = 1;
	CHECK_EQ_I(input_open(&b, &c, trace), 0);
	CHECK(b.fold_broken && b.m.folded);
	struct report_opts o = {.format = REPORT_CSV};
	x = mg_run(report_flat, &a.m, &o, &st);
	y = mg_run(report_flat, &b.m, &o, &st);
	CHECK_STR(y, x);
	/* the two visits of a: 2 calls, 3 ticks each */
	CHECK_STR(x, "method,calls,base,cum,raw_base,raw_cum\nA.a,2,6,6,6,6\n");
	free(x);
	free(y);
	input_free(&a);
	input_free(&b);
	cli_free(&c);
}

int main(void)
{
	char cmd[128];

	snprintf(dir, sizeof(dir), "/tmp/jcal-model-fold.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_flat_callers);
	RUN(test_merged);
	RUN(test_serials);
	RUN(test_records_go);
	RUN(test_thread_back);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "  cannot remove %s\n", dir);
	return test_summary("model-fold");
}
