/*
 * tree_snapshot.h - a thread's calling-context tree as the records of a
 * tree snapshot (common/trace_tree.h, docs/trace-format.md): one
 * TREE_THREAD record, then the nodes in pre-order, then the histograms
 * of the nodes' calls (t->hist, when the tree keeps them). The agent writes its
 * in-memory trees with it (agent/core/tree_dump.c); the tests write trees
 * built from events and read them back.
 */
#ifndef JCAL_TREE_SNAPSHOT_H
#define JCAL_TREE_SNAPSHOT_H

#include <stdint.h>

#include "common/calltree.h"
#include "common/trace_encoder.h"

/* A record buffer holding more than this is handed to the sink. */
#define TREE_SNAPSHOT_FLUSH_BYTES (1u << 20)

/* Where full record buffers go: flush writes rb's chunk and clears it;
 * returns 0 or a negative error. */
struct tree_snapshot_sink {
	int (*flush)(void *ctx, struct trace_recbuf *rb);
	void *ctx;
};

/*
 * Appends the records of thread serial's tree t to rb (frames still open
 * are counted as open frames, as calltree_finish would; t is not changed;
 * its histograms are written as they are: calltree_hists_copy counts the
 * open calls in)
 * and hands rb to sink whenever it passes TREE_SNAPSHOT_FLUSH_BYTES (sink
 * may be NULL: all in rb). flags: TRACE_TREE_*. Returns 0, -ENOMEM (also
 * when rb dropped a record), or the sink's error.
 */
int tree_snapshot_write(struct trace_recbuf *rb, uint32_t serial, const struct calltree *t,
			uint32_t flags, const struct tree_snapshot_sink *sink);

/* The statistics of a TREE_THREAD record from a tree's, and back. */
void tree_snapshot_stats(const struct calltree_stats *s, uint64_t open_frames,
			 uint64_t out[TRACE_TS_COUNT]);
void tree_snapshot_stats_back(const uint64_t in[TRACE_TS_COUNT], struct calltree_stats *s);

#endif
