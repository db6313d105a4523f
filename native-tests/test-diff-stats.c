/*
 * test-diff-stats.c - the statistics of jcal-post diff's sets of runs
 * (postproc/diff_stats.c): medians (the lower middle of an even count),
 * relative spreads, the noise rule (separated runs and a change of the
 * medians larger than the larger spread), the percentages the reports
 * print; each a table of cases.
 */
#include <math.h>

#include "postproc/diff_stats.h"
#include "native-tests/test.h"

static void test_median(void)
{
	static const struct {
		int line;
		uint64_t v[6];
		size_t n;
		uint64_t median;
	} cases[] = {
	    {__LINE__, {0}, 0, 0},
	    {__LINE__, {7}, 1, 7},
	    {__LINE__, {3, 1}, 2, 1}, /* even: the lower middle, a figure a run had */
	    {__LINE__, {5, 1, 3}, 3, 3},
	    {__LINE__, {4, 1, 3, 2}, 4, 2},
	    {__LINE__, {9, 9, 1, 9, 1}, 5, 9},
	    {__LINE__, {UINT64_MAX, 0, UINT64_MAX}, 3, UINT64_MAX},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v[6];

		memcpy(v, cases[i].v, sizeof(v));
		if (diff_stats_median(v, cases[i].n) != cases[i].median) {
			fprintf(stderr, "  line %d\n", cases[i].line);
			CHECK(0);
		}
		for (size_t k = 1; k < cases[i].n; k++)
			CHECK(v[k - 1] <= v[k]); /* sorted in place */
	}
}

static void test_spread(void)
{
	static const struct {
		int line;
		uint64_t v[4];
		size_t n;
		double spread;
	} cases[] = {
	    {__LINE__, {100}, 1, 0},
	    {__LINE__, {100, 100, 100}, 3, 0},
	    {__LINE__, {90, 100, 110}, 3, 20},	/* (110 - 90) / 100 */
	    {__LINE__, {100, 150}, 2, 50},	/* median 100 */
	    {__LINE__, {0, 0, 5}, 3, INFINITY}, /* a median of 0 */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double s = diff_stats_spread(cases[i].v, cases[i].n);

		if (!(s == cases[i].spread || fabs(s - cases[i].spread) < 1e-9)) {
			fprintf(stderr, "  line %d: %g\n", cases[i].line, s);
			CHECK(0);
		}
	}
}

static void test_beyond(void)
{
	static const struct {
		int line;
		uint64_t b[4], n[4];
		size_t nb, nn;
		int beyond;
	} cases[] = {
	    /* separated, change 100% > spread 20%: beyond */
	    {__LINE__, {90, 100, 110}, {190, 200, 210}, 3, 3, 1},
	    /* every new run below every base run */
	    {__LINE__, {190, 200, 210}, {90, 100, 110}, 3, 3, 1},
	    /* overlapping ranges: within */
	    {__LINE__, {90, 100, 110}, {105, 115, 125}, 3, 3, 0},
	    /* separated, but the change (10%) is not above the spread (20%) */
	    {__LINE__, {90, 100, 110}, {111, 112, 113}, 3, 3, 0},
	    /* separated by little with no spread at all: beyond */
	    {__LINE__, {100, 100}, {101, 101}, 2, 2, 1},
	    /* equal runs: within */
	    {__LINE__, {100, 100}, {100, 100}, 2, 2, 0},
	    /* a side of one run has no spread to measure: never beyond */
	    {__LINE__, {100}, {500, 510, 520}, 1, 3, 0},
	    {__LINE__, {100, 101, 102}, {500}, 3, 1, 0},
	    /* from a median of 0: an infinite change */
	    {__LINE__, {0, 0}, {5, 6}, 2, 2, 1},
	    /* the larger spread is NEW's: 100 .. 400 around 200 is 150% > the 100% change */
	    {__LINE__, {99, 100, 101}, {150, 200, 400}, 3, 3, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t b[4], n[4];

		memcpy(b, cases[i].b, sizeof(b));
		memcpy(n, cases[i].n, sizeof(n));
		diff_stats_median(b, cases[i].nb); /* sorts */
		diff_stats_median(n, cases[i].nn);
		if (diff_stats_beyond(b, cases[i].nb, n, cases[i].nn) != cases[i].beyond) {
			fprintf(stderr, "  line %d\n", cases[i].line);
			CHECK(0);
		}
	}
}

static void test_pct(void)
{
	static const struct {
		int line;
		uint64_t from, to;
		const char *text;
	} cases[] = {
	    {__LINE__, 10, 30, "+200.0%"},     {__LINE__, 30, 10, "-66.7%"},
	    {__LINE__, 10, 10, "0.0%"},	       {__LINE__, 0, 0, "0.0%"},
	    {__LINE__, 0, 5, "new"},	       {__LINE__, 5, 0, "-100.0%"},
	    {__LINE__, 4013, 4014, "+0.025%"}, {__LINE__, 4014, 4013, "-0.025%"},
	    {__LINE__, 1000, 1001, "+0.1%"},
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		diff_stats_pct(buf, sizeof(buf), cases[i].from, cases[i].to);
		if (strcmp(buf, cases[i].text)) {
			fprintf(stderr, "  line %d: %s\n", cases[i].line, buf);
			CHECK(0);
		}
	}
}

int main(void)
{
	RUN(test_median);
	RUN(test_spread);
	RUN(test_beyond);
	RUN(test_pct);
	return test_summary("diff-stats");
}
