/*
 * calltree.c - the per-thread calling-context tree builder (see calltree.h).
 */
#include "calltree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

static uint64_t child_key(uint32_t parent, uint32_t method)
{
	return ((uint64_t)parent << 32) | method;
}

/* Appends a node for method under parent (not yet in the children map). */
static int node_new(struct calltree *t, uint32_t parent, uint32_t method, uint32_t *out)
{
	struct calltree_node *n;
	size_t cap = t->cap;

	if (t->nnodes == t->cap &&
	    (t->cap >= UINT32_MAX / 2 || grow(&t->nodes, &cap, (size_t)t->nnodes + 1)))
		return -ENOMEM;
	t->cap = (uint32_t)cap;
	n = &t->nodes[t->nnodes];
	memset(n, 0, sizeof(*n));
	n->parent = parent;
	n->method = method;
	n->first_child = CALLTREE_NONE;
	n->last_child = CALLTREE_NONE;
	n->next_sibling = CALLTREE_NONE;
	n->hint = CALLTREE_NONE;
	n->rl = 1;
	*out = t->nnodes++;
	return 0;
}

static void link_child(struct calltree *t, uint32_t parent, uint32_t child)
{
	struct calltree_node *p = &t->nodes[parent];

	if (p->last_child == CALLTREE_NONE)
		p->first_child = child;
	else
		t->nodes[p->last_child].next_sibling = child;
	p->last_child = child;
}

/* Finds or creates the child of parent for method. */
static int child_get(struct calltree *t, uint32_t parent, uint32_t method, uint32_t *out)
{
	struct calltree_node *p = &t->nodes[parent];
	uint32_t h = p->hint;
	uint32_t *v;
	int err;

	/* Programs call the same children in the same order again and again:
	 * try the last child found, the one after it and the first one. */
	if (h != CALLTREE_NONE) {
		if (t->nodes[h].method == method && t->nodes[h].parent == parent)
			goto found;
		h = t->nodes[h].next_sibling;
		if (h != CALLTREE_NONE && t->nodes[h].method == method)
			goto found;
		h = p->first_child;
		if (h != CALLTREE_NONE && t->nodes[h].method == method)
			goto found;
	}
	v = u64map_find(&t->children, child_key(parent, method));
	if (v && *v != CALLTREE_NONE) {
		h = *v;
	} else {
		err = node_new(t, parent, method, &h);
		if (err)
			return err;
		if (u64map_put(&t->children, child_key(parent, method), h)) {
			t->nnodes--;
			return -ENOMEM;
		}
		link_child(t, parent, h);
	}
found:
	t->nodes[parent].hint = h;
	*out = h;
	return 0;
}

/* Pushes node onto the builder's stack, at the stepper's new depth. */
static int push(struct calltree *t, uint32_t node)
{
	uint32_t at = t->keys.depth - 1;
	size_t cap = t->stack_cap;

	if (at >= t->stack_cap &&
	    (t->stack_cap >= UINT32_MAX / 2 || grow(&t->stack, &cap, (size_t)at + 1)))
		return -ENOMEM;
	t->stack_cap = (uint32_t)cap;
	t->stack[at] = node;
	return 0;
}

/*
 * Inserts a node for method above the current root context: it becomes the
 * root's only child and adopts the root's former children.
 */
static int reparent(struct calltree *t, uint32_t method, uint32_t *out)
{
	struct calltree_node *root;
	uint32_t n, c;
	int err;

	err = node_new(t, CALLTREE_ROOT, method, &n);
	if (err)
		return err;
	for (c = t->nodes[CALLTREE_ROOT].first_child; c != CALLTREE_NONE;
	     c = t->nodes[c].next_sibling) {
		/* out of memory leaves the tree unusable; the caller gives up */
		if (u64map_put(&t->children, child_key(n, t->nodes[c].method), c) ||
		    u64map_put(&t->children, child_key(CALLTREE_ROOT, t->nodes[c].method),
			       CALLTREE_NONE))
			return -ENOMEM;
		t->nodes[c].parent = n;
	}
	if (u64map_put(&t->children, child_key(CALLTREE_ROOT, method), n))
		return -ENOMEM;
	root = &t->nodes[CALLTREE_ROOT];
	t->nodes[n].first_child = root->first_child;
	t->nodes[n].last_child = root->last_child;
	root->first_child = n;
	root->last_child = n;
	root->hint = n;
	t->nodes[n].calls = 1;
	/* While no frame was open, the running method was this one (or a frame
	 * below it): what the root took since the last insertion is its. */
	memcpy(t->nodes[n].raw_base, root->raw_base, sizeof(root->raw_base));
	memcpy(t->nodes[n].base, root->base, sizeof(root->base));
	memset(root->raw_base, 0, sizeof(root->raw_base));
	memset(root->base, 0, sizeof(root->base));
	*out = n;
	return 0;
}

int calltree_init(struct calltree *t, unsigned nmetrics, const struct calltree_comp *comp)
{
	uint32_t root;

	memset(t, 0, sizeof(*t));
	seqkey_stepper_init(&t->keys);
	if (nmetrics < 1 || nmetrics > JCAL_MAX_METRICS)
		return -EINVAL;
	t->nmetrics = nmetrics;
	if (comp)
		t->comp = *comp;
	if (u64map_init(&t->children, 64) ||
	    node_new(t, CALLTREE_NONE, CALLTREE_ROOT_METHOD, &root)) {
		calltree_free(t);
		return -ENOMEM;
	}
	t->nodes[root].calls = 1;
	return 0;
}

void calltree_free(struct calltree *t)
{
	free(t->nodes);
	free(t->stack);
	free(t->order);
	seqkey_stepper_free(&t->keys);
	u64map_free(&t->children);
	memset(t, 0, sizeof(*t));
}

static void charge(struct calltree *t, uint32_t node, const struct seqkey *key,
		   const uint64_t *metric)
{
	struct calltree_node *n = &t->nodes[node];

	for (unsigned i = 0; i < t->nmetrics; i++) {
		uint64_t d = metric[i] - t->last[i];

		if (metric[i] < t->last[i]) {
			t->stats.backwards++;
			d = 0;
		}
		n->raw_base[i] += d;
		if (t->comp.fn) {
			int64_t c = t->comp.fn(t->comp.ctx, key, i, d);
			n->base[i] += c > 0 ? (uint64_t)c : 0;
		} else {
			n->base[i] += d;
		}
	}
}

static uint32_t top_node(const struct calltree *t)
{
	return t->keys.depth ? t->stack[t->keys.depth - 1] : CALLTREE_ROOT;
}

/* Region control: no frame changes; see calltree.h. */
static int control(struct calltree *t, unsigned kind, const uint64_t *metric)
{
	if (kind >= JCAL_CTL_COUNT)
		return -EINVAL;
	if (!t->gap && t->keys.have_prev) {
		struct calltree_node *n = &t->nodes[top_node(t)];
		for (unsigned i = 0; i < t->nmetrics; i++) {
			uint64_t d = metric[i] >= t->last[i] ? metric[i] - t->last[i] : 0;
			n->raw_base[i] += d;
			n->base[i] += d;
		}
	}
	if (kind == JCAL_CTL_STOP)
		t->gap = 1;
	else if (kind == JCAL_CTL_START)
		t->gap = 0;
	memcpy(t->last, metric, t->nmetrics * sizeof(*metric));
	t->stats.controls[kind]++;
	return 0;
}

int calltree_event(struct calltree *t, uint32_t method, unsigned transition, unsigned type,
		   const uint64_t *metric)
{
	uint32_t charged = top_node(t), n;
	struct seqkey_step st;
	int err;

	if (transition == JCAL_TR_CONTROL && !t->finished)
		return control(t, type, metric);
	if (transition >= JCAL_TR_COUNT || t->finished)
		return -EINVAL;
	if (type >= JCAL_MT_COUNT)
		type = JCAL_MT_OTHER;
	err = seqkey_step(&t->keys, method, transition, type, &st);
	if (err)
		return err;

	if (transition == JCAL_TR_ENTRY) {
		err = child_get(t, charged, method, &n);
		if (!err)
			err = push(t, n);
		if (err)
			return err;
		t->nodes[n].calls++;
	} else if (st.unmatched) {
		if (st.popped) {
			t->stats.mismatched_exits++;
			t->stats.frames_unwound += st.popped;
		}
		err = reparent(t, method, &n);
		if (err)
			return err;
		t->stats.unmatched_exits++;
		/* with no frame open it was the running method: the step is its */
		if (st.root_running)
			charged = n;
	} else if (st.popped > 1) {
		t->stats.mismatched_exits++;
		t->stats.frames_unwound += st.popped - 1;
	}

	if (st.has_key && !t->gap)
		charge(t, charged, &st.key, metric);
	t->gap = 0;
	memcpy(t->last, metric, t->nmetrics * sizeof(*metric));
	t->stats.events++;
	t->stats.by_type[type]++;
	t->stats.by_transition[transition]++;
	return 0;
}

/* Pre-order walk without a stack: sets order, level and RL. */
static int walk(struct calltree *t)
{
	struct u64map onpath; /* method -> occurrences on the current path */
	uint32_t n = CALLTREE_ROOT, level = 0, idx = 0, *cnt;

	if (u64map_init(&onpath, 64))
		return -ENOMEM;
	t->max_level = 0;
	for (;;) {
		struct calltree_node *node = &t->nodes[n];

		t->order[idx++] = n;
		node->level = level;
		if (level > t->max_level)
			t->max_level = level;
		if (n != CALLTREE_ROOT) {
			cnt = u64map_find(&onpath, node->method);
			if (cnt) {
				node->rl = ++*cnt;
			} else {
				node->rl = 1;
				if (u64map_put(&onpath, node->method, 1)) {
					u64map_free(&onpath);
					return -ENOMEM;
				}
			}
		}
		if (node->first_child != CALLTREE_NONE) {
			n = node->first_child;
			level++;
			continue;
		}
		for (;;) {
			if (n == CALLTREE_ROOT)
				goto done;
			cnt = u64map_find(&onpath, t->nodes[n].method);
			--*cnt;
			if (t->nodes[n].next_sibling != CALLTREE_NONE) {
				n = t->nodes[n].next_sibling;
				break;
			}
			n = t->nodes[n].parent;
			level--;
		}
	}
done:
	u64map_free(&onpath);
	return 0;
}

void calltree_preorder(const struct calltree *t, uint32_t *order)
{
	uint32_t n = CALLTREE_ROOT, idx = 0;

	for (;;) {
		order[idx++] = n;
		if (t->nodes[n].first_child != CALLTREE_NONE) {
			n = t->nodes[n].first_child;
			continue;
		}
		while (n != CALLTREE_ROOT && t->nodes[n].next_sibling == CALLTREE_NONE)
			n = t->nodes[n].parent;
		if (n == CALLTREE_ROOT)
			return;
		n = t->nodes[n].next_sibling;
	}
}

int calltree_child(struct calltree *t, uint32_t parent, uint32_t method, uint32_t *out)
{
	return child_get(t, parent, method, out);
}

void calltree_stats_add(struct calltree_stats *d, const struct calltree_stats *s)
{
	d->events += s->events;
	for (unsigned i = 0; i < JCAL_MT_COUNT; i++)
		d->by_type[i] += s->by_type[i];
	for (unsigned i = 0; i < JCAL_TR_COUNT; i++)
		d->by_transition[i] += s->by_transition[i];
	for (unsigned i = 0; i < JCAL_CTL_COUNT; i++)
		d->controls[i] += s->controls[i];
	d->unmatched_exits += s->unmatched_exits;
	d->mismatched_exits += s->mismatched_exits;
	d->frames_unwound += s->frames_unwound;
	d->open_frames += s->open_frames;
	d->backwards += s->backwards;
	d->folded_contexts += s->folded_contexts;
	d->folded_calls += s->folded_calls;
}

int calltree_merge(struct calltree *dst, const struct calltree *src)
{
	uint32_t *order = malloc((size_t)src->nnodes * sizeof(*order));
	uint32_t *map = malloc((size_t)src->nnodes * sizeof(*map));
	unsigned nm = dst->nmetrics < src->nmetrics ? dst->nmetrics : src->nmetrics;
	int rc = 0;

	if (!order || !map) {
		free(order);
		free(map);
		return -ENOMEM;
	}
	/* parents before children, whatever reparenting did to the indices */
	calltree_preorder(src, order);
	map[CALLTREE_ROOT] = CALLTREE_ROOT;
	for (uint32_t k = 0; k < src->nnodes && !rc; k++) {
		const struct calltree_node *s = &src->nodes[order[k]];
		struct calltree_node *d;

		if (order[k] != CALLTREE_ROOT)
			rc = child_get(dst, map[s->parent], s->method, &map[order[k]]);
		if (rc)
			break;
		d = &dst->nodes[map[order[k]]];
		/* the root's one call is the thread's: dst has its own */
		if (order[k] != CALLTREE_ROOT)
			d->calls += s->calls;
		for (unsigned i = 0; i < nm; i++) {
			d->raw_base[i] += s->raw_base[i];
			d->base[i] += s->base[i];
		}
	}
	if (!rc)
		calltree_stats_add(&dst->stats, &src->stats);
	free(order);
	free(map);
	return rc;
}

int calltree_finish(struct calltree *t)
{
	int err;

	if (t->finished)
		return 0;
	t->stats.open_frames += t->keys.depth;
	t->keys.depth = 0;
	t->order = malloc((size_t)t->nnodes * sizeof(*t->order));
	if (!t->order)
		return -ENOMEM;
	err = walk(t);
	if (err)
		return err;
	for (uint32_t i = 0; i < t->nnodes; i++) {
		struct calltree_node *n = &t->nodes[i];

		memcpy(n->raw_cum, n->raw_base, sizeof(n->raw_cum));
		memcpy(n->cum, n->base, sizeof(n->cum));
	}
	for (uint32_t i = t->nnodes; i-- > 1;) {
		struct calltree_node *n = &t->nodes[t->order[i]];
		struct calltree_node *p = &t->nodes[n->parent];

		for (unsigned m = 0; m < t->nmetrics; m++) {
			p->raw_cum[m] += n->raw_cum[m];
			p->cum[m] += n->cum[m];
		}
	}
	t->finished = 1;
	return 0;
}
