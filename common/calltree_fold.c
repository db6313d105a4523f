/*
 * calltree_fold.c - folding of cold contexts (see calltree_fold.h).
 */
#include "common/calltree_fold.h"
#include "common/calltree_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/lathist.h"
#include "common/satsum.h"

int calltree_fold_heat(const struct calltree *t, uint64_t *heat)
{
	uint32_t *order = malloc((size_t)t->nnodes * sizeof(*order));

	if (!order)
		return -ENOMEM;
	calltree_preorder(t, order);
	for (uint32_t i = 0; i < t->nnodes; i++)
		heat[i] = calltree_fig(t, i, 0)->raw_base;
	for (uint32_t i = t->nnodes; i-- > 1;) {
		uint32_t n = order[i];

		heat[t->nodes[n].parent] = satsum_add(heat[t->nodes[n].parent], heat[n], 0);
	}
	free(order);
	heat[CALLTREE_ROOT] = CALLTREE_FOLD_HOT;
	for (uint32_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].method == CALLTREE_COLD_METHOD)
			heat[i] = CALLTREE_FOLD_HOT;
	for (uint32_t d = 0; d < t->keys.depth; d++)
		heat[t->stack[d]] = CALLTREE_FOLD_HOT;
	return 0;
}

/* Marks the nodes to remove: below cutoff, or below a removed one. */
static uint32_t mark(const struct calltree *t, const uint32_t *order, const uint64_t *heat,
		     uint64_t cutoff, uint8_t *removed)
{
	uint32_t n = 0;

	removed[CALLTREE_ROOT] = 0;
	for (uint32_t i = 1; i < t->nnodes; i++) {
		uint32_t v = order[i];

		removed[v] = removed[t->nodes[v].parent] || heat[v] < cutoff;
		n += removed[v];
	}
	return n;
}

/* The new node array and children map without the removed nodes, children
 * in their old order: allocated by compact_alloc (which may fail), filled
 * by compact (which cannot). newidx maps old indices to new ones; nkids
 * holds each node's kept children, and the map only the children of
 * parents with more than CALLTREE_CHILD_SCAN of them (calltree.h). */
struct compaction {
	struct calltree_node *nodes;
	struct calltree_fig *figs;
	struct lathist **hist; /* with t->hist */
	struct u64map map;
	uint32_t kept;
	uint32_t *nkids;
};

static int compact_alloc(struct compaction *c, const struct calltree *t, const uint8_t *removed,
			 uint32_t kept)
{
	size_t mapped = 0;

	c->kept = kept;
	c->nodes = malloc((size_t)kept * sizeof(*c->nodes));
	c->figs = malloc((size_t)kept * t->nmetrics * sizeof(*c->figs));
	c->hist = t->hist ? calloc(kept, sizeof(*c->hist)) : NULL;
	c->nkids = calloc(t->nnodes, sizeof(*c->nkids));
	if (c->nkids) {
		/* a kept node's parent is kept: removal goes down whole subtrees */
		for (uint32_t i = 1; i < t->nnodes; i++)
			c->nkids[t->nodes[i].parent] += !removed[i];
		for (uint32_t i = 0; i < t->nnodes; i++)
			if (!removed[i] && c->nkids[i] > CALLTREE_CHILD_SCAN)
				mapped += c->nkids[i];
	}
	if (!c->nodes || !c->figs || !c->nkids || (t->hist && !c->hist) ||
	    u64map_init(&c->map, mapped + 1)) {
		free(c->nodes);
		free(c->figs);
		free(c->hist);
		free(c->nkids);
		return -ENOMEM;
	}
	return 0;
}

static void compact(struct calltree *t, struct compaction *c, const uint8_t *removed,
		    uint32_t *newidx)
{
	struct calltree_node *nn = c->nodes;
	uint32_t j = 0;

	for (uint32_t i = 0; i < t->nnodes; i++)
		newidx[i] = removed[i] ? CALLTREE_NONE : j++;
	for (uint32_t i = 0; i < t->nnodes; i++) {
		struct calltree_node *n;

		if (removed[i])
			continue;
		n = &nn[newidx[i]];
		*n = t->nodes[i];
		memcpy(&c->figs[(size_t)newidx[i] * t->nmetrics], calltree_fig(t, i, 0),
		       t->nmetrics * sizeof(*c->figs));
		if (t->hist)
			c->hist[newidx[i]] = t->hist[i];
		n->parent = i == CALLTREE_ROOT ? CALLTREE_NONE : newidx[t->nodes[i].parent];
		n->first_child = n->last_child = n->next_sibling = n->hint = CALLTREE_NONE;
	}
	for (uint32_t i = 0; i < t->nnodes; i++) {
		if (removed[i])
			continue;
		for (uint32_t ch = t->nodes[i].first_child; ch != CALLTREE_NONE;
		     ch = t->nodes[ch].next_sibling) {
			struct calltree_node *p = &nn[newidx[i]];

			if (removed[ch])
				continue;
			if (p->last_child == CALLTREE_NONE)
				p->first_child = newidx[ch];
			else
				nn[p->last_child].next_sibling = newidx[ch];
			p->last_child = newidx[ch];
			/* the map has room for all of these: this cannot fail */
			if (c->nkids[i] > CALLTREE_CHILD_SCAN)
				(void)u64map_put(
				    &c->map, ((uint64_t)newidx[i] << 32) | nn[newidx[ch]].method,
				    newidx[ch]);
		}
	}
	free(t->nodes);
	free(t->figs);
	for (uint32_t i = 0; t->hist && i < t->nnodes; i++)
		if (removed[i])
			lathist_free(t->hist[i]);
	free(t->hist);
	t->hist = c->hist;
	t->nodes = nn;
	t->figs = c->figs;
	t->nnodes = t->cap = c->kept;
	u64map_free(&t->children);
	t->children = c->map;
	free(c->nkids);
	for (uint32_t d = 0; d < t->keys.depth; d++)
		t->stack[d] = newidx[t->stack[d]];
	if (t->sums) { /* the sums were by the old numbers: the calls open now lose theirs */
		memset(t->sums->slot, 0, t->sums->nslot * sizeof(*t->sums->slot));
		t->sums->fold_gen = t->sums->gen;
	}
}

/* Each removed subtree's figures up to its top, then into the pseudo-frame
 * of the top's parent (created already). */
static void move_figures(struct calltree *t, const uint32_t *order, uint32_t n0,
			 const uint8_t *removed)
{
	for (uint32_t i = n0; i-- > 1;) {
		uint32_t v = order[i], p = t->nodes[v].parent, to;
		const struct calltree_node *n = &t->nodes[v];

		if (!removed[v])
			continue;
		if (n->method != CALLTREE_COLD_METHOD) {
			t->stats.folded_contexts++;
			satsum_addto(&t->stats.folded_calls, n->calls, SATSUM_CALLS);
		}
		if (removed[p]) {
			to = p;
		} else {
			to = calltree_child_find(t, p, CALLTREE_COLD_METHOD);
			satsum_addto(&t->nodes[to].calls, n->calls, SATSUM_CALLS);
		}
		for (unsigned m = 0; m < t->nmetrics; m++) {
			satsum_addto(&calltree_fig(t, to, m)->raw_base,
				     calltree_fig(t, v, m)->raw_base, SATSUM_RAW_BASE);
			satsum_addto(&calltree_fig(t, to, m)->base, calltree_fig(t, v, m)->base,
				     SATSUM_BASE);
		}
	}
}

/*
 * The histograms of the pseudo-frames after the fold, made aside in fresh
 * (t->nnodes entries, zeroed): each one's own and those of the folded
 * contexts right under it (whose calls it takes; their descendants' calls
 * were within theirs). made[f] says fresh[f] was made. Returns 0, or
 * -ENOMEM with fresh freed and t unchanged.
 */
static int fold_hists(const struct calltree *t, const uint32_t *order, uint32_t n0,
		      const uint8_t *removed, struct lathist **fresh, uint8_t *made)
{
	for (uint32_t i = 1; i < n0; i++) {
		uint32_t v = order[i], p = t->nodes[v].parent, f;

		if (!removed[v] || removed[p])
			continue;
		f = calltree_child_find(t, p, CALLTREE_COLD_METHOD);
		if ((!made[f] && lathist_merge(&fresh[f], t->hist[f])) ||
		    lathist_merge(&fresh[f], t->hist[v])) {
			for (uint32_t k = 0; k < t->nnodes; k++)
				lathist_free(fresh[k]);
			return -ENOMEM;
		}
		made[f] = 1;
	}
	return 0;
}

/* Puts the histograms fold_hists made in place (none can fail now). */
static void fold_hists_put(struct calltree *t, struct lathist **fresh, const uint8_t *made)
{
	for (uint32_t k = 0; k < t->nnodes; k++) {
		if (!made[k])
			continue;
		lathist_free(t->hist[k]);
		t->hist[k] = fresh[k];
	}
}

int64_t calltree_fold(struct calltree *t, const uint64_t *heat, uint64_t cutoff)
{
	struct lathist **fresh = NULL;
	uint8_t *made = NULL;
	uint32_t n0 = t->nnodes, nremoved, *order, *newidx = NULL;
	struct compaction c;
	uint8_t *removed;
	int err = -ENOMEM;

	if (t->finished)
		return -EINVAL;
	order = malloc((size_t)n0 * sizeof(*order));
	removed = malloc((size_t)n0 * 2);
	if (!order || !removed)
		goto out;
	calltree_preorder(t, order);
	nremoved = mark(t, order, heat, cutoff, removed);
	if (!nremoved) {
		err = 0;
		goto out;
	}
	/* Everything that allocates comes first, while a failure still leaves
	 * the tree as it was (an empty pseudo-frame at most). */
	for (uint32_t i = 1; i < n0; i++) {
		uint32_t v = order[i], f;

		if (removed[v] && !removed[t->nodes[v].parent]) {
			if (calltree_child(t, t->nodes[v].parent, CALLTREE_COLD_METHOD, &f))
				goto out;
			if (f >= n0)
				removed[f] = 0;
		}
	}
	newidx = malloc((size_t)t->nnodes * sizeof(*newidx));
	if (t->hist) {
		fresh = calloc(t->nnodes, sizeof(*fresh));
		made = calloc(t->nnodes, 1);
		if (!fresh || !made || fold_hists(t, order, n0, removed, fresh, made))
			goto out;
	}
	if (!newidx || compact_alloc(&c, t, removed, t->nnodes - nremoved)) {
		for (uint32_t k = 0; fresh && k < t->nnodes; k++)
			lathist_free(fresh[k]);
		goto out;
	}
	if (t->hist)
		fold_hists_put(t, fresh, made);
	move_figures(t, order, n0, removed);
	compact(t, &c, removed, newidx);
	err = 0;
out:
	free(order);
	free(removed);
	free(newidx);
	free(fresh);
	free(made);
	return err ? err : (int64_t)n0 - (int64_t)t->nnodes;
}
