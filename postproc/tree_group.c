/*
 * tree_group.c - one tree made of several finished trees, whatever order
 * they come in (see tree_group.h): the adding, the key of each context,
 * the children put in order at the end.
 */
#include "postproc/tree_group.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/satsum.h"

int tree_group_init(struct tree_group *g, unsigned nmetrics)
{
	memset(g, 0, sizeof(*g));
	if (calltree_init(&g->t, nmetrics, NULL))
		return -1;
	if (grow(&g->key, &g->cap, 1)) {
		calltree_free(&g->t);
		return -1;
	}
	g->key[CALLTREE_ROOT] = (struct tree_group_key){0, 0};
	return 0;
}

void tree_group_free(struct tree_group *g)
{
	calltree_free(&g->t);
	free(g->key);
	memset(g, 0, sizeof(*g));
}

int tree_group_widen(struct calltree *t, unsigned nm)
{
	struct calltree_fig *figs;

	if (t->nmetrics >= nm)
		return 0;
	figs = calloc((size_t)(t->cap ? t->cap : 1) * nm, sizeof(*figs));
	if (!figs)
		return -1;
	for (uint32_t n = 0; n < t->nnodes; n++)
		memcpy(&figs[(size_t)n * nm], calltree_fig(t, n, 0), t->nmetrics * sizeof(*figs));
	free(t->figs);
	t->figs = figs;
	t->nmetrics = nm;
	return 0;
}

static int key_less(struct tree_group_key a, struct tree_group_key b)
{
	return a.who < b.who || (a.who == b.who && a.pos < b.pos);
}

/* Adds the figures of node s of src to node d of the group. */
static void add_figs(struct calltree *dst, uint32_t d, const struct calltree *src, uint32_t s)
{
	for (unsigned i = 0; i < src->nmetrics; i++) {
		const struct calltree_fig *from = calltree_fig(src, s, i);
		struct calltree_fig *to = calltree_fig(dst, d, i);

		satsum_addto(&to->base, from->base, SATSUM_BASE);
		satsum_addto(&to->raw_base, from->raw_base, SATSUM_RAW_BASE);
	}
}

/* The group's node of src's node n under parent p, created when missing,
 * with its key kept the smallest. Returns 0 or -1. */
static int node_of(struct tree_group *g, uint32_t p, uint32_t method, struct tree_group_key k,
		   uint32_t *d)
{
	uint32_t before = g->t.nnodes;

	if (calltree_child(&g->t, p, method, d) || grow(&g->key, &g->cap, g->t.nnodes))
		return -1;
	if (*d >= before || key_less(k, g->key[*d]))
		g->key[*d] = k;
	return 0;
}

int tree_group_add(struct tree_group *g, const struct calltree *src, uint32_t who, unsigned flags,
		   tree_group_method_fn method, void *ctx)
{
	uint32_t *map = malloc((size_t)src->nnodes * sizeof(*map));

	if (!map || tree_group_widen(&g->t, src->nmetrics)) {
		free(map);
		return -1;
	}
	map[CALLTREE_ROOT] = CALLTREE_ROOT;
	add_figs(&g->t, CALLTREE_ROOT, src, CALLTREE_ROOT);
	/* parents before children: the pre-order */
	for (uint32_t i = 1; i < src->nnodes; i++) {
		uint32_t n = src->order[i], m = src->nodes[n].method;

		if (method && m != CALLTREE_FOLDED_METHOD && m != CALLTREE_COLD_METHOD &&
		    m != CALLTREE_ROOT_METHOD)
			m = method(ctx, m);
		struct tree_group_key k = {who, flags & TREE_GROUP_BY_INDEX ? n : i};

		if (node_of(g, map[src->nodes[n].parent], m, k, &map[n])) {
			free(map);
			return -1;
		}
		satsum_addto(&g->t.nodes[map[n]].calls, src->nodes[n].calls, SATSUM_CALLS);
		add_figs(&g->t, map[n], src, n);
	}
	if (!g->no_stats)
		calltree_stats_add(&g->t.stats, &src->stats);
	g->sources++;
	free(map);
	return 0;
}

/* Contexts in the order the sources would have created them. */
static int by_key(const void *pa, const void *pb, void *ctx)
{
	const struct tree_group *g = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	if (key_less(g->key[a], g->key[b]))
		return -1;
	return key_less(g->key[b], g->key[a]) ? 1 : 0;
}

int tree_group_finish(struct tree_group *g)
{
	struct calltree *t = &g->t, out;
	uint32_t *order = malloc((size_t)t->nnodes * sizeof(*order));
	uint32_t *map = malloc((size_t)t->nnodes * sizeof(*map));
	int err = -1;

	if (!order || !map || calltree_init(&out, t->nmetrics, NULL))
		goto fail;
	for (uint32_t i = 0; i < t->nnodes; i++)
		order[i] = i;
	/* a context first came after its parent: the root stays first */
	qsort_r(order + 1, t->nnodes - 1, sizeof(*order), by_key, g);
	map[CALLTREE_ROOT] = CALLTREE_ROOT;
	for (uint32_t k = 0; k < t->nnodes; k++) {
		uint32_t n = order[k];

		if (n != CALLTREE_ROOT &&
		    calltree_child(&out, map[t->nodes[n].parent], t->nodes[n].method, &map[n])) {
			calltree_free(&out);
			goto fail;
		}
		out.nodes[map[n]].calls = t->nodes[n].calls;
		memcpy(calltree_fig(&out, map[n], 0), calltree_fig(t, n, 0),
		       t->nmetrics * sizeof(*t->figs));
	}
	out.stats = t->stats;
	calltree_free(t);
	*t = out;
	err = calltree_finish(t) ? -1 : 0;
fail:
	free(order);
	free(map);
	return err;
}

void tree_group_take(struct tree_group *g, struct calltree *out)
{
	*out = g->t;
	memset(&g->t, 0, sizeof(g->t));
	free(g->key);
	g->key = NULL;
	g->cap = 0;
}
