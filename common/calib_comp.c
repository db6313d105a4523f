/*
 * calib_comp.c - one delta compensated by a calibration table (see
 * calib_comp.h).
 */
#include "common/calib_comp.h"

#include <string.h>

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

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	return fnv(h, b, sizeof(b));
}

uint64_t calib_table_digest(const struct calib_table *t)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = fnv_u64(h, calib_fingerprint_hash(&t->fp));
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		const struct calib_entry *e = &t->e[i];
		uint64_t mean;

		if (!e->present)
			continue;
		memcpy(&mean, &e->mean, sizeof(mean));
		h = fnv_u64(h, i);
		h = fnv_u64(h, (uint64_t)e->has_stats << 1 | e->has_q);
		h = fnv_u64(h, e->min);
		h = fnv_u64(h, e->samples);
		h = fnv_u64(h, e->env);
		h = fnv_u64(h, e->has_stats ? mean : 0);
		h = fnv_u64(h, e->median);
		h = fnv_u64(h, e->p10);
		for (unsigned j = 0; e->has_q && j < CALIB_NQ; j++)
			h = fnv_u64(h, e->q[j]);
		if (e->has_fit) {
			/* only tables with a fit hash it: the others keep their digest */
			uint64_t a, b;

			memcpy(&a, &e->fit_a, sizeof(a));
			memcpy(&b, &e->fit_b, sizeof(b));
			h = fnv_u64(h, a);
			h = fnv_u64(h, b);
		}
	}
	return h;
}
