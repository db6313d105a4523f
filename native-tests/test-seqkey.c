/*
 * test-seqkey.c - unit tests of the sequence-key stepper and reachable keys
 * (common/seqkey.c): keys of hand-made event sequences (every transition
 * kind, the thread root, exceptions, unbalanced exits), the stepper against
 * an independent reference and against the tree builder, and the
 * enumeration of the keys each mode can produce.
 */
#include <errno.h>
#include <stdlib.h>

#include "common/calltree.h"
#include "common/seqkey.h"
#include "native-tests/test.h"

static unsigned type_of(char c)
{
	const char *p = strchr("IiJjNnO", c);
	return p ? (unsigned)(p - "IiJjNnO") : JCAL_MT_OTHER;
}

static unsigned trans_of(char c)
{
	return c == 'E' ? JCAL_TR_ENTRY : c == 'X' ? JCAL_TR_EXIT : JCAL_TR_THROW;
}

/*
 * Each case: events as "T<method><type>" words ("Ea I" = entry of method a,
 * type I), and the key expected at each event ("-" = none).
 */
static const struct {
	int line;
	const char *events;
	const char *keys;
} cases[] = {
    /* calib-small.md */
    {__LINE__, "EaI Ebi Xbi EcN XcN XaI", "- O:E:I:E:i I:E:i:X:I i:X:I:E:N I:E:N:X:I N:X:I:X:O"},
    /* exception exits pop like exits, T in the key */
    {__LINE__, "Eai Ebn Tbn Tai Eci", "- O:E:i:E:n i:E:n:T:i n:T:i:T:O i:T:O:E:i"},
    /* root between two top-level calls */
    {__LINE__, "EaI XaI EbI XbI", "- O:E:I:X:O I:X:O:E:I O:E:I:X:O"},
    /* jitted types pass through unchanged */
    {__LINE__, "Eaj EbJ XbJ Xaj", "- O:E:j:E:J j:E:J:X:j J:X:j:X:O"},
    /* unmatched exits with no frame open: the exiting method was running */
    {__LINE__, "Xai XbI Eci", "- i:X:I:X:O I:X:O:E:i"},
    {__LINE__, "Eai Xai XbN", "- O:E:i:X:O i:X:N:X:O"},
    /* mismatched exit: a deeper frame exits, the frames above are unwound */
    {__LINE__, "EaI Ebi Ecn XaI EdI", "- O:E:I:E:i I:E:i:E:n i:E:n:X:O n:X:O:E:I"},
    /* exit of a method not on the stack while frames are open: all unwound,
     * the frame that was current is m2 */
    {__LINE__, "EaI Ebi Xzn EcI", "- O:E:I:E:i I:E:i:X:O i:X:O:E:I"},
    /* recursion: the top frame with the method matches */
    {__LINE__, "Eai Eai Xai Xai", "- O:E:i:E:i i:E:i:X:i i:X:i:X:O"},
    /* type out of range is O */
    {__LINE__, "Ea? Xa?", "- O:E:O:X:O"},
};

static void test_hand_made_keys(void)
{
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct seqkey_stepper s;
		char ev[64], want[64], buf[SEQKEY_TEXT_LEN];
		const char *pe = cases[c].events, *pk = cases[c].keys;
		int n;

		seqkey_stepper_init(&s);
		while (sscanf(pe, "%63s%n", ev, &n) == 1) {
			struct seqkey_step st;
			unsigned type = ev[2] == '?' ? 99 : type_of(ev[2]);
			int k;

			pe += n;
			if (sscanf(pk, "%63s%n", want, &k) != 1) {
				fprintf(stderr, "  case at line %d: too few keys\n", cases[c].line);
				test_cur_failed = 1;
				break;
			}
			pk += k;
			CHECK_EQ_I(seqkey_step(&s, (uint32_t)ev[1], trans_of(ev[0]), type, &st), 0);
			if (!strcmp(want, "-")) {
				CHECK_EQ_I(st.has_key, 0);
			} else {
				CHECK_EQ_I(st.has_key, 1);
				seqkey_format(&st.key, buf);
				if (strcmp(buf, want)) {
					fprintf(
					    stderr,
					    "  case at line %d, event %s: key %s, expected %s\n",
					    cases[c].line, ev, buf, want);
					test_cur_failed = 1;
				}
			}
		}
		seqkey_stepper_free(&s);
	}
}

static void test_step_details(void)
{
	struct seqkey_stepper s;
	struct seqkey_step st;

	seqkey_stepper_init(&s);
	CHECK_EQ_I(seqkey_step(&s, 1, 3, JCAL_MT_INTERP, &st), -EINVAL);
	CHECK_EQ_I(seqkey_step(&s, 1, JCAL_TR_ENTRY, JCAL_MT_INTERP, &st), 0);
	CHECK_EQ_I(st.root_running, 1);
	CHECK_EQ_I(seqkey_step(&s, 2, JCAL_TR_ENTRY, JCAL_MT_INTERP, &st), 0);
	CHECK_EQ_I(seqkey_step(&s, 3, JCAL_TR_ENTRY, JCAL_MT_INTERP, &st), 0);
	CHECK_EQ_U(seqkey_stepper_top(&s), JCAL_MT_INTERP);
	CHECK_EQ_I(seqkey_step(&s, 1, JCAL_TR_EXIT, JCAL_MT_INTERP, &st), 0);
	CHECK_EQ_U(st.popped, 3);
	CHECK_EQ_I(st.unmatched, 0);
	CHECK_EQ_U(s.depth, 0);
	CHECK_EQ_I(seqkey_step(&s, 9, JCAL_TR_THROW, JCAL_MT_NATIVE, &st), 0);
	CHECK_EQ_U(st.popped, 0);
	CHECK_EQ_I(st.unmatched, 1);
	CHECK_EQ_I(st.root_running, 1);
	CHECK_EQ_U(st.key.m2, JCAL_MT_NATIVE);
	/* deep stacks grow */
	for (uint32_t i = 0; i < 5000; i++)
		CHECK_EQ_I(seqkey_step(&s, i, JCAL_TR_ENTRY, JCAL_MT_INTERP_STATIC, &st), 0);
	CHECK_EQ_U(s.depth, 5000);
	CHECK_EQ_I(seqkey_step(&s, 0, JCAL_TR_EXIT, JCAL_MT_INTERP_STATIC, &st), 0);
	CHECK_EQ_U(st.popped, 5000);
	seqkey_stepper_free(&s);
}

/* An independent reference of the key rules (docs/jcal-post.md), by
 * scanning arrays, for comparison with the stepper. */
struct ref {
	uint32_t method[4096];
	unsigned type[4096];
	unsigned depth;
	int have;
	unsigned m1, t1;
};

static int ref_step(struct ref *r, uint32_t method, unsigned trans, unsigned type, struct seqkey *k)
{
	unsigned cur = r->depth ? r->type[r->depth - 1] : JCAL_MT_OTHER, between = cur;
	int had = r->have;

	if (trans == JCAL_TR_ENTRY) {
		r->method[r->depth] = method;
		r->type[r->depth++] = type;
	} else {
		int found = -1;

		for (int i = (int)r->depth - 1; i >= 0 && found < 0; i--)
			if (r->method[i] == method)
				found = i;
		if (found >= 0) {
			r->depth = (unsigned)found;
		} else {
			if (r->depth == 0)
				between = type;
			r->depth = 0;
		}
	}
	k->m1 = (uint8_t)r->m1;
	k->t1 = (uint8_t)r->t1;
	k->m2 = (uint8_t)between;
	k->t2 = (uint8_t)trans;
	k->m3 = (uint8_t)(r->depth ? r->type[r->depth - 1] : JCAL_MT_OTHER);
	r->m1 = between;
	r->t1 = trans;
	r->have = 1;
	return had;
}

/* Records every key the builder hands to its hook (metric 0). */
struct rec {
	struct seqkey *keys;
	size_t n;
};

static int64_t record(void *ctx, const struct seqkey *key, unsigned metric, uint64_t raw)
{
	struct rec *r = ctx;

	if (metric == 0)
		r->keys[r->n++] = *key;
	return (int64_t)raw;
}

static uint64_t rng = 88172645463325252ull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* Random unbalanced sequences: stepper == reference == builder's keys. */
static void test_stepper_equals_builder(void)
{
	enum { N = 200000 };
	struct rec rec = {calloc(N, sizeof(struct seqkey)), 0};
	struct calltree_comp comp = {.fn = record, .ctx = &rec, .batch = NULL};
	struct calltree t;
	struct seqkey_stepper s;
	static struct ref ref;
	uint32_t stack[4096];
	unsigned depth = 0, nkeys = 0, mismatch = 0;
	uint64_t metric[JCAL_MAX_METRICS] = {0};

	CHECK(rec.keys != NULL);
	if (!rec.keys)
		return;
	memset(&ref, 0, sizeof(ref));
	seqkey_stepper_init(&s);
	CHECK_EQ_I(calltree_init(&t, 2, &comp), 0);
	for (unsigned i = 0; i < N; i++) {
		unsigned r = rnd(100), trans, type = rnd(7);
		uint32_t method;
		struct seqkey_step st;
		struct seqkey rk;
		int rhas;

		if ((r < 45 && depth < 4000) || depth == 0) {
			trans = JCAL_TR_ENTRY;
			method = 1 + rnd(12);
			if (r < 3 && depth == 0) {
				trans = JCAL_TR_EXIT; /* unmatched exit at the root */
				method = 100 + rnd(5);
			} else {
				stack[depth++] = method;
			}
		} else {
			trans = r < 85 ? JCAL_TR_EXIT : JCAL_TR_THROW;
			if (r < 80) {
				method = stack[--depth];
			} else if (r < 90) {
				unsigned d = rnd(depth); /* deeper: mismatched */
				method = stack[d];
				depth = d;
			} else {
				method = 200 + rnd(3); /* not on the stack: all unwound */
				depth = 0;
			}
		}
		metric[0] += 1 + rnd(50);
		metric[1] += 1;
		CHECK_EQ_I(seqkey_step(&s, method, trans, type, &st), 0);
		rhas = ref_step(&ref, method, trans, type, &rk);
		CHECK_EQ_I(calltree_event(&t, method, trans, type, metric), 0);
		CHECK_EQ_I(st.has_key, rhas);
		if (st.has_key) {
			if (seqkey_index(&st.key) != seqkey_index(&rk))
				mismatch++;
			if (nkeys < rec.n &&
			    seqkey_index(&st.key) != seqkey_index(&rec.keys[nkeys]))
				mismatch++;
			nkeys++;
		}
		/* resynchronise the generator's stack with the stepper's */
		depth = s.depth < 4096 ? s.depth : 4096;
		for (unsigned k = 0; k < depth; k++)
			stack[k] = s.stack[k].method;
	}
	CHECK_EQ_U(mismatch, 0);
	CHECK_EQ_U(rec.n, nkeys);
	CHECK_EQ_U(nkeys, N - 1);
	CHECK(t.stats.unmatched_exits > 0);
	CHECK(t.stats.mismatched_exits > 0);
	CHECK_EQ_I(calltree_finish(&t), 0);
	calltree_free(&t);
	seqkey_stepper_free(&s);
	free(rec.keys);
}

static void test_reachable_counts(void)
{
	/* events: E E 5*4*4 + E X|T 5*4*2 + X|T E 2*4*5*4 + X|T X|T 4*4*4*5 */
	CHECK_EQ_U(seqkey_reachable_count(SEQKEY_MODE_EVENTS), 80 + 40 + 160 + 320);
	CHECK_EQ_U(seqkey_reachable_count(SEQKEY_MODE_EVENTS), 600);
	/* bci: 7 types, 6 of them enterable */
	CHECK_EQ_U(seqkey_reachable_count(SEQKEY_MODE_BCI),
		   7 * 6 * 6 + 7 * 6 * 2 + 2 * 6 * 7 * 6 + 4 * 6 * 6 * 7);
	CHECK_EQ_U(seqkey_reachable_count(SEQKEY_MODE_BCI), 1848);
}

static void test_reachable_cases(void)
{
	static const struct {
		const char *key;
		int events, bci;
	} c[] = {
	    {"O:E:I:E:i", 1, 1}, {"I:E:i:X:I", 1, 1}, {"i:X:I:E:N", 1, 1},
	    {"N:X:I:X:O", 1, 1}, {"O:E:I:X:O", 1, 1}, {"I:X:O:E:i", 1, 1},
	    {"n:T:i:T:O", 1, 1}, {"j:E:J:X:j", 0, 1}, {"O:E:O:X:O", 0, 0}, /* O entered */
	    {"I:E:i:E:O", 0, 0},					   /* O entered */
	    {"O:X:I:E:i", 0, 0},					   /* O exited */
	    {"I:X:O:X:O", 0, 0},					   /* O exited */
	    {"I:E:i:X:N", 0, 0}, /* an exit after an entry returns to the caller */
	    {"I:E:i:T:i", 0, 0}, {"I:T:i:X:O", 1, 1}, {"N:E:n:E:n", 1, 1},
	};
	enum seqkey_mode m;
	struct seqkey k;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		CHECK_EQ_I(seqkey_parse(c[i].key, &k), 0);
		if (seqkey_reachable(SEQKEY_MODE_EVENTS, &k) != c[i].events ||
		    seqkey_reachable(SEQKEY_MODE_BCI, &k) != c[i].bci) {
			fprintf(stderr, "  %s: reachable events %d bci %d, expected %d %d\n",
				c[i].key, seqkey_reachable(SEQKEY_MODE_EVENTS, &k),
				seqkey_reachable(SEQKEY_MODE_BCI, &k), c[i].events, c[i].bci);
			test_cur_failed = 1;
		}
	}
	CHECK_EQ_I(seqkey_mode_parse("events", &m), 0);
	CHECK_EQ_U(m, SEQKEY_MODE_EVENTS);
	CHECK_EQ_I(seqkey_mode_parse("bci", &m), 0);
	CHECK_EQ_U(m, SEQKEY_MODE_BCI);
	CHECK_EQ_I(seqkey_mode_parse("trace", &m), -1);
}

/* Random balanced traces of mode events produce exactly the reachable keys:
 * every key they give is reachable, and all 600 show up. */
static void test_reachable_are_produced(void)
{
	static const unsigned types[] = {JCAL_MT_INTERP_STATIC, JCAL_MT_INTERP,
					 JCAL_MT_NATIVE_STATIC, JCAL_MT_NATIVE};
	static uint8_t seen[SEQKEY_COUNT];
	struct seqkey_stepper s;
	struct seqkey_step st;
	uint32_t stack[8];
	unsigned depth = 0, distinct = 0, bad = 0;

	memset(seen, 0, sizeof(seen));
	seqkey_stepper_init(&s);
	for (unsigned i = 0; i < 400000; i++) {
		unsigned trans, type;
		uint32_t method;

		if (depth == 0 || (depth < 6 && rnd(2))) {
			trans = JCAL_TR_ENTRY;
			type = types[rnd(4)];
			method = (uint32_t)(i + 1) * 8 + type; /* type is fixed per method */
			stack[depth++] = method;
		} else {
			trans = rnd(3) ? JCAL_TR_EXIT : JCAL_TR_THROW;
			method = stack[--depth];
			type = method % 8;
		}
		CHECK_EQ_I(seqkey_step(&s, method, trans, type, &st), 0);
		if (!st.has_key)
			continue;
		if (!seqkey_reachable(SEQKEY_MODE_EVENTS, &st.key))
			bad++;
		if (!seen[seqkey_index(&st.key)]) {
			seen[seqkey_index(&st.key)] = 1;
			distinct++;
		}
	}
	CHECK_EQ_U(bad, 0);
	CHECK_EQ_U(distinct, 600);
	seqkey_stepper_free(&s);
}

int main(void)
{
	RUN(test_hand_made_keys);
	RUN(test_step_details);
	RUN(test_stepper_equals_builder);
	RUN(test_reachable_counts);
	RUN(test_reachable_cases);
	RUN(test_reachable_are_produced);
	return test_summary("seqkey");
}
