/*
 * calltree_fold.h - keeps a tree that is still being built within a budget
 * of calling contexts (the agent's maxcontexts=, docs/agent-internals.md):
 * the coldest contexts, with their subtrees, are folded into a
 * pseudo-frame <cold contexts> (CALLTREE_COLD_METHOD) under their parent.
 *
 * Nothing is lost: the pseudo-frame takes the calls of the contexts folded
 * into it and, as its base, their cum (raw and compensated), so that every
 * remaining node's cum and the tree's totals are what they were. A folded
 * context entered again later starts afresh as a new node. The frames open
 * on the builder's stack, the root and the pseudo-frames themselves are
 * never folded.
 */
#ifndef JCAL_CALLTREE_FOLD_H
#define JCAL_CALLTREE_FOLD_H

#include <stdint.h>

#include "common/calltree.h"

/* Heat of what is never folded. */
#define CALLTREE_FOLD_HOT UINT64_MAX

/*
 * The heat of every node (heat has t->nnodes entries): its raw cum of
 * metric 0 (so a node is never colder than one of its descendants), or
 * CALLTREE_FOLD_HOT for the root, the open frames and the pseudo-frames.
 * Returns 0 or -ENOMEM.
 */
int calltree_fold_heat(const struct calltree *t, uint64_t *heat);

/*
 * Folds every context whose heat (from calltree_fold_heat, taken since the last
 * event) is below cutoff, with its subtree, into the <cold contexts> child
 * of its parent, and counts them in t->stats.folded_contexts and
 * folded_calls. Node indices change. Returns the number of nodes removed,
 * or -ENOMEM with the tree unchanged. Only before calltree_finish.
 */
int64_t calltree_fold(struct calltree *t, const uint64_t *heat, uint64_t cutoff);

#endif
