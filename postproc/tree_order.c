/*
 * tree_order.c - a tree's pre-order with each node's children sorted
 * (see tree_order.h): the children are gathered per parent in creation
 * order, sorted stably, then walked with an explicit stack so that depth
 * costs no C stack.
 */
#include "postproc/tree_order.h"

#include <stdlib.h>
#include <string.h>

int tree_order_parse(const char *s, enum tree_order *out)
{
	static const struct {
		const char *name;
		enum tree_order order;
	} names[] = {
	    {"cum", TREE_ORDER_CUM},
	    {"call", TREE_ORDER_CALL},
	    {"base", TREE_ORDER_BASE},
	    {"name", TREE_ORDER_NAME},
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name)) {
			*out = names[i].order;
			return 0;
		}
	return -1;
}

/* One child as sorted: its key, and its rank among its siblings (creation
 * order) for ties. */
struct kid {
	uint64_t key;
	const char *name;
	uint32_t rank, node;
};

static int by_key_desc(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int by_name(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* The children of every node sorted, grouped by parent: the children of n
 * are kids[start[n] .. start[n + 1]). */
static void sorted_children(const struct calltree *t, enum tree_order how, unsigned metric,
			    tree_order_name_fn name, const void *name_ctx, struct kid *kids,
			    uint32_t *start)
{
	uint32_t k = 0;

	for (uint32_t p = 0; p < t->nnodes; p++) {
		uint32_t rank = 0;

		start[p] = k;
		for (uint32_t c = t->nodes[p].first_child; c != CALLTREE_NONE;
		     c = t->nodes[c].next_sibling) {
			const struct calltree_node *n = &t->nodes[c];
			const struct calltree_fig *f = calltree_fig(t, c, metric);

			kids[k].node = c;
			kids[k].rank = rank++;
			kids[k].key = how == TREE_ORDER_BASE ? f->base : f->cum;
			kids[k].name = how == TREE_ORDER_NAME ? name(name_ctx, n->method) : NULL;
			k++;
		}
		if (k - start[p] > 1)
			qsort(kids + start[p], k - start[p], sizeof(*kids),
			      how == TREE_ORDER_NAME ? by_name : by_key_desc);
	}
	start[t->nnodes] = k;
}

uint32_t *tree_order_preorder(const struct calltree *t, enum tree_order how, unsigned metric,
			      tree_order_name_fn name, const void *name_ctx)
{
	uint32_t *order = malloc(((size_t)t->nnodes + 1) * sizeof(*order));
	uint32_t *start = NULL, *stack = NULL, sp = 0, idx = 0;
	struct kid *kids = NULL;

	if (!order)
		return NULL;
	if (how == TREE_ORDER_CALL || (how == TREE_ORDER_NAME && !name)) {
		calltree_preorder(t, order);
		return order;
	}
	kids = malloc(((size_t)t->nnodes + 1) * sizeof(*kids));
	start = malloc(((size_t)t->nnodes + 1) * sizeof(*start));
	stack = malloc(((size_t)t->nnodes + 1) * sizeof(*stack));
	if (!kids || !start || !stack) {
		free(order);
		order = NULL;
		goto out;
	}
	sorted_children(t, how, metric, name, name_ctx, kids, start);
	stack[sp++] = CALLTREE_ROOT;
	while (sp) {
		uint32_t n = stack[--sp];

		order[idx++] = n;
		/* pushed last to first, so that the first child comes next */
		for (uint32_t i = start[n + 1]; i-- > start[n];)
			stack[sp++] = kids[i].node;
	}
out:
	free(kids);
	free(start);
	free(stack);
	return order;
}
