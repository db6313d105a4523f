/*
 * diff_tree.c - the calling-context tree of jcal-post diff (see
 * diff_tree.h).
 */
#include "postproc/diff_tree.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/satsum.h"

/* Room for need nodes: nodes, figures and seen marks grow together. */
static int reserve(struct diff_tree *t, size_t need)
{
	size_t cap = t->cap, fcap, scap;
	struct diff_fig *figs;
	uint8_t *seen;

	if (need <= t->cap)
		return 0;
	if (grow(&t->nodes, &cap, need))
		return -1;
	fcap = t->cap * t->nruns;
	scap = fcap;
	figs = t->figs;
	seen = t->seen;
	if (grow_array(&figs, &fcap, cap * t->nruns, sizeof(*figs)))
		return -1;
	t->figs = figs;
	if (grow_array(&seen, &scap, cap * t->nruns, sizeof(*seen)))
		return -1;
	t->seen = seen;
	t->cap = cap;
	return 0;
}

static int new_node(struct diff_tree *t, uint32_t parent, uint32_t name, uint32_t *out)
{
	uint32_t n = t->nnodes;
	struct diff_node *nd;

	if (n == DIFF_NONE || reserve(t, (size_t)n + 1))
		return -1;
	nd = &t->nodes[n];
	nd->parent = parent;
	nd->name = name;
	nd->first_child = nd->last_child = nd->next_sibling = DIFF_NONE;
	nd->level = parent == DIFF_NONE ? 0 : t->nodes[parent].level + 1;
	memset(&t->figs[(size_t)n * t->nruns], 0, t->nruns * sizeof(*t->figs));
	memset(&t->seen[(size_t)n * t->nruns], 0, t->nruns);
	if (parent != DIFF_NONE) {
		struct diff_node *p = &t->nodes[parent];

		if (p->last_child == DIFF_NONE)
			p->first_child = n;
		else
			t->nodes[p->last_child].next_sibling = n;
		p->last_child = n;
	}
	t->nnodes = n + 1;
	*out = n;
	return 0;
}

int diff_tree_init(struct diff_tree *t, unsigned nruns, uint32_t root_name)
{
	uint32_t root;

	memset(t, 0, sizeof(*t));
	t->nruns = nruns ? nruns : 1;
	if (u64map_init(&t->children, 1024) || new_node(t, DIFF_NONE, root_name, &root)) {
		diff_tree_free(t);
		return -1;
	}
	return 0;
}

void diff_tree_free(struct diff_tree *t)
{
	free(t->nodes);
	free(t->figs);
	free(t->seen);
	u64map_free(&t->children);
	memset(t, 0, sizeof(*t));
}

uint32_t diff_tree_child(const struct diff_tree *t, uint32_t parent, uint32_t name)
{
	const uint32_t *v = u64map_find(&t->children, (uint64_t)parent << 32 | name);

	return v ? *v : DIFF_NONE;
}

int diff_tree_get(struct diff_tree *t, uint32_t parent, uint32_t name, uint32_t *out)
{
	uint64_t key = (uint64_t)parent << 32 | name;
	uint32_t *v = u64map_find(&t->children, key);

	if (v) {
		*out = *v;
		return 0;
	}
	if (new_node(t, parent, name, out))
		return -1;
	if (u64map_put(&t->children, key, *out)) {
		t->nnodes--; /* not linked back out of its parent: the tree is only freed now */
		return -1;
	}
	return 0;
}

void diff_tree_add(struct diff_tree *t, uint32_t node, unsigned run, uint64_t calls, uint64_t base)
{
	struct diff_fig *f = &t->figs[(size_t)node * t->nruns + run];

	satsum_addto(&f->calls, calls, SATSUM_CALLS);
	satsum_addto(&f->base, base, SATSUM_BASE);
	t->seen[(size_t)node * t->nruns + run] = 1;
}

void diff_tree_cum(struct diff_tree *t)
{
	size_t runs = t->nruns;

	for (size_t i = 0; i < (size_t)t->nnodes * runs; i++)
		t->figs[i].cum = t->figs[i].base;
	for (uint32_t n = t->nnodes; n-- > 1;) {
		struct diff_fig *f = &t->figs[(size_t)n * runs];
		struct diff_fig *p = &t->figs[(size_t)t->nodes[n].parent * runs];

		for (size_t r = 0; r < runs; r++)
			satsum_addto(&p[r].cum, f[r].cum, SATSUM_CUM);
	}
}
