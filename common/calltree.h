/*
 * calltree.h - builds one thread's calling-context tree from its events.
 *
 * Feed the thread's events in order with calltree_event(); each carries the
 * absolute metric values read at the event. The delta of each metric
 * between two consecutive events is charged to the node current between
 * them (the thread root while no frame is open), raw and, through an
 * optional compensation hook, calibrated. calltree_finish() closes the
 * frames still open, then sets level, recursion level (RL), cum and a
 * pre-order of the nodes for the reports.
 *
 * The stack discipline and the sequence key of each delta come from the
 * shared stepper (common/seqkey.h), which the calibration table's
 * derivation uses too. Unbalanced input (docs/jcal-post.md, "How the tree
 * is built"):
 *  - an exit whose method is on top of the stack pops it; an exception
 *    exit (T) pops like a normal one;
 *  - an exit whose method is deeper in the stack pops every frame above it
 *    and then it (a mismatched exit; the frames above are "unwound");
 *  - an exit whose method is not on the stack at all (a frame that was
 *    live before tracing started) is inserted above the current root
 *    context, as JPROF does: a new node for the exiting method becomes the
 *    only child of the thread root and adopts the root's former children
 *    (with their subtrees), with calls = 1. While no frame is open the
 *    running method is really the deepest unknown frame, so the new node
 *    takes the delta that ends at its exit and whatever the root took
 *    since the previous insertion. If frames were still open they are
 *    unwound first and the delta goes to the frame that was current.
 *    No metric is lost either way; the root keeps only what follows the
 *    last insertion.
 *
 * Memory grows with distinct calling contexts and stack depth, never with
 * the number of events. A child is found by a look at the parent's last
 * child found, the sibling after it and its first eight children; a
 * parent with more has them in a hash keyed by (parent node, method id).
 */
#ifndef JCAL_CALLTREE_H
#define JCAL_CALLTREE_H

#include <stddef.h>
#include <stdint.h>

#include "common/event_decode.h"
#include "common/seqkey.h"
#include "common/trace_format.h"
#include "common/u64map.h"

#define CALLTREE_ROOT 0u		/* index of the thread root node */
#define CALLTREE_NONE UINT32_MAX	/* no node */
#define CALLTREE_ROOT_METHOD UINT32_MAX /* method id stored in the root node */
/* Method id of the pseudo-frame that holds the frames folded below a depth
 * limit (shape_cap_depth); never an id of the trace's own methods. */
#define CALLTREE_FOLDED_METHOD (UINT32_MAX - 1)
/* Method id of the pseudo-frame that holds the cold contexts folded away
 * to keep a tree within a budget (calltree_fold, the agent's
 * maxcontexts=); never an id of the trace's own methods. */
#define CALLTREE_COLD_METHOD (UINT32_MAX - 2)
/* How many children a look-up goes through before the children map: the
 * map holds every child of a parent with more (and may hold others). */
#define CALLTREE_CHILD_SCAN 8

/*
 * Compensation hook: returns the calibrated value (>= 0; negative results
 * are taken as 0) of the raw delta of metric metric_index for a step with
 * sequence key key. Without a hook, calibrated = raw.
 */
typedef int64_t (*calltree_comp_fn)(void *ctx, const struct seqkey *key, unsigned metric_index,
				    uint64_t raw_delta);

/*
 * Optional: the same compensation for many deltas of metric 0 at once:
 * out[k] = what fn would return for metric 0, the key of seqkey_index
 * key[k] and the raw delta delta[k]. calltree_events() hands it the deltas
 * of a whole batch, which saves a call per delta.
 */
typedef void (*calltree_comp_batch_fn)(void *ctx, const uint16_t *key, const uint64_t *delta,
				       int64_t *out, size_t n);

struct calib_table;

struct calltree_comp {
	calltree_comp_fn fn;
	void *ctx;
	calltree_comp_batch_fn batch; /* may be NULL */
	/*
	 * Optional, with fn, for a one-metric tree: the prepared table
	 * (calib_table_prepare, not changed while the tree is built) that fn
	 * applies. The builder then compensates the deltas of its common
	 * steps itself, as it takes them, rather than deferring them to the
	 * batch function (the same values, without storing and reloading
	 * each delta). What it compensated so goes to counted() when the tree
	 * is flushed, finished or rests (calltree_flush, calltree_rest; the
	 * sums over the calls are the counts): per seqkey_index the number of
	 * deltas, and how many were below their comp (may be NULL).
	 */
	const struct calib_table *table;
	void (*counted)(void *ctx, const uint64_t *deltas_by_key, uint64_t clamped);
};

struct calltree_pending;  /* common/calltree_internal.h */
struct lathist;		  /* common/lathist.h */
struct calltree_watching; /* common/calltree_internal.h */
struct calltree_sums;	  /* common/calltree_internal.h */

/*
 * Optional (calltree_watch): each single call as it ends, with what it
 * cost. A call's cum is what its frame and the frames opened above it were
 * charged while it was open, raw and compensated: the same charges the
 * nodes take, so the cums of a node's calls add up to the node's cum.
 */
struct calltree_watch {
	void *ctx;
	/* A frame opened at an entry event: its node and the event's metric
	 * values (nmetrics). 0, or -1 when out of memory. May be NULL. */
	int (*enter)(void *ctx, uint32_t node, const uint64_t *metric);
	/* A call ended: its node, its cum and raw cum (nmetrics each), and
	 * live 1 for a frame that was live before tracing started (an exit of
	 * a method not on the stack: no enter, it ran from the thread's first
	 * event). Frames unwound by a mismatched exit end at it, innermost
	 * first; frames still open at calltree_finish end there. 0, or -1 when
	 * out of memory. */
	int (*leave)(void *ctx, uint32_t node, const uint64_t *cum, const uint64_t *raw_cum,
		     int live);
};

struct calltree;

/*
 * Optional (calltree_keep_sums): what each call's callees took in it, and
 * the calls of at least threshold told as they end. Every open call has a
 * generation (a number no earlier call of the tree had; what runs outside
 * any frame has one too) and every context a sum: when a call ends, its
 * cum of metric is added to its context's sum for the current call of its
 * parent (the sum emptied first when it held an earlier call's), so at a
 * call's end the sums of its context's children of its generation are its
 * callees' (calltree_sum). Exact, at a few stores a call, on the builder's
 * inline path too (one metric).
 */
struct calltree_sums_cfg {
	unsigned metric;    /* < the tree's nmetrics */
	uint64_t threshold; /* leave is told of calls whose cum of metric is at least this */
	void *ctx;
	/* A call of node ended with gen, its cum and raw cum (nmetrics each;
	 * live as in calltree_watch). The tree's nodes and sums are read-only
	 * here. 0, or -1 when out of memory. */
	int (*leave)(void *ctx, const struct calltree *t, uint32_t node, uint64_t gen,
		     const uint64_t *cum, const uint64_t *raw, int live);
};

struct calltree_node {
	uint32_t parent;      /* CALLTREE_NONE for the root */
	uint32_t method;      /* CALLTREE_ROOT_METHOD for the root */
	uint32_t first_child; /* children in creation order */
	uint32_t last_child;
	uint32_t next_sibling;
	uint32_t hint;	/* last child found from here */
	uint32_t level; /* set by calltree_finish: root 0 */
	uint32_t rl;	/* set by calltree_finish: 1 = first occurrence on the path */
	uint64_t calls;
};

/* A node's figures for one metric (calltree_fig): kept apart from the
 * nodes, nmetrics of them per node, so that a node costs only what its
 * trace's metrics need. */
struct calltree_fig {
	uint64_t raw_base;
	uint64_t base;	  /* calibrated */
	uint64_t raw_cum; /* set by calltree_finish */
	uint64_t cum;	  /* set by calltree_finish */
};

struct calltree_stats {
	uint64_t events;
	uint64_t by_type[JCAL_MT_COUNT];
	uint64_t by_transition[JCAL_TR_COUNT];
	uint64_t unmatched_exits;	   /* exits of frames not on the stack */
	uint64_t mismatched_exits;	   /* exits that did not match the stack top */
	uint64_t frames_unwound;	   /* frames popped without an exit of their own */
	uint64_t open_frames;		   /* frames still open at the last event */
	uint64_t backwards;		   /* metric deltas < 0, charged as 0 */
	uint64_t controls[JCAL_CTL_COUNT]; /* region stops, starts, marks */
	uint64_t folded_contexts;	   /* contexts folded into a cold pseudo-frame */
	uint64_t folded_calls;		   /* the calls those contexts had */
};

struct calltree {
	struct calltree_node *nodes;
	struct calltree_fig *figs; /* nmetrics per node, node by node (calltree_fig) */
	uint32_t nnodes, cap;
	struct u64map children; /* (parent << 32 | method) -> node, CALLTREE_NONE
				 * for none; holds every child of a parent
				 * with more than 8 (calltree.c) */
	uint32_t *stack;	/* nodes of the open frames, parallel to keys.stack */
	uint32_t stack_cap;
	struct seqkey_stepper keys; /* stack discipline and sequence keys */
	uint32_t *order;	    /* pre-order of all nodes, after finish */
	uint32_t max_level;	    /* after finish */
	unsigned nmetrics;
	uint64_t last[JCAL_MAX_METRICS];
	struct calltree_comp comp;
	struct calltree_stats stats;
	struct calltree_pending *pend;	 /* deferred charges, NULL for none (calltree_internal.h) */
	struct calltree_watching *watch; /* calltree_watch, NULL for none */
	/* calltree_keep_hists: per node (cap entries), the histogram of its
	 * ended calls' compensated cum of metric 0 (NULL: none yet); NULL
	 * for a tree that keeps none */
	struct lathist **hist;
	struct calltree_sums *sums; /* calltree_keep_sums, NULL for none (calltree_internal.h) */
	/* deltas compensated inline through comp.table (SEQKEY_COUNT, by
	 * seqkey_index; NULL without a table, or until the first events) and
	 * how many were clamped; handed to comp.counted by calltree_finish or
	 * calltree_rest */
	uint64_t *comp_count;
	uint64_t comp_clamped;
	/* Metric 0's rises in steps not charged and its falls (calltree.c,
	 * rebase): while they fall no more than they rise, the common steps'
	 * sums cannot pass UINT64_MAX; after, unsafe: every step saturates. */
	uint64_t rise, fall;
	int unsafe;
	int gap; /* tracing of the thread stopped: the next delta is not charged */
	/* the thread's events continue an earlier file's (TRACE_THREAD_CONTINUED):
	 * a frame found open by an unmatched exit gets no call, its call being
	 * counted where it was entered (docs/live-profiling.md, "Continuous
	 * recordings"); else one */
	int continued;
	int finished;
};

/* The figures of node for metric (< t->nmetrics). */
static inline struct calltree_fig *calltree_fig(const struct calltree *t, uint32_t node,
						unsigned metric)
{
	return &t->figs[(size_t)node * t->nmetrics + metric];
}

/* nmetrics in [1, JCAL_MAX_METRICS]; comp may be NULL. Returns 0,
 * -EINVAL or -ENOMEM. */
int calltree_init(struct calltree *t, unsigned nmetrics, const struct calltree_comp *comp);
void calltree_free(struct calltree *t);

/* One event: transition (enum jcal_transition), type (enum jcal_mtype of
 * the entered or exiting method), metric[nmetrics] absolute values.
 * A control event (JCAL_TR_CONTROL, type = enum jcal_control) changes no
 * frame: the delta ending at it goes raw to the current frame, and after a
 * STOP the delta up to the next event (the untraced gap) is charged to
 * nobody.
 * Returns 0, -EINVAL (bad transition, or called after finish) or -ENOMEM. */
int calltree_event(struct calltree *t, uint32_t method, unsigned transition, unsigned type,
		   const uint64_t *metric);

/* Charges what calltree_event() deferred (with a batch hook and no table,
 * it compensates its common steps in batches) and hands the compensation
 * counts so far to comp.counted: call before reading the figures of a
 * tree still taking events. */
void calltree_flush(struct calltree *t);

/*
 * After a thread's last event (its THREAD_END): frees what only taking
 * events needs, so that a tree costs what its contexts hold: charges what
 * waits (calltree_flush), hands the compensation counts to comp.counted,
 * frees the batch buffers and, with no frame open, the stacks. More events
 * may still come: they allocate again. Does nothing after calltree_finish.
 */
void calltree_rest(struct calltree *t);

/*
 * The same as calltree_event() for each of n events in order (method[k],
 * transition[k], type[k], metric[k * nmetrics ...]), faster: the common
 * steps are taken inline and the deltas compensated together at the end
 * (through comp's batch function when there is one). Returns what the
 * first failing calltree_event() would; the events before it are in.
 */
int calltree_events(struct calltree *t, const uint32_t *method, const uint8_t *transition,
		    const uint8_t *type, const uint64_t *metric, size_t n);

/*
 * The same as calltree_events() for the events of an events chunk, taken
 * straight from its bytes (r, common/event_decode.h) rather than decoded
 * into arrays first: decodes and adds them from r->p on, moving r past
 * each, up to the end of the chunk or the first event that is malformed
 * (left at r->p for the trace reader to report). Takes nothing from a
 * chunk, or for a tree, with more than one metric. Returns 0, or what
 * calltree_events() would for the event it stopped at (r is past it).
 */
int calltree_decode(struct calltree *t, struct event_run *r);

/*
 * Has w told of every call of t from the next event on (before the first
 * one). Every event then takes the general path, each delta charged and
 * compensated as it comes (slower: for reports of single calls, not for
 * building trees). Returns 0 or -ENOMEM.
 */
int calltree_watch(struct calltree *t, const struct calltree_watch *w);

/*
 * Has every context of t keep the histogram of its calls' durations
 * (common/lathist.h): each call's compensated cum of metric 0, as
 * calltree_watch reports it, added to t->hist[node] when the call ends
 * (frames still open at calltree_finish end there). Like calltree_watch,
 * every event then takes the general path. calltree_merge and
 * calltree_fold merge the histograms. Call before the first event.
 * Returns 0 or -ENOMEM.
 */
int calltree_keep_hists(struct calltree *t);

/* Has t keep the sums of calltree_sums_cfg (before the first event).
 * Returns 0, -EINVAL (metric) or -ENOMEM. */
int calltree_keep_sums(struct calltree *t, const struct calltree_sums_cfg *cfg);

/* What child's calls took (cum and raw cum of the sums' metric) within the
 * call of generation gen of its parent: 1, or 0 when none. */
int calltree_sum(const struct calltree *t, uint32_t child, uint64_t gen, uint64_t *value,
		 uint64_t *raw);

/* Whether the call of generation gen was open when the tree folded
 * (calltree_fold renumbers contexts: its callees before the fold have no
 * sums). */
int calltree_sums_partial(const struct calltree *t, uint64_t gen);

/* Copies of t's histograms into out (t->nnodes entries, NULL each for
 * none), the calls still open counted as if they ended now, as
 * calltree_finish would end them: what a snapshot of a tree still taking
 * events shows. Returns 0, or -ENOMEM with out freed. */
int calltree_hists_copy(const struct calltree *t, struct lathist **out);

/* The histogram of node's calls (NULL: none, or the tree keeps none). */
static inline const struct lathist *calltree_hist(const struct calltree *t, uint32_t node)
{
	return t->hist ? t->hist[node] : NULL;
}

/* Closes open frames and computes level, RL, cum and order. Returns 0 or
 * -ENOMEM. Call once, after the last event. */
int calltree_finish(struct calltree *t);

/* The child of node parent for method, created (with zero calls and
 * metric) when missing; for code that builds a tree from another one
 * rather than from events (shaping.c), before calltree_finish. Returns 0 or
 * -ENOMEM. */
int calltree_child(struct calltree *t, uint32_t parent, uint32_t method, uint32_t *out);

/* The child of node parent for method, or CALLTREE_NONE; creates nothing. */
uint32_t calltree_child_find(const struct calltree *t, uint32_t parent, uint32_t method);

/* Adds every count of s to d (threads merged into one tree). */
void calltree_stats_add(struct calltree_stats *d, const struct calltree_stats *s);

/* Adds src (not finished) into dst (not finished): every context of src
 * to the same path of dst, created when missing, with its calls and
 * metric (and its histogram, when both keep them); the statistics added up. For trees of ended
 * threads kept as one (the agent's output=tree). Returns 0 or -ENOMEM (dst may then hold part of
 * src). */
int calltree_merge(struct calltree *dst, const struct calltree *src);

/* The nodes in pre-order, children in creation order (order has nnodes
 * entries; a parent always comes before its children), at any time, not
 * only after calltree_finish. */
void calltree_preorder(const struct calltree *t, uint32_t *order);

#endif
