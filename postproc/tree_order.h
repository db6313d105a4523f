/*
 * tree_order.h - the order in which the tree report lists each node's
 * children (--order): by cum (the default, largest first), by base, by
 * name, or in the order they were first called. Ties keep the order of
 * the first call, so every order is deterministic.
 */
#ifndef JCAL_TREE_ORDER_H
#define JCAL_TREE_ORDER_H

#include <stdint.h>

#include "common/calltree.h"

enum tree_order {
	TREE_ORDER_CUM,	 /* descending cum (the default) */
	TREE_ORDER_CALL, /* first call first: the builder's own pre-order */
	TREE_ORDER_BASE, /* descending base */
	TREE_ORDER_NAME, /* ascending name */
};

typedef const char *(*tree_order_name_fn)(const void *ctx, uint32_t method);

/* Parses "cum", "call", "base" or "name"; returns 0 or -1. */
int tree_order_parse(const char *s, enum tree_order *out);

/*
 * The pre-order of t (finished) with each node's children sorted by how,
 * on metric (calibrated figures); name gives method names for
 * TREE_ORDER_NAME. Returns a malloc'ed array of t->nnodes node indices
 * (a parent always before its children), or NULL when out of memory.
 */
uint32_t *tree_order_preorder(const struct calltree *t, enum tree_order how, unsigned metric,
			      tree_order_name_fn name, const void *name_ctx);

#endif
