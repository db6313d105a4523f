/*
 * test-calib-fit.c - the fit of a key's overhead against the step's own
 * work and its inverse for one delta (common/calib_fit.h): least squares on
 * constructed points with known answers, the constrained cases (b < 0,
 * a < 0), the degenerate ones (one body length, too few samples), the
 * rounding a table keeps and the compensation's integer arithmetic.
 */
#include <math.h>
#include <stdint.h>

#include "common/calib_fit.h"
#include "native-tests/test.h"

#define NEAR(x, want) (fabs((x) - (want)) < 1e-9)

/* raw = w + 50 + 0.25 w exactly: the fit finds the line. */
static void test_exact_line(void)
{
	struct calib_fit_point p[] = {{0, 50, 10}, {100, 175, 3}, {400, 550, 1}};
	double a = -1, b = -1;

	CHECK(calib_fit_solve(p, 3, 1, &a, &b) == CALIB_FIT_OK);
	CHECK(NEAR(a, 50));
	CHECK(NEAR(b, 0.25));
}

/* Weighted least squares: the point at w = 0 counts twice. By hand:
 * mean w 75, mean raw 152.5, Sww 27500, Swr 35250, so raw = alpha +
 * beta w with beta = 141/110, alpha = 620/11: a = 620/11, b = 31/110.
 * With equal weights: beta = 1.3, alpha = 160/3. */
static void test_weighted(void)
{
	struct calib_fit_point p[] = {{0, 60, 2}, {100, 170, 1}, {200, 320, 1}};
	double a = 0, b = 0;

	CHECK(calib_fit_solve(p, 3, 1, &a, &b) == CALIB_FIT_OK);
	CHECK(NEAR(a, 620.0 / 11));
	CHECK(NEAR(b, 31.0 / 110));
	p[0].weight = 1;
	CHECK(calib_fit_solve(p, 3, 1, &a, &b) == CALIB_FIT_OK);
	CHECK(NEAR(a, 160.0 / 3));
	CHECK(NEAR(b, 0.3));
	/* a point below min_weight is left out: the two others, exactly */
	p[0].weight = 0.5;
	CHECK(calib_fit_solve(p, 3, 1, &a, &b) == CALIB_FIT_OK);
	CHECK(NEAR(a, 20));
	CHECK(NEAR(b, 0.5));
}

/* Overhead falling with the work (b = -0.2 free): the edge b = 0 with a =
 * mean(raw - w) = 80 (squared error 800) beats the edge a = 0 with b = 0.4
 * (12000). */
static void test_b_negative(void)
{
	struct calib_fit_point p[] = {{0, 100, 1}, {100, 180, 1}, {200, 260, 1}};
	double a = 0, b = 1;

	CHECK(calib_fit_solve(p, 3, 1, &a, &b) == CALIB_FIT_OK);
	CHECK(NEAR(a, 80));
	CHECK(NEAR(b, 0));
}

/* A negative intercept (a = -20, b = 0.5 free): the edge a = 0 with b =
 * sum w (raw - w) / sum w^2 = 58000 / 140000 (squared error ~171) beats
 * b = 0 with a = 80 (5000). */
static void test_a_negative(void)
{
	struct calib_fit_point p[] = {{100, 130, 1}, {200, 280, 1}, {300, 430, 1}};
	double a = 1, b = 0;

	CHECK(calib_fit_solve(p, 3, 1, &a, &b) == CALIB_FIT_OK);
	CHECK(NEAR(a, 0));
	CHECK(NEAR(b, 58000.0 / 140000));
	/* both edges negative: raw below the work everywhere, nothing to take */
	struct calib_fit_point q[] = {{100, 90, 1}, {200, 150, 1}};
	CHECK(calib_fit_solve(q, 2, 1, &a, &b) == CALIB_FIT_OK);
	CHECK(NEAR(a, 0));
	CHECK(NEAR(b, 0));
}

static void test_degenerate(void)
{
	struct calib_fit_point one[] = {{100, 300, 50}, {100, 320, 50}};
	struct calib_fit_point few[] = {{0, 300, 3}, {100, 500, 1}};
	double a = 7, b = 7;

	CHECK(calib_fit_solve(one, 2, 1, &a, &b) == CALIB_FIT_ONE_WORK);
	CHECK(calib_fit_solve(few, 2, 2, &a, &b) == CALIB_FIT_ONE_WORK);
	CHECK(calib_fit_solve(few, 2, 4, &a, &b) == CALIB_FIT_TOO_FEW);
	CHECK(calib_fit_solve(few, 0, 1, &a, &b) == CALIB_FIT_TOO_FEW);
	few[0].weight = few[1].weight = 0;
	CHECK(calib_fit_solve(few, 2, 0, &a, &b) == CALIB_FIT_TOO_FEW);
	CHECK(a == 7 && b == 7); /* untouched */
	CHECK_STR(calib_fit_status_str(CALIB_FIT_ONE_WORK), "one body length");
	CHECK_STR(calib_fit_status_str(CALIB_FIT_TOO_FEW), "too few samples");
}

static void test_round(void)
{
	CHECK(calib_fit_round_a(12.34, 1e6) == 12.3);
	CHECK(calib_fit_round_a(12.35001, 1e6) == 12.4);
	CHECK(calib_fit_round_b(0.123456, 1e6) == 0.1235);
	CHECK(calib_fit_round_b(-0.5, 1e6) == 0);
	CHECK(calib_fit_round_a(NAN, 1e6) == 0);
	CHECK(calib_fit_round_a(2e6, 1e6) == 1e6);
}

/* a = 50, b = 0.25: a raw 175 is work 100 (comp 75); below a the step is
 * all overhead (ceil(a), above raw: clamped). */
static void test_comp(void)
{
	CHECK_EQ_U(calib_fit_comp(50, 0.25, 175), 75);
	CHECK_EQ_U(calib_fit_comp(50, 0.25, 50), 50);
	CHECK_EQ_U(calib_fit_comp(50, 0.25, 51), 50); /* work 0.8 -> 1 */
	CHECK_EQ_U(calib_fit_comp(50, 0.25, 52), 50); /* work 1.6 -> 2 */
	CHECK_EQ_U(calib_fit_comp(50, 0.25, 40), 50); /* clamped */
	CHECK_EQ_U(calib_fit_comp(10.5, 0, 10), 11);  /* clamped, above raw */
	CHECK_EQ_U(calib_fit_comp(10.5, 0, 11), 10);  /* work 0.5 -> 1 */
	CHECK_EQ_U(calib_fit_comp(0, 0, 12345), 0);   /* no overhead */
	CHECK_EQ_U(calib_fit_comp(0, 1, 1000), 500);  /* half of it */
	CHECK_EQ_U(calib_fit_comp(0, 1, 0), 0);
	/* raw deltas beyond any table value stay in range */
	CHECK(calib_fit_comp(100, 0.5, UINT64_MAX) <= UINT64_MAX / 2);
	CHECK(calib_fit_comp(100, 0, UINT64_MAX) < 4096);
}

int main(void)
{
	RUN(test_exact_line);
	RUN(test_weighted);
	RUN(test_b_negative);
	RUN(test_a_negative);
	RUN(test_degenerate);
	RUN(test_round);
	RUN(test_comp);
	return test_summary("calib-fit");
}
