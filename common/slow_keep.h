/*
 * slow_keep.h - slow=DURATION: the slowest calls of a recording kept as
 * they end, each with its path and the callees it spent its time in
 * (docs/agent-internals.md, "Slow calls"). Built from a tree builder's
 * single calls (calltree_watch): the agent attaches one watcher to each
 * thread's tree, and all of them offer their calls to one keeper.
 *
 * The keeper holds at most max calls, the longest of those at or above the
 * threshold, in a heap under a mutex. A call shorter than the shortest it
 * holds once full (or than the threshold) is turned away by one relaxed
 * load, without the lock.
 *
 * A watcher has the tree keep each call's callees (calltree_keep_sums:
 * exact, a few stores a call, on the builder's inline path too) and be
 * told of the calls of at least the threshold, the only ones it looks at:
 * it counts them, and builds and offers those as long as the keeper's
 * floor. A call open when the tree folded (calltree_fold renumbers
 * contexts) is marked TRACE_SLOW_PARTIAL: its callees before the fold are
 * in its self.
 */
#ifndef JCAL_SLOW_KEEP_H
#define JCAL_SLOW_KEEP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common/calltree.h"
#include "common/trace_slow.h"

/* Most calls a keeper holds (slowmax=). */
#define SLOW_KEEP_MAX 10000

struct slow_keep_cfg {
	unsigned metric;	  /* the metric of the durations (< the trees' nmetrics) */
	uint64_t threshold;	  /* kept from this compensated cum on, raw units */
	int wall;		  /* index of a TSC metric for the calls' wall duration, or -1 */
	uint64_t wall_hz;	  /* its ticks per second */
	size_t max;		  /* 1..SLOW_KEEP_MAX */
	uint64_t (*now_ns)(void); /* wall clock, ns since the epoch; NULL: CLOCK_REALTIME */
};

struct slow_keep {
	struct slow_keep_cfg cfg;
	pthread_mutex_t lock;
	/* calls shorter are turned away: the threshold, or once full the
	 * shortest kept */
	atomic_uint_fast64_t floor;
	atomic_uint_fast64_t over; /* calls at or above the threshold */
	uint64_t seq;		   /* under lock: calls offered */
	struct slow_kept *heap;	   /* under lock: a min-heap, n of cfg.max */
	size_t n;
};

/* Returns 0, or -ENOMEM / -EINVAL (max out of range). After
 * slow_keep_free, a watcher still attached offers nothing. */
int slow_keep_init(struct slow_keep *k, const struct slow_keep_cfg *cfg);
void slow_keep_free(struct slow_keep *k);

/* A new recording: nothing kept, nothing counted. */
void slow_keep_reset(struct slow_keep *k);

/* Offers one call (its value compensated, in cfg.metric's raw units). */
void slow_keep_offer(struct slow_keep *k, const struct trace_slow *c);

/* The calls kept, longest first (ties: the first offered first), copied
 * into *out (malloc'ed, NULL when none). Returns their number, or -1 when
 * memory runs out. *over: the calls at or above the threshold. */
long slow_keep_list(struct slow_keep *k, struct trace_slow **out, uint64_t *over);

/* How many calls are kept, and how many were at or above the threshold. */
void slow_keep_counts(struct slow_keep *k, uint64_t *kept, uint64_t *over);

/* One thread's watcher: attach with slow_watch_attach before the tree's
 * first event; the tree's thread serial goes into its calls. */
struct slow_watch {
	struct slow_keep *keep;
	uint32_t serial;
};

/* Has t keep its calls' callees and tell w of its calls of at least the
 * keeper's threshold (w must stay where it is, and the keeper's metric be
 * one of t's). Returns 0, -EINVAL or -ENOMEM. */
int slow_watch_attach(struct slow_watch *w, struct calltree *t, struct slow_keep *k,
		      uint32_t serial);

#endif
