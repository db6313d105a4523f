/*
 * calib_comp.c - one delta compensated by a calibration table (see
 * calib_comp.h).
 */
#include "calib_comp.h"

int64_t calib_comp_delta(struct calib_table *t, const struct seqkey *key, unsigned metric_index,
			 uint64_t raw_delta, struct calib_comp_result *r)
{
	uint64_t comp;

	r->match = CALIB_EXACT;
	r->clamped = 0;
	r->compensated = 0;
	if (metric_index != 0)
		return raw_delta > INT64_MAX ? INT64_MAX : (int64_t)raw_delta;
	r->match = calib_table_comp_for(t, key, raw_delta, &comp);
	r->compensated = 1;
	if (raw_delta < comp) {
		r->clamped = 1;
		return 0;
	}
	raw_delta -= comp;
	return raw_delta > INT64_MAX ? INT64_MAX : (int64_t)raw_delta;
}
