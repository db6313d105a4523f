/*
 * calltree_internal.h - the tree builder's own state that its users never
 * read (common/calltree.c; white-box tests may look at it).
 */
#ifndef JCAL_CALLTREE_INTERNAL_H
#define JCAL_CALLTREE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

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

#endif
