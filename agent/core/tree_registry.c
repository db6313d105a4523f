/*
 * tree_registry.c - output=tree|both: the registry of the trees, live and
 * ended. A thread's tree made, kept when it ends (the last ended ones as
 * their own, the others merged into "<ended threads>"), summed for counts
 * and the snapshot, emptied for a new recording.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/core/tree_recorder_internal.h"
#include "agent/base/log.h"

/* Ended threads whose trees stay their own: the most recently ended ones;
 * past them, the tree of the longest ended is merged into one "<ended
 * threads>" tree, so that memory follows calling contexts, not threads
 * started, and the threads that end last (main) keep theirs
 * (docs/agent-internals.md, "output=tree"). */
#define ENDED_KEPT_MAX 256
#define ENDED_ALL_NAME "<ended threads>"

pthread_mutex_t tree_registry_mutex = PTHREAD_MUTEX_INITIALIZER;
struct tree_thread *tree_registry_head;
atomic_int_fast64_t tree_registry_contexts;
uint64_t tree_registry_ended_merged;

/* Under tree_registry_mutex: the ended threads kept as their own, longest
 * ended first, and the merged tree of the others (in the registry too;
 * tree_registry_ended_merged says how many it holds). */
static unsigned ended_kept;
static struct tree_thread *ended_head, *ended_tail;
static struct tree_thread *ended_all;

/* The recording's trees keep histograms unless hists=off, decided once
 * per tree: a tree without them takes every event without that work
 * (calltree.c, fast_load). 0 or -ENOMEM. */
static int tree_hists_keep(struct calltree *t)
{
	return jcal.opts.hists_off ? 0 : calltree_keep_hists(t);
}

/* With slow=, a thread's tree tells its calls to the keeper (tree_slow.c).
 * 0 or -ENOMEM. */
static int tree_watch(struct tree_thread *tt)
{
	struct slow_keep *k = tree_slow_keeper();

	return k ? slow_watch_attach(&tt->slow, &tt->tree, k, tt->serial) : 0;
}

/* A tree for thread serial, not in the registry yet; compensated by the
 * table (a thread's) or not (the merged tree, which takes no events). */
static struct tree_thread *thread_alloc(uint32_t serial, unsigned nmetrics, int compensated)
{
	struct tree_thread *tt = calloc(1, sizeof(*tt));
	struct calltree_comp comp;

	if (!tt)
		return NULL;
	tt->serial = serial;
	if (calltree_init(&tt->tree, nmetrics ? nmetrics : 1,
			  compensated ? tree_comp_hook(tt, &comp) : NULL) ||
	    tree_hists_keep(&tt->tree) || (compensated && tree_watch(tt)) ||
	    pthread_mutex_init(&tt->lock, NULL)) {
		calltree_free(&tt->tree);
		free(tt);
		return NULL;
	}
	return tt;
}

struct tree_thread *tree_registry_thread_new(uint32_t serial, unsigned nmetrics)
{
	struct tree_thread *tt = thread_alloc(serial, nmetrics, 1);

	if (!tt)
		return NULL;
	pthread_mutex_lock(&tree_registry_mutex);
	tt->next = tree_registry_head;
	tree_registry_head = tt;
	pthread_mutex_unlock(&tree_registry_mutex);
	return tt;
}

/* Under tree_registry_mutex: the "<ended threads>" tree, created with its
 * thread definition on first use. NULL when memory runs out. */
static struct tree_thread *ended_tree(unsigned nmetrics)
{
	struct tree_thread *tt;
	uint64_t zero[JCAL_MAX_METRICS] = {0};
	struct timespec now;

	if (ended_all)
		return ended_all;
	tt = thread_alloc(atomic_fetch_add(&jcal.next_serial, 1), nmetrics, 0);
	if (!tt)
		return NULL;
	tt->ended = 1;
	clock_gettime(CLOCK_REALTIME, &now);
	/* defined in the snapshots only, never in a trace file */
	tree_recorder_thread_start(tt, 0, 0, 0,
				   (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec,
				   ENDED_ALL_NAME, zero);
	tt->next = tree_registry_head;
	tree_registry_head = tt;
	ended_all = tt;
	return tt;
}

static void free_thread(struct tree_thread *tt)
{
	calltree_free(&tt->tree);
	pthread_mutex_destroy(&tt->lock);
	free(tt->name);
	free(tt);
}

/* Under tree_registry_mutex, tt ended and locked: merges its tree and counts
 * into the "<ended threads>" tree. Returns 0, or -1 (tt stays as it is). */
static int merge_ended(struct tree_thread *tt)
{
	struct tree_thread *all = ended_tree(tt->tree.nmetrics);

	if (!all)
		return -1;
	tree_handshake_take(all); /* ended: takes no events */
	if (calltree_merge(&all->tree, &tt->tree)) {
		tree_handshake_give(all);
		return -1;
	}
	all->lost += tt->lost;
	all->deltas += tt->deltas;
	all->clamped += tt->clamped;
	all->fallback_similar += tt->fallback_similar;
	all->fallback_global += tt->fallback_global;
	all->uncompensated += tt->uncompensated;
	atomic_fetch_add(&tree_registry_contexts, tree_registry_recount(all) - tt->counted);
	tree_handshake_give(all);
	tree_registry_ended_merged++;
	return 0;
}

/* Under tree_registry_mutex: takes tt out of the registry and frees it. */
static void drop_thread(struct tree_thread *tt)
{
	struct tree_thread **pp;

	for (pp = &tree_registry_head; *pp && *pp != tt; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = tt->next;
	free_thread(tt);
}

void tree_registry_thread_ended(struct tree_thread *tt)
{
	int was_ended;

	if (!tt)
		return;
	pthread_mutex_lock(&tree_registry_mutex);
	was_ended = tt->ended;
	tree_handshake_lock(tt);
	tt->ended = 1;
	/* A tree with no event in this recording holds nothing: it goes. */
	if (tt->idle) {
		atomic_fetch_sub(&tree_registry_contexts, tt->counted);
		tree_handshake_unlock(tt, was_ended);
		drop_thread(tt);
		pthread_mutex_unlock(&tree_registry_mutex);
		return;
	}
	tree_handshake_unlock(tt, was_ended);
	tt->ended_next = NULL;
	if (ended_tail)
		ended_tail->ended_next = tt;
	else
		ended_head = tt;
	ended_tail = tt;
	ended_kept++;
	while (ended_kept > ENDED_KEPT_MAX) {
		struct tree_thread *old = ended_head;
		int rc;

		tree_handshake_take(old);
		rc = merge_ended(old);
		tree_handshake_give(old);
		if (rc)
			break; /* out of memory: kept as it is */
		ended_head = old->ended_next;
		if (!ended_head)
			ended_tail = NULL;
		ended_kept--;
		drop_thread(old);
	}
	pthread_mutex_unlock(&tree_registry_mutex);
}

void tree_registry_totals(struct tree_totals *s)
{
	memset(s, 0, sizeof(*s));
	for (struct tree_thread *tt = tree_registry_head; tt; tt = tt->next) {
		tree_handshake_take(tt);
		s->events += tt->tree.stats.events;
		s->lost += tt->lost;
		s->folded_contexts += tt->tree.stats.folded_contexts;
		s->folded_calls += tt->tree.stats.folded_calls;
		s->deltas += tt->deltas;
		s->clamped += tt->clamped;
		s->similar += tt->fallback_similar;
		s->global += tt->fallback_global;
		s->uncompensated += tt->uncompensated;
		tree_handshake_give(tt);
	}
}

void tree_registry_totals_now(struct tree_totals *s)
{
	pthread_mutex_lock(&tree_registry_mutex);
	tree_handshake_want_all(1);
	tree_registry_totals(s);
	tree_handshake_want_all(-1);
	pthread_mutex_unlock(&tree_registry_mutex);
}

void tree_registry_reset(void)
{
	struct tree_thread **pp;

	pthread_mutex_lock(&tree_fold_mutex);
	pthread_mutex_lock(&tree_registry_mutex);
	tree_handshake_want_all(1);
	/* every tree taken: the watchers' keeper can be made again */
	for (struct tree_thread *tt = tree_registry_head; tt; tt = tt->next)
		tree_handshake_take(tt);
	if (tree_slow_configure())
		jcal_warn("slow=: out of memory: no slow calls kept in this recording");
	for (struct tree_thread *tt = tree_registry_head; tt; tt = tt->next)
		tree_handshake_give(tt);
	for (pp = &tree_registry_head; *pp;) {
		struct tree_thread *tt = *pp;
		struct calltree_comp comp;

		tree_handshake_take(tt);
		if (tt->ended) {
			*pp = tt->next;
			tree_handshake_give(tt);
			free_thread(tt);
			continue;
		}
		unsigned nm = tt->tree.nmetrics;
		calltree_free(&tt->tree);
		tt->failed = calltree_init(&tt->tree, nm, tree_comp_hook(tt, &comp)) != 0 ||
			     tree_hists_keep(&tt->tree) != 0 || tree_watch(tt) != 0;
		tt->lost = tt->deltas = tt->clamped = tt->uncompensated = 0;
		tt->fallback_similar = tt->fallback_global = 0;
		tt->counted = 0;
		tt->idle = 1;
		tt->defined = tt->end_known = 0; /* defined again in the new recording */
		tree_handshake_give(tt);
		pp = &tt->next;
	}
	ended_all = NULL;
	ended_head = ended_tail = NULL;
	ended_kept = 0;
	tree_registry_ended_merged = 0;
	atomic_store(&tree_registry_contexts, 0);
	atomic_store(&tree_fold_at, (int_fast64_t)jcal.opts.maxcontexts);
	atomic_store(&tree_fold_count, 0);
	tree_comp_reset();
	tree_handshake_want_all(-1);
	pthread_mutex_unlock(&tree_registry_mutex);
	pthread_mutex_unlock(&tree_fold_mutex);
}
