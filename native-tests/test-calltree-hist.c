/*
 * test-calltree-hist.c - the histograms of call durations a tree keeps
 * (calltree_keep_hists, common/calltree.c) and what folding
 * (common/calltree_fold.c) and merging do with them: on random walks with
 * compensation, exception exits, mismatched and unmatched exits and
 * frames left open, every context's histogram holds one value per call,
 * the values add up to the context's cum, and they are the cums
 * calltree_watch reports; a hand-made tree's percentiles.
 */
#include <errno.h>
#include <stdlib.h>

#include "common/calltree.h"
#include "common/calltree_fold.h"
#include "common/lathist.h"
#include "native-tests/test.h"
#include "native-tests/xorshift.h"

#define METHODS 6u
#define DEPTH 8u

/* compensation: 1 less per delta, never below 0 */
static int64_t minus_one(void *ctx, const struct seqkey *key, unsigned metric, uint64_t raw)
{
	(void)ctx, (void)key, (void)metric;
	return raw ? (int64_t)raw - 1 : 0;
}

static int ev(struct calltree *t, unsigned trans, uint32_t method, uint64_t v)
{
	uint64_t m[JCAL_MAX_METRICS] = {v, 3 * v};
	return calltree_event(t, method, trans, JCAL_MT_INTERP_STATIC, m);
}

static void tree_new(struct calltree *t)
{
	struct calltree_comp comp = {.fn = minus_one};

	CHECK_EQ_I(calltree_init(t, 2, &comp), 0);
	CHECK_EQ_I(calltree_keep_hists(t), 0);
}

/* n random events from metric value *v on; with close, every frame left
 * open is exited at the end. */
static void walk(struct calltree *t, uint64_t *rng, uint64_t *v, unsigned n, int close)
{
	uint32_t stack[DEPTH];
	unsigned d = 0;

	for (unsigned e = 0; e < n; e++) {
		uint64_t r = xorshift_next(rng);
		uint32_t m = 1 + (uint32_t)(r >> 8) % METHODS;

		*v += 1 + (r >> 20) % 1000;
		if (d && (d == DEPTH || r % 16 < 7)) {
			/* now and then mismatched: an exit of the frame below the top */
			unsigned k =
			    r % 23 == 0 && d > 1 && stack[d - 2] != stack[d - 1] ? d - 2 : d - 1;

			CHECK_EQ_I(ev(t, r % 11 == 0 ? JCAL_TR_THROW : JCAL_TR_EXIT, stack[k], *v),
				   0);
			d = k;
		} else if (!d && r % 13 == 0) {
			CHECK_EQ_I(ev(t, JCAL_TR_EXIT, m, *v), 0); /* live before the trace */
		} else {
			CHECK_EQ_I(ev(t, JCAL_TR_ENTRY, m, *v), 0);
			stack[d++] = m;
		}
	}
	while (close && d) {
		*v += 7;
		CHECK_EQ_I(ev(t, JCAL_TR_EXIT, stack[--d], *v), 0);
	}
}

/* Every context of the finished t: one value per call, adding up to its
 * compensated cum of metric 0. */
static void check_sums(const struct calltree *t)
{
	CHECK(calltree_hist(t, CALLTREE_ROOT) == NULL);
	for (uint32_t i = 1; i < t->nnodes; i++) {
		const struct lathist *h = calltree_hist(t, i);

		CHECK(lathist_valid(h));
		CHECK_EQ_U(h ? h->count : 0, t->nodes[i].calls);
		CHECK_EQ_U(h ? h->sum : 0, calltree_fig(t, i, 0)->cum);
	}
}

/* calltree_watch's view: the cums of each node's calls, as a histogram. */
struct seen {
	struct lathist **h;
	uint32_t cap;
};

static int on_leave(void *ctx, uint32_t node, const uint64_t *cum, const uint64_t *raw, int live)
{
	struct seen *s = ctx;

	(void)raw, (void)live;
	if (node >= s->cap) {
		struct lathist **h = realloc(s->h, (node + 64) * sizeof(*h));

		if (!h)
			return -1;
		memset(h + s->cap, 0, (node + 64 - s->cap) * sizeof(*h));
		s->h = h;
		s->cap = node + 64;
	}
	return lathist_add(&s->h[node], cum[0]);
}

static void test_random_walks(void)
{
	uint64_t rng = 7;

	for (int round = 0; round < 300; round++) {
		struct calltree t;
		struct calltree_watch w = {.leave = on_leave};
		struct seen s = {NULL, 0};
		uint64_t v = 1000;

		tree_new(&t);
		w.ctx = &s;
		CHECK_EQ_I(calltree_watch(&t, &w), 0);
		walk(&t, &rng, &v, (unsigned)(xorshift_next(&rng) % 400), 0);
		CHECK_EQ_I(calltree_finish(&t), 0); /* open frames end here */
		check_sums(&t);
		for (uint32_t i = 1; i < t.nnodes; i++) {
			const struct lathist *a = calltree_hist(&t, i),
					     *b = i < s.cap ? s.h[i] : NULL;

			CHECK((a == NULL) == (b == NULL));
			if (a && b)
				CHECK(a->n == b->n && !memcmp(a->b, b->b, a->n * sizeof(a->b[0])) &&
				      a->min == b->min && a->max == b->max);
		}
		for (uint32_t i = 0; i < s.cap; i++)
			lathist_free(s.h[i]);
		free(s.h);
		calltree_free(&t);
	}
}

static void test_merge(void)
{
	uint64_t rng = 11;

	for (int round = 0; round < 100; round++) {
		struct calltree all, part;
		uint64_t v = 1;
		uint64_t calls = 0;

		tree_new(&all);
		for (int k = 0; k < 3; k++) {
			tree_new(&part);
			walk(&part, &rng, &v, (unsigned)(xorshift_next(&rng) % 300), 1);
			for (uint32_t i = 1; i < part.nnodes; i++)
				calls += part.nodes[i].calls;
			CHECK_EQ_I(calltree_merge(&all, &part), 0);
			calltree_free(&part);
		}
		CHECK_EQ_I(calltree_finish(&all), 0);
		check_sums(&all);
		for (uint32_t i = 1; i < all.nnodes; i++)
			calls -= calltree_hist(&all, i) ? calltree_hist(&all, i)->count : 0;
		CHECK_EQ_U(calls, 0);
		calltree_free(&all);
	}
}

static void test_fold(void)
{
	uint64_t rng = 5;

	for (int round = 0; round < 100; round++) {
		struct calltree t;
		uint64_t v = 1, *heat, cold = 0, calls_before = 0, calls_after = 0;

		tree_new(&t);
		walk(&t, &rng, &v, 200 + (unsigned)(xorshift_next(&rng) % 300), 0);
		heat = malloc(t.nnodes * sizeof(*heat));
		CHECK(heat != NULL);
		CHECK_EQ_I(calltree_fold_heat(&t, heat), 0);
		for (uint32_t i = 1; i < t.nnodes; i++)
			calls_before += calltree_hist(&t, i) ? calltree_hist(&t, i)->count : 0;
		CHECK(calltree_fold(&t, heat, 200 + xorshift_next(&rng) % 3000) >= 0);
		free(heat);
		for (uint32_t i = 1; i < t.nnodes; i++) {
			const struct lathist *h = calltree_hist(&t, i);

			cold += t.nodes[i].method == CALLTREE_COLD_METHOD;
			CHECK(lathist_valid(h));
		}
		/* the calls folded are in the pseudo-frames, but those of the
		 * folded contexts' descendants: they were within their callers' */
		CHECK_EQ_U(t.stats.folded_contexts > 0, cold > 0);
		walk(&t, &rng, &v, 200, 0); /* more calls after the fold */
		CHECK_EQ_I(calltree_finish(&t), 0);
		check_sums(&t);
		for (uint32_t i = 1; i < t.nnodes; i++)
			calls_after += calltree_hist(&t, i) ? calltree_hist(&t, i)->count : 0;
		CHECK(calls_after >= calls_before - t.stats.folded_calls);
		calltree_free(&t);
	}
}

/* A hand-made tree: 100 calls of A under the root, 87 of 1000 ticks and
 * 13 of 20000000; A's compensated durations are 1 less per delta. */
static void test_known_durations(void)
{
	struct calltree t;
	uint64_t v = 0;
	const struct lathist *h;

	tree_new(&t);
	for (int i = 0; i < 100; i++) {
		CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 1, v), 0);
		v += i % 8 == 3 ? 20000000 : 1000;
		CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 1, v), 0);
		v += 50;
	}
	h = calltree_hist(&t, 1);
	CHECK(h != NULL);
	if (h) {
		CHECK_EQ_U(h->count, 100);
		CHECK_EQ_U(h->min, 999); /* one delta each, less 1 */
		CHECK_EQ_U(h->max, 19999999);
		CHECK_EQ_U(h->sum, 87 * 999 + 13 * 19999999ull);
		CHECK_EQ_U(lathist_percentile(h, 500), 1008); /* [992, 1024)'s middle */
		CHECK_EQ_U(lathist_percentile(h, 870), 1008);
		CHECK(lathist_percentile(h, 880) >= 19999999 - 19999999 / 32);
		CHECK_EQ_U(lathist_percentile(h, 990), 19999999);
	}
	calltree_free(&t);
}

int main(void)
{
	RUN(test_random_walks);
	RUN(test_merge);
	RUN(test_fold);
	RUN(test_known_durations);
	return test_summary("calltree-hist");
}
