/*
 * satsum.h - sums of counts and metric figures that stop at UINT64_MAX
 * rather than wrap round: a damaged or crafted input (a tree snapshot
 * whose CRCs are right, a trace whose metric jumps back and forth) can
 * hold figures whose sum passes 2^64 - 1, and a sum that wraps shows a
 * small number where a huge one belongs. Whoever saturates a sum notes
 * what kind of figure it was; jcal-post names them in one warning at the
 * end of its run (docs/jcal-post.md, "Limits").
 */
#ifndef JCAL_SATSUM_H
#define JCAL_SATSUM_H

#include <stddef.h>
#include <stdint.h>

/* What was saturated: bits of satsum_seen(). */
enum satsum_what {
	SATSUM_CALLS = 1u << 0,
	SATSUM_BASE = 1u << 1, /* calibrated base */
	SATSUM_RAW_BASE = 1u << 2,
	SATSUM_CUM = 1u << 3, /* calibrated cum, and totals of it */
	SATSUM_RAW_CUM = 1u << 4,
	SATSUM_EVENTS = 1u << 5, /* events and the other counts of the threads' statistics */
	SATSUM_NS = 1u << 6,	 /* metric values converted to ns (a TSC) */
	SATSUM_SPAN = 1u << 7,	 /* what threads spent between their start and end */
	SATSUM_INT64 = 1u << 8,	 /* values of a format whose numbers are signed (pprof) */
	SATSUM_COUNT = 9,
};

/* Notes that a figure of kind what was saturated (safe from any thread). */
void satsum_note(unsigned what);

/* The kinds noted since the start or the last satsum_reset(). */
unsigned satsum_seen(void);
void satsum_reset(void);

/* "calls, base, cum" for the kinds in what, into buf. */
void satsum_names(unsigned what, char *buf, size_t len);

/* a + b, or UINT64_MAX (noted as what) when the sum does not fit. */
static inline uint64_t satsum_add(uint64_t a, uint64_t b, unsigned what)
{
	uint64_t s;

	if (__builtin_expect(__builtin_add_overflow(a, b, &s), 0)) {
		satsum_note(what);
		return UINT64_MAX;
	}
	return s;
}

/* *x += v, saturated. */
static inline void satsum_addto(uint64_t *x, uint64_t v, unsigned what)
{
	*x = satsum_add(*x, v, what);
}

#endif
