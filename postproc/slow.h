/*
 * slow.h - the slowest single calls of a trace read again (calls.h), each
 * with its thread, its start on the wall clock, its calling context and
 * the callees it spent its time in: the rows of --report slow
 * (docs/jcal-post.md, slow).
 *
 * The N longest calls are kept in a heap while the trace is read (memory:
 * N calls and their largest callees, one frame and its callees per open
 * call), so a trace of any length gives its slowest calls in one pass.
 * Filters as latency.h: --exclude leaves out the calls of matching
 * methods, --include keeps the calls with a matching frame on their path.
 */
#ifndef JCAL_SLOW_H
#define JCAL_SLOW_H

#include <stddef.h>
#include <stdint.h>

#include "postproc/calls.h"
#include "postproc/shaping.h"

/* Callees kept per slow call: the largest, by their time in it. */
#define SLOW_CALLEES 5
/* Calls listed without --top. */
#define SLOW_TOP_DEFAULT 20

struct slow_call {
	size_t source, thread; /* its read and thread (calls_thread, calls_tree) */
	uint32_t node, method;
	uint64_t value;	   /* duration, the metric's stored unit (calls_value) */
	int live;	   /* live before tracing: started at the thread's first event */
	uint64_t start_ns; /* wall-clock start, ns since the epoch; 0 unknown (no TSC) */
	uint64_t seq;	   /* the order the calls ended in */
	struct calls_callee callee[SLOW_CALLEES];
	unsigned ncallees; /* largest first */
	uint64_t self;	   /* its duration less all its callees' (0 if they took more) */
};

struct slow {
	struct slow_call *calls; /* longest first */
	size_t n;
	uint64_t seen;		 /* calls that passed the filters */
	struct calls_state **cs; /* the reads: one, or one per input */
	size_t ncs;
};

struct slow_opts {
	const char *path;
	unsigned metric;
	const struct threadsel *sel;
	const struct shape_opts *shp; /* --include, --exclude; may be NULL */
	size_t top;		      /* 0: SLOW_TOP_DEFAULT */
	FILE *progress;
	const struct calls_inputs *inputs; /* a merged profile's inputs (calls.h) */
};

/* Reads the trace into s. Returns 0, or -1 with err (calls_read's
 * errors). */
int slow_build(const struct model *m, const struct slow_opts *o, struct slow *s, char *err,
	       size_t errlen);

void slow_free(struct slow *s);

/* "2026-01-02T03:04:05.123456789Z" for ns since the epoch. */
void slow_time(uint64_t ns, char *buf, size_t len);

#endif
