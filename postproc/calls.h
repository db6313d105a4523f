/*
 * calls.h - every single call of a trace, with its duration: the reports
 * of calls one by one (latency, slow) read the trace again through it.
 *
 * Each selected thread's events go to a tree builder of its own
 * (common/calltree.h) with the model's compensation hook and
 * calltree_watch(): a call's duration is its cum, the charges its frame
 * and the frames above it took while it was open, compensated exactly as
 * the trees of the other reports are (the cums of a context's calls add up
 * to the context's cum). The durations are handed over as the calls end,
 * in the metric's stored unit (TSC ticks as ticks: calls_value converts);
 * with --metric offcpu (model_offcpu), in ns. Frames live before tracing
 * started run from the thread's first event; frames still open at its
 * last one end there (as the trees count them).
 *
 * A merged profile (jcal-post FILE...) is read input by input: each
 * input's model (loaded again as jcal-post loads it, compensated with its
 * own table) reads its trace, its threads are the profile's threads of that
 * input, its methods the profile's of the same class, name and signature,
 * and TSC durations are converted to ns with the input's own frequency.
 * A tree snapshot holds no single calls: refused with a message.
 *
 * Memory: one tree per selected thread (its calling contexts), one frame
 * per open call, and with callees its callees so far; nothing per event.
 */
#ifndef JCAL_CALLS_H
#define JCAL_CALLS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/calltree.h"
#include "postproc/model.h"
#include "postproc/threadsel.h"

/* What one callee took within one call: its context (a child of the
 * call's node) and the durations of its calls then, added up. */
struct calls_callee {
	uint32_t node;
	uint64_t value;
};

/* One call that ended. */
struct calls_call {
	size_t source; /* the read it comes from (calls_read_all) */
	size_t thread; /* index of its thread in that read (calls_thread) */
	uint32_t node; /* its context in that thread's tree (calls_tree) */
	uint32_t method;
	uint64_t value; /* its duration in the metric's stored unit */
	int live;	/* live before tracing: started at the thread's first event */
	/* its start on the wall clock, ns since the epoch: its thread's start
	 * time plus the TSC's ticks from then to its entry; 0 without a TSC */
	uint64_t start_ns;
	/* with calls_opts.callees: its callees in this call, each context
	 * once, in no order */
	const struct calls_callee *callees;
	size_t ncallees;
};

struct calls_opts {
	const char *path; /* the trace file (not stdin) */
	/* the model of the input whose trace is read: NULL for the profile's
	 * own; else input number input of the merged profile */
	const struct model *src;
	uint32_t input;
	size_t source;		     /* what calls_call.source says (calls_read_all sets it) */
	unsigned metric;	     /* index of the metric (model_offcpu's too) */
	const struct threadsel *sel; /* NULL: all threads */
	int callees;		     /* keep each call's callees */
	FILE *progress;		     /* progress bar stream, or NULL */
	/* each call as it ends: 0, or -1 (out of memory) */
	int (*call)(void *ctx, const struct calls_call *c);
	void *ctx;
};

struct calls_state; /* calls.c */

/* What the reports of single calls need to read a merged profile input by
 * input: load(ctx, i, &m) loads input i again as jcal-post loads it (0, or
 * -1 after the message), drop(ctx) frees it. */
struct calls_inputs {
	int (*load)(void *ctx, size_t i, const struct model **m);
	void (*drop)(void *ctx);
	void *ctx;
};

/* Why a snapshot, and several inputs, have no single calls. */
#define CALLS_NEED_TRACE                                                                           \
	"single calls need a trace: a tree snapshot (output=tree) keeps only their sums; record "  \
	"with output=trace or output=both"
#define CALLS_ONE_TRACE                                                                            \
	"single calls are read from the traces again, each thread apart: not with "                \
	"--merge-threads"

/* Reads the trace; each call goes to o->call. Returns 0, or -1 with err
 * set (a snapshot or merged profile, I/O, a bad trace, no memory). The
 * threads' trees stay for calls_thread and calls_tree until calls_free. */
int calls_read(const struct model *m, const struct calls_opts *o, struct calls_state **st,
	       char *err, size_t errlen);

/* The number of threads read, the model's thread of index i, and its tree
 * (finished: its nodes' parents are the final ones). */
size_t calls_nthreads(const struct calls_state *st);
const struct model_thread *calls_thread(const struct calls_state *st, size_t i);
const struct calltree *calls_tree(const struct calls_state *st, size_t i);

void calls_free(struct calls_state *st);

/* calls_read over the one trace of m, or over each input of a merged
 * profile m in turn, loaded and dropped through in (each call's source its
 * input's index). The reads' states are in (*sts)[0..*n), to free with
 * calls_free_all even on failure. Returns 0, or -1 with err. */
int calls_read_all(const struct model *m, const struct calls_opts *o, const struct calls_inputs *in,
		   struct calls_state ***sts, size_t *n, char *err, size_t errlen);

void calls_free_all(struct calls_state **sts, size_t n);

/* A duration of metric as reports show it (TSC ticks as ns). */
uint64_t calls_value(const struct model *m, unsigned metric, uint64_t v);

#endif
