/*
 * test-diff-model.c - jcal-post diff's model (postproc/diff_model.c,
 * diff_model_add.c, diff_tree.c) on small models built from scripts
 * (native-tests/diffgen.h): two builds of a program (a method's calls
 * tripled, one added, one removed) give exact deltas per method and per
 * context; generated classes and pool threads of two runs match by their
 * normalised names, and what was normalised is counted; two nested
 * lambdas that normalise alike count their cum once; threads of one
 * group are merged; sets of runs give medians and the noise rule; the
 * merged-threads tree; the depth limit.
 */
#include "native-tests/diffgen.h"
#include "native-tests/test.h"

/* BASE: main calls step once and gone once. */
static const char base_build[] = "0 E app.Main.main\n"
				 "1 E app.Work.step\n"
				 "2 X app.Work.step\n"
				 "3 E app.Old.gone\n"
				 "4 X app.Old.gone\n"
				 "5 X app.Main.main\n";
/* NEW: step three times (2 ticks each), added once, gone no more. */
static const char new_build[] = "0 E app.Main.main\n"
				"1 E app.Work.step\n"
				"3 X app.Work.step\n"
				"4 E app.Work.step\n"
				"6 X app.Work.step\n"
				"7 E app.Work.step\n"
				"9 X app.Work.step\n"
				"10 E app.New.added\n"
				"11 X app.New.added\n"
				"12 X app.Main.main\n";

static void check_cmp(int line, struct diff_cmp c, uint64_t cb, uint64_t cn, uint64_t bb,
		      uint64_t bn, uint64_t ub, uint64_t un, enum diff_status st)
{
	if (c.base.calls != cb || c.new_.calls != cn || c.base.base != bb || c.new_.base != bn ||
	    c.base.cum != ub || c.new_.cum != un || c.status != st) {
		fprintf(stderr,
			"  line %d: calls %llu->%llu base %llu->%llu cum %llu->%llu status %d\n",
			line, (unsigned long long)c.base.calls, (unsigned long long)c.new_.calls,
			(unsigned long long)c.base.base, (unsigned long long)c.new_.base,
			(unsigned long long)c.base.cum, (unsigned long long)c.new_.cum,
			(int)c.status);
		CHECK(0);
	}
}

static void test_two_builds(void)
{
	struct diff_model dm;
	uint32_t *order;
	size_t n;

	CHECK_EQ_I(dg_pair(&dm, base_build, new_build), 0);
	check_cmp(__LINE__, dg_method(&dm, "app.Work.step"), 1, 3, 1, 6, 1, 6, DIFF_CHANGED);
	check_cmp(__LINE__, dg_method(&dm, "app.Old.gone"), 1, 0, 1, 0, 1, 0, DIFF_REMOVED);
	check_cmp(__LINE__, dg_method(&dm, "app.New.added"), 0, 1, 0, 1, 0, 1, DIFF_ADDED);
	check_cmp(__LINE__, dg_method(&dm, "app.Main.main"), 1, 1, 3, 5, 5, 12, DIFF_SAME);
	/* by the size of the change: calls, then cum, then name */
	CHECK_EQ_I(diff_report_methods(&dm, &order, &n), 0);
	CHECK_EQ_U(n, 4);
	if (n == 4) {
		CHECK_STR(diff_model_name(&dm, order[0]), "app.Work.step");
		CHECK_STR(diff_model_name(&dm, order[1]), "app.New.added");
		CHECK_STR(diff_model_name(&dm, order[2]), "app.Old.gone");
		CHECK_STR(diff_model_name(&dm, order[3]), "app.Main.main");
	}
	free(order);
	/* the same per context; the thread group's calls are its threads */
	check_cmp(__LINE__, dg_context(&dm, "main"), 1, 1, 0, 0, 5, 12, DIFF_SAME);
	check_cmp(__LINE__, dg_context(&dm, "main;app.Main.main;app.Work.step"), 1, 3, 1, 6, 1, 6,
		  DIFF_CHANGED);
	check_cmp(__LINE__, dg_context(&dm, "main;app.Main.main;app.New.added"), 0, 1, 0, 1, 0, 1,
		  DIFF_ADDED);
	check_cmp(__LINE__, dg_context(&dm, "main;app.Main.main;app.Old.gone"), 1, 0, 1, 0, 1, 0,
		  DIFF_REMOVED);
	CHECK_EQ_U(dm.norm_methods, 0);
	CHECK_EQ_U(dm.norm_threads, 0);
	CHECK_STR(dm.metric, "ticks");
	CHECK_EQ_U(dm.runs[0].side, DIFF_BASE);
	CHECK_EQ_U(dm.runs[1].side, DIFF_NEW);
	CHECK_EQ_U(dm.runs[1].threads, 1);
	CHECK_STR(dm.runs[1].path, "new.bin");
	diff_model_free(&dm);
}

/* Two runs of one build whose hidden classes and pool threads got other
 * addresses, counters and numbers: equal. */
static void test_normalised_match(void)
{
	static const char *const base[] = {
	    "0 E app.Main$$Lambda$14.0x0000000800c03000.run\n"
	    "1 E java.lang.invoke.LambdaForm$MH.0x00007f9fd8001000.invoke\n"
	    "3 X java.lang.invoke.LambdaForm$MH.0x00007f9fd8001000.invoke\n"
	    "4 X app.Main$$Lambda$14.0x0000000800c03000.run\n"};
	static const char *const new_[] = {
	    "0 E app.Main$$Lambda$15.0x0000000800c04000.run\n"
	    "1 E java.lang.invoke.LambdaForm$MH.0x00007f844c001c00.invoke\n"
	    "3 X java.lang.invoke.LambdaForm$MH.0x00007f844c001c00.invoke\n"
	    "4 X app.Main$$Lambda$15.0x0000000800c04000.run\n"};
	static const char *const tb[] = {"pool-1-thread-1"}, *const tn[] = {"pool-2-thread-3"};
	struct diff_model dm;
	uint32_t *order;
	size_t n;

	CHECK_EQ_I(diff_model_init(&dm, 1, 1, 0), 0);
	CHECK_EQ_I(dg_add(&dm, base, tb, 1, "a"), 0);
	CHECK_EQ_I(dg_add(&dm, new_, tn, 1, "b"), 0);
	CHECK_EQ_I(diff_model_finish(&dm), 0);
	check_cmp(__LINE__, dg_method(&dm, "app.Main$$Lambda$*.0x*.run"), 1, 1, 2, 2, 4, 4,
		  DIFF_SAME);
	check_cmp(__LINE__, dg_method(&dm, "java.lang.invoke.LambdaForm$MH.0x*.invoke"), 1, 1, 2, 2,
		  2, 2, DIFF_SAME);
	check_cmp(__LINE__,
		  dg_context(&dm, "pool-*-thread-*;app.Main$$Lambda$*.0x*.run;"
				  "java.lang.invoke.LambdaForm$MH.0x*.invoke"),
		  1, 1, 2, 2, 2, 2, DIFF_SAME);
	CHECK_EQ_I(diff_report_methods(&dm, &order, &n), 0);
	CHECK_EQ_U(n, 2); /* nothing added or removed */
	free(order);
	/* four names as the traces hold them: two lambdas, two lambda forms */
	CHECK_EQ_U(dm.norm_methods, 4);
	CHECK_EQ_U(dm.norm_kind[name_norm_index(NAME_NORM_LAMBDA)], 2);
	CHECK_EQ_U(dm.norm_kind[name_norm_index(NAME_NORM_HIDDEN)], 2);
	CHECK_EQ_U(dm.norm_threads, 2);
	diff_model_free(&dm);
}

/* Two lambdas of one run that normalise alike, one calling the other:
 * their calls add up, their cum is counted once (the outer activation),
 * as the flat report counts recursion. */
static void test_nested_alike(void)
{
	static const char run[] = "0 E app.A$$Lambda$3.0x10.run\n"
				  "1 E app.A$$Lambda$4.0x20.run\n"
				  "4 X app.A$$Lambda$4.0x20.run\n"
				  "6 X app.A$$Lambda$3.0x10.run\n";
	struct diff_model dm;

	CHECK_EQ_I(dg_pair(&dm, run, run), 0);
	check_cmp(__LINE__, dg_method(&dm, "app.A$$Lambda$*.0x*.run"), 2, 2, 6, 6, 6, 6, DIFF_SAME);
	diff_model_free(&dm);
}

/* Threads whose names normalise alike are one group on each side. */
static void test_thread_groups(void)
{
	static const char step[] = "0 E app.Work.step\n1 X app.Work.step\n";
	static const char twice[] = "0 E app.Work.step\n1 X app.Work.step\n"
				    "2 E app.Work.step\n3 X app.Work.step\n";
	const char *base[] = {step, step, "0 E app.Main.main\n5 X app.Main.main\n"};
	const char *new_[] = {twice, "0 E app.Main.main\n5 X app.Main.main\n"};
	static const char *const nb[] = {"pool-1-thread-1", "pool-1-thread-2", "main"};
	static const char *const nn[] = {"pool-4-thread-1", "main"};
	struct diff_model dm;
	struct diff_tree merged;

	CHECK_EQ_I(diff_model_init(&dm, 1, 1, 0), 0);
	CHECK_EQ_I(dg_add(&dm, base, nb, 3, "a"), 0);
	CHECK_EQ_I(dg_add(&dm, new_, nn, 2, "b"), 0);
	CHECK_EQ_I(diff_model_finish(&dm), 0);
	/* NEW's pool thread ran no frame between its two steps: 1 tick of its own */
	check_cmp(__LINE__, dg_context(&dm, "pool-*-thread-*"), 2, 1, 0, 1, 2, 3, DIFF_CHANGED);
	check_cmp(__LINE__, dg_context(&dm, "pool-*-thread-*;app.Work.step"), 2, 2, 2, 2, 2, 2,
		  DIFF_SAME);
	check_cmp(__LINE__, dg_context(&dm, "main;app.Main.main"), 1, 1, 5, 5, 5, 5, DIFF_SAME);
	CHECK_EQ_U(dm.runs[0].threads, 3);
	CHECK_EQ_U(dm.runs[1].threads, 2);
	/* the merged-threads tree: every group's contexts under one root */
	CHECK_EQ_I(diff_model_merged(&dm, &merged), 0);
	CHECK_EQ_U(merged.nnodes, 3);
	{
		uint32_t s = diff_tree_child(&merged, 0, dg_name(&dm, "app.Work.step"));
		uint32_t m = diff_tree_child(&merged, 0, dg_name(&dm, "app.Main.main"));
		struct diff_cmp c;

		CHECK(s != DIFF_NONE && m != DIFF_NONE);
		if (s != DIFF_NONE) {
			diff_model_compare(&dm, diff_tree_figs(&merged, s),
					   diff_tree_seen(&merged, s), &c);
			check_cmp(__LINE__, c, 2, 2, 2, 2, 2, 2, DIFF_SAME);
		}
		/* the root: every thread (its calls), every tick (its cum) */
		diff_model_compare(&dm, diff_tree_figs(&merged, 0), diff_tree_seen(&merged, 0), &c);
		check_cmp(__LINE__, c, 3, 2, 0, 1, 7, 8, DIFF_CHANGED);
	}
	diff_tree_free(&merged);
	diff_model_free(&dm);
}

/* A run whose step costs v ticks and is called calls times. */
static void script_of(char *buf, size_t len, unsigned calls, unsigned v)
{
	size_t pos = 0;
	unsigned t = 0;

	for (unsigned i = 0; i < calls; i++) {
		pos += (size_t)snprintf(buf + pos, len - pos, "%u E app.S.step\n%u X app.S.step\n",
					t, t + (i ? 0 : v));
		t += i ? 0 : v;
	}
}

/* Sets of runs: medians (the lower middle of an even count), spreads,
 * and costs beyond or within the runs' spread. */
static void check_set(int line, const unsigned *bc, const unsigned *bv, unsigned nb,
		      const unsigned *nc, const unsigned *nv, unsigned nn, uint64_t calls_b,
		      uint64_t calls_n, uint64_t cum_b, uint64_t cum_n, enum diff_cost cost,
		      enum diff_status st)
{
	static const char *const names[] = {"main"};
	struct diff_model dm;
	char buf[512];
	const char *s = buf;

	CHECK_EQ_I(diff_model_init(&dm, nb, nn, 0), 0);
	for (unsigned i = 0; i < nb + nn; i++) {
		script_of(buf, sizeof(buf), i < nb ? bc[i] : nc[i - nb],
			  i < nb ? bv[i] : nv[i - nb]);
		CHECK_EQ_I(dg_add(&dm, &s, names, 1, "run"), 0);
	}
	CHECK_EQ_I(diff_model_finish(&dm), 0);
	{
		struct diff_cmp c = dg_method(&dm, "app.S.step");

		if (c.base.calls != calls_b || c.new_.calls != calls_n || c.base.cum != cum_b ||
		    c.new_.cum != cum_n || c.cost != cost || c.status != st) {
			fprintf(stderr,
				"  line %d: calls %llu->%llu cum %llu->%llu cost %d status %d\n",
				line, (unsigned long long)c.base.calls,
				(unsigned long long)c.new_.calls, (unsigned long long)c.base.cum,
				(unsigned long long)c.new_.cum, (int)c.cost, (int)c.status);
			CHECK(0);
		}
	}
	diff_model_free(&dm);
}

static void test_sets(void)
{
	static const unsigned one[] = {1, 1, 1}, b10[] = {10, 11, 12}, n20[] = {20, 21, 22};
	static const unsigned n11[] = {11, 12, 13}, n13[] = {13, 13, 13}, c112[] = {1, 1, 2};
	static const unsigned c13[] = {1, 3}, v55[] = {5, 5}, v12[] = {12};

	/* costs separated and 82% apart, beyond the 18% spread */
	check_set(__LINE__, one, b10, 3, one, n20, 3, 1, 1, 11, 21, DIFF_COST_BEYOND, DIFF_CHANGED);
	/* overlapping: within, same calls: same */
	check_set(__LINE__, one, b10, 3, one, n11, 3, 1, 1, 11, 12, DIFF_COST_WITHIN, DIFF_SAME);
	/* separated by 18%, not more than BASE's 18% spread: within */
	check_set(__LINE__, one, b10, 3, one, n13, 3, 1, 1, 11, 13, DIFF_COST_WITHIN, DIFF_SAME);
	/* calls 1, 1, 2: the median 1; 1 and 3: the lower middle, 1 */
	check_set(__LINE__, c112, b10, 3, c13, v55, 2, 1, 1, 11, 5, DIFF_COST_BEYOND, DIFF_CHANGED);
	/* one NEW run: no spread to measure, never beyond */
	check_set(__LINE__, one, b10, 3, one, v12 + 0, 1, 1, 1, 11, 12, DIFF_COST_WITHIN,
		  DIFF_SAME);
	/* one run a side: not judged */
	check_set(__LINE__, one, b10, 1, one, n20, 1, 1, 1, 10, 20, DIFF_COST_NONE, DIFF_SAME);
}

/* The depth limit folds the tree's deeper contexts; the flat figures stay
 * exact. */
static void test_depth_limit(void)
{
	static const char deep[] = "0 E r.R.f\n1 E r.R.f\n2 E r.R.f\n3 E r.R.g\n"
				   "4 X r.R.g\n5 X r.R.f\n6 X r.R.f\n7 X r.R.f\n";
	static const char *const names[] = {"main"};
	const char *s = deep;
	struct diff_model dm;

	CHECK_EQ_I(diff_model_init(&dm, 1, 1, 0), 0);
	CHECK_EQ_I(dg_add_depth(&dm, &s, names, 1, "a", 2), 0);
	CHECK_EQ_I(dg_add_depth(&dm, &s, names, 1, "b", 2), 0);
	CHECK_EQ_I(diff_model_finish(&dm), 0);
	CHECK_EQ_U(dm.folded, 4); /* f at depth 3 and g, in each run */
	CHECK_EQ_U(dm.max_depth, 2);
	/* the frames below depth 2 (f and g): their calls, their cum as base */
	check_cmp(__LINE__, dg_context(&dm, "main;r.R.f;r.R.f;<deeper frames folded>"), 2, 2, 3, 3,
		  3, 3, DIFF_SAME);
	check_cmp(__LINE__, dg_method(&dm, "r.R.f"), 3, 3, 6, 6, 7, 7, DIFF_SAME);
	check_cmp(__LINE__, dg_method(&dm, "r.R.g"), 1, 1, 1, 1, 1, 1, DIFF_SAME);
	diff_model_free(&dm);
}

/* Methods of one class and name stay apart by their descriptor, and are
 * printed with their parameters (as jcal-post prints overloads). */
static void test_overloads(void)
{
	static const char *const names[] = {"main"};
	struct diff_model dm;
	struct model m;
	struct diff_import im = {0};
	struct diff_run d = {0};
	struct trace_visitor v;
	struct trace_thread tt = {.serial = 1, .java_tid = 1, .os_tid = 1, .name = "main"};
	struct trace_method a = {1, JCAL_ACC_STATIC, "Lp/C;", "f", "(I)V"};
	struct trace_method b = {2, JCAL_ACC_STATIC, "Lp/C;", "f", "(J)V"};
	uint64_t t = 0;

	(void)names;
	CHECK_EQ_I(diff_model_init(&dm, 1, 1, 0), 0);
	for (int run = 0; run < 2; run++) {
		model_init(&m, NULL);
		model_visitor(&m, &v);
		v.meta(v.ctx, "metrics", "ticks");
		v.thread_start(v.ctx, &tt);
		v.method(v.ctx, &a);
		v.method(v.ctx, &b);
		for (int k = 0; k < (run ? 3 : 1); k++) {
			struct trace_event e = {.thread = 1, .nmetrics = 1};

			e.method = k ? 2 : 1;
			e.type = JCAL_MT_INTERP_STATIC;
			e.transition = JCAL_TR_ENTRY;
			e.metric[0] = t++;
			v.event(v.ctx, &e);
			e.transition = JCAL_TR_EXIT;
			e.metric[0] = t++;
			v.event(v.ctx, &e);
		}
		CHECK_EQ_I(model_finish(&m), 0);
		CHECK_EQ_I(model_names(&m, 0), 0);
		d.path = run ? "b" : "a";
		CHECK_EQ_I(diff_model_add(&dm, &m, &im, &d), 0);
		model_free(&m);
	}
	CHECK_EQ_I(diff_model_finish(&dm), 0);
	check_cmp(__LINE__, dg_method(&dm, "p.C.f(int)"), 1, 1, 1, 1, 1, 1, DIFF_SAME);
	check_cmp(__LINE__, dg_method(&dm, "p.C.f(long)"), 0, 2, 0, 2, 0, 2, DIFF_ADDED);
	diff_model_free(&dm);
}

/* Runs out of range are refused. */
static void test_init_limits(void)
{
	struct diff_model dm;

	CHECK_EQ_I(diff_model_init(&dm, 0, 1, 0), -1);
	CHECK_EQ_I(diff_model_init(&dm, 1, DIFF_MAX_RUNS + 1, 0), -1);
	CHECK_EQ_I(diff_model_init(&dm, DIFF_MAX_RUNS, 1, 0), 0);
	diff_model_free(&dm);
}

int main(void)
{
	RUN(test_two_builds);
	RUN(test_normalised_match);
	RUN(test_nested_alike);
	RUN(test_thread_groups);
	RUN(test_sets);
	RUN(test_depth_limit);
	RUN(test_overloads);
	RUN(test_init_limits);
	return test_summary("diff-model");
}
