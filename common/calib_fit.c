/*
 * calib_fit.c - the linear fit of a key's overhead against the step's own
 * work, and its inverse for one delta (see calib_fit.h).
 */
#include "common/calib_fit.h"

#include <math.h>

/* Weighted squared error of raw = w + a + b * w. */
static double sse(const struct calib_fit_point *p, size_t n, double min_weight, double a, double b)
{
	double s = 0;

	for (size_t i = 0; i < n; i++) {
		double e;

		if (!(p[i].weight >= min_weight))
			continue;
		e = p[i].raw - p[i].w - a - b * p[i].w;
		s += p[i].weight * e * e;
	}
	return s;
}

enum calib_fit_status calib_fit_solve(const struct calib_fit_point *p, size_t n, double min_weight,
				      double *a, double *b)
{
	double sw = 0, mw = 0, mr = 0, sww = 0, swr = 0, s0w = 0, s0wr = 0;
	double fa, fb;

	if (min_weight <= 0)
		min_weight = 1e-300; /* a point of weight 0 never counts */
	for (size_t i = 0; i < n; i++)
		if (p[i].weight >= min_weight) {
			sw += p[i].weight;
			mw += p[i].weight * p[i].w;
			mr += p[i].weight * p[i].raw;
		}
	if (sw <= 0)
		return CALIB_FIT_TOO_FEW;
	mw /= sw;
	mr /= sw;
	for (size_t i = 0; i < n; i++)
		if (p[i].weight >= min_weight) {
			double dw = p[i].w - mw;

			sww += p[i].weight * dw * dw;
			swr += p[i].weight * dw * (p[i].raw - mr);
			/* the line through the origin of the overhead raw - w */
			s0w += p[i].weight * p[i].w * p[i].w;
			s0wr += p[i].weight * p[i].w * (p[i].raw - p[i].w);
		}
	if (!(sww > 0))
		return CALIB_FIT_ONE_WORK;
	/* raw = alpha + beta * w: a = alpha, b = beta - 1 */
	fb = swr / sww - 1;
	fa = mr - (fb + 1) * mw;
	if (fa < 0 || fb < 0) {
		/* the optimum lies on an edge of a >= 0, b >= 0 */
		double a0 = mr - mw, b1 = s0w > 0 ? s0wr / s0w : 0;

		if (a0 < 0)
			a0 = 0;
		if (b1 < 0)
			b1 = 0;
		if (sse(p, n, min_weight, a0, 0) <= sse(p, n, min_weight, 0, b1)) {
			fa = a0;
			fb = 0;
		} else {
			fa = 0;
			fb = b1;
		}
	}
	*a = fa;
	*b = fb;
	return CALIB_FIT_OK;
}

const char *calib_fit_status_str(enum calib_fit_status s)
{
	switch (s) {
	case CALIB_FIT_OK:
		return "ok";
	case CALIB_FIT_TOO_FEW:
		return "too few samples";
	case CALIB_FIT_ONE_WORK:
		return "one body length";
	}
	return "?";
}

static double round_to(double v, double scale, double max)
{
	if (!(v > 0)) /* NaN too */
		return 0;
	if (v >= max)
		return max;
	return round(v * scale) / scale;
}

double calib_fit_round_a(double a, double max)
{
	return round_to(a, 10, max);
}

double calib_fit_round_b(double b, double max)
{
	return round_to(b, 10000, max);
}

uint64_t calib_fit_comp(double a, double b, uint64_t raw)
{
	double r = (double)raw, w;
	uint64_t work;

	if (r < a)
		return (uint64_t)ceil(a);
	w = (r - a) / (1 + b) + 0.5; /* rounded half up: w >= 0 */
	work = w >= 18446744073709551615.0 ? raw : (uint64_t)w;
	return work > raw ? 0 : raw - work;
}

uint64_t calib_cfit_comp(double a, double b, uint64_t h, uint64_t o, uint64_t raw)
{
	uint64_t f = calib_fit_comp(a, b, raw), past = raw > h ? raw - h : 0;

	if (f <= o)
		return o;
	return f - o > past ? o + past : f; /* o + past < f: no wrap */
}
