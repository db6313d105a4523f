/*
 * calib_comp.h - the compensation of one metric delta by a calibration
 * table (docs/calibration-format.md): the one arithmetic that jcal-post's
 * tree builder hook (postproc/calib_apply.c) and the agent's in-memory
 * trees (agent/core/tree_comp.c) both apply, so that a tree built in the
 * agent has the figures jcal-post would compute from a trace of the same
 * events.
 *
 * Compensation covers metric 0 only (the metric the table was measured
 * with); other metrics stay raw.
 */
#ifndef JCAL_CALIB_COMP_H
#define JCAL_CALIB_COMP_H

#include <stdint.h>

#include "common/calib_table.h"

/* max(0, raw - comp), at most INT64_MAX: the compensated value of a delta
 * raw whose overhead is comp. */
static inline uint64_t calib_comp_sub(uint64_t raw, uint64_t comp)
{
	/* without a branch on raw >= comp, which deltas decide at random: a
	 * mask of all ones when the subtraction does not wrap */
	const uint64_t d = (raw - comp) & -(uint64_t)(raw >= comp);

	return d > INT64_MAX ? INT64_MAX : d;
}

/* How one delta was compensated, for the callers' counts. */
struct calib_comp_result {
	enum calib_match match; /* how the key's comp was found */
	int clamped;		/* the raw delta was below the comp: 0 */
	int compensated;	/* metric 0: the table applied (else raw) */
};

/*
 * The compensated value of raw_delta, the delta of metric metric_index of a
 * step with sequence key key: for metric 0 max(0, raw - comp), comp being
 * what calib_table_comp_for() gives under the table's estimator; for other
 * metrics raw_delta. Saturated at INT64_MAX. The table must have been
 * prepared (calib_table_prepare) for this to read it only: then it may be
 * called from several threads at once.
 */
int64_t calib_comp_delta(struct calib_table *t, const struct seqkey *key, unsigned metric_index,
			 uint64_t raw_delta, struct calib_comp_result *r);

/* What a batch of compensations adds up (calib_comp_batch). */
struct calib_comp_counts {
	uint64_t clamped; /* deltas below their comp, counted as 0 */
	uint64_t similar; /* deltas whose key was found as CALIB_SIMILAR */
	uint64_t global;  /* deltas whose key fell back to CALIB_GLOBAL */
};

/*
 * calib_comp_delta() for n deltas of metric 0 at once, in one pass: out[k]
 * is the compensated value of delta[k], a step with the key of
 * seqkey_index key[k]; what the deltas were found as is added to *counts.
 * Returns 0, or -1 when the table cannot be prepared (out[] is then the
 * raw deltas, nothing counted).
 */
int calib_comp_batch(struct calib_table *t, const uint16_t *key, const uint64_t *delta,
		     int64_t *out, size_t n, struct calib_comp_counts *counts);

#endif
