/*
 * calib_comp.c - one delta compensated by a calibration table (see
 * calib_comp.h).
 */
#include "common/calib_comp.h"

/* calib_comp_sub as the hooks return it. */
static inline int64_t compensated(uint64_t raw, uint64_t comp)
{
	return (int64_t)calib_comp_sub(raw, comp);
}

int64_t calib_comp_delta(struct calib_table *t, const struct seqkey *key, unsigned metric_index,
			 uint64_t raw_delta, struct calib_comp_result *r)
{
	uint64_t comp = 0;

	r->match = CALIB_EXACT;
	r->clamped = 0;
	r->compensated = 0;
	if (metric_index == 0) {
		r->match = calib_table_comp_for(t, key, raw_delta, &comp);
		r->compensated = 1;
		r->clamped = raw_delta < comp;
	}
	return compensated(raw_delta, comp);
}

int calib_comp_batch(struct calib_table *t, const uint16_t *key, const uint64_t *delta,
		     int64_t *out, size_t n, struct calib_comp_counts *counts)
{
	uint64_t below = 0, similar = 0, global = 0;

	if (!t->prepared && calib_table_prepare(t)) {
		for (size_t k = 0; k < n; k++)
			out[k] = compensated(delta[k], 0);
		return -1;
	}
	for (size_t k = 0; k < n; k++) {
		const unsigned i = key[k];
		const uint64_t c = calib_table_comp_prepared(t, i, delta[k]);

		below += delta[k] < c;
		similar += t->step[i].similar;
		global += t->step[i].global;
		out[k] = compensated(delta[k], c);
	}
	counts->clamped += below;
	counts->similar += similar;
	counts->global += global;
	return 0;
}
