/*
 * flat.h - the flat profile: per method calls, base and cum over the
 * selected threads' trees.
 *
 * cum counts each activation once: only nodes whose method is not already
 * on their path (RL == 1) add their cum, so recursion is not counted twice
 * (docs/jcal-post.md, flat). The thread roots are not rows.
 */
#ifndef JCAL_FLAT_H
#define JCAL_FLAT_H

#include <stddef.h>
#include <stdint.h>

#include "common/calltree.h"

struct flat_row {
	uint32_t method;
	const char *name; /* from the name callback */
	uint64_t calls;
	uint64_t base, cum; /* of the chosen metric, calibrated */
	uint64_t raw_base, raw_cum;
	/* mode=bci, throttle=: the part of base (and cum) estimated for the
	 * calls counted after the method lost its probes (throttled.h) */
	uint64_t estimated;
};

typedef const char *(*flat_name_fn)(void *ctx, uint32_t method);

enum flat_sort {
	FLAT_BY_BASE,  /* descending (the default) */
	FLAT_BY_CUM,   /* descending */
	FLAT_BY_CALLS, /* descending */
	FLAT_BY_NAME,  /* ascending */
};

/* Aggregates metric of trees[0..ntrees) (finished) into *rows, sorted by
 * sort, ties by name, then method id. *rows is malloc'ed (free it);
 * returns 0 or -1 when out of memory. */
int flat_build(const struct calltree *const *trees, size_t ntrees, unsigned metric,
	       enum flat_sort sort, flat_name_fn name, void *name_ctx, struct flat_row **rows,
	       size_t *nrows);

/* Sorts rows as flat_build does (after a caller changed them). */
void flat_sort_rows(struct flat_row *rows, size_t n, enum flat_sort sort);

/* Parses "base", "cum", "calls" or "name"; returns 0 or -1. */
int flat_sort_parse(const char *s, enum flat_sort *out);

#endif
