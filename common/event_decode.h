/*
 * event_decode.h - decodes the events of an events chunk one at a time.
 *
 * The one definition of how an event is read (docs/trace-format.md,
 * "Events chunks"): the tag byte, the method id or the decoder's shadow
 * stack, the zigzag deltas of each metric. The trace reader decodes with
 * it, and so does the tree builder that takes a chunk's bytes straight
 * (calltree_decode), so the two cannot read a chunk differently. The
 * builder's loop for the events that make up nearly all of a one-metric
 * trace reads them with event_common_*(), the same reading with fewer
 * checks, kept here beside event_next() (test-calltree checks that both
 * build the same trees).
 */
#ifndef JCAL_EVENT_DECODE_H
#define JCAL_EVENT_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "common/trace_format.h"
#include "common/varint.h"

/* Where the decoding of one events chunk stands. */
struct event_run {
	const uint8_t *p, *end;		/* the bytes not decoded yet */
	uint32_t *stack;		/* the shadow stack: TRACE_SHADOW_DEPTH method ids */
	uint32_t depth;			/* may exceed TRACE_SHADOW_DEPTH (entries not kept) */
	unsigned nmetrics;		/* 1..JCAL_MAX_METRICS */
	uint64_t acc[JCAL_MAX_METRICS]; /* absolute metric values after the last event */
	uint64_t events;		/* events decoded (controls included) */
	uint64_t controls;		/* control events among them */
	/* set by a taker that hands the events on to be decoded later,
	 * elsewhere (tree_workers_add_chunk): they are counted by nobody
	 * here, so the reader leaves END's count of events to the taker */
	int later;
};

/* One decoded event; metric is the run's acc after it. */
struct event_one {
	uint32_t method; /* a control event's label id, 0 for none */
	unsigned transition, type;
};

/* A varint with a fast path for one and two bytes; NULL when malformed or
 * cut. */
static inline const uint8_t *event_uv(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	if (__builtin_expect(p < end && !(*p & 0x80), 1)) {
		*v = *p;
		return p + 1;
	}
	if (p + 1 < end && !(p[1] & 0x80)) {
		*v = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
		return p + 2;
	}
	size_t n = varint_get(p, end, v);
	return n ? p + n : NULL;
}

/*
 * Decodes the event at r->p (r->p < r->end) into e and moves r past it.
 * nm must be r->nmetrics (a constant where the caller is specialised).
 * Returns NULL, or what is wrong with the event; r is then unchanged (so
 * that another decoder can take the chunk on from there and say the same).
 */
static inline __attribute__((always_inline)) const char *
event_next(struct event_run *r, const unsigned nm, struct event_one *e)
{
	const uint8_t *p = r->p, *end = r->end;
	const unsigned tag = *p++;
	const unsigned tr = tag & TRACE_TAG_TRANS_MASK;
	const unsigned type = (tag & TRACE_TAG_TYPE_MASK) >> TRACE_TAG_TYPE_SHIFT;
	uint32_t depth = r->depth, m;
	uint64_t x, acc[JCAL_MAX_METRICS];

	if (__builtin_expect((tag & TRACE_TAG_RESERVED) || type == 7, 0))
		return "bad tag byte";
	if (__builtin_expect(tr == JCAL_TR_CONTROL, 0)) {
		/* control event (1.1): kind in the type bits, optional label */
		m = 0;
		if (type >= JCAL_CTL_COUNT)
			return "bad control event";
		if (tag & TRACE_TAG_EXPLICIT) {
			p = event_uv(p, end, &x);
			if (!p || x > UINT32_MAX)
				return "bad label id";
			m = (uint32_t)x;
		}
	} else if (tag & TRACE_TAG_EXPLICIT) {
		p = event_uv(p, end, &x);
		if (__builtin_expect(!p || x > UINT32_MAX, 0))
			return "bad method id";
		m = (uint32_t)x;
		if (tr == JCAL_TR_ENTRY) {
			/* written now, kept only if the event is whole */
			if (depth < TRACE_SHADOW_DEPTH)
				r->stack[depth] = m;
			depth++;
		} else if (depth > TRACE_SHADOW_DEPTH) {
			depth--;
		}
	} else {
		if (__builtin_expect(
			tr == JCAL_TR_ENTRY || depth == 0 || depth > TRACE_SHADOW_DEPTH, 0))
			return tr == JCAL_TR_ENTRY ? "entry without a method id"
						   : "implicit exit with no known method on the "
						     "shadow stack";
		m = r->stack[--depth];
	}
	for (unsigned i = 0; i < nm; i++) {
		p = event_uv(p, end, &x);
		if (__builtin_expect(!p, 0))
			return "bad or cut metric delta";
		acc[i] = r->acc[i] + (uint64_t)zigzag_dec(x);
	}
	for (unsigned i = 0; i < nm; i++)
		r->acc[i] = acc[i];
	e->method = m;
	e->transition = tr;
	e->type = type;
	r->p = p;
	r->depth = depth;
	r->events++;
	r->controls += tr == JCAL_TR_CONTROL;
	return NULL;
}

/* The most bytes an event of one metric takes: its tag, a method id
 * (5 bytes at most) and a delta (10). */
#define EVENT_COMMON_MAX (1 + 5 + 10)

/* Where event_common_kind() may read r's chunk up to: the events that
 * start before it are whole in the chunk or cut at its end. */
static inline const uint8_t *event_common_stop(const struct event_run *r)
{
	return r->end - r->p > EVENT_COMMON_MAX ? r->end - EVENT_COMMON_MAX : r->p;
}

/* event_uv() for a varint that starts at least EVENT_COMMON_MAX bytes
 * before end: its first two bytes are read without a look at end. */
static inline const uint8_t *event_uv_near(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	if (__builtin_expect(!(p[0] & 0x80), 1)) {
		*v = p[0];
		return p + 1;
	}
	if (!(p[1] & 0x80)) {
		*v = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
		return p + 2;
	}
	size_t n = varint_get(p, end, v);
	return n ? p + n : NULL;
}

/* The metric after the event whose delta starts at q (event_uv_near's
 * terms), acc the metric before it: *v, and the bytes after the delta;
 * NULL when the delta is cut, or backwards. */
static inline const uint8_t *event_delta_near(const uint8_t *q, const uint8_t *end, uint64_t acc,
					      uint64_t *v)
{
	uint64_t x;

	q = event_uv_near(q, end, &x);
	if (!q)
		return NULL;
	*v = acc + (uint64_t)zigzag_dec(x);
	return *v < acc ? NULL : q;
}

/*
 * The events that make up nearly all of a one-metric trace, read as
 * event_next() reads them but with fewer checks: an entry with an explicit
 * method id and room on the shadow stack, or an implicit exit (or throw)
 * of the method on top of it; of a type below JCAL_MT_COUNT; whose delta
 * does not take the metric backwards. event_common_kind() tells which of
 * the two the event at p (before event_common_stop()) may be, from its
 * tag byte; event_common_entry() or event_common_exit() reads it. They
 * move nothing: the caller takes the event (event_common_take) or leaves
 * it to event_next(), which reads it or says what is wrong with it.
 */
enum event_common { EVENT_COMMON_NONE, EVENT_COMMON_ENTRY, EVENT_COMMON_EXIT };

static inline enum event_common event_common_kind(const uint8_t *p)
{
	enum { TAG_KIND = TRACE_TAG_RESERVED | TRACE_TAG_EXPLICIT | TRACE_TAG_TRANS_MASK };
	const unsigned tag = *p;

	if (((tag & TRACE_TAG_TYPE_MASK) >> TRACE_TAG_TYPE_SHIFT) >= JCAL_MT_COUNT)
		return EVENT_COMMON_NONE;
	if ((tag & TAG_KIND) == (JCAL_TR_ENTRY | TRACE_TAG_EXPLICIT))
		return EVENT_COMMON_ENTRY;
	if ((tag & TAG_KIND) == JCAL_TR_EXIT || (tag & TAG_KIND) == JCAL_TR_THROW)
		return EVENT_COMMON_EXIT;
	return EVENT_COMMON_NONE;
}

/* The entry at p (EVENT_COMMON_ENTRY), depth the shadow stack's before
 * it, acc the metric before it: sets e and *metric (the metric after the
 * event), returns the bytes after the event; NULL when it is not one of
 * the common events. */
static inline __attribute__((always_inline)) const uint8_t *
event_common_entry(const uint8_t *p, const uint8_t *end, uint32_t depth, uint64_t acc,
		   struct event_one *e, uint64_t *metric)
{
	const uint8_t *q;
	uint64_t x;

	q = event_uv_near(p + 1, end, &x);
	if (!q || x > UINT32_MAX || depth >= TRACE_SHADOW_DEPTH)
		return NULL;
	e->method = (uint32_t)x;
	e->transition = JCAL_TR_ENTRY;
	e->type = (*p & TRACE_TAG_TYPE_MASK) >> TRACE_TAG_TYPE_SHIFT;
	return event_delta_near(q, end, acc, metric);
}

/* The exit or throw at p (EVENT_COMMON_EXIT), in event_common_entry()'s
 * terms, stack the shadow stack (depth method ids). */
static inline __attribute__((always_inline)) const uint8_t *
event_common_exit(const uint8_t *p, const uint8_t *end, const uint32_t *stack, uint32_t depth,
		  uint64_t acc, struct event_one *e, uint64_t *metric)
{
	if (depth == 0 || depth > TRACE_SHADOW_DEPTH)
		return NULL;
	e->method = stack[depth - 1];
	e->transition = *p & TRACE_TAG_TRANS_MASK;
	e->type = (*p & TRACE_TAG_TYPE_MASK) >> TRACE_TAG_TYPE_SHIFT;
	return event_delta_near(p + 1, end, acc, metric);
}

/* The shadow stack (stack, *depth) after an event event_common_entry()
 * or event_common_exit() read (e). */
static inline void event_common_take(uint32_t *stack, uint32_t *depth, const struct event_one *e)
{
	if (e->transition == JCAL_TR_ENTRY)
		stack[(*depth)++] = e->method;
	else
		(*depth)--;
}

#endif
