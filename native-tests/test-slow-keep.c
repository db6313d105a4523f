/*
 * test-slow-keep.c - slow=DURATION's keeper and watcher (common/slow_keep.c)
 * and the TREE_SLOW record (common/trace_encoder.c, trace_reader.c): a
 * hand-made call tree's slow calls with their paths, callees, self, wall
 * durations and end times; the bound (the longest kept, the first of
 * equal ones); random walks against a plain model of every call's
 * callees; a fold marks the open calls partial; a call live before
 * tracing; each on the tree builder's general path (two metrics) and its
 * inline one (one); the record decoded as written, and malformed ones
 * refused.
 */
#include "common/slow_keep.h"

#include <errno.h>
#include <stdlib.h>

#include "common/calltree_fold.h"
#include "common/trace_encoder.h"
#include "common/trace_reader.h"
#include "native-tests/test.h"
#include "native-tests/xorshift.h"

static uint64_t clock_now;

static uint64_t fake_now(void)
{
	return clock_now += 1000;
}

/* metric 0 = v, metric 1 = a TSC at 2 GHz: 2v */
static int ev(struct calltree *t, unsigned trans, uint32_t method, uint64_t v)
{
	uint64_t m[JCAL_MAX_METRICS] = {v, 2 * v};
	return calltree_event(t, method, trans, JCAL_MT_INTERP_STATIC, m);
}

/* Metrics of the trees: 2 (every event on the builder's general path) or
 * 1 (its inline path); each test runs with both. */
static unsigned nmetrics = 2;

static void setup(struct calltree *t, struct slow_keep *k, struct slow_watch *w, uint64_t threshold,
		  size_t max)
{
	struct slow_keep_cfg cfg = {0, threshold, 1, 2000000000u, max, fake_now};

	clock_now = 0;
	CHECK_EQ_I(slow_keep_init(k, &cfg), 0);
	CHECK_EQ_I(calltree_init(t, nmetrics, NULL), 0);
	CHECK_EQ_I(slow_watch_attach(w, t, k, 7), 0);
}

static void teardown(struct calltree *t, struct slow_keep *k)
{
	calltree_free(t);
	slow_keep_free(k);
}

/* A(1) calls B(2) for 50, C(3) (which calls B for 20) for 140, B for 30,
 * and ends at 300: over 100, A and C. */
static void test_hand_made(void)
{
	struct calltree t;
	struct slow_keep k;
	struct slow_watch w;
	struct trace_slow *got;
	uint64_t over;

	setup(&t, &k, &w, 100, 10);
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 1, 0), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 2, 10), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 2, 60), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 3, 60), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 2, 70), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 2, 90), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 3, 200), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 2, 200), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 2, 230), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 1, 300), 0);
	CHECK_EQ_I(slow_keep_list(&k, &got, &over), 2);
	CHECK_EQ_U(over, 2);
	uint64_t kept, over2;
	slow_keep_counts(&k, &kept, &over2);
	CHECK(kept == 2 && over2 == 2);
	/* A: 300, its callees C 140 and B 80 (two calls), self 80 */
	CHECK(got[0].value == 300 && got[0].raw == 300 && got[0].self == 80 &&
	      got[0].raw_self == 80);
	CHECK(got[0].thread == 7 && got[0].metric == 0 && got[0].flags == 0);
	CHECK(got[0].depth == 1 && got[0].path[0] == 1 && got[0].omitted == 0);
	CHECK_EQ_U(got[0].ncallees, 2);
	CHECK(got[0].callee[0].method == 3 && got[0].callee[0].value == 140);
	CHECK(got[0].callee[1].method == 2 && got[0].callee[1].value == 80);
	CHECK_EQ_U(got[0].wall_ns, nmetrics == 2 ? 300 : 0); /* 600 ticks at 2 GHz */
	CHECK_EQ_U(got[0].end_ns, 2000); /* the second call that ended over 100 */
	/* C: 140 under A, B 20, self 120 */
	CHECK(got[1].value == 140 && got[1].self == 120 && got[1].depth == 2 &&
	      got[1].path[0] == 1 && got[1].path[1] == 3);
	CHECK(got[1].ncallees == 1 && got[1].callee[0].method == 2 && got[1].callee[0].value == 20);
	CHECK_EQ_U(got[1].end_ns, 1000);
	free(got);
	/* a new recording keeps nothing of the last */
	slow_keep_reset(&k);
	CHECK_EQ_I(slow_keep_list(&k, &got, &over), 0);
	CHECK(got == NULL && over == 0);
	teardown(&t, &k);
}

/* 200 top-level calls of random durations, at most 5 kept: the 5 longest,
 * of equal ones the first. */
static void test_bound(void)
{
	struct calltree t;
	struct slow_keep k;
	struct slow_watch w;
	struct trace_slow *got;
	uint64_t rng = 3, v = 0, over, want_over = 0, d[200];

	setup(&t, &k, &w, 50, 5);
	for (int i = 0; i < 200; i++) {
		d[i] = xorshift_next(&rng) % 100;
		want_over += d[i] >= 50;
		CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 1 + (uint32_t)i % 3, v), 0);
		v += d[i];
		CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 1 + (uint32_t)i % 3, v), 0);
	}
	CHECK_EQ_I(slow_keep_list(&k, &got, &over), 5);
	CHECK_EQ_U(over, want_over);
	for (int r = 0; r < 5; r++) {
		int best = -1;

		for (int i = 0; i < 200; i++)
			if (d[i] != UINT64_MAX && (best < 0 || d[i] > d[best]))
				best = i;
		CHECK_EQ_U(got[r].value, d[best]);
		CHECK_EQ_U(got[r].path[0], 1 + (uint32_t)best % 3);
		d[best] = UINT64_MAX;
	}
	free(got);
	teardown(&t, &k);
}

#define METHODS 5u
#define DEPTH 7u

/* A plain model of one call: its method, start and its callees' sums. */
struct mframe {
	uint32_t method;
	uint64_t start, callee[METHODS + 1];
};

struct mcall {
	uint64_t value, self;
	uint32_t path[DEPTH];
	unsigned depth;
	uint64_t callee[METHODS + 1];
};

static int by_value_then_end(const void *a, const void *b)
{
	const struct mcall *x = a, *y = b;

	return x->value != y->value ? (x->value < y->value ? 1 : -1) : 0;
}

/* Matched random walks, every call kept: each call's value, path, self
 * and every callee (at most METHODS, so none left out) as the model has
 * them. */
static void test_random_walks(void)
{
	uint64_t rng = 11;

	for (int round = 0; round < 200; round++) {
		struct calltree t;
		struct slow_keep k;
		struct slow_watch w;
		struct trace_slow *got;
		struct mframe st[DEPTH + 1];
		struct mcall *calls = calloc(2000, sizeof(*calls));
		unsigned d = 0, n = 0;
		uint64_t v = 0, over;
		long nk;

		CHECK(calls != NULL);
		setup(&t, &k, &w, 0, SLOW_KEEP_MAX);
		for (unsigned e = 0; e < 1500 || d; e++) {
			uint64_t r = xorshift_next(&rng);

			v += 1 + (r >> 20) % 100;
			if (d && (d == DEPTH || e >= 1500 || r % 16 < 7)) {
				struct mframe *f = &st[--d];
				struct mcall *c = &calls[n++];
				uint64_t all = 0;

				CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, f->method, v), 0);
				c->value = v - f->start;
				for (unsigned i = 0; i <= d; i++)
					c->path[i] = st[i].method;
				c->depth = d + 1;
				memcpy(c->callee, f->callee, sizeof(c->callee));
				for (unsigned m = 1; m <= METHODS; m++)
					all += f->callee[m];
				c->self = c->value - all;
				if (d)
					st[d - 1].callee[f->method] += c->value;
			} else {
				uint32_t m = 1 + (uint32_t)(r >> 8) % METHODS;

				CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, m, v), 0);
				memset(&st[d], 0, sizeof(st[d]));
				st[d].method = m;
				st[d++].start = v;
			}
		}
		nk = slow_keep_list(&k, &got, &over);
		CHECK_EQ_I(nk, (long)n);
		CHECK_EQ_U(over, n);
		/* stable: of equal calls the first ended comes first, in both */
		for (unsigned i = 1; i < n; i++)
			for (unsigned j = i;
			     j > 0 && by_value_then_end(&calls[j - 1], &calls[j]) > 0; j--) {
				struct mcall tmp = calls[j];

				calls[j] = calls[j - 1];
				calls[j - 1] = tmp;
			}
		for (unsigned i = 0; i < n && i < (unsigned)nk; i++) {
			const struct trace_slow *g = &got[i];
			const struct mcall *c = &calls[i];
			unsigned have = 0;

			CHECK_EQ_U(g->value, c->value);
			CHECK_EQ_U(g->self, c->self);
			CHECK_EQ_U(g->depth, c->depth);
			CHECK(!memcmp(g->path, c->path, c->depth * sizeof(c->path[0])));
			for (unsigned m = 1; m <= METHODS; m++)
				have += c->callee[m] != 0;
			CHECK_EQ_U(g->ncallees, have);
			for (unsigned j = 0; j < g->ncallees; j++) {
				CHECK_EQ_U(g->callee[j].value, c->callee[g->callee[j].method]);
				CHECK(!j || g->callee[j - 1].value >= g->callee[j].value);
			}
		}
		free(got);
		free(calls);
		teardown(&t, &k);
	}
}

/* A path deeper than TRACE_SLOW_PATH_MAX keeps its innermost frames. */
static void test_deep_path(void)
{
	struct calltree t;
	struct slow_keep k;
	struct slow_watch w;
	struct trace_slow *got;
	uint64_t over;
	const uint32_t depth = TRACE_SLOW_PATH_MAX + 30;

	setup(&t, &k, &w, 1000, 1);
	for (uint32_t i = 0; i < depth; i++)
		CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 1 + i, i), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, depth, 5000), 0);
	CHECK_EQ_I(slow_keep_list(&k, &got, &over), 1);
	CHECK_EQ_U(got[0].depth, TRACE_SLOW_PATH_MAX);
	CHECK_EQ_U(got[0].omitted, 30);
	CHECK_EQ_U(got[0].path[0], 31);
	CHECK_EQ_U(got[0].path[TRACE_SLOW_PATH_MAX - 1], depth);
	free(got);
	teardown(&t, &k);
}

/* A fold while A is open: A's callees before it are unknown (partial),
 * its value exact; a later call is whole again. */
static void test_fold(void)
{
	struct calltree t;
	struct slow_keep k;
	struct slow_watch w;
	struct trace_slow *got;
	uint64_t over, *heat;

	setup(&t, &k, &w, 100, 10);
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 1, 0), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 2, 10), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 2, 20), 0);
	heat = calloc(t.nnodes, sizeof(*heat));
	CHECK(heat != NULL);
	CHECK_EQ_I(calltree_fold_heat(&t, heat), 0);
	CHECK_EQ_I(calltree_fold(&t, heat, 1000), 0); /* B (heat 10) folds into <cold> */
	CHECK_EQ_U(t.stats.folded_contexts, 1);
	free(heat);
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 3, 20), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 3, 50), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 1, 200), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 1, 200), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 3, 200), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 3, 240), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 1, 400), 0);
	CHECK_EQ_I(slow_keep_list(&k, &got, &over), 2);
	CHECK(got[0].value == 200 && got[0].flags == TRACE_SLOW_PARTIAL);
	CHECK(got[0].ncallees == 1 && got[0].callee[0].method == 3 &&
	      got[0].callee[0].value == 30 && got[0].self == 170);
	CHECK(got[1].value == 200 && got[1].flags == 0 && got[1].self == 160);
	free(got);
	teardown(&t, &k);
}

/* B (2) called, then an exit of A (1), which was live before tracing:
 * A's call ran from the first event, with B its callee; C (3) after it is
 * a call of its own under the root. */
static void test_live(void)
{
	struct calltree t;
	struct slow_keep k;
	struct slow_watch w;
	struct trace_slow *got;
	uint64_t over;

	setup(&t, &k, &w, 50, 10);
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 2, 10), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 2, 60), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 1, 100), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 3, 100), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 2, 110), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 2, 130), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 3, 200), 0);
	CHECK_EQ_I(slow_keep_list(&k, &got, &over), 3);
	CHECK(got[0].value == 100 && got[0].path[0] == 3 && got[0].depth == 1 && !got[0].flags);
	CHECK(got[0].ncallees == 1 && got[0].callee[0].method == 2 && got[0].callee[0].value == 20);
	CHECK(got[1].value == 90 && got[1].path[0] == 1 && got[1].flags == TRACE_SLOW_LIVE);
	CHECK(got[1].ncallees == 1 && got[1].callee[0].method == 2 &&
	      got[1].callee[0].value == 50 && got[1].self == 40);
	/* B's path as it was when B ended: A was not known yet (a trace's
	 * report, read to its end, puts B under A) */
	CHECK(got[2].value == 50 && got[2].depth == 1 && got[2].path[0] == 2);
	free(got);
	teardown(&t, &k);
}

static struct trace_slow decoded;
static int ndecoded;

static int on_slow(void *ctx, const struct trace_slow *c)
{
	(void)ctx;
	decoded = *c;
	ndecoded++;
	return 0;
}

static enum trace_status decode(const struct trace_slow *c, int old)
{
	struct trace_visitor v = {.tree_slow = on_slow}, none = {0};
	struct trace_result res;
	struct trace_recbuf rb;
	enum trace_status st;

	trace_recbuf_init(&rb);
	trace_rec_tree_slow(&rb, c);
	st = trace_decode_chunk(TRACE_CHUNK_RECORDS, rb.buf + TRACE_CHUNK_HEADER_LEN,
				trace_recbuf_pending(&rb), old ? &none : &v, &res);
	if (st == TRACE_CORRUPT)
		CHECK(strstr(res.msg, "TREE_SLOW record at payload byte 0") &&
		      !strchr(res.msg, '\n'));
	trace_recbuf_free(&rb);
	return st;
}

static void test_record(void)
{
	struct trace_slow c = {.thread = 9,
			       .metric = 1,
			       .value = 5000,
			       .raw = 6000,
			       .self = 100,
			       .raw_self = 200,
			       .end_ns = 1700000000123456789ull,
			       .wall_ns = 4999,
			       .flags = TRACE_SLOW_LIVE,
			       .omitted = 3,
			       .depth = 3,
			       .path = {4, 5, 6},
			       .ncallees = 2};

	c.callee[0] = (struct trace_slow_callee){8, 4000, 4500};
	c.callee[1] = (struct trace_slow_callee){2, 900, 1300};
	ndecoded = 0;
	CHECK_EQ_I(decode(&c, 0), TRACE_OK);
	CHECK_EQ_I(ndecoded, 1);
	CHECK(!memcmp(&decoded, &c, sizeof(c)));
	CHECK_EQ_I(decode(&c, 1), TRACE_OK); /* a reader without the callback skips it */
	/* what no writer writes: refused */
	c.self = 5001;
	CHECK_EQ_I(decode(&c, 0), TRACE_CORRUPT);
	c.self = 100;
	c.callee[1].value = 5001;
	CHECK_EQ_I(decode(&c, 0), TRACE_CORRUPT);
	c.callee[1].value = 900;
	c.depth = 0;
	CHECK_EQ_I(decode(&c, 0), TRACE_CORRUPT);
	c.depth = 3;
	c.metric = JCAL_MAX_METRICS;
	CHECK_EQ_I(decode(&c, 0), TRACE_CORRUPT);
}

static void test_cfg(void)
{
	struct slow_keep k;
	struct slow_keep_cfg cfg = {0, 1, -1, 0, 0, NULL};

	CHECK_EQ_I(slow_keep_init(&k, &cfg), -EINVAL);
	cfg.max = SLOW_KEEP_MAX + 1;
	CHECK_EQ_I(slow_keep_init(&k, &cfg), -EINVAL);
	cfg.max = SLOW_KEEP_MAX;
	CHECK_EQ_I(slow_keep_init(&k, &cfg), 0);
	slow_keep_free(&k);
}

int main(void)
{
	for (nmetrics = 2; nmetrics >= 1; nmetrics--) {
		printf("  %u metric%s: the builder's %s path\n", nmetrics, nmetrics > 1 ? "s" : "",
		       nmetrics > 1 ? "general" : "inline");
		RUN(test_hand_made);
		RUN(test_bound);
		RUN(test_random_walks);
		RUN(test_deep_path);
		RUN(test_fold);
		RUN(test_live);
	}
	RUN(test_record);
	RUN(test_cfg);
	return test_summary("slow-keep");
}
