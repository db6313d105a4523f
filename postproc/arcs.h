/*
 * arcs.h - the caller/callee (arc) view of calling-context trees
 * (docs/jcal-post.md, arcs): per method a SELF line, the
 * PARENT lines of its callers and the CHILD lines of its callees.
 *
 * Every non-root tree node n (method M, parent node p of method P) is one
 * call arc P -> M and adds its calls, base and cum:
 *  - to a line of M's stanza: PARENT P when n is M's outermost activation
 *    on its path (RL 1), rPARENT P when it is nested in another activation
 *    of M (RL > 1);
 *  - to a line of P's stanza: CHILD M when p is P's outermost activation
 *    (or the thread root), rCHILD M when p is nested (RL > 1);
 *  - to M's SELF line: calls and base always, cum when RL is 1 (each
 *    activation once, as in the flat profile), cum_all always.
 * The thread root is entry [0].
 *
 * So, for every method (the invariants of docs/jcal-post.md; rPARENT lines are
 * parent lines for 1 and 2, not for 3):
 *  1) sum(PARENT calls) + sum(rPARENT calls) = SELF calls
 *  2) sum(PARENT base)  + sum(rPARENT base)  = SELF base
 *  3) sum(PARENT cum) = SELF cum
 *  4) sum(CHILD cum) + sum(rCHILD cum) = SELF cum_all - SELF base
 * and sum(PARENT cum) + sum(rPARENT cum) = SELF cum_all. For a method that
 * never recurses cum_all = cum and there are no rCHILD lines, so 4) reads
 * as in the seed: sum(CHILD cum) = SELF cum - SELF base. For a recursive
 * one, cum_all is the second Cum value the seed prints under SELF (15 for
 * A, 17 for B in Fig 10).
 */
#ifndef JCAL_ARCS_H
#define JCAL_ARCS_H

#include <stddef.h>
#include <stdint.h>

#include "common/calltree.h"

enum arc_role {
	ARC_PARENT,
	ARC_RPARENT,
	ARC_CHILD,
	ARC_RCHILD,
};

struct arc_line {
	enum arc_role role;
	uint32_t method; /* the caller (parents) or callee (children) */
	size_t index;	 /* its entry's index */
	uint64_t calls, base, cum, raw_base, raw_cum;
};

struct arc_entry {
	uint32_t method; /* CALLTREE_ROOT_METHOD for the thread root */
	const char *name;
	uint64_t calls, base, cum, cum_all, raw_base, raw_cum, raw_cum_all;
	struct arc_line *parents, *children; /* into arcs.lines */
	size_t nparents, nchildren;
};

struct arcs {
	struct arc_entry *entry; /* by cum, the root first; index = position */
	size_t n;
	struct arc_line *lines; /* parents and children of every entry */
	size_t nlines;
};

typedef const char *(*arcs_name_fn)(void *ctx, uint32_t method);

/* Builds the arcs of metric over trees[0..ntrees) (finished; several trees
 * add up, the root entry then counts one call per tree). Entries are
 * sorted by cum, descending, ties by cum_all, name, method id, with the
 * root always first; lines by cum, descending, then by the index of their
 * method, PARENT before rPARENT, CHILD before rCHILD. Returns 0 or -1 (out
 * of memory). */
int arcs_build(const struct calltree *const *trees, size_t ntrees, unsigned metric,
	       arcs_name_fn name, void *name_ctx, struct arcs *out);
void arcs_free(struct arcs *a);

/* "PARENT", "rPARENT", "CHILD", "rCHILD". */
const char *arcs_role_name(enum arc_role r);

#endif
