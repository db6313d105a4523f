/*
 * test-calltree-fold.c - folding cold contexts of a tree under construction
 * (common/calltree_fold.c, the agent's maxcontexts=): exact figures on a
 * hand-made event sequence, nothing lost against the same tree unfolded.
 */
#include <errno.h>
#include <stdlib.h>

#include "common/calltree.h"
#include "common/calltree_fold.h"
#include "native-tests/test.h"

enum { A = 1, B, C, D };

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

/* The child of parent for method, or CALLTREE_NONE. */
static uint32_t child(const struct calltree *t, uint32_t parent, uint32_t method)
{
	for (uint32_t c = t->nodes[parent].first_child; c != CALLTREE_NONE;
	     c = t->nodes[c].next_sibling)
		if (t->nodes[c].method == method)
			return c;
	return CALLTREE_NONE;
}

/* Folds t with the given cutoff; returns the nodes removed. */
static int64_t fold(struct calltree *t, uint64_t cutoff)
{
	uint64_t *heat = malloc(t->nnodes * sizeof(*heat));
	int64_t r;

	CHECK(heat != NULL);
	CHECK_EQ_I(calltree_fold_heat(t, heat), 0);
	r = calltree_fold(t, heat, cutoff);
	free(heat);
	return r;
}

/* A calls B and C, then D stays open: B (20) and C (1) are colder than 21
 * and fold into A's <cold contexts>; the open frames A and D stay. */
static void first_half(struct calltree *t)
{
	CHECK_EQ_I(ev(t, JCAL_TR_ENTRY, A, 100), 0);
	CHECK_EQ_I(ev(t, JCAL_TR_ENTRY, B, 110), 0);
	CHECK_EQ_I(ev(t, JCAL_TR_EXIT, B, 130), 0);
	CHECK_EQ_I(ev(t, JCAL_TR_ENTRY, C, 135), 0);
	CHECK_EQ_I(ev(t, JCAL_TR_EXIT, C, 136), 0);
	CHECK_EQ_I(ev(t, JCAL_TR_ENTRY, D, 140), 0);
}

static void second_half(struct calltree *t)
{
	CHECK_EQ_I(ev(t, JCAL_TR_EXIT, D, 150), 0);
	CHECK_EQ_I(ev(t, JCAL_TR_ENTRY, B, 160), 0);
	CHECK_EQ_I(ev(t, JCAL_TR_EXIT, B, 170), 0);
	CHECK_EQ_I(ev(t, JCAL_TR_EXIT, A, 180), 0);
}

static void test_fold_keeps_open_frames_and_totals(void)
{
	struct calltree_comp comp = {.fn = minus_one, .ctx = NULL, .batch = NULL};
	struct calltree t, ref;
	uint64_t heat[8];
	uint32_t a, cold, b;

	CHECK_EQ_I(calltree_init(&t, 2, &comp), 0);
	CHECK_EQ_I(calltree_init(&ref, 2, &comp), 0);
	first_half(&t);
	first_half(&ref);
	CHECK_EQ_U(t.nnodes, 5);
	CHECK_EQ_I(calltree_fold_heat(&t, heat), 0);
	a = child(&t, CALLTREE_ROOT, A);
	CHECK_EQ_U(heat[CALLTREE_ROOT], CALLTREE_FOLD_HOT);
	CHECK_EQ_U(heat[a], CALLTREE_FOLD_HOT);		      /* open */
	CHECK_EQ_U(heat[child(&t, a, D)], CALLTREE_FOLD_HOT); /* open */
	CHECK_EQ_U(heat[child(&t, a, B)], 20);
	CHECK_EQ_U(heat[child(&t, a, C)], 1);

	/* B and C go, <cold contexts> comes: 5 -> 4 nodes */
	CHECK_EQ_I(fold(&t, 21), 1);
	CHECK_EQ_U(t.nnodes, 4);
	CHECK_EQ_U(t.stats.folded_contexts, 2);
	CHECK_EQ_U(t.stats.folded_calls, 2);
	a = child(&t, CALLTREE_ROOT, A);
	cold = child(&t, a, CALLTREE_COLD_METHOD);
	CHECK(cold != CALLTREE_NONE);
	CHECK_EQ_U(child(&t, a, B), CALLTREE_NONE);
	CHECK_EQ_U(child(&t, a, C), CALLTREE_NONE);
	CHECK_EQ_U(t.nodes[cold].calls, 2);
	CHECK_EQ_U(calltree_fig(&t, cold, 0)->raw_base, 21);
	CHECK_EQ_U(calltree_fig(&t, cold, 1)->raw_base, 63);
	CHECK_EQ_U(calltree_fig(&t, cold, 0)->base, 19); /* 20-1 + 1-1 */
	/* nothing colder than 21 is left but the open frames: a no-op */
	CHECK_EQ_I(fold(&t, 21), 0);

	/* the open frame D still closes on its node; B comes back afresh */
	second_half(&t);
	second_half(&ref);
	b = child(&t, a, B);
	CHECK(b != CALLTREE_NONE);
	CHECK_EQ_U(t.nodes[b].calls, 1);
	CHECK_EQ_U(calltree_fig(&t, b, 0)->raw_base, 10);
	CHECK_EQ_U(calltree_fig(&t, child(&t, a, D), 0)->raw_base, 10);
	CHECK_EQ_U(t.stats.unmatched_exits, 0);
	CHECK_EQ_U(t.stats.mismatched_exits, 0);

	/* A is closed now: folding at 81 takes A with its whole subtree,
	 * <cold contexts> included, into the root's */
	CHECK_EQ_I(fold(&t, 81), 3); /* A, its <cold contexts>, D, B go; the root's comes */
	CHECK_EQ_U(t.nnodes, 2);
	CHECK_EQ_U(t.stats.folded_contexts, 2 + 3); /* A, D, B */
	CHECK_EQ_U(t.stats.folded_calls, 2 + 3);
	cold = child(&t, CALLTREE_ROOT, CALLTREE_COLD_METHOD);
	CHECK_EQ_U(t.nodes[cold].calls, 1);

	CHECK_EQ_I(calltree_finish(&t), 0);
	CHECK_EQ_I(calltree_finish(&ref), 0);
	/* every figure of the root is what the unfolded tree has */
	for (unsigned m = 0; m < 2; m++) {
		CHECK_EQ_U(calltree_fig(&t, CALLTREE_ROOT, m)->raw_cum,
			   calltree_fig(&ref, CALLTREE_ROOT, m)->raw_cum);
		CHECK_EQ_U(calltree_fig(&t, CALLTREE_ROOT, m)->cum,
			   calltree_fig(&ref, CALLTREE_ROOT, m)->cum);
	}
	CHECK_EQ_U(calltree_fig(&t, CALLTREE_ROOT, 0)->raw_cum, 80);
	CHECK_EQ_U(calltree_fig(&t, cold, 0)->raw_base, 80);
	/* calls: what the tree shows plus what was folded = every entry */
	CHECK_EQ_U(ref.stats.by_transition[JCAL_TR_ENTRY], 5);
	CHECK_EQ_U(t.stats.folded_calls, 5);
	CHECK_EQ_U(t.stats.events, ref.stats.events);
	calltree_free(&t);
	calltree_free(&ref);
}

/* After folding, the children map finds the remaining children: a new
 * event on a kept context goes to it, not to a new node. */
static void test_fold_rebuilds_child_index(void)
{
	struct calltree t;

	CHECK_EQ_I(calltree_init(&t, 1, NULL), 0);
	/* root -> A (hot, 1000) and B (cold, 1), then A again */
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, B, 0), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, B, 1), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, A, 1), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, A, 1001), 0);
	CHECK_EQ_I(fold(&t, 2), 0); /* B goes, <cold contexts> comes */
	CHECK_EQ_U(t.nnodes, 3);
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, A, 1001), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, A, 1101), 0);
	CHECK_EQ_U(t.nnodes, 3);
	CHECK_EQ_U(t.nodes[child(&t, CALLTREE_ROOT, A)].calls, 2);
	CHECK_EQ_U(calltree_fig(&t, child(&t, CALLTREE_ROOT, A), 0)->raw_base, 1100);
	CHECK_EQ_I(calltree_finish(&t), 0);
	CHECK_EQ_U(calltree_fig(&t, CALLTREE_ROOT, 0)->raw_cum, 1101);
	calltree_free(&t);
}

/* After folding, only a parent with more kept children than a look-up
 * goes through has them in the children map: A keeps 14 of its 20
 * children and gets <cold contexts> (15 entries), B's 5 children and the
 * root's 2 stay out of it. Every kept context is found again, new ones are
 * created once. */
static void test_fold_maps_only_wide_parents(void)
{
	struct calltree t;
	uint64_t v = 0;
	uint32_t a, b;

	CHECK_EQ_I(calltree_init(&t, 1, NULL), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, A, v), 0);
	for (uint32_t k = 0; k < 20; k++) {
		CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 100 + k, v), 0);
		v += k < 6 ? 1 : 100; /* six cold children */
		CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 100 + k, v), 0);
	}
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, A, v), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, B, v), 0);
	for (uint32_t k = 0; k < 5; k++) {
		CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 200 + k, v), 0);
		v += 100;
		CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 200 + k, v), 0);
	}
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, B, v), 0);
	CHECK_EQ_U(t.nnodes, 28);
	CHECK_EQ_I(fold(&t, 50), 5); /* six gone, <cold contexts> new */
	CHECK_EQ_U(t.nnodes, 23);
	CHECK_EQ_U(t.children.used, 15);
	a = calltree_child_find(&t, CALLTREE_ROOT, A);
	b = calltree_child_find(&t, CALLTREE_ROOT, B);
	CHECK(a != CALLTREE_NONE && b != CALLTREE_NONE);
	CHECK(calltree_child_find(&t, a, CALLTREE_COLD_METHOD) != CALLTREE_NONE);
	/* every kept child again, a folded one anew, a sixth child of B */
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, A, v), 0);
	for (uint32_t k = 0; k < 20; k++) {
		CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 100 + k, v), 0);
		CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 100 + k, ++v), 0);
	}
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, A, v), 0);
	CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, B, v), 0);
	for (uint32_t k = 0; k < 6; k++) {
		CHECK_EQ_I(ev(&t, JCAL_TR_ENTRY, 200 + k, v), 0);
		CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, 200 + k, ++v), 0);
	}
	CHECK_EQ_I(ev(&t, JCAL_TR_EXIT, B, v), 0);
	CHECK_EQ_U(t.nnodes, 23 + 6 + 1);
	for (uint32_t k = 0; k < 20; k++) {
		uint32_t c = calltree_child_find(&t, a, 100 + k);

		CHECK(c != CALLTREE_NONE);
		if (c != CALLTREE_NONE)
			CHECK_EQ_U(t.nodes[c].calls, k < 6 ? 1 : 2);
	}
	for (uint32_t k = 0; k < 6; k++) {
		uint32_t c = calltree_child_find(&t, b, 200 + k);

		CHECK(c != CALLTREE_NONE);
		if (c != CALLTREE_NONE)
			CHECK_EQ_U(t.nodes[c].calls, k < 5 ? 2 : 1);
	}
	calltree_free(&t);
}

int main(void)
{
	RUN(test_fold_keeps_open_frames_and_totals);
	RUN(test_fold_rebuilds_child_index);
	RUN(test_fold_maps_only_wide_parents);
	return test_summary("calltree-fold");
}
