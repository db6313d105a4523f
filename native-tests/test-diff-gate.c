/*
 * test-diff-gate.c - jcal-post diff's gate (postproc/diff_gate.c): the
 * --fail-on values accepted and refused, the growth past a percentage,
 * and the methods a gate lists on two builds of a program (a method's
 * calls tripled, one added, one removed), in scope of --include or not,
 * with their lines.
 */
#include "postproc/diff_gate.h"
#include "native-tests/diffgen.h"
#include "native-tests/test.h"

static void test_parse(void)
{
	static const struct {
		int line;
		const char *arg;
		int ok;
		enum diff_gate_what what;
		double pct;
		const char *spec;
	} cases[] = {
	    {__LINE__, "calls:0", 0, DIFF_GATE_CALLS, 0, "calls:0%"},
	    {__LINE__, "calls:0%", 0, DIFF_GATE_CALLS, 0, "calls:0%"},
	    {__LINE__, "cum:5%", 0, DIFF_GATE_CUM, 5, "cum:5%"},
	    {__LINE__, "cum:2.5%", 0, DIFF_GATE_CUM, 2.5, "cum:2.5%"},
	    {__LINE__, "calls:150", 0, DIFF_GATE_CALLS, 150, "calls:150%"},
	    {__LINE__, "calls:.5", 0, DIFF_GATE_CALLS, 0.5, "calls:0.5%"},
	    {__LINE__, "calls:", -1, 0, 0, ""},
	    {__LINE__, "calls:-1", -1, 0, 0, ""},
	    {__LINE__, "calls:5%%", -1, 0, 0, ""},
	    {__LINE__, "calls:5x", -1, 0, 0, ""},
	    {__LINE__, "calls:inf", -1, 0, 0, ""},
	    {__LINE__, "calls:nan", -1, 0, 0, ""},
	    {__LINE__, "calls:1e999", -1, 0, 0, ""},
	    {__LINE__, "base:5", -1, 0, 0, ""},
	    {__LINE__, "calls", -1, 0, 0, ""},
	    {__LINE__, "", -1, 0, 0, ""},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct diff_gate g;
		int r = diff_gate_parse(cases[i].arg, &g);

		if (r != cases[i].ok || (!r && (g.what != cases[i].what || g.pct != cases[i].pct ||
						strcmp(g.spec, cases[i].spec)))) {
			fprintf(stderr, "  line %d: '%s' -> %d\n", cases[i].line, cases[i].arg, r);
			CHECK(0);
		}
	}
}

static void test_grown(void)
{
	static const struct {
		int line;
		uint64_t from, to;
		double pct;
		int grown;
	} cases[] = {
	    {__LINE__, 10, 10, 0, 0},	    {__LINE__, 10, 11, 0, 1},
	    {__LINE__, 10, 9, 0, 0},	    {__LINE__, 100, 105, 5, 0}, /* exactly 5%: not more */
	    {__LINE__, 100, 106, 5, 1},	    {__LINE__, 1000, 1025, 2.5, 0},
	    {__LINE__, 1000, 1026, 2.5, 1}, {__LINE__, 0, 1, 1000, 1}, /* from 0: grown */
	    {__LINE__, 0, 0, 0, 0},	    {__LINE__, UINT64_MAX - 1, UINT64_MAX, 0, 1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (diff_gate_grown(cases[i].from, cases[i].to, cases[i].pct) != cases[i].grown) {
			fprintf(stderr, "  line %d\n", cases[i].line);
			CHECK(0);
		}
}

/* BASE: main calls step once and gone once; NEW: step three times,
 * added once. */
static const char base_build[] = "0 E app.Main.main\n1 E app.Work.step\n2 X app.Work.step\n"
				 "3 E app.Old.gone\n4 X app.Old.gone\n5 X app.Main.main\n";
static const char new_build[] = "0 E app.Main.main\n1 E app.Work.step\n3 X app.Work.step\n"
				"4 E app.Work.step\n6 X app.Work.step\n7 E app.Work.step\n"
				"9 X app.Work.step\n10 E app.New.added\n11 X app.New.added\n"
				"12 X app.Main.main\n";

/* The lines of gate spec over dm, joined. */
static char *lines(const struct diff_model *dm, const char *spec, const char *const *inc,
		   size_t ninc)
{
	struct diff_gate g;
	struct diff_gate_hit *hits;
	uint32_t *order;
	size_t n, nh;
	char *s = NULL, line[512];
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	CHECK_EQ_I(diff_gate_parse(spec, &g), 0);
	CHECK_EQ_I(diff_report_methods(dm, &order, &n), 0);
	CHECK_EQ_I(diff_gate_check(dm, &g, order, n, inc, ninc, &hits, &nh), 0);
	for (size_t i = 0; i < nh; i++) {
		diff_gate_describe(dm, &g, &hits[i], line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
	fclose(f);
	free(hits);
	free(order);
	return s;
}

static void test_two_builds(void)
{
	static const char *const app[] = {"app.*"}, *const work[] = {"*.Work.*"};
	static const char *const none[] = {"org.*"};
	struct diff_model dm, same;
	char *s;

	CHECK_EQ_I(dg_pair(&dm, base_build, new_build), 0);
	s = lines(&dm, "calls:0%", NULL, 0);
	CHECK_STR(s, "app.Work.step calls 1 -> 3 (+200.0%)\n"
		     "app.New.added calls 0 -> 1 (added)\n");
	free(s);
	/* tripled is +200%: not past 200% */
	s = lines(&dm, "calls:200", NULL, 0);
	CHECK_STR(s, "app.New.added calls 0 -> 1 (added)\n");
	free(s);
	s = lines(&dm, "calls:199.9%", work, 1);
	CHECK_STR(s, "app.Work.step calls 1 -> 3 (+200.0%)\n");
	free(s);
	s = lines(&dm, "calls:0", none, 1);
	CHECK_STR(s, "");
	free(s);
	/* cum: main 5 -> 12 (+140%), step 1 -> 6, added 0 -> 1 */
	s = lines(&dm, "cum:150%", app, 1);
	CHECK_STR(s, "app.Work.step cum 1 -> 6 (+500.0%)\n"
		     "app.New.added cum 0 -> 1 (added)\n");
	free(s);
	s = lines(&dm, "cum:100%", app, 1);
	CHECK_STR(s, "app.Work.step cum 1 -> 6 (+500.0%)\n"
		     "app.New.added cum 0 -> 1 (added)\n"
		     "app.Main.main cum 5 -> 12 (+140.0%)\n");
	free(s);
	diff_model_free(&dm);
	/* two runs of one build pass calls:0% */
	CHECK_EQ_I(dg_pair(&same, new_build, new_build), 0);
	s = lines(&same, "calls:0%", NULL, 0);
	CHECK_STR(s, "");
	free(s);
	diff_model_free(&same);
}

/* With the tree limited in depth the gate still reads each method's
 * exact figures, and the pseudo-frame of the folded contexts is never in
 * scope; a method BASE had with no calls is "(from 0)". */
static void test_depth_and_words(void)
{
	static const char *const names[] = {"main"};
	const char *deep = "0 E r.R.f\n1 E r.R.f\n2 E r.R.g\n3 X r.R.g\n4 X r.R.f\n5 X r.R.f\n";
	const char *deeper = "0 E r.R.f\n1 E r.R.f\n2 E r.R.g\n3 X r.R.g\n4 E r.R.g\n5 X r.R.g\n"
			     "6 X r.R.f\n7 X r.R.f\n";
	struct diff_model dm;
	char *s;

	CHECK_EQ_I(diff_model_init(&dm, 1, 1, 0), 0);
	CHECK_EQ_I(dg_add_depth(&dm, &deep, names, 1, "a", 1), 0);
	CHECK_EQ_I(dg_add_depth(&dm, &deeper, names, 1, "b", 1), 0);
	CHECK_EQ_I(diff_model_finish(&dm), 0);
	s = lines(&dm, "calls:0", NULL, 0);
	CHECK_STR(s, "r.R.g calls 1 -> 2 (+100.0%)\n");
	free(s);
	{
		struct diff_gate g;
		struct diff_gate_hit h = {dg_name(&dm, "r.R.g"), 0, 7, 0};
		char line[256];

		CHECK_EQ_I(diff_gate_parse("cum:1%", &g), 0);
		diff_gate_describe(&dm, &g, &h, line, sizeof(line));
		CHECK_STR(line, "r.R.g cum 0 -> 7 (from 0)");
	}
	diff_model_free(&dm);
}

int main(void)
{
	RUN(test_parse);
	RUN(test_grown);
	RUN(test_two_builds);
	RUN(test_depth_and_words);
	return test_summary("diff-gate");
}
