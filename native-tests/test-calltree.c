/*
 * test-calltree.c - unit tests of the tree builder (common/calltree.c),
 * sequence keys (common/seqkey.c) and the compensation hook, against the
 * golden vectors fig4a.* and calib-small.md; the builder's own compensation
 * through a table against the hook's.
 */
#include <errno.h>
#include <stdlib.h>

#include "common/calib_comp.h"
#include "common/calltree.h"
#include "common/calltree_internal.h"
#include "common/lathist.h"
#include "native-tests/golden.h"
#include "common/satsum.h"
#include "common/seqkey.h"
#include "native-tests/test.h"
#include "common/trace_encoder.h"
#include "native-tests/xorshift.h"

/* Path of node n as ";"-joined golden names (A=1...), root excluded. */
static void node_path(const struct calltree *t, uint32_t n, char *buf, size_t len)
{
	char tmp[256];

	buf[0] = '\0';
	for (; n != CALLTREE_ROOT; n = t->nodes[n].parent) {
		const char *name = t->nodes[n].method <= 26
				       ? (char[]){(char)('A' + t->nodes[n].method - 1), 0}
				       : "?";
		snprintf(tmp, sizeof(tmp), "%s%s%s", name, buf[0] ? ";" : "", buf);
		snprintf(buf, len, "%s", tmp);
	}
}

static uint64_t ev(struct calltree *t, uint64_t v, unsigned trans, uint32_t method, unsigned type)
{
	uint64_t m[JCAL_MAX_METRICS] = {v, 2 * v};
	return (uint64_t)calltree_event(t, method, trans, type, m);
}

/* Sum of raw_base over all nodes, metric 0. */
static uint64_t total_base(const struct calltree *t)
{
	uint64_t s = 0;
	for (uint32_t i = 0; i < t->nnodes; i++)
		s += calltree_fig(t, i, 0)->raw_base;
	return s;
}

static void test_fig4a_tree(void)
{
	struct calltree t;
	char want[64][256], got[400], path[256];
	int nwant = golden_lines("fig4a.tree", want, 64);
	static const unsigned levels[] = {1, 2, 3, 4, 2, 3, 4, 5, 4};
	static const unsigned rls[] = {1, 1, 1, 2, 1, 1, 2, 2, 1};

	CHECK_EQ_I(nwant, 9);
	CHECK_EQ_I(calltree_init(&t, 1, NULL), 0);
	CHECK_EQ_I(golden_feed(&t, "fig4a.events"), 20);
	CHECK_EQ_I(calltree_finish(&t), 0);
	CHECK_EQ_U(t.nnodes, 10);
	CHECK_EQ_U(t.nodes[CALLTREE_ROOT].calls, 1);
	CHECK_EQ_U(calltree_fig(&t, CALLTREE_ROOT, 0)->raw_base, 0);
	CHECK_EQ_U(calltree_fig(&t, CALLTREE_ROOT, 0)->cum, 19);
	CHECK_EQ_U(t.nodes[CALLTREE_ROOT].level, 0);
	CHECK_EQ_U(t.nodes[CALLTREE_ROOT].rl, 1);
	CHECK_EQ_U(t.order[0], CALLTREE_ROOT);
	for (uint32_t i = 1; i < t.nnodes && (int)i <= nwant; i++) {
		const struct calltree_node *n = &t.nodes[t.order[i]];
		const struct calltree_fig *f = calltree_fig(&t, t.order[i], 0);

		node_path(&t, t.order[i], path, sizeof(path));
		snprintf(got, sizeof(got), "%s %llu %llu %llu", path, (unsigned long long)n->calls,
			 (unsigned long long)f->base, (unsigned long long)f->cum);
		CHECK_STR(got, want[i - 1]);
		CHECK_EQ_U(n->level, levels[i - 1]);
		CHECK_EQ_U(n->rl, rls[i - 1]);
		CHECK_EQ_U(f->raw_base, f->base);
		CHECK_EQ_U(f->raw_cum, f->cum);
	}
	CHECK_EQ_U(t.stats.events, 20);
	CHECK_EQ_U(t.stats.by_transition[JCAL_TR_ENTRY], 10);
	CHECK_EQ_U(t.stats.by_transition[JCAL_TR_EXIT], 10);
	CHECK_EQ_U(t.stats.by_type[JCAL_MT_INTERP_STATIC], 20);
	CHECK_EQ_U(t.stats.unmatched_exits + t.stats.mismatched_exits + t.stats.open_frames, 0);
	CHECK_EQ_U(t.max_level, 5);
	calltree_free(&t);
}

static void test_second_metric(void)
{
	struct calltree t;

	CHECK_EQ_I(calltree_init(&t, 2, NULL), 0);
	ev(&t, 10, JCAL_TR_ENTRY, 1, JCAL_MT_INTERP);
	ev(&t, 15, JCAL_TR_ENTRY, 2, JCAL_MT_INTERP);
	ev(&t, 18, JCAL_TR_EXIT, 2, JCAL_MT_INTERP);
	ev(&t, 20, JCAL_TR_EXIT, 1, JCAL_MT_INTERP);
	CHECK_EQ_I(calltree_finish(&t), 0);
	CHECK_EQ_U(calltree_fig(&t, 1, 0)->raw_base, 7);
	CHECK_EQ_U(calltree_fig(&t, 1, 1)->raw_base, 14);
	CHECK_EQ_U(calltree_fig(&t, 1, 1)->cum, 20);
	CHECK_EQ_U(calltree_fig(&t, 2, 1)->cum, 6);
	calltree_free(&t);
}

/* Frames live before tracing started exit without entries. */
static void test_unmatched_exits(void)
{
	struct calltree t;
	char path[256];

	CHECK_EQ_I(calltree_init(&t, 1, NULL), 0);
	ev(&t, 0, JCAL_TR_ENTRY, 1, JCAL_MT_INTERP); /* E A */
	ev(&t, 1, JCAL_TR_EXIT, 1, JCAL_MT_INTERP);  /* X A: 1 to A */
	ev(&t, 3, JCAL_TR_EXIT, 13, JCAL_MT_INTERP); /* X M unmatched: 2 to M */
	ev(&t, 4, JCAL_TR_ENTRY, 2, JCAL_MT_INTERP); /* E B: 1 at the root */
	ev(&t, 6, JCAL_TR_EXIT, 2, JCAL_MT_INTERP);  /* X B: 2 to B */
	ev(&t, 7, JCAL_TR_EXIT, 14, JCAL_MT_NATIVE); /* X N unmatched: 1, plus the root's 1 */
	ev(&t, 9, JCAL_TR_ENTRY, 3, JCAL_MT_INTERP); /* E C: 2 at the root, stays there */
	ev(&t, 10, JCAL_TR_EXIT, 3, JCAL_MT_INTERP); /* X C: 1 to C */
	CHECK_EQ_I(calltree_finish(&t), 0);
	CHECK_EQ_U(t.stats.unmatched_exits, 2);
	CHECK_EQ_U(t.stats.mismatched_exits, 0);
	CHECK_EQ_U(calltree_fig(&t, CALLTREE_ROOT, 0)->cum, 10);
	CHECK_EQ_U(total_base(&t), 10);
	CHECK_EQ_U(calltree_fig(&t, CALLTREE_ROOT, 0)->raw_base, 2);
	/* root -> N -> {M -> A, B}, C */
	CHECK_EQ_U(t.nnodes, 6);
	{
		static const char *want[] = {"N", "N;M", "N;M;A", "N;B", "C"};
		static const uint64_t base[] = {2, 2, 1, 2, 1}, calls[] = {1, 1, 1, 1, 1};
		static const uint64_t cum[] = {7, 3, 1, 2, 1}, level[] = {1, 2, 3, 2, 1};

		for (uint32_t i = 1; i < t.nnodes; i++) {
			const struct calltree_node *n = &t.nodes[t.order[i]];
			const struct calltree_fig *f = calltree_fig(&t, t.order[i], 0);

			node_path(&t, t.order[i], path, sizeof(path));
			CHECK_STR(path, want[i - 1]);
			CHECK_EQ_U(f->raw_base, base[i - 1]);
			CHECK_EQ_U(n->calls, calls[i - 1]);
			CHECK_EQ_U(f->cum, cum[i - 1]);
			CHECK_EQ_U(n->level, level[i - 1]);
		}
	}
	calltree_free(&t);
}

/*
 * A thread that continues the last file of a continuous recording
 * (TRACE_THREAD_CONTINUED): the frames its unmatched exits find were
 * entered, and counted, in that file: here they get no call, the calls
 * entered here count as ever, and the figures are charged as for any
 * unmatched exit.
 */
static void test_unmatched_continued(void)
{
	struct calltree t;
	char path[256];

	CHECK_EQ_I(calltree_init(&t, 1, NULL), 0);
	t.continued = 1;
	ev(&t, 0, JCAL_TR_ENTRY, 1, JCAL_MT_INTERP);  /* E A */
	ev(&t, 1, JCAL_TR_EXIT, 1, JCAL_MT_INTERP);   /* X A: 1 to A */
	ev(&t, 3, JCAL_TR_EXIT, 13, JCAL_MT_INTERP);  /* X M unmatched: open in the last file */
	ev(&t, 4, JCAL_TR_ENTRY, 13, JCAL_MT_INTERP); /* E M: a call of this file */
	ev(&t, 6, JCAL_TR_EXIT, 13, JCAL_MT_INTERP);
	CHECK_EQ_I(calltree_finish(&t), 0);
	CHECK_EQ_U(t.stats.unmatched_exits, 1);
	CHECK_EQ_U(total_base(&t), 6);
	/* root -> M (1 call: the one entered here) -> A (1) */
	CHECK_EQ_U(t.nnodes, 3);
	node_path(&t, t.order[1], path, sizeof(path));
	CHECK_STR(path, "M");
	CHECK_EQ_U(t.nodes[t.order[1]].calls, 1);
	CHECK_EQ_U(calltree_fig(&t, t.order[1], 0)->raw_base, 4);
	node_path(&t, t.order[2], path, sizeof(path));
	CHECK_STR(path, "M;A");
	CHECK_EQ_U(t.nodes[t.order[2]].calls, 1);
	calltree_free(&t);
	/* the same without the flag: the frame found open counts one call */
	CHECK_EQ_I(calltree_init(&t, 1, NULL), 0);
	ev(&t, 3, JCAL_TR_EXIT, 13, JCAL_MT_INTERP);
	ev(&t, 4, JCAL_TR_ENTRY, 13, JCAL_MT_INTERP);
	ev(&t, 6, JCAL_TR_EXIT, 13, JCAL_MT_INTERP);
	CHECK_EQ_I(calltree_finish(&t), 0);
	CHECK_EQ_U(t.nodes[t.order[1]].calls, 2);
	calltree_free(&t);
}

/*
 * An unmatched exit of a method already at the root level: recursion. A
 * later call from the root context has the same calling context as the
 * inserted node and is counted there.
 */
static void test_unmatched_same_method(void)
{
	struct calltree t;
	uint32_t outer, inner;

	CHECK_EQ_I(calltree_init(&t, 1, NULL), 0);
	ev(&t, 0, JCAL_TR_ENTRY, 5, JCAL_MT_INTERP);
	ev(&t, 4, JCAL_TR_EXIT, 5, JCAL_MT_INTERP);
	ev(&t, 5, JCAL_TR_EXIT, 5, JCAL_MT_INTERP);
	ev(&t, 6, JCAL_TR_ENTRY, 5, JCAL_MT_INTERP);
	ev(&t, 8, JCAL_TR_EXIT, 5, JCAL_MT_INTERP);
	CHECK_EQ_I(calltree_finish(&t), 0);
	CHECK_EQ_U(t.stats.unmatched_exits, 1);
	CHECK_EQ_U(t.nnodes, 3);
	outer = t.order[1];
	inner = t.order[2];
	CHECK_EQ_U(t.nodes[outer].parent, CALLTREE_ROOT);
	CHECK_EQ_U(t.nodes[outer].rl, 1);
	CHECK_EQ_U(t.nodes[outer].calls, 2);
	CHECK_EQ_U(calltree_fig(&t, outer, 0)->raw_base, 3);
	CHECK_EQ_U(calltree_fig(&t, outer, 0)->cum, 7);
	CHECK_EQ_U(t.nodes[inner].parent, outer);
	CHECK_EQ_U(t.nodes[inner].rl, 2);
	CHECK_EQ_U(t.nodes[inner].level, 2);
	CHECK_EQ_U(calltree_fig(&t, inner, 0)->cum, 4);
	CHECK_EQ_U(calltree_fig(&t, CALLTREE_ROOT, 0)->raw_base, 1);
	CHECK_EQ_U(calltree_fig(&t, CALLTREE_ROOT, 0)->cum, 8);
	calltree_free(&t);
}

/* An exit that matches a deeper frame unwinds the frames above it. */
static void test_mismatched_exit(void)
{
	struct calltree t;

	CHECK_EQ_I(calltree_init(&t, 1, NULL), 0);
	ev(&t, 0, JCAL_TR_ENTRY, 1, JCAL_MT_INTERP);
	ev(&t, 1, JCAL_TR_ENTRY, 2, JCAL_MT_INTERP);
	ev(&t, 3, JCAL_TR_ENTRY, 3, JCAL_MT_INTERP);
	ev(&t, 6, JCAL_TR_EXIT, 1, JCAL_MT_INTERP);  /* A exits: C, B unwound; 3 to C */
	ev(&t, 7, JCAL_TR_ENTRY, 2, JCAL_MT_INTERP); /* 1 at the root */
	ev(&t, 9, JCAL_TR_EXIT, 7, JCAL_MT_INTERP);  /* not on the stack: B unwound, 2 to B */
	CHECK_EQ_I(calltree_finish(&t), 0);
	CHECK_EQ_U(t.stats.mismatched_exits, 2);
	CHECK_EQ_U(t.stats.frames_unwound, 3);
	CHECK_EQ_U(t.stats.unmatched_exits, 1);
	CHECK_EQ_U(calltree_fig(&t, CALLTREE_ROOT, 0)->cum, 9);
	CHECK_EQ_U(total_base(&t), 9);
	CHECK_EQ_U(calltree_fig(&t, 3, 0)->raw_base, 3);
	calltree_free(&t);
}

/* T pops like X; frames open at the end are closed and counted. */
static void test_throw_and_open_frames(void)
{
	struct calltree t;

	CHECK_EQ_I(calltree_init(&t, 1, NULL), 0);
	ev(&t, 0, JCAL_TR_ENTRY, 1, JCAL_MT_INTERP);
	ev(&t, 1, JCAL_TR_ENTRY, 2, JCAL_MT_INTERP);
	ev(&t, 2, JCAL_TR_ENTRY, 3, JCAL_MT_NATIVE_STATIC);
	ev(&t, 4, JCAL_TR_THROW, 3, JCAL_MT_NATIVE_STATIC);
	ev(&t, 7, JCAL_TR_THROW, 2, JCAL_MT_INTERP);
	ev(&t, 8, JCAL_TR_ENTRY, 4, JCAL_MT_INTERP);
	ev(&t, 10, JCAL_TR_ENTRY, 5, JCAL_MT_INTERP);
	CHECK_EQ_I(calltree_finish(&t), 0);
	CHECK_EQ_U(t.stats.by_transition[JCAL_TR_THROW], 2);
	CHECK_EQ_U(t.stats.by_type[JCAL_MT_NATIVE_STATIC], 2);
	CHECK_EQ_U(t.stats.mismatched_exits + t.stats.unmatched_exits, 0);
	CHECK_EQ_U(t.stats.open_frames, 3);
	CHECK_EQ_U(calltree_fig(&t, CALLTREE_ROOT, 0)->cum, 10);
	CHECK_EQ_U(calltree_fig(&t, 1, 0)->raw_base, 2);
	CHECK_EQ_U(calltree_fig(&t, 2, 0)->raw_base, 4);
	CHECK_EQ_U(calltree_fig(&t, 3, 0)->raw_base, 2);
	CHECK_EQ_U(calltree_fig(&t, 4, 0)->raw_base, 2);
	CHECK_EQ_U(calltree_fig(&t, 5, 0)->raw_base, 0);
	CHECK_EQ_I(calltree_event(&t, 1, JCAL_TR_ENTRY, 0, (uint64_t[4]){11}), -EINVAL);
	calltree_free(&t);
}

/* Region control (jcal.Control): the untraced gap between STOP and START is
 * charged to nobody; the frames stay open across it; a MARK only splits a
 * delta. a enters at 0, b at 10; stop at 15, start at 1000, mark at 1004,
 * b exits at 1010, a at 1020: b = 5 + 4 + 6 = 15, a = 10 + 10 = 20. */
static void test_region_gap(void)
{
	struct calltree t;

	CHECK_EQ_I(calltree_init(&t, 1, NULL), 0);
	ev(&t, 0, JCAL_TR_ENTRY, 1, JCAL_MT_INTERP_STATIC);
	ev(&t, 10, JCAL_TR_ENTRY, 2, JCAL_MT_INTERP_STATIC);
	CHECK_EQ_I(calltree_event(&t, 0, JCAL_TR_CONTROL, JCAL_CTL_STOP, (uint64_t[4]){15}), 0);
	CHECK_EQ_I(calltree_event(&t, 0, JCAL_TR_CONTROL, JCAL_CTL_START, (uint64_t[4]){1000}), 0);
	CHECK_EQ_I(calltree_event(&t, 3, JCAL_TR_CONTROL, JCAL_CTL_MARK, (uint64_t[4]){1004}), 0);
	ev(&t, 1010, JCAL_TR_EXIT, 2, JCAL_MT_INTERP_STATIC);
	ev(&t, 1020, JCAL_TR_EXIT, 1, JCAL_MT_INTERP_STATIC);
	CHECK_EQ_I(calltree_finish(&t), 0);
	CHECK_EQ_U(t.nnodes, 3);
	CHECK_EQ_U(calltree_fig(&t, 2, 0)->raw_base, 15);
	CHECK_EQ_U(calltree_fig(&t, 1, 0)->raw_base, 20);
	CHECK_EQ_U(calltree_fig(&t, 1, 0)->cum, 35);
	CHECK_EQ_U(t.nodes[2].calls, 1);
	CHECK_EQ_U(t.stats.controls[JCAL_CTL_STOP], 1);
	CHECK_EQ_U(t.stats.controls[JCAL_CTL_START], 1);
	CHECK_EQ_U(t.stats.controls[JCAL_CTL_MARK], 1);
	CHECK_EQ_U(t.stats.events, 4);
	CHECK_EQ_U(t.stats.unmatched_exits + t.stats.mismatched_exits, 0);
	calltree_free(&t);
}

static void test_backwards_and_bad_input(void)
{
	struct calltree t;

	CHECK_EQ_I(calltree_init(&t, 0, NULL), -EINVAL);
	CHECK_EQ_I(calltree_init(&t, JCAL_MAX_METRICS + 1, NULL), -EINVAL);
	CHECK_EQ_I(calltree_init(&t, 1, NULL), 0);
	ev(&t, 10, JCAL_TR_ENTRY, 1, JCAL_MT_INTERP);
	ev(&t, 5, JCAL_TR_EXIT, 1, JCAL_MT_INTERP);
	CHECK_EQ_I(calltree_event(&t, 1, 4, 0, (uint64_t[4]){6}), -EINVAL);
	CHECK_EQ_I(calltree_event(&t, 0, JCAL_TR_CONTROL, JCAL_CTL_COUNT, (uint64_t[4]){6}),
		   -EINVAL);
	CHECK_EQ_I(calltree_event(&t, 1, JCAL_TR_ENTRY, 99, (uint64_t[4]){6}), 0);
	CHECK_EQ_I(calltree_finish(&t), 0);
	CHECK_EQ_U(t.stats.backwards, 1);
	CHECK_EQ_U(t.stats.by_type[JCAL_MT_OTHER], 1);
	CHECK_EQ_U(calltree_fig(&t, 1, 0)->raw_base, 0);
	CHECK_EQ_U(calltree_fig(&t, CALLTREE_ROOT, 0)->cum, 1);
	calltree_free(&t);
}

/* Wide and deep trees: the children map grows; recursion levels. */
static void test_many_contexts(void)
{
	struct calltree t;
	uint64_t v = 0;
	const uint32_t wide = 100000, deep = 20000;

	CHECK_EQ_I(calltree_init(&t, 1, NULL), 0);
	for (int rep = 0; rep < 2; rep++)
		for (uint32_t m = 1; m <= wide; m++) {
			ev(&t, v++, JCAL_TR_ENTRY, m, JCAL_MT_INTERP);
			ev(&t, v++, JCAL_TR_EXIT, m, JCAL_MT_INTERP);
		}
	for (uint32_t d = 0; d < deep; d++)
		ev(&t, v++, JCAL_TR_ENTRY, 1 + d % 2, JCAL_MT_INTERP);
	for (uint32_t d = deep; d-- > 0;)
		ev(&t, v++, JCAL_TR_EXIT, 1 + d % 2, JCAL_MT_INTERP);
	CHECK_EQ_I(calltree_finish(&t), 0);
	CHECK_EQ_U(t.nnodes, 1 + wide + deep - 1);
	CHECK_EQ_U(t.max_level, deep);
	CHECK_EQ_U(t.nodes[1].calls, 3);
	CHECK_EQ_U(t.nodes[2].calls, 2);
	CHECK_EQ_U(t.nodes[t.nnodes - 1].rl, deep / 2);
	CHECK_EQ_U(t.nodes[t.nnodes - 1].level, deep);
	CHECK_EQ_U(calltree_fig(&t, CALLTREE_ROOT, 0)->cum, v - 1);
	CHECK_EQ_U(total_base(&t), v - 1);
	calltree_free(&t);
}

static void test_seqkey_text(void)
{
	static const struct {
		const char *text;
		int ok;
	} cases[] = {
	    {"i:E:I:X:i", 1}, {"O:E:I:E:i", 1},	 {"N:X:I:X:O", 1}, {"j:T:J:E:n", 1},
	    {"i:E:I:X", 0},   {"i:E:I:X:i ", 0}, {"i-E-I-X-i", 0}, {"x:E:I:X:i", 0},
	    {"i:Q:I:X:i", 0}, {"", 0},		 {"i:E:I:X:E", 0}, {"E:E:I:X:i", 0},
	};
	struct seqkey k;
	char buf[SEQKEY_TEXT_LEN];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = seqkey_parse(cases[i].text, &k);

		CHECK_EQ_I(r, cases[i].ok ? 0 : -1);
		if (r == 0)
			CHECK_STR(seqkey_format(&k, buf), cases[i].text);
	}
	CHECK_EQ_U(SEQKEY_COUNT, 7 * 3 * 7 * 3 * 7);
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		struct seqkey k2;

		seqkey_from_index(i, &k);
		seqkey_format(&k, buf);
		CHECK_EQ_I(seqkey_parse(buf, &k2), 0);
		CHECK_EQ_U(seqkey_index(&k2), i);
	}
}

/* The hand-made table of calib-small.md and the hook that applies it. */
struct small_table {
	const char *keys[8];
	int64_t comp[8];
	int n;
	int clamped, fallback;
	char seen[16][SEQKEY_TEXT_LEN];
	int nseen;
};

static int same_kind(unsigned a, unsigned b)
{
	/* ignores static-ness: I/i, J/j, N/n pair up; O only with O */
	return a == b || (a < JCAL_MT_OTHER && b < JCAL_MT_OTHER && a / 2 == b / 2);
}

static int64_t small_comp(void *ctx, const struct seqkey *key, unsigned metric, uint64_t raw)
{
	struct small_table *tab = ctx;
	char buf[SEQKEY_TEXT_LEN];
	int64_t c = -1, min = INT64_MAX, v;

	(void)metric;
	seqkey_format(key, buf);
	if (tab->nseen < 16)
		strcpy(tab->seen[tab->nseen++], buf);
	for (int i = 0; i < tab->n; i++) {
		struct seqkey k;

		seqkey_parse(tab->keys[i], &k);
		if (tab->comp[i] < min)
			min = tab->comp[i];
		if (!strcmp(tab->keys[i], buf))
			c = tab->comp[i];
	}
	for (int i = 0; c < 0 && i < tab->n; i++) {
		struct seqkey k;

		seqkey_parse(tab->keys[i], &k);
		if (k.t1 == key->t1 && k.t2 == key->t2 && same_kind(k.m1, key->m1) &&
		    same_kind(k.m2, key->m2) && same_kind(k.m3, key->m3))
			c = tab->comp[i];
	}
	if (c < 0) {
		c = min;
		tab->fallback++;
	}
	v = (int64_t)raw - c;
	if (v < 0) {
		tab->clamped++;
		v = 0;
	}
	return v;
}

static void test_calib_small(void)
{
	struct small_table tab = {
	    .keys = {"O:E:I:E:i", "I:E:i:X:I", "i:X:I:E:N", "I:E:N:X:I"},
	    .comp = {25, 30, 35, 15},
	    .n = 4,
	};
	struct calltree_comp comp = {.fn = small_comp, .ctx = &tab, .batch = NULL};
	static const char *want_keys[] = {"O:E:I:E:i", "I:E:i:X:I", "i:X:I:E:N", "I:E:N:X:I",
					  "N:X:I:X:O"};
	struct calltree t;
	const uint32_t main_id = 1, foo = 2, bar = 3;

	CHECK_EQ_I(calltree_init(&t, 1, &comp), 0);
	ev(&t, 100, JCAL_TR_ENTRY, main_id, JCAL_MT_INTERP_STATIC);
	ev(&t, 130, JCAL_TR_ENTRY, foo, JCAL_MT_INTERP);
	ev(&t, 170, JCAL_TR_EXIT, foo, JCAL_MT_INTERP);
	ev(&t, 200, JCAL_TR_ENTRY, bar, JCAL_MT_NATIVE_STATIC);
	ev(&t, 220, JCAL_TR_EXIT, bar, JCAL_MT_NATIVE_STATIC);
	ev(&t, 260, JCAL_TR_EXIT, main_id, JCAL_MT_INTERP_STATIC);
	CHECK_EQ_I(calltree_finish(&t), 0);
	/* one hook call per delta and metric: metric 0 only */
	CHECK_EQ_I(tab.nseen, 5);
	for (int i = 0; i < 5 && i < tab.nseen; i++)
		CHECK_STR(tab.seen[i], want_keys[i]);
	CHECK_EQ_I(tab.clamped, 1);
	CHECK_EQ_I(tab.fallback, 1);
	CHECK_EQ_U(t.nodes[1].method, main_id);
	CHECK_EQ_U(calltree_fig(&t, 1, 0)->base, 30);
	CHECK_EQ_U(calltree_fig(&t, 1, 0)->cum, 45);
	CHECK_EQ_U(calltree_fig(&t, 1, 0)->raw_base, 100);
	CHECK_EQ_U(calltree_fig(&t, 1, 0)->raw_cum, 160);
	CHECK_EQ_U(t.nodes[2].method, foo);
	CHECK_EQ_U(calltree_fig(&t, 2, 0)->base, 10);
	CHECK_EQ_U(calltree_fig(&t, 2, 0)->raw_base, 40);
	CHECK_EQ_U(t.nodes[3].method, bar);
	CHECK_EQ_U(calltree_fig(&t, 3, 0)->base, 5);
	CHECK_EQ_U(calltree_fig(&t, 3, 0)->raw_base, 20);
	CHECK_EQ_U(calltree_fig(&t, CALLTREE_ROOT, 0)->cum, 45);
	CHECK_EQ_U(calltree_fig(&t, CALLTREE_ROOT, 0)->raw_cum, 160);
	calltree_free(&t);
}

/* The table rows of calib-small.md, parsed from the golden file. */
static void test_calib_small_keys_file(void)
{
	char lines[64][256];
	int n = golden_lines("calib-small.md", lines, 64), found = 0;

	CHECK(n > 0);
	for (int i = 0; i < n; i++) {
		char *p = strchr(lines[i], '`'), *q;
		struct seqkey k;
		char buf[SEQKEY_TEXT_LEN];

		/* rows of the deltas table: "| 1->2 | 30 | main | `O:E:I:E:i` |" */
		if (!p || strncmp(lines[i], "| ", 2) || !strstr(lines[i], "->"))
			continue;
		q = strchr(p + 1, '`');
		CHECK(q != NULL);
		if (!q)
			continue;
		*q = '\0';
		CHECK_EQ_I(seqkey_parse(p + 1, &k), 0);
		CHECK_STR(seqkey_format(&k, buf), p + 1);
		found++;
	}
	CHECK_EQ_I(found, 5);
}

/* Trees of ended threads kept as one: every path's calls and metric add
 * up, paths only one thread had are kept, statistics summed. */
static void test_merge(void)
{
	struct calltree a, b, d;
	char path[256];
	uint64_t calls_ab = 0, calls_ac = 0, calls_b = 0, sum = 0;

	CHECK_EQ_I(calltree_init(&a, 2, NULL), 0);
	CHECK_EQ_I(calltree_init(&b, 2, NULL), 0);
	CHECK_EQ_I(calltree_init(&d, 2, NULL), 0);
	ev(&a, 0, JCAL_TR_ENTRY, 1, JCAL_MT_INTERP); /* A */
	ev(&a, 2, JCAL_TR_ENTRY, 2, JCAL_MT_INTERP); /* A;B */
	ev(&a, 5, JCAL_TR_EXIT, 2, JCAL_MT_INTERP);
	ev(&a, 6, JCAL_TR_EXIT, 1, JCAL_MT_INTERP);
	ev(&b, 10, JCAL_TR_ENTRY, 1, JCAL_MT_INTERP); /* A */
	ev(&b, 11, JCAL_TR_ENTRY, 2, JCAL_MT_INTERP); /* A;B twice */
	ev(&b, 13, JCAL_TR_EXIT, 2, JCAL_MT_INTERP);
	ev(&b, 14, JCAL_TR_ENTRY, 2, JCAL_MT_INTERP);
	ev(&b, 15, JCAL_TR_EXIT, 2, JCAL_MT_INTERP);
	ev(&b, 17, JCAL_TR_ENTRY, 3, JCAL_MT_INTERP); /* A;C */
	ev(&b, 20, JCAL_TR_EXIT, 3, JCAL_MT_INTERP);
	ev(&b, 21, JCAL_TR_EXIT, 1, JCAL_MT_INTERP);
	ev(&b, 25, JCAL_TR_EXIT, 2, JCAL_MT_INTERP); /* B unmatched: reparents */
	CHECK_EQ_I(calltree_merge(&d, &a), 0);
	CHECK_EQ_I(calltree_merge(&d, &b), 0);
	CHECK_EQ_I(calltree_finish(&d), 0);
	for (uint32_t i = 1; i < d.nnodes; i++) {
		node_path(&d, i, path, sizeof(path));
		if (!strcmp(path, "A;B"))
			calls_ab = d.nodes[i].calls;
		if (!strcmp(path, "B;A;C"))
			calls_ac = d.nodes[i].calls;
		if (!strcmp(path, "B"))
			calls_b = d.nodes[i].calls;
	}
	CHECK_EQ_U(calls_ab, 1); /* a's A;B */
	CHECK_EQ_U(calls_ac, 1); /* b's C under the reparented B;A */
	CHECK_EQ_U(calls_b, 1);	 /* b's unmatched exit */
	sum = total_base(&d);
	CHECK_EQ_U(sum, total_base(&a) + total_base(&b));
	CHECK_EQ_U(calltree_fig(&d, CALLTREE_ROOT, 0)->cum, 6 + 15);
	CHECK_EQ_U(d.stats.events, a.stats.events + b.stats.events);
	CHECK_EQ_U(d.stats.unmatched_exits, 1);
	/* metric 1 (2 x metric 0 in ev) is merged too */
	CHECK_EQ_U(calltree_fig(&d, CALLTREE_ROOT, 1)->raw_cum, 2 * (6 + 15));
	calltree_free(&a);
	calltree_free(&b);
	calltree_free(&d);
}

/* ---- calltree_events() against calltree_event() ---- */

static uint64_t eq_rng = 0x2545f4914f6cdd1dull;

static uint64_t eq_rand(void)
{
	return xorshift_next(&eq_rng);
}

/* A compensation that depends on the key and the delta, and its batch form. */
static int64_t eq_comp(void *ctx, const struct seqkey *key, unsigned metric, uint64_t d)
{
	(void)ctx;
	return metric ? (int64_t)d
		      : (int64_t)d - (int64_t)(seqkey_index(key) % 17) - (int64_t)(d % 5);
}

/* No compensation, through a hook: calltree_event() then takes every step
 * the general way, the reference the faster ways are compared with. */
static int64_t eq_ident(void *ctx, const struct seqkey *key, unsigned metric, uint64_t d)
{
	(void)ctx;
	(void)key;
	(void)metric;
	return (int64_t)d;
}

static void eq_comp_batch(void *ctx, const uint16_t *key, const uint64_t *d, int64_t *out, size_t n)
{
	(void)ctx;
	for (size_t k = 0; k < n; k++)
		out[k] = (int64_t)d[k] - (int64_t)(key[k] % 17) - (int64_t)(d[k] % 5);
}

/* n random events of nm metrics: calls and returns around a drifting
 * depth with deep recursion, exits of frames not on the stack or deeper
 * in it, region stops/starts/marks, metrics that sometimes go back. */
static void eq_gen(uint32_t *method, uint8_t *tr, uint8_t *type, uint64_t *metric, size_t n,
		   unsigned nm)
{
	uint32_t stack[600];
	uint32_t depth = 0;
	uint64_t v[JCAL_MAX_METRICS] = {1000, 5000, 7, 9};

	for (size_t k = 0; k < n; k++) {
		uint64_t r = eq_rand();
		unsigned what = (unsigned)(r % 100);

		type[k] = (uint8_t)((r >> 8) % JCAL_MT_COUNT);
		if (what < 2) {
			tr[k] = JCAL_TR_CONTROL;
			type[k] = (uint8_t)((r >> 16) % JCAL_CTL_COUNT);
			method[k] = 0;
		} else if (what < 4) { /* not on the stack, or deeper in it */
			tr[k] = what == 2 ? JCAL_TR_EXIT : JCAL_TR_THROW;
			method[k] = depth > 2 && (r >> 20) % 2 ? stack[depth - 3]
							       : 900 + (uint32_t)(r >> 24) % 50;
			if (depth > 2 && method[k] == stack[depth - 3])
				depth -= 3;
			else
				depth = 0;
		} else if (depth < 550 && (what < 52 || depth == 0)) {
			tr[k] = JCAL_TR_ENTRY;
			/* runs of recursion and a few hot callees */
			method[k] =
			    what < 12 && depth ? stack[depth - 1] : 1 + (uint32_t)((r >> 32) % 23);
			stack[depth++] = method[k];
		} else {
			tr[k] = what < 97 ? JCAL_TR_EXIT : JCAL_TR_THROW;
			method[k] = stack[--depth];
		}
		for (unsigned i = 0; i < nm; i++) {
			uint64_t step = (r >> (40 + i)) % 300;
			v[i] = (r >> 60) == 0 && v[i] > 100 ? v[i] - 50 : v[i] + step;
			metric[k * nm + i] = v[i];
		}
	}
}

static void eq_compare(const struct calltree *a, const struct calltree *b)
{
	CHECK_EQ_U(a->nnodes, b->nnodes);
	CHECK(memcmp(&a->stats, &b->stats, sizeof(a->stats)) == 0);
	for (uint32_t i = 0; i < a->nnodes && i < b->nnodes; i++) {
		const struct calltree_node *x = &a->nodes[i], *y = &b->nodes[i];
		const struct calltree_fig *xf = calltree_fig(a, i, 0), *yf = calltree_fig(b, i, 0);

		if (x->parent != y->parent || x->method != y->method || x->calls != y->calls ||
		    a->nmetrics != b->nmetrics || memcmp(xf, yf, a->nmetrics * sizeof(*xf))) {
			CHECK(!"node differs");
			fprintf(stderr,
				"  node %u: calls %" PRIu64 "/%" PRIu64 " raw %" PRIu64 "/%" PRIu64
				" base %" PRIu64 "/%" PRIu64 "\n",
				i, x->calls, y->calls, xf[0].raw_base, yf[0].raw_base, xf[0].base,
				yf[0].base);
			return;
		}
	}
}

/* n events of eq_gen with nm metrics; a built from them one at a time
 * (the general way: uncompensated through eq_ident) and b set up alike,
 * compensated as c says: 0 not at all, 1 by a per-delta hook, 2 by a hook
 * with its batch form. Returns a's error. */
static int eq_start(struct calltree *a, struct calltree *b, unsigned nm, unsigned c,
		    uint32_t *method, uint8_t *tr, uint8_t *type, uint64_t *metric, size_t n)
{
	struct calltree_comp comp = {
	    .fn = eq_comp, .ctx = NULL, .batch = c == 2 ? eq_comp_batch : NULL};
	struct calltree_comp ident = {.fn = eq_ident};
	int ea = 0;

	eq_gen(method, tr, type, metric, n, nm);
	CHECK_EQ_I(calltree_init(a, nm, c ? &comp : &ident), 0);
	CHECK_EQ_I(calltree_init(b, nm, c ? &comp : NULL), 0);
	for (size_t i = 0; i < n && !ea; i++)
		ea = calltree_event(a, method[i], tr[i], type[i], &metric[i * nm]);
	return ea;
}

/* a, built one event at a time (ea its error), and b, built another way
 * (eb), from eq_gen's events: both without error, every rare case met,
 * the same tree once finished; both freed. */
static void eq_finish(struct calltree *a, struct calltree *b, int ea, int eb)
{
	CHECK_EQ_I(ea, 0);
	CHECK_EQ_I(eb, 0);
	CHECK(a->stats.unmatched_exits > 0 && a->stats.mismatched_exits > 0);
	CHECK(a->stats.backwards > 0 && a->stats.controls[JCAL_CTL_STOP] > 0);
	CHECK_EQ_I(calltree_finish(a), 0);
	CHECK_EQ_I(calltree_finish(b), 0);
	eq_compare(a, b);
	calltree_free(a);
	calltree_free(b);
}

/* calltree_rest() between events (a thread's end, then more events of
 * it): the tree is the one built without it; with no frame open the
 * stacks go, with one open they stay. */
static void test_rest_between_events(void)
{
	static const struct {
		unsigned tr;
		uint32_t m;
		int rest_after;
	} evs[] = {
	    {JCAL_TR_ENTRY, 1, 0}, {JCAL_TR_ENTRY, 2, 0}, {JCAL_TR_EXIT, 2, 0},
	    {JCAL_TR_EXIT, 1, 1},  {JCAL_TR_ENTRY, 1, 0}, {JCAL_TR_ENTRY, 3, 0},
	    {JCAL_TR_EXIT, 3, 1},  {JCAL_TR_EXIT, 1, 0},  {JCAL_TR_ENTRY, 4, 0},
	    {JCAL_TR_EXIT, 4, 1},
	};
	struct calltree a, b;
	uint64_t v = 10;

	CHECK_EQ_I(calltree_init(&a, 1, NULL), 0);
	CHECK_EQ_I(calltree_init(&b, 1, NULL), 0);
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++, v += 3) {
		ev(&a, v, evs[i].tr, evs[i].m, JCAL_MT_INTERP);
		ev(&b, v, evs[i].tr, evs[i].m, JCAL_MT_INTERP);
		if (!evs[i].rest_after)
			continue;
		calltree_rest(&b);
		CHECK(b.pend == NULL && b.comp_count == NULL);
		if (b.keys.depth)
			CHECK(b.stack != NULL && b.keys.stack != NULL);
		else
			CHECK(b.stack == NULL && b.keys.stack == NULL && b.stack_cap == 0);
	}
	CHECK_EQ_I(calltree_finish(&a), 0);
	CHECK_EQ_I(calltree_finish(&b), 0);
	eq_compare(&a, &b);
	CHECK_EQ_U(b.nnodes, 5);
	CHECK_EQ_U(calltree_fig(&b, CALLTREE_ROOT, 0)->raw_cum, 27);
	calltree_free(&a);
	calltree_free(&b);
}

/* A parent with more children than the builder looks through before its
 * hash map: 20 children called in a shuffled order, the map's part
 * starting with the ninth; then an exit of a frame opened before the
 * trace adopts them all, and the root gets new children of the same
 * methods. Every (parent, method) is one node, with exact calls. */
static void test_wide_parent(void)
{
	struct calltree t;
	uint64_t v = 0;
	uint32_t n;

	CHECK_EQ_I(calltree_init(&t, 1, NULL), 0);
	for (uint32_t rep = 0; rep < 5; rep++)
		for (uint32_t i = 0; i < 20; i++) {
			uint32_t m = 1 + (i * 7 + rep * 3) % 20;

			ev(&t, v++, JCAL_TR_ENTRY, m, JCAL_MT_INTERP);
			ev(&t, v++, JCAL_TR_EXIT, m, JCAL_MT_INTERP);
		}
	CHECK_EQ_U(t.nnodes, 21);
	ev(&t, v++, JCAL_TR_EXIT, 99, JCAL_MT_INTERP); /* adopts the 20 */
	CHECK_EQ_U(t.nnodes, 22);
	for (uint32_t m = 1; m <= 12; m++) {
		ev(&t, v++, JCAL_TR_ENTRY, m, JCAL_MT_INTERP);
		ev(&t, v++, JCAL_TR_EXIT, m, JCAL_MT_INTERP);
	}
	CHECK_EQ_U(t.nnodes, 34);
	n = calltree_child_find(&t, CALLTREE_ROOT, 99);
	CHECK(n != CALLTREE_NONE);
	for (uint32_t m = 1; m <= 20; m++) {
		uint32_t under = calltree_child_find(&t, n, m);
		uint32_t root = calltree_child_find(&t, CALLTREE_ROOT, m);

		CHECK(under != CALLTREE_NONE && t.nodes[under].parent == n);
		CHECK_EQ_U(t.nodes[under].calls, 5);
		if (m <= 12) {
			CHECK(root != CALLTREE_NONE && root != under);
			CHECK_EQ_U(t.nodes[root].calls, 1);
		} else {
			CHECK_EQ_U(root, CALLTREE_NONE);
		}
	}
	CHECK_EQ_U(calltree_child_find(&t, n, 21), CALLTREE_NONE);
	CHECK_EQ_I(calltree_finish(&t), 0);
	CHECK_EQ_U(total_base(&t), v - 1);
	calltree_free(&t);
}

static void test_events_batch_same_tree(void)
{
	enum { N = 60000 };
	uint32_t *method = malloc(N * sizeof(*method));
	uint8_t *tr = malloc(N), *type = malloc(N);
	uint64_t *metric = malloc((size_t)N * 2 * sizeof(*metric));

	for (unsigned nm = 1; nm <= 2; nm++) {
		for (unsigned c = 0; c < 3; c++) {
			struct calltree a, b;
			size_t k = 0;
			int ea = eq_start(&a, &b, nm, c, method, tr, type, metric, N), eb = 0;

			while (k < N && !eb) {
				size_t len = 1 + (size_t)(eq_rand() % 1100);

				if (len > N - k)
					len = N - k;
				eb = calltree_events(&b, method + k, tr + k, type + k,
						     metric + k * nm, len);
				k += len;
			}
			eq_finish(&a, &b, ea, eb);
		}
	}
	/* one event at a time as the agent builds its trees: raw, or with a
	 * batch hook (charges deferred, made by calltree_flush before a read) */
	for (unsigned c = 0; c < 3; c += 2) {
		struct calltree a, b;
		int ea = eq_start(&a, &b, 1, c, method, tr, type, metric, N), eb = 0;

		for (size_t k = 0; k < N && !eb; k++) {
			eb = calltree_event(&b, method[k], tr[k], type[k], &metric[k]);
			if (k == N / 2) {
				calltree_flush(&b);
				CHECK_EQ_U(b.pend ? b.pend->n : 0, 0);
			}
		}
		CHECK(c == 0 || (b.pend && b.pend->n > 0)); /* some left for calltree_finish */
		eq_finish(&a, &b, ea, eb);
	}
	free(method);
	free(tr);
	free(type);
	free(metric);
}

/* calltree_watch's view: per node, its calls that ended and their cums
 * and raw cums added up; frames opened and not yet ended. */
struct watched {
	uint64_t calls[1 << 16], cum[1 << 16][2], raw[1 << 16][2];
	uint64_t open, live;
	unsigned nm;
	int bad;
};

static int watch_enter(void *ctx, uint32_t node, const uint64_t *metric)
{
	struct watched *w = ctx;

	(void)metric;
	w->open++;
	w->bad |= node >= (1u << 16);
	return 0;
}

static int watch_leave(void *ctx, uint32_t node, const uint64_t *cum, const uint64_t *raw, int live)
{
	struct watched *w = ctx;

	if (node >= (1u << 16) || (!live && !w->open)) {
		w->bad = 1;
		return 0;
	}
	w->open -= !live;
	w->live += live != 0;
	w->calls[node]++;
	for (unsigned i = 0; i < w->nm; i++) {
		w->cum[node][i] += cum[i];
		w->raw[node][i] += raw[i];
	}
	return 0;
}

/* calltree_watch tells every call as it ends: as many as each node has
 * calls, their cums adding up to the node's cum, raw and compensated, on
 * eq_gen's events (unmatched and mismatched exits, region gaps, metrics
 * going back, frames open at the end); the tree is the one built without
 * it, by calltree_events or one event at a time. */
static void test_watch_sums(void)
{
	enum { N = 60000 };
	static struct watched w;
	uint32_t *method = malloc(N * sizeof(*method));
	uint8_t *tr = malloc(N), *type = malloc(N);
	uint64_t *metric = malloc((size_t)N * 2 * sizeof(*metric));

	for (unsigned nm = 1; nm <= 2; nm++) {
		for (unsigned c = 0; c < 3; c++) {
			struct calltree_watch cb = {&w, watch_enter, watch_leave};
			struct calltree a, b;
			int ea = eq_start(&a, &b, nm, c, method, tr, type, metric, N), eb;

			memset(&w, 0, sizeof(w));
			w.nm = nm;
			CHECK_EQ_I(calltree_watch(&b, &cb), 0);
			eb = c == 1 ? calltree_events(&b, method, tr, type, metric, N) : 0;
			for (size_t k = 0; c != 1 && k < N && !eb; k++)
				eb = calltree_event(&b, method[k], tr[k], type[k], &metric[k * nm]);
			CHECK_EQ_I(calltree_finish(&b), 0);
			CHECK(!w.bad && w.open == 0 && w.live == b.stats.unmatched_exits);
			CHECK_EQ_U(b.nnodes < (1u << 16), 1);
			for (uint32_t n = 1; n < b.nnodes && n < (1u << 16); n++) {
				int same = w.calls[n] == b.nodes[n].calls;

				for (unsigned i = 0; i < nm; i++)
					same &= w.cum[n][i] == calltree_fig(&b, n, i)->cum &&
						w.raw[n][i] == calltree_fig(&b, n, i)->raw_cum;
				if (!same) {
					CHECK(!"a node's calls do not add up to it");
					fprintf(stderr,
						"  node %u: calls %" PRIu64 "/%" PRIu64
						" cum %" PRIu64 "/%" PRIu64 "\n",
						n, w.calls[n], b.nodes[n].calls, w.cum[n][0],
						calltree_fig(&b, n, 0)->cum);
					break;
				}
			}
			/* eq_finish finishes b again (nothing to do) and compares */
			eq_finish(&a, &b, ea, eb);
		}
	}
	free(method);
	free(tr);
	free(type);
	free(metric);
}

/* The n events of eq_gen (nm metrics) encoded into chunks of random
 * lengths, each taken by calltree_decode() straight from its bytes (or,
 * for two metrics, which it leaves, by calltree_events()) into b. Returns
 * b's error. */
static int eq_decode(struct calltree *b, unsigned nm, const uint32_t *method, const uint8_t *tr,
		     const uint8_t *type, const uint64_t *metric, size_t N)
{
	enum { CAP = 1 << 16 };
	static uint8_t buf[CAP];
	static uint32_t shadow[TRACE_SHADOW_DEPTH];
	static struct trace_events_enc enc;
	size_t k = 0, chunks = 0;
	int eb = 0;

	trace_events_init(&enc, buf, CAP, 3, nm);
	while (k < N && !eb) {
		size_t len = 1 + (size_t)(eq_rand() % 3000), i, n;
		struct event_run r;

		if (len > N - k)
			len = N - k;
		trace_events_reset(&enc);
		for (i = k; i < k + len; i++)
			if (tr[i] == JCAL_TR_CONTROL)
				trace_events_add_control(&enc, type[i], method[i], &metric[i * nm]);
			else
				trace_events_add(&enc, tr[i], type[i], method[i], &metric[i * nm]);
		n = trace_events_finish(&enc);
		memset(&r, 0, sizeof(r));
		r.p = buf + TRACE_CHUNK_HEADER_LEN + 2; /* serial 3, nm */
		r.end = buf + n;
		r.stack = shadow;
		r.nmetrics = buf[TRACE_CHUNK_HEADER_LEN + 1];
		CHECK_EQ_U(r.nmetrics, nm);
		eb = calltree_decode(b, &r);
		if (nm == 1) {
			CHECK(r.p == r.end);
			CHECK_EQ_U(r.events, len);
		} else {
			CHECK_EQ_U(r.events, 0); /* left to calltree_events */
			eb = calltree_events(b, method + k, tr + k, type + k, metric + k * nm, len);
		}
		k += len;
		chunks++;
	}
	CHECK(N < 60000 || chunks > 20); /* eq_gen's traces cut in many places */
	return eb;
}

/* The events of eq_gen taken by calltree_decode() build the tree
 * calltree_event() builds from them one at a time. */
static void test_decode_same_tree(void)
{
	enum { N = 60000 };
	uint32_t *method = malloc(N * sizeof(*method));
	uint8_t *tr = malloc(N), *type = malloc(N);
	uint64_t *metric = malloc((size_t)N * 2 * sizeof(*metric));

	for (unsigned nm = 1; nm <= 2; nm++) {
		for (unsigned c = 0; c < 3; c++) {
			struct calltree a, b;
			int ea = eq_start(&a, &b, nm, c, method, tr, type, metric, N);

			eq_finish(&a, &b, ea, eq_decode(&b, nm, method, tr, type, metric, N));
		}
	}
	free(method);
	free(tr);
	free(type);
	free(metric);
}

/* Past what calltree_decode()'s loop for common events takes: a first
 * event (its delta is nobody's), frames deeper than the decoder's shadow
 * stack (their exits written with the method id), and a recursion that
 * outgrows the builder's stacks, raw and compensated by a hook. Each
 * chunk's tree is the one calltree_event() builds, and the deep frames'
 * counts are exact. */
static void test_decode_deep_and_first(void)
{
	enum { DEEP = TRACE_SHADOW_DEPTH + 300, N = 2 * DEEP + 6 };
	uint32_t *method = malloc(N * sizeof(*method));
	uint8_t *tr = malloc(N), *type = malloc(N);
	uint64_t *metric = malloc(N * sizeof(*metric));
	size_t k = 0;

	/* starts at 1000: the first event's delta is not charged */
	for (uint32_t i = 0; i < DEEP; i++, k++) {
		method[k] = 1 + i % 3;
		tr[k] = JCAL_TR_ENTRY;
		type[k] = (uint8_t)(i % 2 ? JCAL_MT_INTERP : JCAL_MT_NATIVE_STATIC);
		metric[k] = 1000 + 7 * k;
	}
	for (uint32_t i = DEEP; i-- > 0; k++) {
		method[k] = 1 + i % 3;
		tr[k] = i % 5 ? JCAL_TR_EXIT : JCAL_TR_THROW;
		type[k] = (uint8_t)(i % 2 ? JCAL_MT_INTERP : JCAL_MT_NATIVE_STATIC);
		metric[k] = 1000 + 7 * k;
	}
	for (uint32_t i = 0; i < 3; i++, k += 2) { /* after the deep walk, shallow again */
		method[k] = method[k + 1] = 9;
		tr[k] = JCAL_TR_ENTRY;
		tr[k + 1] = JCAL_TR_EXIT;
		type[k] = type[k + 1] = JCAL_MT_INTERP;
		metric[k] = 1000 + 7 * k;
		metric[k + 1] = 1000 + 7 * (k + 1);
	}
	CHECK_EQ_U(k, N);
	for (unsigned c = 0; c < 2; c++) {
		struct calltree_comp comp = {.fn = eq_comp}, ident = {.fn = eq_ident};
		struct calltree a, b;
		int ea = 0;
		uint32_t n = CALLTREE_ROOT;

		CHECK_EQ_I(calltree_init(&a, 1, c ? &comp : &ident), 0);
		CHECK_EQ_I(calltree_init(&b, 1, c ? &comp : NULL), 0);
		for (size_t i = 0; i < N && !ea; i++)
			ea = calltree_event(&a, method[i], tr[i], type[i], &metric[i]);
		CHECK_EQ_I(ea, 0);
		CHECK_EQ_I(eq_decode(&b, 1, method, tr, type, metric, N), 0);
		CHECK_EQ_I(calltree_finish(&a), 0);
		CHECK_EQ_I(calltree_finish(&b), 0);
		eq_compare(&a, &b);
		CHECK_EQ_U(b.nnodes, DEEP + 2);
		CHECK_EQ_U(b.stats.events, N);
		CHECK_EQ_U(b.stats.by_transition[JCAL_TR_THROW], DEEP / 5 + 1);
		CHECK_EQ_U(b.stats.mismatched_exits + b.stats.unmatched_exits, 0);
		for (uint32_t i = 0; i < DEEP; i++)
			n = calltree_child_find(&b, n, 1 + i % 3);
		CHECK(n != CALLTREE_NONE && b.nodes[n].calls == 1);
		/* every step charged but the first: 7 a step, raw */
		CHECK_EQ_U(calltree_fig(&b, CALLTREE_ROOT, 0)->raw_cum, 7 * (N - 1));
		calltree_free(&a);
		calltree_free(&b);
	}
	free(method);
	free(tr);
	free(type);
	free(metric);
}

/* An implicit exit deeper than the shadow stack has no method to take:
 * calltree_decode() stops at it, the entries before it in. */
static void test_decode_implicit_exit_past_shadow(void)
{
	enum { DEEP = TRACE_SHADOW_DEPTH + 1 };
	static uint8_t chunk[3 * DEEP + 2];
	static uint32_t shadow[TRACE_SHADOW_DEPTH];
	struct event_run r;
	struct calltree t;

	for (size_t i = 0; i < DEEP; i++) {
		chunk[3 * i] = JCAL_TR_ENTRY | TRACE_TAG_EXPLICIT;
		chunk[3 * i + 1] = 1;
		chunk[3 * i + 2] = 2; /* delta 1 */
	}
	chunk[3 * DEEP] = JCAL_TR_EXIT;
	chunk[3 * DEEP + 1] = 2;
	memset(&r, 0, sizeof(r));
	r.p = chunk;
	r.end = chunk + sizeof(chunk);
	r.stack = shadow;
	r.nmetrics = 1;
	CHECK_EQ_I(calltree_init(&t, 1, NULL), 0);
	CHECK_EQ_I(calltree_decode(&t, &r), 0);
	CHECK(r.p == chunk + 3 * DEEP);
	CHECK_EQ_U(r.events, DEEP);
	CHECK_EQ_U(r.depth, DEEP);
	CHECK_EQ_U(t.nnodes, DEEP + 1);
	CHECK_EQ_U(t.stats.events, DEEP);
	calltree_free(&t);
}

/* A chunk whose last event is cut in its delta, after enough whole events
 * for the loop of common events to run up to it: decoding stops before
 * it and reads nothing past the chunk (its bytes end a heap block of their
 * own, for ASan to see). */
static void test_decode_cut_at_chunk_end(void)
{
	enum { PAIRS = 12 };
	const size_t len = PAIRS * 5 + 3;
	uint8_t *chunk = malloc(len);
	uint32_t shadow[TRACE_SHADOW_DEPTH];
	struct event_run r;
	struct calltree t;

	CHECK(chunk != NULL);
	if (!chunk)
		return;
	for (size_t i = 0; i < PAIRS; i++) { /* entry of 5, delta 1; exit, delta 2 */
		const uint8_t pair[] = {JCAL_TR_ENTRY | TRACE_TAG_EXPLICIT, 5, 2, JCAL_TR_EXIT, 4};

		memcpy(chunk + 5 * i, pair, sizeof(pair));
	}
	chunk[len - 3] = JCAL_TR_ENTRY | TRACE_TAG_EXPLICIT;
	chunk[len - 2] = 5;
	chunk[len - 1] = 0x80; /* a delta cut after its first byte */
	memset(&r, 0, sizeof(r));
	r.p = chunk;
	r.end = chunk + len;
	r.stack = shadow;
	r.nmetrics = 1;
	CHECK_EQ_I(calltree_init(&t, 1, NULL), 0);
	CHECK_EQ_I(calltree_decode(&t, &r), 0);
	CHECK(r.p == chunk + len - 3);
	CHECK_EQ_U(r.events, 2 * PAIRS);
	CHECK_EQ_U(r.acc[0], 3 * PAIRS);
	CHECK_EQ_U(t.nodes[1].calls, PAIRS);
	calltree_free(&t);
	free(chunk);
}

/* ---- the builder's own compensation through a table ---- */

/* What a compensation path counted: as calib_apply counts for the summary. */
struct tb_counts {
	struct calib_table *t;
	uint64_t deltas, clamped, similar, global;
	uint64_t by_key[SEQKEY_COUNT];
};

static int64_t tb_fn(void *ctx, const struct seqkey *key, unsigned metric, uint64_t d)
{
	struct tb_counts *c = ctx;
	struct calib_comp_result r;
	int64_t v = calib_comp_delta(c->t, key, metric, d, &r);

	if (r.compensated) {
		c->deltas++;
		c->clamped += (uint64_t)r.clamped;
		c->similar += r.match == CALIB_SIMILAR;
		c->global += r.match == CALIB_GLOBAL;
		c->by_key[seqkey_index(key)]++;
	}
	return v;
}

static void tb_batch(void *ctx, const uint16_t *key, const uint64_t *d, int64_t *out, size_t n)
{
	struct tb_counts *c = ctx;
	struct calib_comp_counts cc = {0, 0, 0};

	CHECK_EQ_I(calib_comp_batch(c->t, key, d, out, n, &cc), 0);
	c->deltas += n;
	c->clamped += cc.clamped;
	c->similar += cc.similar;
	c->global += cc.global;
	for (size_t k = 0; k < n; k++)
		c->by_key[key[k]]++;
}

static void tb_counted(void *ctx, const uint64_t *by_key, uint64_t clamped)
{
	struct tb_counts *c = ctx;

	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		c->deltas += by_key[i];
		c->similar += by_key[i] * c->t->step[i].similar;
		c->global += by_key[i] * c->t->step[i].global;
		c->by_key[i] += by_key[i];
	}
	c->clamped += clamped;
}

/* A table of random quantiles around eq_gen's steps (0..300) for three
 * keys in four (the others fall back to a similar key or the smallest
 * comp), a third of them with a fit, one key wide (overheads past 31
 * bits), applied with estimator est; prepared. */
static void tb_table(struct calib_table *t, enum calib_estimator est)
{
	CHECK_EQ_I(calib_table_init(t), 0);
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		struct calib_entry e = {0};
		struct seqkey k;
		uint64_t v;

		if (eq_rand() % 4 == 0 && i != 7)
			continue;
		seqkey_from_index(i, &k);
		e.min = 20 + eq_rand() % 100;
		e.samples = 100;
		e.env = eq_rand() % 20;
		e.has_stats = e.has_q = 1;
		v = e.min;
		for (unsigned j = 0; j < CALIB_NQ; j++) {
			v += eq_rand() % 30;
			e.q[j] = i == 7 && j == CALIB_NQ - 1 ? 3000000000ull : v;
		}
		e.median = e.q[8];
		e.p10 = e.q[1];
		e.mean = (double)e.q[7];
		if (eq_rand() % 3 == 0) {
			e.has_fit = 1;
			e.fit_a = (double)(eq_rand() % 80);
			e.fit_b = (double)(eq_rand() % 100) / 200.0;
		}
		calib_table_set(t, &k, &e);
	}
	calib_table_use_estimator(t, est);
	CHECK_EQ_I(calib_table_prepare(t), 0);
}

/* The builder compensating through a table itself (calltree_comp's table,
 * inline on its common path, in calltree_decode() and calltree_events())
 * gives the tree and the counts the hook gives one delta at a time, with
 * every estimator: cond, fit and cfit keys, a wide key, fallbacks. */
static void test_table_inline_same_tree(void)
{
	enum { N = 60000 };
	static const enum calib_estimator est[] = {CALIB_EST_COND, CALIB_EST_MIN, CALIB_EST_MEDIAN,
						   CALIB_EST_FIT, CALIB_EST_CFIT};
	uint32_t *method = malloc(N * sizeof(*method));
	uint8_t *tr = malloc(N), *type = malloc(N);
	uint64_t *metric = malloc((size_t)N * sizeof(*metric));
	static struct tb_counts ca, cb;

	for (unsigned e = 0; e < sizeof(est) / sizeof(est[0]); e++) {
		/* b decoded, in batches, one event at a time (as the agent), in
		 * batches with a calltree_rest() after each */
		for (unsigned how = 0; how < 4; how++) {
			struct calib_table t;
			struct calltree a, b;
			struct calltree_comp hook = {.fn = tb_fn, .ctx = &ca};
			struct calltree_comp own = {tb_fn, &cb, tb_batch, &t, tb_counted};
			int ea = 0, eb = 0;

			tb_table(&t, est[e]);
			memset(&ca, 0, sizeof(ca));
			memset(&cb, 0, sizeof(cb));
			ca.t = cb.t = &t;
			eq_gen(method, tr, type, metric, N, 1);
			CHECK_EQ_I(calltree_init(&a, 1, &hook), 0);
			CHECK_EQ_I(calltree_init(&b, 1, &own), 0);
			CHECK(b.comp_count == NULL); /* allocated with the first events */
			for (size_t i = 0; i < N && !ea; i++)
				ea = calltree_event(&a, method[i], tr[i], type[i], &metric[i]);
			if (how == 0) {
				eb = eq_decode(&b, 1, method, tr, type, metric, N);
			} else if (how == 2) {
				for (size_t i = 0; i < N && !eb; i++)
					eb = calltree_event(&b, method[i], tr[i], type[i],
							    &metric[i]);
			} else {
				for (size_t k = 0; k < N && !eb; k += 1000) {
					eb = calltree_events(&b, method + k, tr + k, type + k,
							     metric + k,
							     N - k < 1000 ? N - k : 1000);
					if (how == 3) {
						calltree_rest(&b);
						CHECK(b.comp_count == NULL && b.pend == NULL);
					}
				}
			}
			eq_finish(&a, &b, ea, eb);
			CHECK(ca.deltas > N / 2);
			CHECK(ca.similar > 0 && ca.global > 0 && ca.clamped > 0);
			CHECK_EQ_U(cb.deltas, ca.deltas);
			CHECK_EQ_U(cb.clamped, ca.clamped);
			CHECK_EQ_U(cb.similar, ca.similar);
			CHECK_EQ_U(cb.global, ca.global);
			CHECK(memcmp(ca.by_key, cb.by_key, sizeof(ca.by_key)) == 0);
			calib_table_free(&t);
		}
	}
	free(method);
	free(tr);
	free(type);
	free(metric);
}

/* A metric that jumps back lets the charged deltas add up past 2^64 - 1:
 * once it fell more than it rose outside charged steps, the tree's sums
 * saturate (satsum.h), one event at a time, in batches and decoded from a
 * chunk; a table's compensation included. Before the jump the common steps
 * go their fast way; the tree is the same whichever way it is built. */
static void test_sums_saturate(void)
{
	static struct tb_counts cb_counts;
	enum { N = 9 };
	const uint64_t h = 1ull << 63;
	const uint32_t method[N] = {1, 1, 1, 1, 2, 2, 1, 1, 3};
	const uint8_t tr[N] = {JCAL_TR_ENTRY, JCAL_TR_EXIT,  JCAL_TR_ENTRY,
			       JCAL_TR_EXIT,  JCAL_TR_ENTRY, JCAL_TR_EXIT,
			       JCAL_TR_ENTRY, JCAL_TR_EXIT,  JCAL_TR_ENTRY};
	const uint8_t type[N] = {0};
	/* run: 2^63, then (after a fall of 2^63) 2^63 again and 5: 2^64 + 5 */
	const uint64_t metric[N] = {0, h, 0, h, h, h + 1, h + 1, h + 6, h + 7};

	for (unsigned with_table = 0; with_table < 2; with_table++)
		for (unsigned how = 0; how < 3; how++) {
			struct calib_table tab;
			struct calltree_comp own = {tb_fn, &cb_counts, tb_batch, &tab, tb_counted};
			struct calltree t;
			uint32_t run;
			int err = 0;

			tb_table(&tab, CALIB_EST_MIN);
			memset(&cb_counts, 0, sizeof(cb_counts));
			cb_counts.t = &tab;
			satsum_reset();
			CHECK_EQ_I(calltree_init(&t, 1, with_table ? &own : NULL), 0);
			if (how == 0)
				for (size_t i = 0; i < N && !err; i++)
					err = calltree_event(&t, method[i], tr[i], type[i],
							     &metric[i]);
			else if (how == 1)
				err = calltree_events(&t, method, tr, type, metric, N);
			else
				err = eq_decode(&t, 1, method, tr, type, metric, N);
			CHECK_EQ_I(err, 0);
			CHECK(t.unsafe);
			CHECK_EQ_I(calltree_finish(&t), 0);
			run = calltree_child_find(&t, CALLTREE_ROOT, 1);
			CHECK(run != CALLTREE_NONE);
			if (run != CALLTREE_NONE) {
				CHECK_EQ_U(t.nodes[run].calls, 3);
				CHECK_EQ_U(calltree_fig(&t, run, 0)->raw_base, UINT64_MAX);
				if (!with_table)
					CHECK_EQ_U(calltree_fig(&t, run, 0)->base, UINT64_MAX);
			}
			CHECK_EQ_U(calltree_fig(&t, CALLTREE_ROOT, 0)->raw_cum, UINT64_MAX);
			CHECK(satsum_seen() & SATSUM_RAW_BASE);
			CHECK(satsum_seen() & SATSUM_RAW_CUM);
			calltree_free(&t);
			calib_table_free(&tab);
		}
	satsum_reset();
}

/* A malformed event stops calltree_decode() before it, with r at it and
 * unchanged, whatever the event's fault; the events before it are in. */
static void test_decode_stops_at_bad_event(void)
{
	/* entry of 5 (delta 10), implicit exit (delta 4), then the bad one */
	static const uint8_t head[] = {JCAL_TR_ENTRY | TRACE_TAG_EXPLICIT, 5, 20, JCAL_TR_EXIT, 8};
	static const struct {
		size_t len;
		uint8_t b[7];
		int cut; /* at the chunk's end */
	} bad[] = {
	    {3, {0xc0, 0, 0}, 0},	   /* reserved tag bits */
	    {3, {JCAL_TR_ENTRY, 2, 0}, 0}, /* entry without a method id */
	    {3, {JCAL_TR_EXIT, 2, 0}, 0},  /* implicit exit, empty shadow stack */
	    {3, {JCAL_TR_ENTRY | TRACE_TAG_EXPLICIT, 6, 0x80}, 1},	   /* cut delta */
	    {3, {JCAL_TR_CONTROL | (3 << TRACE_TAG_TYPE_SHIFT), 0, 0}, 0}, /* bad control */
	    /* a method id past 32 bits */
	    {7, {JCAL_TR_ENTRY | TRACE_TAG_EXPLICIT, 0x80, 0x80, 0x80, 0x80, 0x10, 2}, 0},
	    /* type 7 */
	    {3, {JCAL_TR_ENTRY | TRACE_TAG_EXPLICIT | (7 << TRACE_TAG_TYPE_SHIFT), 6, 2}, 0},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* the bad event and 16 bytes after it, but for a cut one: far
		 * enough from the end for the loop of common events to see it */
		uint8_t chunk[sizeof(head) + 7 + 16] = {0};
		uint32_t shadow[TRACE_SHADOW_DEPTH];
		struct event_run r;
		struct calltree t;

		memcpy(chunk, head, sizeof(head));
		memcpy(chunk + sizeof(head), bad[i].b, bad[i].len);
		memset(&r, 0, sizeof(r));
		r.p = chunk;
		r.end = chunk + sizeof(head) + bad[i].len + (bad[i].cut ? 0 : 16);
		r.stack = shadow;
		r.nmetrics = 1;
		CHECK_EQ_I(calltree_init(&t, 1, NULL), 0);
		CHECK_EQ_I(calltree_decode(&t, &r), 0);
		CHECK(r.p == chunk + sizeof(head));
		CHECK_EQ_U(r.events, 2);
		CHECK_EQ_U(r.depth, 0);
		CHECK_EQ_U(r.acc[0], 14);
		CHECK_EQ_U(t.nnodes, 2);
		CHECK_EQ_U(t.nodes[1].calls, 1);
		CHECK_EQ_U(calltree_fig(&t, 1, 0)->raw_base, 4);
		calltree_free(&t);
	}
}

/* calltree_watch's leave for test_hists_inline: nothing (its presence
 * keeps every event on the general path). */
static int hl_leave(void *ctx, uint32_t node, const uint64_t *cum, const uint64_t *raw, int live)
{
	(void)ctx, (void)node, (void)cum, (void)raw, (void)live;
	return 0;
}

/* The histograms a tree keeps on calltree_event()'s inline path (no
 * compensation, or a table applied inline, as the agent's output=tree)
 * are the general path's (a tree also watched), event for event, with
 * entries past the stacks' room, mismatched and unmatched exits. */
static void test_hists_inline(void)
{
	for (unsigned with_table = 0; with_table < 2; with_table++) {
		struct calib_table tab;
		struct tb_counts ca, cb;
		struct calltree_comp hook = {.fn = tb_fn, .ctx = &ca};
		struct calltree_comp own = {tb_fn, &cb, tb_batch, &tab, tb_counted};
		struct calltree_watch w = {.leave = hl_leave};
		struct calltree a, b;
		uint64_t rng = 99 + with_table, v = 1;
		uint32_t stack[64];
		unsigned d = 0;

		tb_table(&tab, CALIB_EST_MIN);
		memset(&ca, 0, sizeof(ca));
		memset(&cb, 0, sizeof(cb));
		ca.t = cb.t = &tab;
		CHECK_EQ_I(calltree_init(&a, 1, with_table ? &hook : NULL), 0);
		CHECK_EQ_I(calltree_init(&b, 1, with_table ? &own : NULL), 0);
		CHECK_EQ_I(calltree_keep_hists(&a), 0);
		CHECK_EQ_I(calltree_keep_hists(&b), 0);
		CHECK_EQ_I(calltree_watch(&a, &w), 0);
		for (int e = 0; e < 200000; e++) {
			uint64_t r = xorshift_next(&rng);
			uint32_t m = 1 + (uint32_t)(r >> 8) % 40;
			unsigned tr = JCAL_TR_ENTRY;

			v += 1 + (r >> 20) % 300;
			if (d && (d == 64 || r % 16 < 7)) {
				tr = r % 11 == 0 ? JCAL_TR_THROW : JCAL_TR_EXIT;
				if (r % 29 == 0 && d > 1 && stack[d - 2] != stack[d - 1])
					d--; /* mismatched: the frame below the top */
				m = stack[--d];
			} else if (!d && r % 13 == 0) {
				tr = JCAL_TR_EXIT; /* live before the trace */
			} else {
				stack[d++] = m;
			}
			CHECK_EQ_I(calltree_event(&a, m, tr, JCAL_MT_INTERP, &v), 0);
			CHECK_EQ_I(calltree_event(&b, m, tr, JCAL_MT_INTERP, &v), 0);
		}
		CHECK_EQ_U(a.nnodes, b.nnodes);
		CHECK_EQ_I(calltree_finish(&a), 0);
		CHECK_EQ_I(calltree_finish(&b), 0);
		for (uint32_t i = 0; i < a.nnodes && i < b.nnodes; i++) {
			const struct lathist *x = calltree_hist(&a, i), *y = calltree_hist(&b, i);

			CHECK((x == NULL) == (y == NULL));
			if (x && y &&
			    !(x->count == y->count && x->sum == y->sum && x->min == y->min &&
			      x->max == y->max && x->n == y->n &&
			      !memcmp(x->b, y->b, x->n * sizeof(x->b[0])))) {
				fprintf(stderr,
					"  node %u: %" PRIu64 " calls, %" PRIu64 " vs %" PRIu64
					"\n",
					i, x->count, x->sum, y->sum);
				CHECK(0);
				break;
			}
			CHECK_EQ_U(y ? y->count : 0, i ? b.nodes[i].calls : 0);
		}
		calltree_free(&a);
		calltree_free(&b);
		calib_table_free(&tab);
	}
}

int main(void)
{
	RUN(test_fig4a_tree);
	RUN(test_second_metric);
	RUN(test_unmatched_exits);
	RUN(test_unmatched_continued);
	RUN(test_unmatched_same_method);
	RUN(test_mismatched_exit);
	RUN(test_throw_and_open_frames);
	RUN(test_backwards_and_bad_input);
	RUN(test_many_contexts);
	RUN(test_region_gap);
	RUN(test_seqkey_text);
	RUN(test_calib_small);
	RUN(test_calib_small_keys_file);
	RUN(test_merge);
	RUN(test_events_batch_same_tree);
	RUN(test_wide_parent);
	RUN(test_rest_between_events);
	RUN(test_sums_saturate);
	RUN(test_decode_same_tree);
	RUN(test_decode_deep_and_first);
	RUN(test_decode_implicit_exit_past_shadow);
	RUN(test_decode_cut_at_chunk_end);
	RUN(test_table_inline_same_tree);
	RUN(test_hists_inline);
	RUN(test_decode_stops_at_bad_event);
	RUN(test_watch_sums);
	return test_summary("calltree");
}
