/*
 * tree_snapshot.c - writes a calling-context tree as snapshot records (see
 * tree_snapshot.h).
 */
#include "common/tree_snapshot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/lathist.h"

void tree_snapshot_stats(const struct calltree_stats *s, uint64_t open_frames,
			 uint64_t out[TRACE_TS_COUNT])
{
	memset(out, 0, TRACE_TS_COUNT * sizeof(*out));
	out[TRACE_TS_EVENTS] = s->events;
	for (unsigned i = 0; i < JCAL_MT_COUNT; i++)
		out[TRACE_TS_TYPE + i] = s->by_type[i];
	for (unsigned i = 0; i < JCAL_TR_COUNT; i++)
		out[TRACE_TS_TRANSITION + i] = s->by_transition[i];
	out[TRACE_TS_UNMATCHED] = s->unmatched_exits;
	out[TRACE_TS_MISMATCHED] = s->mismatched_exits;
	out[TRACE_TS_UNWOUND] = s->frames_unwound;
	out[TRACE_TS_OPEN] = s->open_frames + open_frames;
	out[TRACE_TS_BACKWARDS] = s->backwards;
	for (unsigned i = 0; i < JCAL_CTL_COUNT; i++)
		out[TRACE_TS_CONTROL + i] = s->controls[i];
	out[TRACE_TS_FOLDED_CONTEXTS] = s->folded_contexts;
	out[TRACE_TS_FOLDED_CALLS] = s->folded_calls;
}

void tree_snapshot_stats_back(const uint64_t in[TRACE_TS_COUNT], struct calltree_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->events = in[TRACE_TS_EVENTS];
	for (unsigned i = 0; i < JCAL_MT_COUNT; i++)
		s->by_type[i] = in[TRACE_TS_TYPE + i];
	for (unsigned i = 0; i < JCAL_TR_COUNT; i++)
		s->by_transition[i] = in[TRACE_TS_TRANSITION + i];
	s->unmatched_exits = in[TRACE_TS_UNMATCHED];
	s->mismatched_exits = in[TRACE_TS_MISMATCHED];
	s->frames_unwound = in[TRACE_TS_UNWOUND];
	s->open_frames = in[TRACE_TS_OPEN];
	s->backwards = in[TRACE_TS_BACKWARDS];
	for (unsigned i = 0; i < JCAL_CTL_COUNT; i++)
		s->controls[i] = in[TRACE_TS_CONTROL + i];
	s->folded_contexts = in[TRACE_TS_FOLDED_CONTEXTS];
	s->folded_calls = in[TRACE_TS_FOLDED_CALLS];
}

static int maybe_flush(struct trace_recbuf *rb, const struct tree_snapshot_sink *sink)
{
	if (rb->oom)
		return -ENOMEM;
	if (sink && trace_recbuf_pending(rb) >= TREE_SNAPSHOT_FLUSH_BYTES)
		return sink->flush(sink->ctx, rb);
	return 0;
}

/* Histograms a TREE_HISTS record holds at most (the writer's choice). */
#define HISTS_PER_RECORD 256u

/* The TREE_HISTS records of t's nodes (order: the snapshot's pre-order),
 * after its nodes. */
static int write_hists(struct trace_recbuf *rb, uint32_t serial, const struct calltree *t,
		       const uint32_t *order, const struct tree_snapshot_sink *sink)
{
	const struct lathist *h[HISTS_PER_RECORD];
	uint32_t node[HISTS_PER_RECORD], nb = 0;
	int err;

	for (uint32_t i = 0; t->hist && i < t->nnodes; i++) {
		const struct lathist *x = t->hist[order[i]];

		if (x && x->count) {
			h[nb] = x;
			node[nb++] = i;
		}
		if (nb && (nb == HISTS_PER_RECORD || i + 1 == t->nnodes)) {
			trace_rec_tree_hists(rb, serial, node, h, nb);
			nb = 0;
			if ((err = maybe_flush(rb, sink)))
				return err;
		}
	}
	return 0;
}

int tree_snapshot_write(struct trace_recbuf *rb, uint32_t serial, const struct calltree *t,
			uint32_t flags, const struct tree_snapshot_sink *sink)
{
	struct trace_tree_thread th;
	struct trace_tree_node *batch;
	uint32_t *order, *pos, nb = 0;
	int err = -ENOMEM;

	memset(&th, 0, sizeof(th));
	th.serial = serial;
	th.nmetrics = t->nmetrics;
	th.nodes = t->nnodes;
	th.flags = flags;
	tree_snapshot_stats(&t->stats, t->finished ? 0 : t->keys.depth, th.stat);
	order = malloc((size_t)t->nnodes * sizeof(*order));
	pos = malloc((size_t)t->nnodes * sizeof(*pos));
	batch = malloc(TRACE_TREE_NODES_PER_RECORD * sizeof(*batch));
	if (!order || !pos || !batch)
		goto out;
	trace_rec_tree_thread(rb, &th);
	if ((err = maybe_flush(rb, sink)))
		goto out;
	calltree_preorder(t, order);
	for (uint32_t i = 0; i < t->nnodes; i++)
		pos[order[i]] = i;
	for (uint32_t i = 0; i < t->nnodes; i++) {
		const struct calltree_node *n = &t->nodes[order[i]];
		const struct calltree_fig *nf = calltree_fig(t, order[i], 0);
		struct trace_tree_node *b = &batch[nb++];

		memset(b, 0, sizeof(*b));
		b->serial = serial;
		b->index = i;
		b->parent = i ? pos[n->parent] : 0;
		b->method = n->method;
		b->calls = n->calls;
		b->nmetrics = t->nmetrics;
		for (unsigned k = 0; k < t->nmetrics; k++) {
			b->raw[k] = nf[k].raw_base;
			b->comp[k] = nf[k].base;
		}
		if (nb == TRACE_TREE_NODES_PER_RECORD || i + 1 == t->nnodes) {
			trace_rec_tree_nodes(rb, batch, nb);
			nb = 0;
			if ((err = maybe_flush(rb, sink)))
				goto out;
		}
	}
	err = write_hists(rb, serial, t, order, sink);
out:
	free(order);
	free(pos);
	free(batch);
	return err;
}
