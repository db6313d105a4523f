/*
 * tree_group.h - one calling-context tree made of several finished trees,
 * added context by context (docs/jcal-post.md, "Several inputs, one
 * profile"): the threads that --merge-threads makes one, the threads of a
 * report that shows none apart (flat, callers) folded as they end, the
 * threads or inputs of a merged profile.
 *
 * The trees may be added in any order and the result is the tree that
 * adding them one after the other in a given order would build: each
 * context keeps the smallest (who, pos) that brought it, where who orders
 * the sources (a thread's serial, an input's index) and pos is the
 * context's place in its source's pre-order, and tree_group_finish() puts
 * the children of every context in that order, the order in which adding
 * the sources by who would have created them. Figures and counts add up
 * (saturating); nothing depends on the order but the order of children.
 */
#ifndef JCAL_TREE_GROUP_H
#define JCAL_TREE_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "common/calltree.h"

/* A source's method id as the group's (the pseudo-frames' ids pass
 * through as they are: the function is not called for them). */
typedef uint32_t (*tree_group_method_fn)(void *ctx, uint32_t method);

/* What brought a context first: the source (who) and the context's place
 * in its pre-order (pos). */
struct tree_group_key {
	uint32_t who, pos;
};

struct tree_group {
	struct calltree t;	    /* not finished until tree_group_finish */
	struct tree_group_key *key; /* per node */
	size_t cap;
	size_t sources; /* trees added */
	int no_stats;	/* the trees' statistics are not added (nothing reads them) */
};

/* nmetrics from 1 to JCAL_MAX_METRICS; the group widens when a tree of
 * more metrics is added. Returns 0 or -1 (no memory). */
int tree_group_init(struct tree_group *g, unsigned nmetrics);

/* Adds src (finished) as source who: every context to the same path of
 * the group, its calls (the root's excepted), its raw and calibrated base,
 * and src's statistics (unless no_stats). A context's place is its place
 * in src's pre-order, or with TREE_GROUP_BY_INDEX its index (src a group
 * itself, whose indices are the order its sources made). method maps
 * src's method ids (NULL: kept). Returns 0 or -1 (no memory: the group is
 * then only fit for tree_group_free). */
int tree_group_add(struct tree_group *g, const struct calltree *src, uint32_t who, unsigned flags,
		   tree_group_method_fn method, void *ctx);

#define TREE_GROUP_BY_INDEX 1u

/* Orders every context's children (above) and finishes the tree (level,
 * RL, cum, pre-order). Returns 0 or -1 (no memory). */
int tree_group_finish(struct tree_group *g);

/* Moves the tree out of the group (after tree_group_finish): *out owns it,
 * free it with calltree_free; the group keeps nothing. */
void tree_group_take(struct tree_group *g, struct calltree *out);

void tree_group_free(struct tree_group *g);

/* Gives t (finished or not) nm metrics when it has fewer, the others 0, so
 * that a report may ask any tree of a model for any of its metrics.
 * Returns 0 or -1 (no memory). */
int tree_group_widen(struct calltree *t, unsigned nm);

#endif
