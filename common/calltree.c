/*
 * calltree.c - the per-thread calling-context tree builder (see calltree.h).
 */
#include "common/calltree.h"
#include "common/calltree_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/calib_comp.h"
#include "common/grow.h"
#include "common/lathist.h"
#include "common/satsum.h"

static uint64_t child_key(uint32_t parent, uint32_t method)
{
	return ((uint64_t)parent << 32) | method;
}

/* Nodes a tree has room for at first; then twice as many at each growth. */
#define FIRST_NODES 4

/* Appends a node for method under parent (not yet in the children map). */
static int node_new(struct calltree *t, uint32_t parent, uint32_t method, uint32_t *out)
{
	struct calltree_node *n;
	size_t cap = t->cap;

	if (t->nnodes == t->cap) {
		struct calltree_fig *figs;

		/* a few nodes first: most threads of a program that starts one
		 * per task have only a few contexts */
		if (!cap)
			cap = FIRST_NODES / 2;
		if (t->cap >= UINT32_MAX / 2 || grow(&t->nodes, &cap, (size_t)cap * 2))
			return -ENOMEM;
		figs = realloc(t->figs, cap * t->nmetrics * sizeof(*figs));
		if (!figs)
			return -ENOMEM; /* nodes grown, cap not: grown again next time */
		t->figs = figs;
		if (t->hist) {
			struct lathist **h = realloc(t->hist, cap * sizeof(*h));

			if (!h)
				return -ENOMEM;
			memset(h + t->cap, 0, (cap - t->cap) * sizeof(*h));
			t->hist = h;
		}
		t->cap = (uint32_t)cap;
	}
	n = &t->nodes[t->nnodes];
	memset(n, 0, sizeof(*n));
	memset(calltree_fig(t, t->nnodes, 0), 0, t->nmetrics * sizeof(*t->figs));
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

/* A look-up past the hint goes through CALLTREE_CHILD_SCAN children
 * before the children map, which holds every child of a parent that has
 * more: most parents have no more, and looking at a few children is
 * cheaper than one look at the map, which is as large as the tree; nor
 * does a new child of such a parent cost an entry in it. */
#define CHILD_SCAN CALLTREE_CHILD_SCAN

/* The child of parent for method, or CALLTREE_NONE; *scanned is set to
 * the children looked at before the map (CHILD_SCAN + 1 when the map was
 * asked). */
static uint32_t child_find(const struct calltree *t, uint32_t parent, uint32_t method,
			   unsigned *scanned)
{
	uint32_t h = t->nodes[parent].first_child, *v;
	unsigned k = 0;

	for (; h != CALLTREE_NONE && k < CHILD_SCAN; h = t->nodes[h].next_sibling, k++)
		if (t->nodes[h].method == method) {
			*scanned = k;
			return h;
		}
	*scanned = h == CALLTREE_NONE ? k : CHILD_SCAN + 1;
	if (h == CALLTREE_NONE)
		return CALLTREE_NONE;
	v = u64map_find(&t->children, child_key(parent, method));
	return v ? *v : CALLTREE_NONE;
}

uint32_t calltree_child_find(const struct calltree *t, uint32_t parent, uint32_t method)
{
	unsigned scanned;

	return child_find(t, parent, method, &scanned);
}

/* Puts the children of parent, and child (not linked yet), in the map. */
static int map_children(struct calltree *t, uint32_t parent, uint32_t child)
{
	for (uint32_t c = t->nodes[parent].first_child; c != CALLTREE_NONE;
	     c = t->nodes[c].next_sibling)
		if (u64map_put(&t->children, child_key(parent, t->nodes[c].method), c))
			return -1;
	return u64map_put(&t->children, child_key(parent, t->nodes[child].method), child);
}

/* child_get() past its quick looks: the first CHILD_SCAN children, else
 * the children map; a new node when it has none. */
static int child_get_slow(struct calltree *t, uint32_t parent, uint32_t method, uint32_t *out)
{
	unsigned scanned;
	uint32_t h = child_find(t, parent, method, &scanned);
	int err;

	if (h == CALLTREE_NONE) {
		err = node_new(t, parent, method, &h);
		if (err)
			return err;
		/* a parent with more than CHILD_SCAN children has them all in the
		 * map: this one, or all of them when it is the one too many */
		if ((scanned == CHILD_SCAN + 1 &&
		     u64map_put(&t->children, child_key(parent, method), h)) ||
		    (scanned == CHILD_SCAN && map_children(t, parent, h))) {
			t->nnodes--;
			return -ENOMEM;
		}
		link_child(t, parent, h);
	}
	t->nodes[parent].hint = h;
	*out = h;
	return 0;
}

/* Finds or creates the child of parent for method. */
static inline int child_get(struct calltree *t, uint32_t parent, uint32_t method, uint32_t *out)
{
	struct calltree_node *p = &t->nodes[parent];
	uint32_t h = p->hint;

	/* Programs call the same children in the same order again and again:
	 * try the last child found, the one after it and the first one. */
	if (h == CALLTREE_NONE)
		return child_get_slow(t, parent, method, out);
	if (t->nodes[h].method == method && t->nodes[h].parent == parent)
		goto found;
	h = t->nodes[h].next_sibling;
	if (h != CALLTREE_NONE && t->nodes[h].method == method)
		goto found;
	h = p->first_child;
	if (h != CALLTREE_NONE && t->nodes[h].method == method)
		goto found;
	return child_get_slow(t, parent, method, out);
found:
	p->hint = h;
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

static void pending_flush(struct calltree *t);

/*
 * Inserts a node for method above the current root context: it becomes the
 * root's only child and adopts the root's former children.
 */
static int reparent(struct calltree *t, uint32_t method, uint32_t *out)
{
	struct calltree_node *root;
	uint32_t n, c;
	int err;

	/* the root's deferred deltas are part of what the new node takes */
	pending_flush(t);
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
	t->nodes[n].calls = t->continued ? 0 : 1;
	/* While no frame was open, the running method was this one (or a frame
	 * below it): what the root took since the last insertion is its. */
	for (unsigned i = 0; i < t->nmetrics; i++) {
		struct calltree_fig *from = calltree_fig(t, CALLTREE_ROOT, i);
		struct calltree_fig *to = calltree_fig(t, n, i);

		to->raw_base = from->raw_base;
		to->base = from->base;
		from->raw_base = from->base = 0;
	}
	*out = n;
	return 0;
}

/* Frees the deferred charges' buffers (none waits: pending_flush). */
static void pending_free(struct calltree *t)
{
	if (!t->pend)
		return;
	free(t->pend->node);
	free(t->pend->key);
	free(t->pend->delta);
	free(t->pend->out);
	free(t->pend);
	t->pend = NULL;
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
	if (!t->comp.fn || nmetrics != 1)
		t->comp.table = NULL;
	if (t->comp.table && !t->comp.table->prepared)
		t->comp.table = NULL; /* only the hook knows how to apply it */
	/* the children map, the compensation counts (comp_counts) and the
	 * deferred charges (pending_reserve) take memory once they are needed */
	if (u64map_init(&t->children, 0) ||
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
	free(t->figs);
	free(t->stack);
	free(t->order);
	pending_free(t);
	free(t->comp_count);
	if (t->watch)
		free(t->watch->at);
	free(t->watch);
	if (t->sums) {
		free(t->sums->frame_gen);
		free(t->sums->slot);
		free(t->sums);
	}
	for (uint32_t i = 0; t->hist && i < t->nnodes; i++)
		lathist_free(t->hist[i]);
	free(t->hist);
	seqkey_stepper_free(&t->keys);
	u64map_free(&t->children);
	memset(t, 0, sizeof(*t));
}

/*
 * Metric 0 of a tree moves from old to now at an event; charged: the step
 * is charged to a node (else it is the thread's first event, or the first
 * after a gap). A one-metric tree's common steps add their deltas without
 * a check (fast_event, fast_run), which cannot pass UINT64_MAX as long as
 * the metric fell (in all) no more than it rose in steps not charged: the
 * charged deltas then add up to less than the metric's range. A tree
 * whose metric fell further (a damaged or crafted trace) takes its steps
 * the general way from then on, whose sums saturate (satsum.h).
 */
static void rebase(struct calltree *t, uint64_t old, uint64_t now, int charged)
{
	if (now < old) {
		if (__builtin_add_overflow(t->fall, old - now, &t->fall))
			t->unsafe = 1;
	} else if (!charged) {
		t->rise = satsum_add(t->rise, now - old, 0);
	}
	if (t->fall > t->rise)
		t->unsafe = 1;
}

/* The delta from last to v; a metric that went back gives 0, counted. */
static inline uint64_t step_delta(struct calltree *t, uint64_t v, uint64_t last)
{
	if (v < last) {
		t->stats.backwards++;
		return 0;
	}
	return v - last;
}

/* Adds the raw deltas d (one per metric) of a step with key to node, raw
 * and, through the compensation hook, calibrated. */
static void add_step(struct calltree *t, uint32_t node, const struct seqkey *key, const uint64_t *d)
{
	struct calltree_fig *f = calltree_fig(t, node, 0);
	struct calltree_watching *w = t->watch;

	for (unsigned i = 0; i < t->nmetrics; i++) {
		uint64_t c = d[i];

		if (t->comp.fn) {
			int64_t v = t->comp.fn(t->comp.ctx, key, i, d[i]);
			c = v > 0 ? (uint64_t)v : 0;
		}
		satsum_addto(&f[i].raw_base, d[i], SATSUM_RAW_BASE);
		satsum_addto(&f[i].base, c, SATSUM_BASE);
		if (w) { /* wraps as the frames' differences do: exact below 2^64 */
			w->raw_total[i] += d[i];
			w->total[i] += c;
		}
	}
}

static void charge(struct calltree *t, uint32_t node, const struct seqkey *key,
		   const uint64_t *metric)
{
	uint64_t d[JCAL_MAX_METRICS];

	for (unsigned i = 0; i < t->nmetrics; i++)
		d[i] = step_delta(t, metric[i], t->last[i]);
	add_step(t, node, key, d);
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
	rebase(t, t->last[0], metric[0], !t->gap && t->keys.have_prev);
	if (!t->gap && t->keys.have_prev) {
		struct calltree_fig *f = calltree_fig(t, top_node(t), 0);
		for (unsigned i = 0; i < t->nmetrics; i++) {
			uint64_t d = metric[i] >= t->last[i] ? metric[i] - t->last[i] : 0;
			satsum_addto(&f[i].raw_base, d, SATSUM_RAW_BASE);
			satsum_addto(&f[i].base, d, SATSUM_BASE);
			if (t->watch) {
				t->watch->raw_total[i] += d;
				t->watch->total[i] += d;
			}
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

/* Defers the charge of the step ending at metric to node (flushed by
 * pending_flush); room was made by pending_reserve. */
static inline void defer(struct calltree *t, uint32_t node, const struct seqkey *key,
			 const uint64_t *metric)
{
	struct calltree_pending *p = t->pend;
	uint64_t *d = &p->delta[p->n * t->nmetrics];

	for (unsigned i = 0; i < t->nmetrics; i++)
		d[i] = step_delta(t, metric[i], t->last[i]);
	p->node[p->n] = node;
	p->key[p->n] = (uint16_t)seqkey_index(key);
	p->n++;
}

/* The deferred charges waiting (none before pending_reserve). */
static inline size_t pending_count(const struct calltree *t)
{
	return t->pend ? t->pend->n : 0;
}

/* Makes room for n deferred charges. Returns 0 or -ENOMEM. */
static int pending_reserve(struct calltree *t, size_t n)
{
	struct calltree_pending *p = t->pend;
	size_t c1, c2, c3, c4;

	if (!p) {
		p = t->pend = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
	}
	c1 = c2 = c4 = p->cap;
	c3 = p->cap * t->nmetrics;
	if (n <= p->cap)
		return 0;
	if (grow(&p->node, &c1, n) || grow(&p->key, &c2, n) ||
	    grow(&p->delta, &c3, n * t->nmetrics) || grow(&p->out, &c4, n))
		return -ENOMEM;
	p->cap = n;
	return 0;
}

/* The compensation counts of a tree compensated through comp.table,
 * allocated at its first events. Returns 0 or -ENOMEM. */
static int comp_counts(struct calltree *t)
{
	if (!t->comp.table || t->comp_count)
		return 0;
	t->comp_count = calloc(SEQKEY_COUNT, sizeof(*t->comp_count));
	return t->comp_count ? 0 : -ENOMEM;
}

/* Hands the compensation counts to comp.counted and frees them. */
static void comp_counts_give(struct calltree *t)
{
	if (t->comp_count && t->comp.counted)
		t->comp.counted(t->comp.ctx, t->comp_count, t->comp_clamped);
	free(t->comp_count);
	t->comp_count = NULL;
	t->comp_clamped = 0;
}

static void pending_flush(struct calltree *t)
{
	struct calltree_pending *p = t->pend;
	const unsigned nm = t->nmetrics;
	struct seqkey key;

	if (!p || !p->n)
		return;
	if (nm == 1 && (t->comp.batch || !t->comp.fn)) {
		struct calltree_fig *figs = t->figs; /* one metric: a fig per node */
		const uint64_t *delta = p->delta;
		const uint32_t *node = p->node;
		const size_t cnt = p->n;

		if (!t->comp.fn) {
			for (size_t k = 0; k < cnt; k++) {
				satsum_addto(&figs[node[k]].raw_base, delta[k], SATSUM_RAW_BASE);
				satsum_addto(&figs[node[k]].base, delta[k], SATSUM_BASE);
			}
		} else {
			const int64_t *out = p->out;

			t->comp.batch(t->comp.ctx, p->key, delta, p->out, cnt);
			for (size_t k = 0; k < cnt; k++) {
				satsum_addto(&figs[node[k]].raw_base, delta[k], SATSUM_RAW_BASE);
				satsum_addto(&figs[node[k]].base, out[k] > 0 ? (uint64_t)out[k] : 0,
					     SATSUM_BASE);
			}
		}
		p->n = 0;
		return;
	}
	for (size_t k = 0; k < p->n; k++) {
		seqkey_from_index(p->key[k], &key);
		add_step(t, p->node[k], &key, &p->delta[k * nm]);
	}
	p->n = 0;
}

/* calltree_keep_sums: frame k opens, with a new generation. 0 or -ENOMEM. */
static int sums_enter(struct calltree_sums *s, size_t k)
{
	size_t old = s->frame_cap;

	if (k >= old && grow(&s->frame_gen, &s->frame_cap, k + 1))
		return -ENOMEM;
	s->frame_gen[k] = ++s->gen;
	return 0;
}

/* calltree_keep_sums: a call of node, of generation own, ended with cum and
 * raw (cum[metric] at least the threshold: leave is told), within the call
 * of generation parent of its parent. 0 or -ENOMEM. */
static int sums_leave(struct calltree *t, uint32_t node, uint64_t parent, uint64_t own,
		      const uint64_t *cum, const uint64_t *raw, int live)
{
	struct calltree_sums *s = t->sums;
	const unsigned m = s->cfg.metric;
	struct calltree_sum *x;

	if (node >= s->nslot) {
		size_t old = s->nslot;

		if (grow(&s->slot, &s->nslot, (size_t)node + 1))
			return -ENOMEM;
		memset(s->slot + old, 0, (s->nslot - old) * sizeof(*s->slot));
	}
	x = &s->slot[node];
	if (x->gen != parent) {
		x->gen = parent;
		x->value = x->raw = 0;
	}
	x->value += cum[m]; /* wraps as the frames' differences do */
	x->raw += raw[m];
	if (cum[m] >= s->cfg.threshold && s->cfg.leave &&
	    s->cfg.leave(s->cfg.ctx, t, node, own, cum, raw, live))
		return -ENOMEM;
	return 0;
}

/* calltree_watch: the frame at stack index k ends now; live: it was live
 * before tracing (node n, not on the stack). */
static int watch_leave(struct calltree *t, uint32_t k, uint32_t n, int live)
{
	struct calltree_watching *w = t->watch;
	uint64_t cum[JCAL_MAX_METRICS], raw[JCAL_MAX_METRICS];
	const uint64_t *at = live ? NULL : &w->at[(size_t)k * 2 * t->nmetrics];

	for (unsigned i = 0; i < t->nmetrics; i++) {
		raw[i] = w->raw_total[i] - (at ? at[i] : 0);
		cum[i] = w->total[i] - (at ? at[t->nmetrics + i] : 0);
	}
	if (t->hist &&
	    lathist_add(&t->hist[live ? n : t->stack[k]], w->total[0] - (at ? at[t->nmetrics] : 0)))
		return -ENOMEM;
	if (t->sums) {
		struct calltree_sums *su = t->sums;
		const uint64_t own = live ? su->root_gen : su->frame_gen[k];

		if (live) /* inserted above the root: what runs outside any frame is a new call */
			su->root_gen = ++su->gen;
		if (sums_leave(t, live ? n : t->stack[k],
			       live || !k ? su->root_gen : su->frame_gen[k - 1], own, cum, raw,
			       live))
			return -ENOMEM;
	}
	return w->w.leave && w->w.leave(w->w.ctx, live ? n : t->stack[k], cum, raw, live) ? -ENOMEM
											  : 0;
}

/* calltree_watch, after an event's charge: an entry opens frame d0 (node
 * n); an exit ends the frames it popped, and an unmatched one the frame of
 * node n inserted above the root. */
static int watch_event(struct calltree *t, int entry, const struct seqkey_step *st, uint32_t d0,
		       uint32_t n, const uint64_t *metric)
{
	struct calltree_watching *w = t->watch;
	const unsigned nm = t->nmetrics;

	if (entry) {
		uint64_t *at;

		if (grow(&w->at, &w->cap, ((size_t)d0 + 1) * 2 * nm))
			return -ENOMEM;
		at = &w->at[(size_t)d0 * 2 * nm];
		memcpy(at, w->raw_total, nm * sizeof(*at));
		memcpy(at + nm, w->total, nm * sizeof(*at));
		if (t->sums && sums_enter(t->sums, d0))
			return -ENOMEM;
		return w->w.enter && w->w.enter(w->w.ctx, n, metric) ? -ENOMEM : 0;
	}
	for (uint32_t k = d0; k > d0 - st->popped; k--)
		if (watch_leave(t, k - 1, 0, 0))
			return -ENOMEM;
	return st->unmatched ? watch_leave(t, 0, n, 1) : 0;
}

int calltree_watch(struct calltree *t, const struct calltree_watch *w)
{
	if (!t->watch && !(t->watch = calloc(1, sizeof(*t->watch))))
		return -ENOMEM;
	t->watch->w = *w;
	return 0;
}

int calltree_keep_hists(struct calltree *t)
{
	if (!t->hist && !(t->hist = calloc(t->cap ? t->cap : 1, sizeof(*t->hist))))
		return -ENOMEM;
	if (!t->watch && !(t->watch = calloc(1, sizeof(*t->watch))))
		return -ENOMEM; /* t->hist stays: calltree_free frees it */
	return 0;
}

int calltree_keep_sums(struct calltree *t, const struct calltree_sums_cfg *cfg)
{
	if (cfg->metric >= t->nmetrics)
		return -EINVAL;
	if (!t->sums && !(t->sums = calloc(1, sizeof(*t->sums))))
		return -ENOMEM;
	t->sums->cfg = *cfg;
	if (!t->sums->root_gen)
		t->sums->root_gen = ++t->sums->gen;
	if (!t->watch && !(t->watch = calloc(1, sizeof(*t->watch))))
		return -ENOMEM; /* t->sums stays: calltree_free frees it */
	return 0;
}

int calltree_sum(const struct calltree *t, uint32_t child, uint64_t gen, uint64_t *value,
		 uint64_t *raw)
{
	const struct calltree_sums *s = t->sums;

	if (!s || child >= s->nslot || s->slot[child].gen != gen)
		return 0;
	*value = s->slot[child].value;
	*raw = s->slot[child].raw;
	return 1;
}

int calltree_sums_partial(const struct calltree *t, uint64_t gen)
{
	return t->sums && gen <= t->sums->fold_gen;
}

int calltree_hists_copy(const struct calltree *t, struct lathist **out)
{
	const struct calltree_watching *w = t->watch;

	memset(out, 0, (size_t)t->nnodes * sizeof(*out));
	for (uint32_t i = 0; t->hist && i < t->nnodes; i++)
		if (lathist_merge(&out[i], t->hist[i]))
			goto oom;
	for (uint32_t k = 0; t->hist && w && k < t->keys.depth; k++)
		if (lathist_add(&out[t->stack[k]],
				w->total[0] - w->at[(size_t)k * 2 * t->nmetrics + t->nmetrics]))
			goto oom;
	return 0;
oom:
	for (uint32_t i = 0; i < t->nnodes; i++)
		lathist_free(out[i]);
	memset(out, 0, (size_t)t->nnodes * sizeof(*out));
	return -ENOMEM;
}

/* One event (see calltree_event); with deferred, a delta's charge waits in
 * the pending list (calltree_events). */
static inline __attribute__((always_inline)) int event_in(struct calltree *t, uint32_t method,
							  unsigned transition, unsigned type,
							  const uint64_t *metric, int deferred)
{
	uint32_t charged = top_node(t), n = CALLTREE_NONE, d0 = t->keys.depth;
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
	} else if (__builtin_expect(st.unmatched, 0)) {
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
	} else if (__builtin_expect(st.popped > 1, 0)) {
		t->stats.mismatched_exits++;
		t->stats.frames_unwound += st.popped - 1;
	}

	if (st.has_key && !t->gap) {
		if (deferred)
			defer(t, charged, &st.key, metric);
		else
			charge(t, charged, &st.key, metric);
	}
	rebase(t, t->last[0], metric[0], st.has_key && !t->gap);
	t->gap = 0;
	for (unsigned i = 0; i < t->nmetrics; i++)
		t->last[i] = metric[i];
	t->stats.events++;
	t->stats.by_type[type]++;
	t->stats.by_transition[transition]++;
	if (t->watch)
		return watch_event(t, transition == JCAL_TR_ENTRY, &st, d0, n, metric);
	return 0;
}

/* The builder's state that events_one_metric() keeps in locals. */
struct fast_state {
	struct seqkey_frame *fr; /* the stepper's stack */
	uint32_t *nstack;	 /* the builder's stack of nodes */
	uint32_t depth, room;	 /* frames open; frames both stacks have room for */
	unsigned m1, t1;
	int have_prev, gap;
	uint64_t last;
	size_t np; /* deferred charges */
	/* how a step's delta is charged: deferred (FAST_DEFER), or at once,
	 * raw (FAST_RAW: no compensation) or through comp.table (FAST_TABLE) */
	enum { FAST_DEFER, FAST_RAW, FAST_TABLE } charge;
	uint64_t clamped; /* FAST_TABLE: deltas below their comp */
	/* calltree_keep_hists without a watcher of its own, charged at once
	 * (FAST_RAW, FAST_TABLE): the watch state, its totals (raw, comp) */
	struct calltree_watching *w;
	uint64_t rtot, tot;
};

static inline void fast_load(const struct calltree *t, struct fast_state *f)
{
	const struct seqkey_stepper *s = &t->keys;

	f->fr = s->stack;
	f->nstack = t->stack;
	f->depth = s->depth;
	f->room = s->cap < t->stack_cap ? s->cap : t->stack_cap;
	f->m1 = s->m1;
	f->t1 = s->t1;
	f->have_prev = s->have_prev;
	f->gap = t->gap;
	f->last = t->last[0];
	f->np = pending_count(t);
	f->charge = t->unsafe	    ? FAST_DEFER
		    : t->comp.table ? FAST_TABLE
		    : t->comp.fn    ? FAST_DEFER
				    : FAST_RAW;
	f->clamped = t->comp_clamped;
	f->w = t->hist || t->sums ? t->watch : NULL;
	f->rtot = f->tot = 0;
	if (f->w) {
		f->rtot = f->w->raw_total[0];
		f->tot = f->w->total[0];
		if (f->room > f->w->cap / 2) /* a frame's totals at its entry: 2 values */
			f->room = (uint32_t)(f->w->cap / 2);
		if (t->sums && f->room > t->sums->frame_cap) /* and its generation */
			f->room = (uint32_t)t->sums->frame_cap;
	}
}

static inline void fast_store(struct calltree *t, const struct fast_state *f)
{
	t->keys.depth = f->depth;
	t->keys.m1 = (uint8_t)f->m1;
	t->keys.t1 = (uint8_t)f->t1;
	t->keys.have_prev = f->have_prev;
	t->gap = f->gap;
	t->last[0] = f->last;
	if (t->pend)
		t->pend->n = f->np;
	t->comp_clamped = f->clamped;
	if (f->w) {
		f->w->raw_total[0] = f->rtot;
		f->w->total[0] = f->tot;
	}
}

/*
 * One event of events_one_metric() or calltree_decode(): the common events
 * (an entry with room on the stacks, an exit of the top frame) taken with
 * the builder's state in f. Must do exactly what event_in() does;
 * test-calltree compares the two on random traces. Returns 0 (taken), 1
 * for any other event (the caller hands it to event_in), or what
 * child_get() failed with.
 */
static inline __attribute__((always_inline)) int fast_event(struct calltree *t,
							    struct fast_state *f, uint32_t m,
							    unsigned tr, unsigned ty,
							    uint64_t metric)
{
	struct calltree_pending *p = t->pend;
	uint32_t charged, node;
	unsigned between, after;
	/* calltree_keep_hists, _sums: the cum and raw cum of the call an exit ends */
	uint64_t call_cum = 0, call_raw = 0;

	/* a step that is not charged, or whose metric went back: the general
	 * way, which keeps the account of rebase() */
	if (__builtin_expect(!f->have_prev || f->gap || metric < f->last, 0))
		return 1;
	if (tr == JCAL_TR_ENTRY && ty < JCAL_MT_COUNT && f->depth < f->room) {
		int err;

		charged = f->depth ? f->nstack[f->depth - 1] : CALLTREE_ROOT;
		between = f->depth ? f->fr[f->depth - 1].type : JCAL_MT_OTHER;
		err = child_get(t, charged, m, &node);
		if (err)
			return err;
		f->fr[f->depth].method = m;
		f->fr[f->depth].type = (uint8_t)ty;
		f->nstack[f->depth++] = node;
		t->nodes[node].calls++;
		after = ty;
	} else if ((tr == JCAL_TR_EXIT || tr == JCAL_TR_THROW) && ty < JCAL_MT_COUNT && f->depth &&
		   f->fr[f->depth - 1].method == m) {
		charged = f->nstack[f->depth - 1];
		between = f->fr[f->depth - 1].type;
		f->depth--;
		after = f->depth ? f->fr[f->depth - 1].type : JCAL_MT_OTHER;
	} else {
		return 1;
	}
	{
		const struct seqkey key = {(uint8_t)f->m1, (uint8_t)f->t1, (uint8_t)between,
					   (uint8_t)tr, (uint8_t)after};
		const unsigned i = seqkey_index(&key);
		const uint64_t d = metric - f->last;
		struct calltree_fig *fig = &t->figs[charged]; /* one metric */

		uint64_t cd = d;

		if (f->charge == FAST_TABLE) {
			const uint64_t c = calib_table_comp_prepared(t->comp.table, i, d);

			cd = calib_comp_sub(d, c);
			fig->raw_base += d;
			fig->base += cd;
			t->comp_count[i]++;
			f->clamped += d < c;
		} else if (f->charge == FAST_RAW) {
			fig->raw_base += d;
			fig->base += d;
		} else {
			p->node[f->np] = charged;
			p->key[f->np] = (uint16_t)i;
			p->delta[f->np++] = d;
		}
		if (f->w) { /* calltree_keep_hists: as watch_event does (never deferred) */
			uint64_t *at = &f->w->at[2 * (size_t)(f->depth - (tr == JCAL_TR_ENTRY))];

			f->rtot += d;
			f->tot += cd;
			if (tr == JCAL_TR_ENTRY) {
				at[0] = f->rtot;
				at[1] = f->tot;
				if (t->sums)
					t->sums->frame_gen[f->depth - 1] = ++t->sums->gen;
			} else {
				call_cum = f->tot - at[1];
				call_raw = f->rtot - at[0];
			}
		}
	}
	f->m1 = between;
	f->t1 = tr;
	f->last = metric;
	t->stats.events++;
	t->stats.by_type[ty]++;
	t->stats.by_transition[tr]++;
	if (f->w && tr != JCAL_TR_ENTRY) {
		const struct calltree_sums *su = t->sums;

		if (t->hist && lathist_add(&t->hist[charged], call_cum))
			return -ENOMEM;
		if (su)
			return sums_leave(t, charged,
					  f->depth ? su->frame_gen[f->depth - 1] : su->root_gen,
					  su->frame_gen[f->depth], &call_cum, &call_raw, 0);
	}
	return 0;
}

/* An event fast_event() did not take, given to event_in(): not inlined,
 * and without the addresses of the caller's locals, which can then stay in
 * registers. */
static __attribute__((noinline)) int slow_in(struct calltree *t, uint32_t m, unsigned tr,
					     unsigned ty, uint64_t metric)
{
	return event_in(t, m, tr, ty, &metric, 1);
}

/* The same with the builder's state in f put back in place around it. */
static inline int slow_event(struct calltree *t, struct fast_state *f, uint32_t m, unsigned tr,
			     unsigned ty, uint64_t metric)
{
	int err;

	fast_store(t, f);
	err = slow_in(t, m, tr, ty, metric);
	fast_load(t, f);
	return err;
}

/* Whether the common steps of calltree_event() may be taken inline with
 * the tree watched: only for its histograms (calltree_keep_hists, no
 * watcher of its own) and with each delta charged at once (no deferral,
 * whose compensation would come after the call's end). */
static inline int hists_fast(const struct calltree *t)
{
	return (t->hist || t->sums) && !t->watch->w.enter && !t->watch->w.leave && !t->unsafe &&
	       (t->comp.table || !t->comp.fn);
}

/* Deferred charges calltree_event() gathers before it compensates them
 * together (a tree with a batch hook and no table). */
#define SINGLE_BATCH 256

int calltree_event(struct calltree *t, uint32_t method, unsigned transition, unsigned type,
		   const uint64_t *metric)
{
	/* Without compensation, with a table, or with a batch hook, the common
	 * steps as calltree_events() takes them: no hook call per delta. With
	 * a table their deltas are counted by key in comp_count (given to
	 * comp.counted at the end); with a batch hook they wait in pend (room
	 * made for one here) until it is full, calltree_flush or the end. */
	if (t->nmetrics == 1 && !t->finished &&
	    (!t->watch ? t->comp.table || !t->comp.fn || t->comp.batch || t->unsafe
		       : hists_fast(t))) {
		struct fast_state f;
		int err;

		if (comp_counts(t))
			return -ENOMEM;
		if (t->unsafe || (!t->comp.table && t->comp.fn)) {
			if (!(t->pend && t->pend->cap) && pending_reserve(t, SINGLE_BATCH))
				return event_in(t, method, transition, type, metric, 0);
			if (t->pend->n == t->pend->cap)
				pending_flush(t);
		}
		fast_load(t, &f);
		err = fast_event(t, &f, method, transition, type, metric[0]);
		if (err != 1) {
			fast_store(t, &f);
			return err;
		}
	}
	return event_in(t, method, transition, type, metric, 0);
}

void calltree_flush(struct calltree *t)
{
	pending_flush(t);
	if (t->comp_count && t->comp.counted) { /* the counts so far, handed over once */
		t->comp.counted(t->comp.ctx, t->comp_count, t->comp_clamped);
		memset(t->comp_count, 0, SEQKEY_COUNT * sizeof(*t->comp_count));
		t->comp_clamped = 0;
	}
}

void calltree_rest(struct calltree *t)
{
	if (t->finished)
		return;
	pending_flush(t);
	comp_counts_give(t);
	pending_free(t);
	if (!t->keys.depth) { /* no frame open: both stacks go (the keys' m1, t1 stay) */
		free(t->keys.stack);
		t->keys.stack = NULL;
		t->keys.cap = 0;
		free(t->stack);
		t->stack = NULL;
		t->stack_cap = 0;
	}
}

/* calltree_events() for one metric. */
static int events_one_metric(struct calltree *t, const uint32_t *method, const uint8_t *transition,
			     const uint8_t *type, const uint64_t *metric, size_t n)
{
	struct fast_state f;
	int err = 0;

	fast_load(t, &f);
	for (size_t k = 0; k < n && !err; k++) {
		err = fast_event(t, &f, method[k], transition[k], type[k], metric[k]);
		if (err == 1)
			err = slow_event(t, &f, method[k], transition[k], type[k], metric[k]);
	}
	fast_store(t, &f);
	return err;
}

int calltree_events(struct calltree *t, const uint32_t *method, const uint8_t *transition,
		    const uint8_t *type, const uint64_t *metric, size_t n)
{
	const unsigned nm = t->nmetrics;
	int err = 0;

	if (t->finished)
		return n ? -EINVAL : 0;
	if (pending_reserve(t, pending_count(t) + n) || (nm == 1 && comp_counts(t)))
		return -ENOMEM;
	if (t->watch) /* each delta charged as it comes (calltree_watch) */
		for (size_t k = 0; k < n && !err; k++)
			err = event_in(t, method[k], transition[k], type[k], &metric[k * nm], 0);
	else if (nm == 1)
		err = events_one_metric(t, method, transition, type, metric, n);
	else
		for (size_t k = 0; k < n && !err; k++)
			err = event_in(t, method[k], transition[k], type[k], &metric[k * nm], 1);
	pending_flush(t);
	return err;
}

/* What fast_run() took into the statistics: taken events, by_tt of them
 * by (transition, type). */
static void stats_add_taken(struct calltree_stats *s, const uint64_t (*by_tt)[8], uint64_t taken)
{
	s->events += taken;
	for (unsigned tr = 0; tr < JCAL_TR_COUNT; tr++)
		for (unsigned ty = 0; ty < JCAL_MT_COUNT; ty++) {
			s->by_type[ty] += by_tt[tr][ty];
			s->by_transition[tr] += by_tt[tr][ty];
		}
}

/*
 * calltree_decode()'s loop for the events that make up nearly all of a
 * trace, with every piece of state in locals: an explicit entry and an
 * implicit exit (or throw) of the frame on top of both stacks, their
 * deltas not backwards (read by event_common_kind(), event_common_entry()
 * and event_common_exit()), charged raw or through comp.table (table),
 * never deferred. It takes each event as fast_event() does, with the
 * sequence key's index carried from step to step rather than made from
 * its five parts. It stops before the first event it does not take (r->p
 * at it, r and f as event_next() and fast_event() would have left them),
 * where fewer than EVENT_COMMON_MAX bytes of the chunk are left (their
 * events go the general way), or after an entry child_get() failed for
 * (whose error it returns, r past the event as event_next() leaves it).
 * Takes nothing while the step has no key (no previous event, or after a
 * gap).
 */
static inline __attribute__((always_inline)) int fast_run(struct calltree *t, struct fast_state *f,
							  struct event_run *r, const int table)
{
	const uint8_t *p = r->p, *const end = r->end, *const stop = event_common_stop(r);
	uint32_t dd = r->depth, bd = f->depth; /* the decoder's and the builder's depths */
	const uint32_t room = f->room;
	uint32_t *const shadow = r->stack, *const nstack = f->nstack;
	struct seqkey_frame *const fr = f->fr;
	const struct calib_table *const tab = t->comp.table;
	uint64_t *const counted = t->comp_count;
	uint64_t acc = r->acc[0], clamped = f->clamped, taken = 0;
	/* (m1, t1) of the next key, as seqkey_index() weighs them */
	unsigned prev = f->m1 * JCAL_TR_COUNT + f->t1;
	uint64_t by_tt[JCAL_TR_COUNT][8] = {{0}}; /* events by (transition, type) */
	int err = 0;

	if (!f->have_prev || f->gap || f->last != acc)
		return 0;
	while (p < stop) {
		struct event_one e;
		const uint8_t *q;
		unsigned between, after, key, mid;
		uint32_t charged;
		uint64_t v, d;

		if (event_common_kind(p) == EVENT_COMMON_ENTRY) {
			uint32_t node;

			q = event_common_entry(p, end, dd, acc, &e, &v);
			if (!q || bd >= room)
				break;
			charged = bd ? nstack[bd - 1] : CALLTREE_ROOT;
			between = bd ? fr[bd - 1].type : JCAL_MT_OTHER;
			event_common_take(shadow, &dd, &e);
			err = child_get(t, charged, e.method, &node);
			if (err) { /* the decoder has taken the event, the builder not */
				p = q;
				acc = v;
				taken++;
				break;
			}
			fr[bd].method = e.method;
			fr[bd].type = (uint8_t)e.type;
			nstack[bd++] = node;
			t->nodes[node].calls++;
			after = e.type;
		} else if (event_common_kind(p) == EVENT_COMMON_EXIT) {
			q = event_common_exit(p, end, shadow, dd, acc, &e, &v);
			if (!q || bd == 0 || fr[bd - 1].method != e.method)
				break;
			charged = nstack[bd - 1];
			between = fr[bd - 1].type;
			event_common_take(shadow, &dd, &e);
			bd--;
			after = bd ? fr[bd - 1].type : JCAL_MT_OTHER;
		} else {
			break;
		}
		/* seqkey_index() of (m1, t1, between, tr, after) */
		mid = between * JCAL_TR_COUNT + e.transition;
		key = (prev * JCAL_MT_COUNT * JCAL_TR_COUNT + mid) * JCAL_MT_COUNT + after;
		prev = mid;
		d = v - acc;
		acc = v;
		{
			struct calltree_fig *fig = &t->figs[charged]; /* one metric */

			if (table) {
				const uint64_t c = calib_table_comp_prepared(tab, key, d);

				fig->raw_base += d;
				fig->base += calib_comp_sub(d, c);
				counted[key]++;
				clamped += d < c;
			} else {
				fig->raw_base += d;
				fig->base += d;
			}
		}
		by_tt[e.transition][e.type]++;
		taken++;
		p = q;
	}
	r->p = p;
	r->depth = dd;
	r->acc[0] = acc;
	r->events += taken;
	if (!taken)
		return err;
	f->depth = bd;
	f->m1 = prev / JCAL_TR_COUNT;
	f->t1 = prev % JCAL_TR_COUNT;
	f->last = acc;
	f->clamped = clamped;
	if (err) /* the last one is the decoder's only */
		taken--;
	stats_add_taken(&t->stats, by_tt, taken);
	return err;
}

/* How many charges calltree_decode() defers before compensating them. */
#define DECODE_BATCH 1024

int calltree_decode(struct calltree *t, struct event_run *r)
{
	struct fast_state f;
	struct event_run run; /* r's state in locals while decoding */
	struct event_one e;
	size_t room;
	int err = 0;

	if (t->finished || t->nmetrics != 1 || r->nmetrics != 1 || t->watch)
		return 0;
	/* an event takes 2 bytes at least: a small chunk needs little room */
	room = (size_t)(r->end - r->p) / 2 + 1;
	room = pending_count(t) + (room < DECODE_BATCH ? room : DECODE_BATCH);
	if (pending_reserve(t, room) || comp_counts(t))
		return -ENOMEM;
	run = *r;
	fast_load(t, &f);
	while (run.p < run.end && !err) {
		if (f.charge != FAST_DEFER) {
			err = f.charge == FAST_TABLE ? fast_run(t, &f, &run, 1)
						     : fast_run(t, &f, &run, 0);
			if (err || run.p == run.end)
				break;
		}
		if (f.np == room) { /* room for the next event's charge */
			fast_store(t, &f);
			pending_flush(t);
			fast_load(t, &f);
		}
		if (__builtin_expect(event_next(&run, 1, &e) != NULL, 0))
			break; /* a bad event: the caller's decoder says what is wrong */
		err = fast_event(t, &f, e.method, e.transition, e.type, run.acc[0]);
		if (err == 1)
			err = slow_event(t, &f, e.method, e.transition, e.type, run.acc[0]);
	}
	*r = run;
	fast_store(t, &f);
	pending_flush(t);
	return err;
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
	const unsigned e = SATSUM_EVENTS;

	satsum_addto(&d->events, s->events, e);
	for (unsigned i = 0; i < JCAL_MT_COUNT; i++)
		satsum_addto(&d->by_type[i], s->by_type[i], e);
	for (unsigned i = 0; i < JCAL_TR_COUNT; i++)
		satsum_addto(&d->by_transition[i], s->by_transition[i], e);
	for (unsigned i = 0; i < JCAL_CTL_COUNT; i++)
		satsum_addto(&d->controls[i], s->controls[i], e);
	satsum_addto(&d->unmatched_exits, s->unmatched_exits, e);
	satsum_addto(&d->mismatched_exits, s->mismatched_exits, e);
	satsum_addto(&d->frames_unwound, s->frames_unwound, e);
	satsum_addto(&d->open_frames, s->open_frames, e);
	satsum_addto(&d->backwards, s->backwards, e);
	satsum_addto(&d->folded_contexts, s->folded_contexts, e);
	satsum_addto(&d->folded_calls, s->folded_calls, SATSUM_CALLS);
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
			satsum_addto(&d->calls, s->calls, SATSUM_CALLS);
		if (dst->hist && src->hist &&
		    lathist_merge(&dst->hist[map[order[k]]], src->hist[order[k]])) {
			rc = -ENOMEM;
			break;
		}
		for (unsigned i = 0; i < nm; i++) {
			const struct calltree_fig *sf = calltree_fig(src, order[k], i);
			struct calltree_fig *df = calltree_fig(dst, map[order[k]], i);

			satsum_addto(&df->raw_base, sf->raw_base, SATSUM_RAW_BASE);
			satsum_addto(&df->base, sf->base, SATSUM_BASE);
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
	pending_flush(t);
	comp_counts_give(t);
	for (uint32_t k = t->keys.depth; t->watch && k > 0; k--)
		if (watch_leave(t, k - 1, 0, 0))
			return -ENOMEM;
	satsum_addto(&t->stats.open_frames, t->keys.depth, SATSUM_EVENTS);
	t->keys.depth = 0;
	t->order = malloc((size_t)t->nnodes * sizeof(*t->order));
	if (!t->order)
		return -ENOMEM;
	err = walk(t);
	if (err)
		return err;
	for (size_t i = 0; i < (size_t)t->nnodes * t->nmetrics; i++) {
		t->figs[i].raw_cum = t->figs[i].raw_base;
		t->figs[i].cum = t->figs[i].base;
	}
	for (uint32_t i = t->nnodes; i-- > 1;) {
		const uint32_t n = t->order[i];
		struct calltree_fig *nf = calltree_fig(t, n, 0);
		struct calltree_fig *pf = calltree_fig(t, t->nodes[n].parent, 0);

		for (unsigned m = 0; m < t->nmetrics; m++) {
			satsum_addto(&pf[m].raw_cum, nf[m].raw_cum, SATSUM_RAW_CUM);
			satsum_addto(&pf[m].cum, nf[m].cum, SATSUM_CUM);
		}
	}
	t->finished = 1;
	return 0;
}
