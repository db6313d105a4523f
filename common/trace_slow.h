/*
 * trace_slow.h - the TREE_SLOW record of a tree snapshot
 * (docs/trace-format.md, "TREE_SLOW records"): one call the agent kept
 * because it took longer than slow=DURATION, with its thread, duration,
 * end on the wall clock, calling context (its methods, root side first)
 * and the callees it spent its time in.
 *
 * Shared by the writer (common/trace_encoder.c, called by the agent's
 * tree_dump.c through common/slow_keep.h) and the reader
 * (common/trace_reader.c).
 */
#ifndef JCAL_TRACE_SLOW_H
#define JCAL_TRACE_SLOW_H

#include <stdint.h>

/* Frames of a call's path kept, the innermost ones (the call's own last). */
#define TRACE_SLOW_PATH_MAX 128
/* Callees kept per call: the largest by their time in it. */
#define TRACE_SLOW_CALLEES 5

/* Flags. */
#define TRACE_SLOW_LIVE 0x1u /* live before tracing: ran from the thread's first event */
#define TRACE_SLOW_PARTIAL                                                                         \
	0x2u /* the tree folded while it ran: callees before the fold                              \
	      * are in self */

struct trace_slow_callee {
	uint32_t method;
	uint64_t value, raw; /* its calls within the call: compensated and raw cum */
};

struct trace_slow {
	uint32_t thread; /* serial */
	unsigned metric; /* index of the metric of value, raw, self and the callees' */
	uint64_t value;	 /* the call's compensated cum (its duration), raw units */
	uint64_t raw;	 /* its raw cum */
	uint64_t self;	 /* value less all its callees' (0 if they took more) */
	uint64_t raw_self;
	uint64_t end_ns;  /* wall clock when it ended, ns since the epoch */
	uint64_t wall_ns; /* its wall-clock duration in ns; 0 not known (no TSC) */
	uint32_t flags;	  /* TRACE_SLOW_* */
	uint32_t omitted; /* frames of its path left out on the root side */
	uint32_t depth;	  /* frames in path, 1..TRACE_SLOW_PATH_MAX */
	uint32_t path[TRACE_SLOW_PATH_MAX]; /* METHOD ids, root side first */
	unsigned ncallees;
	struct trace_slow_callee callee[TRACE_SLOW_CALLEES]; /* largest first */
};

#endif
