/*
 * slow_keep.c - slow=DURATION: the slowest calls kept with their paths and
 * callees as they end (see slow_keep.h).
 */
#include "common/slow_keep.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/grow.h"
#include "common/minheap.h"

struct slow_kept {
	struct trace_slow c;
	uint64_t seq; /* the order it was offered in */
};

/* ---- the keeper ---- */

int slow_keep_init(struct slow_keep *k, const struct slow_keep_cfg *cfg)
{
	memset(k, 0, sizeof(*k));
	if (!cfg->max || cfg->max > SLOW_KEEP_MAX || cfg->metric >= JCAL_MAX_METRICS)
		return -EINVAL;
	k->cfg = *cfg;
	k->heap = malloc(cfg->max * sizeof(*k->heap));
	if (!k->heap)
		return -ENOMEM;
	if (pthread_mutex_init(&k->lock, NULL)) {
		free(k->heap);
		k->heap = NULL;
		return -ENOMEM;
	}
	atomic_store(&k->floor, cfg->threshold);
	return 0;
}

void slow_keep_free(struct slow_keep *k)
{
	if (!k->heap)
		return;
	pthread_mutex_destroy(&k->lock);
	free(k->heap);
	k->heap = NULL;
	/* a watcher still attached to it offers nothing more */
	k->cfg.threshold = UINT64_MAX;
	atomic_store(&k->floor, UINT64_MAX);
}

void slow_keep_reset(struct slow_keep *k)
{
	pthread_mutex_lock(&k->lock);
	k->n = 0;
	k->seq = 0;
	atomic_store(&k->floor, k->cfg.threshold);
	atomic_store(&k->over, 0);
	pthread_mutex_unlock(&k->lock);
}

/* a is shorter than b (ties: the later offered is, so the first of equal
 * calls stays). */
static int less(const void *pa, const void *pb)
{
	const struct slow_kept *a = pa, *b = pb;

	return a->c.value != b->c.value ? a->c.value < b->c.value : a->seq > b->seq;
}

void slow_keep_offer(struct slow_keep *k, const struct trace_slow *c)
{
	pthread_mutex_lock(&k->lock);
	if (k->n < k->cfg.max) {
		k->heap[k->n].c = *c;
		k->heap[k->n].seq = k->seq++;
		minheap_up(k->heap, sizeof(*k->heap), k->n++, less);
	} else if (c->value > k->heap[0].c.value) {
		k->heap[0].c = *c;
		k->heap[0].seq = k->seq++;
		minheap_down(k->heap, k->n, sizeof(*k->heap), 0, less);
	}
	/* full: a call no longer than the shortest kept would not stay */
	if (k->n == k->cfg.max && k->heap[0].c.value + 1 > k->cfg.threshold)
		atomic_store_explicit(&k->floor,
				      k->heap[0].c.value == UINT64_MAX ? UINT64_MAX
								       : k->heap[0].c.value + 1,
				      memory_order_relaxed);
	pthread_mutex_unlock(&k->lock);
}

void slow_keep_counts(struct slow_keep *k, uint64_t *kept, uint64_t *over)
{
	pthread_mutex_lock(&k->lock);
	*kept = k->n;
	*over = atomic_load(&k->over);
	pthread_mutex_unlock(&k->lock);
}

static int longest_first(const void *a, const void *b)
{
	const struct slow_kept *x = a, *y = b;

	return less(x, y) ? 1 : less(y, x) ? -1 : 0;
}

long slow_keep_list(struct slow_keep *k, struct trace_slow **out, uint64_t *over)
{
	struct slow_kept *copy = NULL;
	size_t n;

	*out = NULL;
	pthread_mutex_lock(&k->lock);
	n = k->n;
	*over = atomic_load(&k->over);
	if (n && (copy = malloc(n * sizeof(*copy))))
		memcpy(copy, k->heap, n * sizeof(*copy));
	pthread_mutex_unlock(&k->lock);
	if (!n)
		return 0;
	if (!copy || !(*out = malloc(n * sizeof(**out)))) {
		free(copy);
		return -1;
	}
	qsort(copy, n, sizeof(*copy), longest_first);
	for (size_t i = 0; i < n; i++)
		(*out)[i] = copy[i].c;
	free(copy);
	return (long)n;
}

/* ---- a thread's watcher ---- */

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The path of node into c: its innermost TRACE_SLOW_PATH_MAX methods. */
static void call_path(const struct calltree *t, uint32_t node, struct trace_slow *c)
{
	uint32_t total = 0;

	for (uint32_t n = node; n != CALLTREE_ROOT; n = t->nodes[n].parent)
		total++;
	c->depth = total < TRACE_SLOW_PATH_MAX ? total : TRACE_SLOW_PATH_MAX;
	c->omitted = total - c->depth;
	for (uint32_t n = node, i = c->depth; i > 0; n = t->nodes[n].parent)
		c->path[--i] = t->nodes[n].method;
}

/* The callees of the call of node of generation gen: the contexts under
 * it with sums of that call (calltree_sum), the largest TRACE_SLOW_CALLEES
 * kept; self is what all of them leave. */
static void call_callees(const struct calltree *t, uint32_t node, uint64_t gen,
			 struct trace_slow *c)
{
	uint64_t all = 0, all_raw = 0;

	for (uint32_t ch = t->nodes[node].first_child; ch != CALLTREE_NONE;
	     ch = t->nodes[ch].next_sibling) {
		uint64_t v, raw;
		unsigned at;

		if (!calltree_sum(t, ch, gen, &v, &raw))
			continue;
		all += v;
		all_raw += raw;
		for (at = c->ncallees; at > 0 && c->callee[at - 1].value < v; at--)
			;
		if (at >= TRACE_SLOW_CALLEES)
			continue;
		if (c->ncallees < TRACE_SLOW_CALLEES)
			c->ncallees++;
		memmove(&c->callee[at + 1], &c->callee[at],
			(c->ncallees - 1 - at) * sizeof(c->callee[0]));
		c->callee[at].method = t->nodes[ch].method;
		c->callee[at].value = v;
		c->callee[at].raw = raw;
	}
	c->self = c->value > all ? c->value - all : 0;
	c->raw_self = c->raw > all_raw ? c->raw - all_raw : 0;
	/* the sums wrap as the frames' differences do: never more than the call */
	for (unsigned i = 0; i < c->ncallees; i++) {
		if (c->callee[i].value > c->value)
			c->callee[i].value = c->value;
		if (c->callee[i].raw > c->raw)
			c->callee[i].raw = c->raw;
	}
}

/* calltree_sums_cfg.leave: a call of at least the threshold ended. */
static int on_leave(void *ctx, const struct calltree *t, uint32_t node, uint64_t gen,
		    const uint64_t *cum, const uint64_t *raw, int live)
{
	struct slow_watch *w = ctx;
	struct slow_keep *k = w->keep;
	const struct slow_keep_cfg *cfg = &k->cfg;
	struct trace_slow c;

	atomic_fetch_add_explicit(&k->over, 1, memory_order_relaxed);
	if (cum[cfg->metric] < atomic_load_explicit(&k->floor, memory_order_relaxed))
		return 0;
	memset(&c, 0, sizeof(c));
	c.thread = w->serial;
	c.metric = cfg->metric;
	c.value = cum[cfg->metric];
	c.raw = raw[cfg->metric];
	c.end_ns = cfg->now_ns ? cfg->now_ns() : realtime_ns();
	if (cfg->wall >= 0 && cfg->wall_hz && (unsigned)cfg->wall < t->nmetrics)
		c.wall_ns =
		    (uint64_t)((unsigned __int128)raw[cfg->wall] * 1000000000u / cfg->wall_hz);
	c.flags =
	    (live ? TRACE_SLOW_LIVE : 0) | (calltree_sums_partial(t, gen) ? TRACE_SLOW_PARTIAL : 0);
	call_path(t, node, &c);
	call_callees(t, node, gen, &c);
	slow_keep_offer(k, &c);
	return 0;
}

int slow_watch_attach(struct slow_watch *w, struct calltree *t, struct slow_keep *k,
		      uint32_t serial)
{
	struct calltree_sums_cfg cfg = {k->cfg.metric, k->cfg.threshold, w, on_leave};

	memset(w, 0, sizeof(*w));
	w->keep = k;
	w->serial = serial;
	return calltree_keep_sums(t, &cfg);
}
