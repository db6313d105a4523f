/*
 * tree_recorder_internal.h - what the files of the agent's trees share;
 * included by no other file:
 *   tree_recorder.c   the API of tree_recorder.h and the event path
 *   tree_comp.c       the calibration table and the tree builder's hook
 *   tree_handshake.c  who takes a thread's tree: the take/give protocol
 *   tree_registry.c   the registry of live and ended trees
 *   tree_fold.c       maxcontexts=: folding the coldest contexts
 *   tree_dump.c       the snapshot file (dump, stop, VM death)
 *   tree_slow.c       slow=: the keeper of the slowest calls
 * What the event path calls of them is inline here.
 */
#ifndef JCAL_TREE_RECORDER_INT_H
#define JCAL_TREE_RECORDER_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/core/agent_state.h"
#include "agent/core/tree_recorder.h"
#include "common/calltree.h"
#include "common/slow_keep.h"
#include "common/tree_snapshot.h"

struct tree_thread {
	pthread_mutex_t lock; /* the tree (see tree_handshake.c); the thread's definition */
	/* the owning thread's events without the lock: one runs (busy);
	 * another thread needs the tree (want; see tree_handshake.c) */
	atomic_int busy, want;
	uint32_t serial;
	int ended;
	int idle;	 /* no event since a new recording began: not in its snapshots */
	int failed;	 /* out of memory: the tree takes no more events */
	uint64_t lost;	 /* events it could not take */
	int64_t counted; /* its contexts as counted in tree_registry_contexts */
	struct calltree tree;
	/* compensation counts (calib_comp.h) */
	uint64_t deltas, clamped, fallback_similar, fallback_global, uncompensated;
	/* output=tree: the thread's definition, written with the tree */
	int defined, end_known;
	uint64_t java_tid, start_ns, end_ns, end_events;
	uint32_t os_tid, tflags;
	char *name;
	uint64_t start_metric[JCAL_MAX_METRICS], end_metric[JCAL_MAX_METRICS];
	/* slow=: the watcher of the tree's calls (its state is the tree's:
	 * calltree_keep_sums) */
	struct slow_watch slow;
	struct tree_thread *next;	/* registry */
	struct tree_thread *ended_next; /* ended trees kept, in end order */
};

/* What every tree holds, summed: for status, the end's line and the
 * snapshot's meta. */
struct tree_totals {
	uint64_t events, lost, folded_contexts, folded_calls;
	uint64_t deltas, clamped, similar, global, uncompensated; /* compensation counts */
};

/* ---- the table (tree_comp.c) ---- */

/* tree_recorder_choose_table(). */
int tree_comp_choose_table(char *err, size_t errlen);

/* How tt's tree is compensated: through the hook, and, with a table, the
 * builder's common steps in batches (compensate_batch; calltree_flush
 * charges what waits before the tree is read). NULL (raw figures, no hook)
 * when there is no table: chosen at a recording's start, before its trees
 * are made again (tree_registry_reset). */
const struct calltree_comp *tree_comp_hook(struct tree_thread *tt, struct calltree_comp *comp);

/* Whether the table is applied. */
int tree_comp_applied(void);

/* How the trees are compensated, for the snapshot's meta: state 0 (no
 * table chosen yet), 1 (applied: path, digest, keys_*) or 2 (none: note
 * says why). Call after the trees' deferred deltas were charged. */
struct tree_comp_info {
	int state;
	const char *path, *note;
	uint64_t digest;
	uint64_t keys_in_table, keys_seen, keys_found;
};
void tree_comp_info(struct tree_comp_info *info);

/* A new recording: no key seen. */
void tree_comp_reset(void);

/* ---- who takes a tree (tree_handshake.c) ---- */

/* Under tree_registry_mutex: raises (up > 0) or lowers want on every tree
 * that takes events; after raising, the barrier, so that
 * tree_handshake_take() may follow. */
void tree_handshake_want_all(int up);

/* tt for this thread alone, want raised (tree_handshake_want_all, or
 * tree_handshake_lock), its deferred charges made; _give gives it back. */
void tree_handshake_take(struct tree_thread *tt);
void tree_handshake_give(struct tree_thread *tt);

/* One tree, outside a pass (tree_registry_mutex held: tt->ended stays). */
void tree_handshake_lock(struct tree_thread *tt);
void tree_handshake_unlock(struct tree_thread *tt, int was_ended);

/* An event of tt's own thread begins: returns 1 when it took tt->lock
 * (tree_handshake_event_done() gives it back), 0 when it runs alone under
 * busy; *waited is set when it found the tree held by another thread. */
static inline int tree_handshake_event_begin(struct tree_thread *tt, int *waited)
{
	if (jcal.membarrier) {
		atomic_store_explicit(&tt->busy, 1, memory_order_relaxed);
		atomic_signal_fence(memory_order_seq_cst);
		if (!atomic_load_explicit(&tt->want, memory_order_relaxed))
			return 0;
		atomic_store_explicit(&tt->busy, 0, memory_order_release);
		*waited = 1;
	}
	if (pthread_mutex_trylock(&tt->lock)) {
		*waited = 1;
		pthread_mutex_lock(&tt->lock);
	}
	return 1;
}

static inline void tree_handshake_event_done(struct tree_thread *tt, int locked)
{
	if (locked)
		pthread_mutex_unlock(&tt->lock);
	else
		atomic_store_explicit(&tt->busy, 0, memory_order_release);
}

/* ---- the registry (tree_registry.c) ---- */

/* Every tree, the ended ones too (tt->next), under tree_registry_mutex. */
extern pthread_mutex_t tree_registry_mutex;
extern struct tree_thread *tree_registry_head;

/* Contexts of all trees (roots not counted). */
extern atomic_int_fast64_t tree_registry_contexts;

/* Under tree_registry_mutex: how many ended threads the "<ended threads>"
 * tree holds. */
extern uint64_t tree_registry_ended_merged;

/* tree_recorder_thread_new(), tree_recorder_thread_ended(),
 * tree_recorder_reset(). */
struct tree_thread *tree_registry_thread_new(uint32_t serial, unsigned nmetrics);
void tree_registry_thread_ended(struct tree_thread *tt);
void tree_registry_reset(void);

/* Under tree_registry_mutex, want raised (tree_handshake_want_all). Each
 * tree's deferred deltas are compensated and counted first
 * (tree_handshake_take). */
void tree_registry_totals(struct tree_totals *s);

/* tree_registry_totals() in a pass of its own. */
void tree_registry_totals_now(struct tree_totals *s);

/* Brings tree_registry_contexts up to date with tt's tree (tt locked):
 * returns what to add to it. */
static inline int64_t tree_registry_recount(struct tree_thread *tt)
{
	int64_t now = (int64_t)tt->tree.nnodes - 1, d = now - tt->counted;

	tt->counted = now;
	return d;
}

/* ---- maxcontexts= (tree_fold.c) ---- */

/* Taken first by a fold (trylock) and by a reset. */
extern pthread_mutex_t tree_fold_mutex;

/* The count of tree_registry_contexts at which the next fold starts
 * (maxcontexts=, with hysteresis), and the folds done. */
extern atomic_int_fast64_t tree_fold_at;
extern atomic_uint_fast64_t tree_fold_count;

/* Folds the coldest contexts of all trees (see tree_fold.c). */
void tree_fold_all(void);

/* ---- snapshots (tree_dump.c) ---- */

/* tree_recorder_dump(). */
int tree_dump_write(const char *path, char *err, size_t errlen);

/* tree_recorder_finish(), the snapshot going to path. */
int tree_dump_finish(const char *path, char *line, size_t len);

/* ---- slow= (tree_slow.c) ---- */

/* Whether this recording's metrics give slow= a duration: 0, or -1 with
 * err naming the option and the fix. */
int tree_slow_check(char *err, size_t errlen);

/* The keeper made for this recording's slow= (none without): when the
 * agent loads (metrics known, no tree yet) and at each recording's start,
 * every tree taken (tree_registry_reset). 0, or -1 out of memory (no
 * calls kept). */
int tree_slow_configure(void);

/* The keeper the trees' watchers offer their calls to; NULL without slow=. */
struct slow_keep *tree_slow_keeper(void);

/* The snapshot's slow.* meta and a TREE_SLOW record per call kept, the
 * longest first (rb handed to sink past TREE_SNAPSHOT_FLUSH_BYTES). 0,
 * -ENOMEM or the sink's error. */
int tree_slow_write(struct trace_recbuf *rb, const struct tree_snapshot_sink *sink);

/* tree_recorder_slow_counts(). */
int tree_slow_status(uint64_t *ns, uint64_t *over, uint64_t *kept, uint64_t *max);

#endif
