/*
 * diff_tree.h - the calling-context tree of jcal-post diff (diff_model.h):
 * nodes named by the diff model's names, each with the figures of every
 * run, found by (parent, name) through a hash. A node is created after its
 * parent, so its index is larger: a loop from the last node to the first
 * visits children before parents.
 */
#ifndef JCAL_DIFF_TREE_H
#define JCAL_DIFF_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "common/u64map.h"

#define DIFF_NONE UINT32_MAX

/* Figures of one run, in that run's unit. */
struct diff_fig {
	uint64_t calls, base, cum;
};

struct diff_node {
	uint32_t parent;				/* DIFF_NONE for the root */
	uint32_t name;					/* the root's is given to diff_tree_init */
	uint32_t first_child, last_child, next_sibling; /* creation order; DIFF_NONE none */
	uint32_t level;					/* 0 the root */
};

struct diff_tree {
	struct diff_node *nodes;
	struct diff_fig *figs; /* nruns per node, node by node */
	uint8_t *seen;	       /* nruns per node: 1 when the run has the context */
	uint32_t nnodes;
	size_t cap;
	unsigned nruns;
	struct u64map children; /* (parent << 32 | name) -> node */
};

/* A tree of the root alone, named root_name, for nruns runs. Returns 0 or
 * -1 (no memory). */
int diff_tree_init(struct diff_tree *t, unsigned nruns, uint32_t root_name);
void diff_tree_free(struct diff_tree *t);

/* The child of parent named name, or DIFF_NONE. */
uint32_t diff_tree_child(const struct diff_tree *t, uint32_t parent, uint32_t name);

/* The child of parent named name, created (figures 0, seen by no run) when
 * missing. Returns 0 or -1 (no memory, or more nodes than 32 bits count). */
int diff_tree_get(struct diff_tree *t, uint32_t parent, uint32_t name, uint32_t *out);

/* Adds calls and base to node's figures of run, and marks it seen. */
void diff_tree_add(struct diff_tree *t, uint32_t node, unsigned run, uint64_t calls, uint64_t base);

/* Sets every node's cum in every run: its base and its children's cum. */
void diff_tree_cum(struct diff_tree *t);

static inline const struct diff_fig *diff_tree_figs(const struct diff_tree *t, uint32_t node)
{
	return &t->figs[(size_t)node * t->nruns];
}

static inline const uint8_t *diff_tree_seen(const struct diff_tree *t, uint32_t node)
{
	return &t->seen[(size_t)node * t->nruns];
}

#endif
