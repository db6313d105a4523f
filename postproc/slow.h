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
 * A snapshot of an agent run with slow=DURATION[:MAX] holds the calls it
 * kept (common/slow_keep.h): they are the report's, in the metric the
 * agent compared, filtered the same way.
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

struct slow_callee {
	uint32_t method;
	uint64_t value; /* its calls within the call, the metric's stored unit */
};

struct slow_call {
	/* where it was found while the trace was read (calls.h) */
	size_t source, thread; /* its read and thread (calls_thread, calls_tree) */
	uint32_t node;
	uint32_t callee_node[SLOW_CALLEES];
	uint64_t seq; /* the order the calls ended in */
	/* what the report shows */
	const struct model_thread *th; /* NULL: a thread the file does not define */
	uint32_t serial;
	uint32_t method;
	uint64_t value;		 /* duration, the metric's stored unit (calls_value) */
	int live;		 /* live before tracing: started at the thread's first event */
	int partial;		 /* a snapshot's call whose callees before a fold are in self */
	uint64_t start_ns;	 /* wall-clock start, ns since the epoch; 0 unknown (no TSC) */
	uint32_t *path;		 /* its calling context, root first, the call's method last */
	uint32_t depth, omitted; /* frames in path; frames left out on the root side */
	struct slow_callee callee[SLOW_CALLEES];
	unsigned ncallees; /* largest first */
	uint64_t self;	   /* its duration less all its callees' (0 if they took more) */
};

struct slow {
	struct slow_call *calls; /* longest first */
	size_t n;
	uint64_t seen;		 /* calls that passed the filters */
	unsigned metric;	 /* the metric of the durations */
	struct calls_state **cs; /* the reads: one, or one per input */
	size_t ncs;
	/* A snapshot of slow=: the agent kept only the calls of at least
	 * kept_ns, the kept_max longest; kept_over were that long. */
	int kept;
	uint64_t kept_ns, kept_max, kept_over;
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

/* Why a snapshot without slow= has no single calls. */
#define SLOW_NEED_TRACE                                                                            \
	"single calls need a trace, or a snapshot of an agent run with slow=DURATION: a tree "     \
	"snapshot (output=tree) keeps only their sums; record with output=trace, output=both, "    \
	"or slow="

/* Reads the trace into s; from a snapshot of slow=, takes the calls its
 * agent kept. Returns 0, or -1 with err (calls_read's errors, a snapshot
 * without slow=). */
int slow_build(const struct model *m, const struct slow_opts *o, struct slow *s, char *err,
	       size_t errlen);

void slow_free(struct slow *s);

/* "2026-01-02T03:04:05.123456789Z" for ns since the epoch. */
void slow_time(uint64_t ns, char *buf, size_t len);

#endif
