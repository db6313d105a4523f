/*
 * tree_fold.c - output=tree|both, maxcontexts=: when the contexts of all
 * trees pass the limit, the coldest of them fold into <cold contexts>
 * (common/calltree_fold.h), on the thread whose event crossed it.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "agent/core/tree_recorder_internal.h"
#include "agent/base/log.h"
#include "common/calltree_fold.h"

pthread_mutex_t tree_fold_mutex = PTHREAD_MUTEX_INITIALIZER;
atomic_int_fast64_t tree_fold_at;
atomic_uint_fast64_t tree_fold_count;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The heat below which contexts fold so that about `remove` of them go:
 * the heats of every foldable context of every tree, the remove-th
 * smallest + 1. 0 when nothing can fold or memory is short. Registry
 * mutex held. */
static uint64_t fold_cutoff(int64_t remove)
{
	uint64_t *all = NULL, cutoff = 0;
	size_t n = 0, cap = 0;

	for (struct tree_thread *tt = tree_registry_head; tt; tt = tt->next) {
		uint64_t *heat;

		tree_handshake_take(tt);
		heat = malloc((size_t)tt->tree.nnodes * sizeof(*heat));
		if (heat && !calltree_fold_heat(&tt->tree, heat)) {
			for (uint32_t i = 0; i < tt->tree.nnodes; i++) {
				if (heat[i] == CALLTREE_FOLD_HOT)
					continue;
				if (n == cap) {
					size_t nc = cap ? 2 * cap : 4096;
					uint64_t *g = realloc(all, nc * sizeof(*all));

					if (!g)
						break;
					all = g;
					cap = nc;
				}
				all[n++] = heat[i];
			}
		}
		tree_handshake_give(tt);
		free(heat);
	}
	if (n) {
		qsort(all, n, sizeof(*all), cmp_u64);
		cutoff = all[(size_t)remove < n ? (size_t)remove - 1 : n - 1] + 1;
	}
	free(all);
	return cutoff;
}

/* Folds the coldest contexts of all trees down to half of maxcontexts=;
 * the next fold starts at maxcontexts=, or a quarter of it above what is
 * left if folding cannot go that low (open frames, pseudo-frames), so
 * that folds never come at every new context. One at a time: a thread
 * that finds a fold under way goes on with its events. */
void tree_fold_all(void)
{
	int64_t max = (int64_t)jcal.opts.maxcontexts, total, cutoff, left;

	if (pthread_mutex_trylock(&tree_fold_mutex))
		return;
	total = atomic_load(&tree_registry_contexts);
	if (total <= atomic_load(&tree_fold_at)) {
		pthread_mutex_unlock(&tree_fold_mutex);
		return;
	}
	pthread_mutex_lock(&tree_registry_mutex);
	tree_handshake_want_all(1);
	cutoff = (int64_t)fold_cutoff(total - max / 2);
	for (struct tree_thread *tt = tree_registry_head; cutoff > 0 && tt; tt = tt->next) {
		uint64_t *heat;
		int64_t d;

		tree_handshake_take(tt);
		heat = malloc((size_t)tt->tree.nnodes * sizeof(*heat));
		if (heat && !calltree_fold_heat(&tt->tree, heat))
			calltree_fold(&tt->tree, heat, (uint64_t)cutoff);
		d = tree_registry_recount(tt);
		tree_handshake_give(tt);
		free(heat);
		atomic_fetch_add(&tree_registry_contexts, d);
	}
	tree_handshake_want_all(-1);
	pthread_mutex_unlock(&tree_registry_mutex);
	left = atomic_load(&tree_registry_contexts);
	atomic_store(&tree_fold_at, left + max / 4 > max ? left + max / 4 : max);
	atomic_fetch_add(&tree_fold_count, 1);
	jcal_debug("maxcontexts=%" PRId64 ": folded %" PRId64 " contexts into <cold contexts>, "
		   "%" PRId64 " left",
		   max, total - left, left);
	pthread_mutex_unlock(&tree_fold_mutex);
}
