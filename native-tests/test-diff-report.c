/*
 * test-diff-report.c - jcal-post diff's reports (postproc/diff_report*.c,
 * diff_export_collapsed.c) on a small pair of runs: two builds of a
 * program (a method's calls tripled, one added, one removed) whose pool
 * thread and lambda got other numbers. Golden files for flat, tree and
 * callers in text, CSV and JSON and for the folded export of both values
 * (native-tests/golden/diff-pair.*; JCAL_GOLDEN_UPDATE=1 rewrites them);
 * the folded columns sum to the flat totals; --top; the sets' columns;
 * every JSON parses; names from the file are escaped in text and folded
 * stacks, quoted in CSV, \u-escaped in JSON.
 */
#include "native-tests/diffgen.h"
#include "native-tests/jsonmini.h"
#include "native-tests/test.h"

static const char *const base_threads[] = {
    "0 E app.Main.main\n1 E app.Work.step\n2 X app.Work.step\n"
    "3 E app.Old.gone\n4 X app.Old.gone\n5 X app.Main.main\n",
    "0 E app.Main$$Lambda$14.0x0000000800c03000.run\n"
    "2 E app.Work.step\n3 X app.Work.step\n"
    "4 X app.Main$$Lambda$14.0x0000000800c03000.run\n"};
static const char *const new_threads[] = {
    "0 E app.Main.main\n1 E app.Work.step\n3 X app.Work.step\n"
    "4 E app.Work.step\n6 X app.Work.step\n7 E app.Work.step\n9 X app.Work.step\n"
    "10 E app.New.added\n11 X app.New.added\n12 X app.Main.main\n",
    "0 E app.Main$$Lambda$15.0x0000000800c04000.run\n"
    "2 E app.Work.step\n3 X app.Work.step\n"
    "4 X app.Main$$Lambda$15.0x0000000800c04000.run\n"};
static const char *const base_names[] = {"main", "pool-1-thread-1"};
static const char *const new_names[] = {"main", "pool-2-thread-1"};

static int pair(struct diff_model *dm, uint32_t max_depth)
{
	if (diff_model_init(dm, 1, 1, 0))
		return -1;
	if (dg_add_depth(dm, base_threads, base_names, 2, "base.bin", max_depth) ||
	    dg_add_depth(dm, new_threads, new_names, 2, "new.bin", max_depth) ||
	    diff_model_finish(dm)) {
		diff_model_free(dm);
		return -1;
	}
	return 0;
}

typedef int (*report_fn)(const struct diff_model *, const struct diff_report_opts *);

static void test_goldens(void)
{
	static const struct {
		report_fn fn;
		enum report_format fmt;
		enum diff_value value;
		const char *file;
	} cases[] = {
	    {diff_report_flat, REPORT_TEXT, 0, "diff-pair.flat.txt"},
	    {diff_report_flat, REPORT_CSV, 0, "diff-pair.flat.csv"},
	    {diff_report_flat, REPORT_JSON, 0, "diff-pair.flat.json"},
	    {diff_report_tree, REPORT_TEXT, 0, "diff-pair.tree.txt"},
	    {diff_report_tree, REPORT_CSV, 0, "diff-pair.tree.csv"},
	    {diff_report_tree, REPORT_JSON, 0, "diff-pair.tree.json"},
	    {diff_report_callers, REPORT_TEXT, 0, "diff-pair.callers.txt"},
	    {diff_report_callers, REPORT_CSV, 0, "diff-pair.callers.csv"},
	    {diff_report_callers, REPORT_JSON, 0, "diff-pair.callers.json"},
	    {diff_export_collapsed, REPORT_TEXT, DIFF_VALUE_BASE, "diff-pair.collapsed"},
	    {diff_export_collapsed, REPORT_TEXT, DIFF_VALUE_CALLS, "diff-pair.collapsed-calls"},
	};
	struct diff_model dm;

	CHECK_EQ_I(pair(&dm, 0), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct diff_report_opts o = {0};
		int st;
		char *s;

		o.format = cases[i].fmt;
		o.value = cases[i].value;
		s = dg_run(cases[i].fn, &dm, &o, &st);
		CHECK_EQ_I(st, 0);
		CHECK(mg_golden_equal(s, cases[i].file));
		if (cases[i].fmt == REPORT_JSON) {
			struct jv *v = jv_parse(s, strlen(s));

			CHECK(v && jv_is(v, JV_OBJ) && jv_is(jv_get(v, "normalised"), JV_OBJ));
			jv_free(v);
		}
		free(s);
	}
	diff_model_free(&dm);
}

/* The sums of a folded export's two columns. */
static void folded_sums(const char *s, uint64_t sum[2], size_t *lines)
{
	*lines = 0;
	sum[0] = sum[1] = 0;
	for (const char *p = s; p && *p;) {
		const char *nl = strchr(p, '\n'), *sp2, *sp1;
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		sp2 = strrchr(line, ' ');
		CHECK(sp2 != NULL);
		if (!sp2)
			return;
		*(char *)sp2 = '\0';
		sp1 = strrchr(line, ' ');
		CHECK(sp1 != NULL);
		if (!sp1)
			return;
		sum[0] += strtoull(sp1 + 1, NULL, 10);
		sum[1] += strtoull(sp2 + 1, NULL, 10);
		(*lines)++;
		p = nl ? nl + 1 : NULL;
	}
}

/* Each column of the folded export sums to the flat report's total of
 * its value, as JSON gives them. */
static void test_collapsed_sums(void)
{
	static const char *const keys[2][2] = {{"base_base", "base_new"},
					       {"calls_base", "calls_new"}};
	struct diff_model dm;
	struct diff_report_opts o = {0};
	struct jv *flat;
	char *s;
	int st;

	CHECK_EQ_I(pair(&dm, 0), 0);
	o.format = REPORT_JSON;
	s = dg_run(diff_report_flat, &dm, &o, &st);
	flat = jv_parse(s, strlen(s));
	free(s);
	CHECK(flat != NULL);
	for (int v = 0; v < 2 && flat; v++) {
		const struct jv *tot = jv_get(flat, "totals");
		uint64_t sum[2];
		size_t lines;

		o.format = REPORT_TEXT;
		o.value = v ? DIFF_VALUE_CALLS : DIFF_VALUE_BASE;
		s = dg_run(diff_export_collapsed, &dm, &o, &st);
		folded_sums(s, sum, &lines);
		CHECK(tot != NULL);
		if (tot) {
			CHECK_EQ_U(sum[0], (uint64_t)jv_get(tot, keys[v][0])->num);
			CHECK_EQ_U(sum[1], (uint64_t)jv_get(tot, keys[v][1])->num);
		}
		CHECK(lines > 0);
		free(s);
	}
	jv_free(flat);
	diff_model_free(&dm);
}

static void test_top(void)
{
	struct diff_model dm;
	struct diff_report_opts o = {0};
	char *s;
	int st;

	CHECK_EQ_I(pair(&dm, 0), 0);
	o.format = REPORT_CSV;
	o.top = 1;
	s = dg_run(diff_report_flat, &dm, &o, &st);
	CHECK_STR(s, "method,calls_base,calls_new,calls_delta,base_base,base_new,base_delta,"
		     "cum_base,cum_new,cum_delta,status\n"
		     "app.Work.step,2,4,2,2,7,5,2,7,5,changed\n");
	free(s);
	/* the context of largest change, with its callers */
	s = dg_run(diff_report_tree, &dm, &o, &st);
	CHECK_STR(s, "thread,level,path,calls_base,calls_new,calls_delta,base_base,base_new,"
		     "base_delta,cum_base,cum_new,cum_delta,status\n"
		     "main,0,,1,1,0,0,0,0,5,12,7,same\n"
		     "main,1,app.Main.main,1,1,0,3,5,2,5,12,7,same\n"
		     "main,2,app.Main.main;app.Work.step,1,3,2,1,6,5,1,6,5,changed\n");
	free(s);
	o.value = DIFF_VALUE_BASE;
	s = dg_run(diff_export_collapsed, &dm, &o, &st);
	CHECK_STR(s, "main;app.Main.main;app.Work.step 1 6\n");
	free(s);
	diff_model_free(&dm);
}

/* Several runs a side: medians and the three columns of the sets. */
static void test_sets_csv(void)
{
	struct diff_model dm;
	struct diff_report_opts o = {0};
	char *s;
	int st;

	CHECK_EQ_I(diff_model_init(&dm, 2, 2, 0), 0);
	for (int i = 0; i < 4; i++) {
		const char *const *th = i < 2 ? base_threads : new_threads;
		const char *const *nm = i < 2 ? base_names : new_names;

		CHECK_EQ_I(dg_add(&dm, th, nm, 2, i < 2 ? "base.bin" : "new.bin"), 0);
	}
	CHECK_EQ_I(diff_model_finish(&dm), 0);
	o.format = REPORT_CSV;
	s = dg_run(diff_report_flat, &dm, &o, &st);
	CHECK(mg_golden_equal(s, "diff-sets.flat.csv"));
	free(s);
	o.format = REPORT_TEXT;
	s = dg_run(diff_report_flat, &dm, &o, &st);
	CHECK(mg_golden_equal(s, "diff-sets.flat.txt"));
	free(s);
	diff_model_free(&dm);
}

/* A thread and a method named with control characters and ';': escaped
 * in text and folded stacks (';' as ','), exact in CSV and JSON. */
static void test_escapes(void)
{
	static const char *const scripts[] = {"0 E p.E\x1b]0;x.m\n1 X p.E\x1b]0;x.m\n"};
	static const char *const names[] = {"evil\x1b[2J\r\nname"};
	struct diff_model dm;
	struct diff_report_opts o = {0};
	char *s;
	int st;

	CHECK_EQ_I(diff_model_init(&dm, 1, 1, 0), 0);
	CHECK_EQ_I(dg_add(&dm, scripts, names, 1, "a\x07.bin"), 0);
	CHECK_EQ_I(dg_add(&dm, scripts, names, 1, "b.bin"), 0);
	CHECK_EQ_I(diff_model_finish(&dm), 0);
	for (int f = 0; f < 3; f++) {
		report_fn fns[] = {diff_report_flat, diff_report_tree, diff_report_callers};

		for (int k = 0; k < 3; k++) {
			o.format = (enum report_format)f;
			s = dg_run(fns[k], &dm, &o, &st);
			CHECK_EQ_I(st, 0);
			/* CSV (not to a terminal) keeps the exact names, quoted as needed */
			if (f == REPORT_CSV)
				CHECK(s && strstr(s, "p.E\x1b]0;x.m") &&
				      (k != 1 || strstr(s, "\"evil\x1b[2J\r\nname\"")));
			else
				CHECK(s && !strchr(s, '\x1b') && !strchr(s, '\x07'));
			if (f == REPORT_TEXT)
				CHECK(s && strstr(s, "p.E\\x1b]0;x.m"));
			if (f == REPORT_JSON) {
				struct jv *v = jv_parse(s, strlen(s));

				CHECK(v != NULL);
				CHECK(s && strstr(s, "p.E\\u001b]0;x.m"));
				jv_free(v);
			}
			free(s);
		}
	}
	o.value = DIFF_VALUE_CALLS;
	s = dg_run(diff_export_collapsed, &dm, &o, &st);
	CHECK_STR(s, "evil\\x1b[2J\\r\\nname;p.E\\x1b]0,x.m 1 1\n");
	free(s);
	diff_model_free(&dm);
}

int main(void)
{
	RUN(test_goldens);
	RUN(test_collapsed_sums);
	RUN(test_top);
	RUN(test_sets_csv);
	RUN(test_escapes);
	return test_summary("diff-report");
}
