/*
 * calib_fit.h - the overhead of a step as a function of the step's own work
 * (docs/calibration-format.md, fields a= and b=): the calibration runs the
 * same keys with node bodies of several known untraced costs w, and a
 * key's raw deltas are modelled as raw = w + a + b * w, the agent adding a
 * fixed part a and a part b that grows with the work it interrupts. The
 * fit is a weighted least-squares line through per-body-length points;
 * the compensation inverts it for one raw delta, w = (raw - a) / (1 + b).
 *
 * Pure code, shared by the derivation (calib_derive.c) and the fit
 * estimator of the compensation (calib_table.c).
 */
#ifndef JCAL_CALIB_FIT_H
#define JCAL_CALIB_FIT_H

#include <stddef.h>
#include <stdint.h>

/* One body length of one key: its untraced work w, the typical raw delta
 * of its samples and the weight of the point (their number). */
struct calib_fit_point {
	double w, raw, weight;
};

enum calib_fit_status {
	CALIB_FIT_OK = 0,
	CALIB_FIT_TOO_FEW,  /* no point has min_weight samples */
	CALIB_FIT_ONE_WORK, /* the points left have a single w: no slope */
};

/*
 * Fits raw = w + a + b * w over the points of weight >= min_weight by
 * weighted least squares, with a >= 0 and b >= 0: when the free line
 * breaks one of them, the better (smaller weighted squared error) of the
 * line with b = 0 and the line with a = 0, each with the other parameter
 * clamped at 0. Returns CALIB_FIT_OK with *a and *b set, else the reason
 * (*a and *b untouched).
 */
enum calib_fit_status calib_fit_solve(const struct calib_fit_point *p, size_t n, double min_weight,
				      double *a, double *b);

/* "ok", "too few samples", "one body length". */
const char *calib_fit_status_str(enum calib_fit_status s);

/* a and b as a table holds them: a to 0.1, b to 0.0001, both at least 0
 * and at most max (NaN as 0), so that what is written reads back equal. */
double calib_fit_round_a(double a, double max);
double calib_fit_round_b(double b, double max);

/*
 * What the fit estimator subtracts from one raw delta: raw - w, w being
 * the step's own work (raw - a) / (1 + b) rounded to the nearest integer;
 * for raw < a, ceil(a), which is above raw (the step is all overhead: its
 * compensated value is 0, counted as clamped). a >= 0 and b >= 0.
 */
uint64_t calib_fit_comp(double a, double b, uint64_t raw);

/*
 * What the cfit estimator subtracts from a raw delta past the key's
 * empty-body range (raw > h, h its largest empty-body quantile q[15]): the
 * fit's calib_fit_comp(a, b, raw), but at least o (cond's mean of all the
 * key's empty-body overheads: a step that did work has at least the
 * overhead of one that did none) and at most o + (raw - h) (the overhead
 * past o can only come out of the part of the delta past the empty-body
 * range). At raw = h both bounds are o, which is what cond subtracts there:
 * the hand-over is continuous. For raw <= h the caller takes cond.
 */
uint64_t calib_cfit_comp(double a, double b, uint64_t h, uint64_t o, uint64_t raw);

#endif
