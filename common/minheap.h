/*
 * minheap.h - a binary min-heap kept in the caller's array of elements of
 * any size, ordered by the caller's less(a, b): the keepers of "the N
 * largest" (the agent's slowest calls, common/slow_keep.c; jcal-post's,
 * postproc/slow.c) hold their N best with the smallest at index 0.
 */
#ifndef JCAL_MINHEAP_H
#define JCAL_MINHEAP_H

#include <stddef.h>

/* Whether element a comes before element b (is less). */
typedef int (*minheap_less_fn)(const void *a, const void *b);

/* Element i (of base, elements of size bytes) moved up to its place: after
 * it was appended. */
void minheap_up(void *base, size_t size, size_t i, minheap_less_fn less);

/* Element i of the n moved down to its place: after it was replaced by a
 * larger one. */
void minheap_down(void *base, size_t n, size_t size, size_t i, minheap_less_fn less);

#endif
