/*
 * calltree_internal.h - the tree builder's own state that its users never
 * read (common/calltree.c; white-box tests may look at it).
 */
#ifndef JCAL_CALLTREE_INTERNAL_H
#define JCAL_CALLTREE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/calltree.h"

/* Deltas whose charge calltree_events() has deferred to the end of its
 * batch: struct calltree's pend, made at the first batch and freed by
 * calltree_rest and calltree_free. */
struct calltree_pending {
	uint32_t *node;
	uint16_t *key;	 /* seqkey_index */
	uint64_t *delta; /* n * nmetrics raw deltas */
	int64_t *out;	 /* scratch for the batch compensation */
	size_t n, cap;
};

/* calltree_watch's state: what every charge added up to so far (raw and
 * compensated, per metric), and at each open frame's entry (at: 2 *
 * nmetrics values per frame, the totals then raw first). */
struct calltree_watching {
	struct calltree_watch w;
	uint64_t total[JCAL_MAX_METRICS], raw_total[JCAL_MAX_METRICS];
	uint64_t *at;
	size_t cap; /* values at has room for */
};

/* calltree_keep_sums' state: the generation of each open frame (by stack
 * index) and of what runs outside any (root_gen), the last given, the
 * last when the tree folded; per node its sum and the generation of its
 * parent's call it belongs to (nslot of them, grown as nodes end). */
struct calltree_sum {
	uint64_t gen, value, raw;
};

struct calltree_sums {
	struct calltree_sums_cfg cfg;
	uint64_t gen, root_gen, fold_gen;
	uint64_t *frame_gen;
	size_t frame_cap;
	struct calltree_sum *slot;
	size_t nslot;
};

#endif
