/*
 * test-calib.c - unit tests of calibration tables (common/calib_table.c),
 * their derivation from a calibration trace (common/calib_derive.c) and
 * their application in jcal-post (postproc/calib_apply.c): the golden
 * calib-small.md example through the real table, lookup and hook; comp,
 * clamp and fallback arithmetic; write/parse round trips, merge, diff,
 * check; malformed tables with their line numbers; fingerprints; the
 * calibration directory; a table derived from a trace written with the
 * real encoder.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "postproc/calib_apply.h"
#include "common/calib_comp.h"
#include "common/calib_derive.h"
#include "common/calib_dir.h"
#include "common/calib_fit.h"
#include "common/calib_table.h"
#include "common/calltree.h"
#include "native-tests/test.h"
#include "native-tests/tracegen.h"

static char tmpdir[256];

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/jcal-test-calib-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(1);
	}
}

static void tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

static void key_of(const char *text, struct seqkey *k)
{
	if (seqkey_parse(text, k)) {
		fprintf(stderr, "  bad key in test: %s\n", text);
		test_cur_failed = 1;
	}
}

static void set_key(struct calib_table *t, const char *key, uint64_t min, uint64_t samples,
		    uint64_t env)
{
	struct calib_entry e = {0};
	struct seqkey k;

	key_of(key, &k);
	e.min = min;
	e.samples = samples;
	e.env = env;
	calib_table_set(t, &k, &e);
}

static void fill_fp(struct calib_fingerprint *fp)
{
	static const char *values[CALIB_FP_COUNT] = {
	    "GenuineIntel",
	    "6",
	    "85",
	    "7",
	    "Intel(R) Xeon(R) Platinum 8275CL CPU @ 3.00GHz",
	    "6.1.0-18-amd64",
	    "Debian",
	    "17.0.10+7-Debian-1deb12u1",
	    "mixed mode",
	    "events",
	    "cputime",
	    "0.1.0"};

	calib_fingerprint_clear(fp);
	for (unsigned i = 0; i < CALIB_FP_COUNT; i++)
		CHECK_EQ_I(calib_fingerprint_set_meta(fp, calib_fp_meta_key(i), values[i]), 1);
}

static void fill_header(struct calib_table *t)
{
	fill_fp(&t->fp);
	snprintf(t->created, sizeof(t->created), "2024-05-01T12:00:00Z");
	snprintf(t->unit, sizeof(t->unit), "ns");
	snprintf(t->env_method, sizeof(t->env_method), "child JVM -Xint, same workload, no events");
}

/* The table of calib-small.md, written as text and parsed back. */
static const char small_table[] = "jcal-calibration 1\n"
				  "# calib-small.md\n"
				  "cpu.vendor GenuineIntel\n"
				  "cpu.family 6\n"
				  "cpu.model 85\n"
				  "cpu.stepping 7\n"
				  "cpu.model_name Intel(R) Xeon(R)\n"
				  "kernel 6.1.0\n"
				  "jvm.vendor Debian\n"
				  "jvm.version 17\n"
				  "jvm.exec mixed mode\n"
				  "mode events\n"
				  "metrics ticks\n"
				  "agent.version 0.1.0\n"
				  "created 2024-05-01T12:00:00Z\n"
				  "unit ticks\n"
				  "env.method none\n"
				  "env.missing 4\n"
				  "keys 4\n"
				  "O:E:I:E:i 25 samples=10 env=0 comp=25\n"
				  "I:E:i:X:I 30 samples=10 env=0 comp=30\n"
				  "i:X:I:E:N 35 samples=10 env=0 comp=35\n"
				  "I:E:N:X:I 15 samples=10 env=0 comp=15\n";

static int parse_text(struct calib_table *t, const char *text, char *err, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r;

	if (!f)
		return -2;
	r = calib_table_parse(t, f, "t.txt", err, len);
	fclose(f);
	return r;
}

static uint64_t ev(struct calltree *t, uint64_t v, unsigned trans, uint32_t method, unsigned type)
{
	uint64_t m[JCAL_MAX_METRICS] = {v, 2 * v};
	return (uint64_t)calltree_event(t, method, trans, type, m);
}

static void test_golden_calib_small(void)
{
	struct calib_apply a;
	struct calltree_comp comp = {.fn = calib_apply_comp, .ctx = &a, .batch = NULL};
	struct calltree t;
	char err[256];
	const uint32_t main_id = 1, foo = 2, bar = 3;
	uint64_t c;
	struct seqkey k;

	CHECK_EQ_I(calib_apply_init(&a), 0);
	CHECK_EQ_I(parse_text(&a.table, small_table, err, sizeof(err)), 0);
	CHECK_EQ_U(a.table.nkeys, 4);
	a.active = 1;
	/* N:X:I:X:O: no key with the same transitions ignoring static-ness */
	key_of("N:X:I:X:O", &k);
	CHECK_EQ_I(calib_table_lookup(&a.table, &k, &c), CALIB_GLOBAL);
	CHECK_EQ_U(c, 15);

	CHECK_EQ_I(calltree_init(&t, 2, &comp), 0);
	ev(&t, 100, JCAL_TR_ENTRY, main_id, JCAL_MT_INTERP_STATIC);
	ev(&t, 130, JCAL_TR_ENTRY, foo, JCAL_MT_INTERP);
	ev(&t, 170, JCAL_TR_EXIT, foo, JCAL_MT_INTERP);
	ev(&t, 200, JCAL_TR_ENTRY, bar, JCAL_MT_NATIVE_STATIC);
	ev(&t, 220, JCAL_TR_EXIT, bar, JCAL_MT_NATIVE_STATIC);
	ev(&t, 260, JCAL_TR_EXIT, main_id, JCAL_MT_INTERP_STATIC);
	CHECK_EQ_I(calltree_finish(&t), 0);
	CHECK_EQ_U(t.nodes[1].method, main_id);
	CHECK_EQ_U(calltree_fig(&t, 1, 0)->base, 30);
	CHECK_EQ_U(calltree_fig(&t, 1, 0)->cum, 45);
	CHECK_EQ_U(calltree_fig(&t, 1, 0)->raw_base, 100);
	CHECK_EQ_U(calltree_fig(&t, 1, 0)->raw_cum, 160);
	CHECK_EQ_U(calltree_fig(&t, 2, 0)->base, 10);
	CHECK_EQ_U(calltree_fig(&t, 2, 0)->raw_base, 40);
	CHECK_EQ_U(calltree_fig(&t, 3, 0)->base, 5);
	CHECK_EQ_U(calltree_fig(&t, 3, 0)->raw_base, 20);
	/* metric 1 is not compensated */
	CHECK_EQ_U(calltree_fig(&t, 1, 1)->base, 200);
	CHECK_EQ_U(calltree_fig(&t, CALLTREE_ROOT, 0)->cum, 45);
	CHECK_EQ_U(a.deltas, 5);
	CHECK_EQ_U(a.clamped, 1);
	CHECK_EQ_U(a.fallback_similar + a.fallback_global, 1);
	CHECK_EQ_U(a.fallback_global, 1);
	CHECK_EQ_U(a.keys_seen, 5);
	CHECK_EQ_U(a.keys_found, 4);
	calltree_free(&t);
	calib_apply_free(&a);
}

static void test_comp_clamp_fallback(void)
{
	struct calib_table t;
	struct calib_apply a;
	const struct calib_entry *e;
	struct seqkey k;
	uint64_t c;

	CHECK_EQ_I(calib_table_init(&t), 0);
	key_of("I:E:i:X:I", &k);
	CHECK_EQ_I(calib_table_lookup(&t, &k, &c), CALIB_NO_TABLE);
	CHECK_EQ_U(c, 0);
	set_key(&t, "I:E:i:X:I", 812, 1000, 75);
	set_key(&t, "I:E:I:X:I", 500, 10, 600); /* env above min: comp 0 */
	set_key(&t, "i:E:i:X:i", 400, 10, 0);
	set_key(&t, "i:X:i:E:n", 300, 10, 100);
	e = calib_table_get(&t, &k);
	CHECK(e != NULL);
	if (e)
		CHECK_EQ_U(e->comp, 737);
	key_of("I:E:I:X:I", &k);
	CHECK_EQ_U(calib_table_get(&t, &k)->comp, 0);
	CHECK_EQ_U(t.nkeys, 4);
	set_key(&t, "I:E:I:X:I", 700, 10, 600); /* replaced, still 4 keys */
	CHECK_EQ_U(t.nkeys, 4);
	CHECK_EQ_U(calib_table_get(&t, &k)->comp, 100);
	CHECK_EQ_U(calib_table_env_missing(&t), 1);

	key_of("I:E:i:X:I", &k);
	CHECK_EQ_I(calib_table_lookup(&t, &k, &c), CALIB_EXACT);
	CHECK_EQ_U(c, 737);
	/* i:E:I:X:i: all three flipped gives I:E:i:X:I (0 equal); i:E:i:X:i
	 * keeps m1 and m3 (2 equal): the closest */
	key_of("i:E:I:X:i", &k);
	CHECK_EQ_I(calib_table_lookup(&t, &k, &c), CALIB_SIMILAR);
	CHECK_EQ_U(c, 400);
	/* I:X:i:E:N: i:X:i:E:n is a variant (m1 and m3 flipped) */
	key_of("I:X:i:E:N", &k);
	CHECK_EQ_I(calib_table_lookup(&t, &k, &c), CALIB_SIMILAR);
	CHECK_EQ_U(c, 200);
	/* J is not I: no similar key; the global minimum comp is 100 */
	key_of("J:E:j:X:J", &k);
	CHECK_EQ_I(calib_table_lookup(&t, &k, &c), CALIB_GLOBAL);
	CHECK_EQ_U(c, 100);
	/* O pairs only with O */
	key_of("O:E:i:X:O", &k);
	CHECK_EQ_I(calib_table_lookup(&t, &k, &c), CALIB_GLOBAL);

	/* the hook: subtract, clamp at 0 and count */
	CHECK_EQ_I(calib_apply_init(&a), 0);
	CHECK_EQ_I(calib_table_copy(&a.table, &t), 0);
	a.active = 1;
	key_of("I:E:i:X:I", &k);
	CHECK_EQ_I(calib_apply_comp(&a, &k, 0, 1000), 263);
	CHECK_EQ_I(calib_apply_comp(&a, &k, 0, 737), 0);
	CHECK_EQ_I(calib_apply_comp(&a, &k, 0, 700), 0);
	CHECK_EQ_I(calib_apply_comp(&a, &k, 1, 700), 700);
	key_of("i:E:I:X:i", &k);
	CHECK_EQ_I(calib_apply_comp(&a, &k, 0, 450), 50);
	key_of("J:E:j:X:J", &k);
	CHECK_EQ_I(calib_apply_comp(&a, &k, 0, 50), 0);
	CHECK_EQ_U(a.deltas, 5);
	CHECK_EQ_U(a.clamped, 2);
	CHECK_EQ_U(a.fallback_similar, 1);
	CHECK_EQ_U(a.fallback_global, 1);
	CHECK_EQ_U(a.keys_seen, 3);
	CHECK_EQ_U(a.keys_found, 1);
	calib_apply_free(&a);
	calib_table_free(&t);
}

/* Writes t to a string (malloc'ed). */
static char *to_text(const struct calib_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	CHECK_EQ_I(calib_table_write(t, f), 0);
	fclose(f);
	return buf;
}

static void test_roundtrip(void)
{
	struct calib_table t, u;
	struct calib_entry e = {0};
	struct seqkey k;
	char err[256], *a, *b;

	CHECK_EQ_I(calib_table_init(&t), 0);
	CHECK_EQ_I(calib_table_init(&u), 0);
	fill_header(&t);
	set_key(&t, "i:E:I:X:i", 812, 1000, 75);
	set_key(&t, "O:E:N:X:O", 90, 3, 0);
	key_of("n:T:i:T:O", &k);
	e.min = 120;
	e.samples = 77;
	e.env = 20;
	e.has_stats = 1;
	e.mean = 151.25;
	e.median = 140;
	e.p10 = 125;
	calib_table_set(&t, &k, &e);
	key_of("N:X:I:E:i", &k);
	e.has_q = 1;
	for (unsigned j = 0; j < CALIB_NQ; j++)
		e.q[j] = 120 + j * j;
	calib_table_set(&t, &k, &e);
	key_of("n:T:i:T:O", &k);
	a = to_text(&t);
	CHECK(a != NULL);
	CHECK(strstr(a, "i:E:I:X:i 812 samples=1000 env=75 comp=737\n") != NULL);
	CHECK(strstr(a, " p10=125 q=120,121,124,129,136,145,156,169,184,201,220,241,264,289,316,"
			"345\n") != NULL);
	CHECK(
	    strstr(a, "n:T:i:T:O 120 samples=77 env=20 comp=100 mean=151.2 median=140 p10=125\n") ||
	    strstr(a, "n:T:i:T:O 120 samples=77 env=20 comp=100 mean=151.3 median=140 p10=125\n"));
	CHECK(strstr(a, "env.missing 1\n") != NULL);
	CHECK(strstr(a, "keys 4\n") != NULL);
	CHECK(!strncmp(a, "jcal-calibration 2\n", 19));
	CHECK_EQ_I(parse_text(&u, a, err, sizeof(err)), 0);
	if (test_cur_failed)
		fprintf(stderr, "  %s\n", err);
	CHECK_EQ_U(u.nkeys, 4);
	CHECK(!calib_table_get(&u, &k)->has_q);
	{
		struct seqkey kq;

		key_of("N:X:I:E:i", &kq);
		CHECK(calib_table_get(&u, &kq)->has_q);
		CHECK_EQ_U(calib_table_get(&u, &kq)->q[15], 345);
	}
	CHECK_EQ_U(calib_fingerprint_diff(&t.fp, &u.fp), 0);
	CHECK_STR(u.created, t.created);
	CHECK_STR(u.unit, "ns");
	CHECK_STR(u.env_method, t.env_method);
	CHECK_EQ_U(calib_table_get(&u, &k)->median, 140);
	b = to_text(&u);
	CHECK(b != NULL);
	if (a && b)
		CHECK_STR(b, a);
	free(a);
	free(b);
	calib_table_free(&t);
	calib_table_free(&u);
}

/* A valid header for the malformed-table cases; 16 lines. */
#define HDR "jcal-calibration 2" HDR_AFTER_VERSION
#define HDR3 "jcal-calibration 3" HDR_AFTER_VERSION
#define HDR_AFTER_VERSION                                                                          \
	"\n"                                                                                       \
	"cpu.vendor V\ncpu.family 6\ncpu.model 85\ncpu.stepping 7\ncpu.model_name M\n"             \
	"kernel K\njvm.vendor J\njvm.version 17\njvm.exec mixed mode\nmode events\n"               \
	"metrics cputime\n"                                                                        \
	"agent.version 0.1.0\ncreated 2024-05-01T12:00:00Z\nunit ns\nenv.method x\n"

static void test_malformed(void)
{
	static const struct {
		int line;
		const char *text;
		unsigned at; /* line number the message must name */
		const char *what;
	} c[] = {
	    {__LINE__, "", 1, "empty file"},
	    {__LINE__, "jcal-calibration 4\n", 1,
	     "unsupported table version '4' (this build reads 1 to 3)"},
	    {__LINE__, HDR "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=1 env=1 comp=4 a=1 b=0\n",
	     19, "field 'a' needs table version 3"},
	    {__LINE__, HDR3 "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=1 env=1 comp=4 a=1\n", 19,
	     "a and b come together or not at all"},
	    {__LINE__, HDR3 "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=1 env=1 comp=4 a=1 b=-1\n",
	     19, "b='-1' is not a non-negative number"},
	    {__LINE__,
	     HDR3 "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=1 env=1 comp=4 a=1 b=0 a=2\n", 19,
	     "field 'a' given twice"},
	    {__LINE__, "hello\n", 1, "not a jcal calibration table"},
	    {__LINE__, HDR "env.missing 0\nkeys 1\ni:E:I:X:q 5 samples=1 env=0 comp=5\n", 19,
	     "bad key 'i:E:I:X:q'"},
	    {__LINE__, HDR "env.missing 0\nkeys 1\ni:E:I:X:i\n", 19, "no MIN value"},
	    {__LINE__, HDR "env.missing 0\nkeys 1\ni:E:I:X:i -5 samples=1 env=0 comp=0\n", 19,
	     "MIN '-5' is not an unsigned integer"},
	    {__LINE__, HDR "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=1 env=1 comp=5\n", 19,
	     "comp=5 but max(0, min - env) = 4"},
	    {__LINE__, HDR "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=1 env=1\n", 19,
	     "field 'comp' missing"},
	    {__LINE__, HDR "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=1 env=1 comp=4 foo=1\n", 19,
	     "unknown field 'foo'"},
	    {__LINE__, HDR "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=1 samples=2 env=1 comp=4\n",
	     19, "field 'samples' given twice"},
	    {__LINE__, HDR "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=0 env=1 comp=4\n", 19,
	     "samples=0"},
	    {__LINE__, HDR "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=x env=1 comp=4\n", 19,
	     "samples='x' is not an unsigned integer"},
	    {__LINE__, HDR "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=1 env=1 comp=4 mean=6\n", 19,
	     "mean, median and p10 come together"},
	    {__LINE__,
	     HDR
	     "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=1 env=1 comp=4 mean=x median=5 p10=5\n",
	     19, "mean='x' is not a non-negative number"},
	    {__LINE__,
	     HDR "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=1 env=1 comp=4 q=5,5,5,5,5,5,5,5,"
		 "5,5,5,5,5,5,5,5\n",
	     19, "q needs mean, median and p10"},
	    {__LINE__,
	     HDR "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=1 env=1 comp=4 mean=5 median=5 "
		 "p10=5 q=5,5,5,5,5,5,5,5,5,5,5,5,5,5,5\n",
	     19, "q='5,5,5,5,5,5,5,5,5,5,5,5,5,5,5' is not 16 comma-separated unsigned integers"},
	    {__LINE__,
	     HDR "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=1 env=1 comp=4 mean=5 median=5 "
		 "p10=5 q=5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5\n",
	     19, "is not 16 comma-separated unsigned integers"},
	    {__LINE__,
	     HDR "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=1 env=1 comp=4 mean=5 median=5 "
		 "p10=5 q=5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,\n",
	     19, "is not 16 comma-separated unsigned integers"},
	    {__LINE__,
	     HDR "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=1 env=1 comp=4 mean=5 median=5 "
		 "p10=5 q=5,5,5,5,5,5,5,5,5,5,5,5,5,5,9,8\n",
	     19, "is not non-decreasing"},
	    {__LINE__,
	     HDR "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=1 env=1 comp=4 mean=5 median=5 "
		 "p10=5 q=5,5,5,5,5,5,5,5,5,5,5,5,5,5,x,8\n",
	     19, "is not 16 comma-separated unsigned integers"},
	    {__LINE__, HDR "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=1 env=1 comp=4 oops\n", 19,
	     "'oops' is not a name=value field"},
	    {__LINE__,
	     HDR "env.missing 0\nkeys 2\ni:E:I:X:i 5 samples=1 env=1 comp=4\n"
		 "i:E:I:X:i 6 samples=1 env=1 comp=5\n",
	     20, "key i:E:I:X:i given twice"},
	    {__LINE__, HDR "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=1 env=1 comp=4\nunit ns\n",
	     20, "header 'unit' after the first key line"},
	    {__LINE__, HDR "unit ns\n", 17, "header 'unit' given twice (first on line 15)"},
	    {__LINE__, HDR "colour blue\n", 17, "unknown header 'colour'"},
	    {__LINE__, HDR "env.missing x\n", 17, "header 'env.missing': 'x' is not a count"},
	    {__LINE__, HDR "env.missing 0\n", 17, "header 'keys' missing"},
	    {__LINE__, HDR "env.missing 0\nkeys 2\ni:E:I:X:i 5 samples=1 env=1 comp=4\n", 19,
	     "header 'keys 2' (line 18) but 1 key lines"},
	    {__LINE__, HDR "env.missing 1\nkeys 1\ni:E:I:X:i 5 samples=1 env=1 comp=4\n", 19,
	     "header 'env.missing 1' (line 17) but 0 keys have env=0"},
	    {__LINE__, "jcal-calibration 1\ncpu.vendor V\n", 2, "header 'cpu.family' missing"},
	    {__LINE__,
	     "jcal-calibration 1" HDR_AFTER_VERSION
	     "env.missing 0\nkeys 1\ni:E:I:X:i 5 samples=1 env=1 comp=4 mean=5 median=5 "
	     "p10=5 q=5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5\n",
	     19, "field 'q' needs table version 2"},
	};
	struct calib_table t;
	char err[512], want[64];

	CHECK_EQ_I(calib_table_init(&t), 0);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int r = parse_text(&t, c[i].text, err, sizeof(err));

		snprintf(want, sizeof(want), "t.txt:%u: ", c[i].at);
		if (r != -1 || strncmp(err, want, strlen(want)) || !strstr(err, c[i].what)) {
			fprintf(stderr, "  case at line %d: r=%d err=\"%s\", expected \"%s%s\"\n",
				c[i].line, r, r ? err : "", want, c[i].what);
			test_cur_failed = 1;
		}
		CHECK_EQ_U(t.nkeys, 0);
	}
	/* the same header with a good key line parses; CRLF, blanks and
	 * comments are fine */
	CHECK_EQ_I(parse_text(&t,
			      HDR "env.missing 0\r\n  # comment\n\nkeys 1\n"
				  "i:E:I:X:i  5 samples=1\tenv=1 comp=4  \r\n",
			      err, sizeof(err)),
		   0);
	CHECK_EQ_U(t.nkeys, 1);
	calib_table_free(&t);
}

static void test_fingerprint(void)
{
	struct calib_fingerprint a, b;
	char text[512], name[64], name2[64];

	fill_fp(&a);
	fill_fp(&b);
	CHECK_EQ_U(calib_fingerprint_diff(&a, &b), 0);
	CHECK_EQ_I(calib_fingerprint_set_meta(&b, "host.cpu.model", "106"), 1);
	CHECK_EQ_I(calib_fingerprint_set_meta(&b, "host.kernel", " 6.5.0\n"), 1);
	CHECK_EQ_I(calib_fingerprint_set_meta(&b, "host.name", "box"), 0);
	CHECK_EQ_I(calib_fingerprint_set_meta(&b, "pid", "1"), 0);
	CHECK_EQ_U(calib_fingerprint_diff(&a, &b),
		   (1u << CALIB_FP_CPU_MODEL) | (1u << CALIB_FP_KERNEL));
	calib_fingerprint_diff_text(&a, &b, calib_fingerprint_diff(&a, &b), text, sizeof(text));
	CHECK_STR(text, "cpu.model '85' vs '106', kernel '6.1.0-18-amd64' vs '6.5.0'");
	CHECK_STR(calib_fp_name(CALIB_FP_CPU_MODEL_NAME), "cpu.model_name");
	CHECK_STR(calib_fp_meta_key(CALIB_FP_CPU_MODEL_NAME), "host.cpu.model_name");
	CHECK_STR(calib_fp_meta_key(CALIB_FP_JVM_VERSION), "jvm.version");
	calib_fingerprint_filename(&a, name, sizeof(name));
	calib_fingerprint_filename(&b, name2, sizeof(name2));
	CHECK_EQ_U(strlen(name), strlen("calib-0123456789abcdef.txt"));
	CHECK(!strncmp(name, "calib-", 6));
	CHECK(strcmp(name, name2) != 0);
	/* FNV-1a 64 of the canonical form, all fields empty */
	calib_fingerprint_clear(&a);
	{
		uint64_t h = 0xcbf29ce484222325ull;
		const char *canon =
		    "cpu.vendor=\ncpu.family=\ncpu.model=\ncpu.stepping=\n"
		    "cpu.model_name=\nkernel=\njvm.vendor=\njvm.version=\njvm.exec=\nmode=\n"
		    "metrics=\nagent.version=\n";

		for (const char *p = canon; *p; p++) {
			h ^= (unsigned char)*p;
			h *= 0x100000001b3ull;
		}
		CHECK_EQ_U(calib_fingerprint_hash(&a), h);
	}
}

static void test_merge_diff_check(void)
{
	struct calib_table a, b, c;
	struct calib_entry e = {0};
	struct seqkey k;
	char err[512], report[2048], *out = NULL;
	size_t len = 0;
	FILE *f;
	unsigned n;

	CHECK_EQ_I(calib_table_init(&a), 0);
	CHECK_EQ_I(calib_table_init(&b), 0);
	CHECK_EQ_I(calib_table_init(&c), 0);
	fill_header(&a);
	fill_header(&b);
	set_key(&a, "i:E:I:X:i", 812, 1000, 75);
	set_key(&a, "O:E:i:X:O", 100, 10, 0);
	set_key(&b, "i:E:I:X:i", 790, 500, 80);
	set_key(&b, "O:E:i:X:O", 120, 5, 30);
	set_key(&b, "I:X:O:E:i", 60, 7, 10);
	key_of("n:T:i:T:O", &k);
	e.min = 100;
	e.samples = 100;
	e.has_stats = 1;
	e.mean = 120;
	e.median = 110;
	e.p10 = 105;
	e.has_q = 1;
	for (unsigned j = 0; j < CALIB_NQ; j++)
		e.q[j] = 100 + j;
	calib_table_set(&a, &k, &e);
	e.min = 90;
	e.samples = 300;
	e.mean = 140;
	e.median = 130;
	e.p10 = 95;
	for (unsigned j = 0; j < CALIB_NQ; j++)
		e.q[j] = 90 + 2 * j;
	calib_table_set(&b, &k, &e);
	CHECK_EQ_I(calib_table_copy(&c, &a), 0);

	/* diff: 3 keys differ, one is only in B */
	f = open_memstream(&out, &len);
	n = calib_table_diff(&a, &b, f);
	fclose(f);
	CHECK_EQ_U(n, 4);
	CHECK(out && strstr(out, "I:X:O:E:i  only in B: min 60 env 10 comp 50\n"));
	CHECK(out &&
	      strstr(out, "i:E:I:X:i  min 812 -> 790 (-2.7%)  env 75 -> 80  comp 737 -> 710\n"));
	free(out);
	out = NULL;
	f = open_memstream(&out, &len);
	CHECK_EQ_U(calib_table_diff(&a, &c, f), 0);
	fclose(f);
	CHECK(out && out[0] == '\0');
	free(out);

	/* merge: per-key minimum, samples add, smaller non-zero env */
	CHECK_EQ_I(calib_table_merge(&a, &b, 0, err, sizeof(err)), 0);
	CHECK_EQ_U(a.nkeys, 4);
	key_of("i:E:I:X:i", &k);
	CHECK_EQ_U(calib_table_get(&a, &k)->min, 790);
	CHECK_EQ_U(calib_table_get(&a, &k)->samples, 1500);
	CHECK_EQ_U(calib_table_get(&a, &k)->env, 75);
	CHECK_EQ_U(calib_table_get(&a, &k)->comp, 715);
	key_of("O:E:i:X:O", &k);
	CHECK_EQ_U(calib_table_get(&a, &k)->min, 100);
	CHECK_EQ_U(calib_table_get(&a, &k)->env, 30); /* 0 = not measured */
	CHECK_EQ_U(calib_table_get(&a, &k)->comp, 70);
	key_of("I:X:O:E:i", &k);
	CHECK_EQ_U(calib_table_get(&a, &k)->samples, 7);
	key_of("n:T:i:T:O", &k);
	CHECK_EQ_U(calib_table_get(&a, &k)->min, 90);
	CHECK_EQ_U(calib_table_get(&a, &k)->samples, 400);
	CHECK(calib_table_get(&a, &k)->mean > 134.99 && calib_table_get(&a, &k)->mean < 135.01);
	CHECK_EQ_U(calib_table_get(&a, &k)->median, 125);
	CHECK_EQ_U(calib_table_get(&a, &k)->p10, 98);
	/* quantiles: weighted per position, (100 + j) x 100 and (90 + 2j) x 300 */
	CHECK(calib_table_get(&a, &k)->has_q);
	CHECK_EQ_U(calib_table_get(&a, &k)->q[0], 93);
	CHECK_EQ_U(calib_table_get(&a, &k)->q[15], 119);

	/* different fingerprints: refused unless forced */
	calib_fingerprint_set_meta(&b.fp, "host.cpu.model", "106");
	CHECK_EQ_I(calib_table_merge(&c, &b, 0, err, sizeof(err)), -1);
	CHECK_STR(err, "fingerprints differ: cpu.model '85' vs '106'");
	snprintf(b.unit, sizeof(b.unit), "ticks");
	CHECK_EQ_I(calib_table_merge(&c, &b, 0, err, sizeof(err)), -1);
	CHECK_STR(err, "fingerprints differ: cpu.model '85' vs '106', unit 'ns' vs 'ticks'");
	CHECK_EQ_I(calib_table_merge(&c, &b, 1, err, sizeof(err)), 0);
	CHECK_STR(c.fp.field[CALIB_FP_CPU_MODEL], "85");
	CHECK_EQ_U(c.nkeys, 4);

	/* check */
	CHECK_EQ_U(calib_table_check(&a, report, sizeof(report)), 0);
	set_key(&a, "O:E:O:X:O", 5, 1, 0); /* O entered: impossible */
	key_of("I:E:i:X:I", &k);
	e.min = 100;
	e.median = 90; /* below min */
	e.p10 = 95;
	e.mean = 100;
	calib_table_set(&a, &k, &e);
	a.fp.field[CALIB_FP_KERNEL][0] = '\0';
	n = calib_table_check(&a, report, sizeof(report));
	CHECK_EQ_U(n, 4);
	CHECK(strstr(report, "key I:E:i:X:I: quantiles inconsistent (need min <= q)\n") != NULL);
	CHECK(strstr(report, "header 'kernel' is empty\n") != NULL);
	CHECK(strstr(report, "key O:E:O:X:O cannot occur in mode events") != NULL);
	CHECK(strstr(report, "key I:E:i:X:I: statistics inconsistent") != NULL);
	snprintf(a.fp.field[CALIB_FP_MODE], CALIB_VALUE_MAX, "bogus");
	CHECK_EQ_U(calib_table_check(&a, report, sizeof(report)), 4);
	CHECK(strstr(report, "mode 'bogus' is not events or bci") != NULL);

	calib_table_free(&a);
	calib_table_free(&b);
	calib_table_free(&c);
}

static void test_files_and_dir(void)
{
	struct calib_table t, u;
	struct calib_fingerprint fp, other;
	char dir[512], path[1024], found[1024], err[512], name[64];
	FILE *f;

	CHECK_EQ_I(calib_table_init(&t), 0);
	CHECK_EQ_I(calib_table_init(&u), 0);
	fill_header(&t);
	set_key(&t, "i:E:I:X:i", 812, 1000, 75);
	tmp_path(dir, sizeof(dir), "calib/sub");
	CHECK_EQ_I(calib_dir_create(dir, err, sizeof(err)), 0);
	CHECK_EQ_I(calib_dir_create(dir, err, sizeof(err)), 0);
	fill_fp(&fp);
	other = fp;
	calib_fingerprint_set_meta(&other, "metrics", "instructions");

	/* nothing there yet */
	CHECK_EQ_I(calib_dir_find(dir, &fp, found, sizeof(found), NULL, 0, err, sizeof(err)), 0);
	/* a table under another name, garbage and a table of another metric */
	snprintf(path, sizeof(path), "%s/b-copied.txt", dir);
	CHECK_EQ_I(calib_table_write_file(&t, path, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/a-garbage.txt", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("not a table\n", f);
		fclose(f);
	}
	t.fp = other;
	CHECK_EQ_I(calib_dir_path(dir, &other, path, sizeof(path)), 0);
	CHECK_EQ_I(calib_table_write_file(&t, path, err, sizeof(err)), 0);
	CHECK_EQ_I(calib_dir_find(dir, &fp, found, sizeof(found), NULL, 0, err, sizeof(err)), 1);
	snprintf(path, sizeof(path), "%s/b-copied.txt", dir);
	CHECK_STR(found, path);
	CHECK_EQ_I(calib_dir_find(dir, &other, found, sizeof(found), NULL, 0, err, sizeof(err)), 1);
	calib_fingerprint_filename(&other, name, sizeof(name));
	CHECK(strstr(found, name) != NULL);
	CHECK_EQ_I(calib_table_read_file(&u, found, err, sizeof(err)), 0);
	CHECK_STR(u.fp.field[CALIB_FP_METRICS], "instructions");
	tmp_path(path, sizeof(path), "missing-dir");
	CHECK_EQ_I(calib_dir_find(path, &fp, found, sizeof(found), NULL, 0, err, sizeof(err)), -1);
	CHECK_EQ_I(calib_table_read_file(&u, path, err, sizeof(err)), -1);
	CHECK(strstr(err, "No such file") != NULL);

	/* the default directory */
	setenv("JCAL_CALIB_DIR", "/x/y", 1);
	CHECK_EQ_I(calib_dir_default(path, sizeof(path)), 0);
	CHECK_STR(path, "/x/y");
	unsetenv("JCAL_CALIB_DIR");
	setenv("HOME", "/home/u", 1);
	CHECK_EQ_I(calib_dir_default(path, sizeof(path)), 0);
	CHECK_STR(path, "/home/u/.local/share/jcal/calib");
	calib_table_free(&t);
	calib_table_free(&u);
}

/* Selection in jcal-post: directory by fingerprint, explicit file with a
 * warning, none with the hint. */
static void test_apply_select(void)
{
	struct calib_apply a;
	struct calib_table t;
	struct calib_fingerprint fp, other;
	char dir[512], path[1024], msg[2048];

	CHECK_EQ_I(calib_table_init(&t), 0);
	fill_header(&t);
	set_key(&t, "i:E:I:X:i", 812, 1000, 75);
	fill_fp(&fp);
	other = fp;
	calib_fingerprint_set_meta(&other, "jvm.version", "21");
	tmp_path(dir, sizeof(dir), "sel");
	CHECK_EQ_I(calib_dir_create(dir, msg, sizeof(msg)), 0);
	CHECK_EQ_I(calib_dir_path(dir, &fp, path, sizeof(path)), 0);
	CHECK_EQ_I(calib_table_write_file(&t, path, msg, sizeof(msg)), 0);

	CHECK_EQ_I(calib_apply_init(&a), 0);
	CHECK_EQ_I(calib_apply_select(&a, dir, &fp, msg, sizeof(msg)), CALIB_SEL_APPLIED);
	CHECK_EQ_I(a.active, 1);
	CHECK_EQ_I(a.fp_match, 1);
	CHECK_STR(a.path, path);
	calib_apply_free(&a);

	CHECK_EQ_I(calib_apply_init(&a), 0);
	CHECK_EQ_I(calib_apply_select(&a, dir, &other, msg, sizeof(msg)), CALIB_SEL_NONE);
	CHECK(strstr(msg, "no calibration table for this host/JVM/metric in ") != NULL);
	CHECK(strstr(msg, "; figures are raw") != NULL);
	CHECK_EQ_I(a.active, 0);
	CHECK_EQ_I(calib_apply_select(&a, dir, NULL, msg, sizeof(msg)), CALIB_SEL_NONE);
	CHECK(strstr(msg, "stdin") != NULL);
	calib_apply_free(&a);

	/* an explicit file of another fingerprint: applied, with the fields */
	CHECK_EQ_I(calib_apply_init(&a), 0);
	CHECK_EQ_I(calib_apply_select(&a, path, &other, msg, sizeof(msg)), CALIB_SEL_APPLIED);
	CHECK_EQ_I(calib_apply_check_fingerprint(&a, &other, msg, sizeof(msg)), 1);
	CHECK(strstr(msg, "jvm.version '17.0.10+7-Debian-1deb12u1' vs '21'") != NULL);
	calib_apply_describe(&a, msg, sizeof(msg));
	CHECK(strstr(msg, "(fingerprint differs: jvm.version") != NULL);
	calib_apply_free(&a);

	/* a broken file is an error */
	CHECK_EQ_I(calib_apply_init(&a), 0);
	snprintf(path, sizeof(path), "%s/broken.txt", dir);
	{
		FILE *f = fopen(path, "w");

		if (f) {
			fputs("jcal-calibration 1\nwhat\n", f);
			fclose(f);
		}
	}
	CHECK_EQ_I(calib_apply_select(&a, path, &fp, msg, sizeof(msg)), CALIB_SEL_ERROR);
	CHECK(strstr(msg, "broken.txt:2: unknown header 'what'") != NULL);
	calib_apply_free(&a);
	calib_table_free(&t);
}

/* Writes a calibration trace: a JDK thread (not counted) and the
 * calibrator thread with known deltas; env records for two keys. */
static void write_calib_trace(const char *path, int with_thread_meta)
{
	struct tracegen tg;
	uint64_t m[1] = {0};
	static const char *fpmeta[][2] = {
	    {"host.cpu.vendor", "GenuineIntel"},
	    {"host.cpu.family", "6"},
	    {"host.cpu.model", "85"},
	    {"host.cpu.stepping", "7"},
	    {"host.cpu.model_name", "Xeon"},
	    {"host.kernel", "6.1.0"},
	    {"jvm.vendor", "Debian"},
	    {"jvm.version", "17"},
	    {"jvm.exec", "mixed mode"},
	    {"mode", "events"},
	    {"metrics", "cputime"},
	    {"agent.version", "0.1.0"},
	};

	CHECK_EQ_I(tg_open(&tg, path), 0);
	trace_rec_meta(&tg.rb, "options", "trace,recalibrate=start,out=t.bin");
	for (size_t i = 0; i < sizeof(fpmeta) / sizeof(fpmeta[0]); i++)
		trace_rec_meta(&tg.rb, fpmeta[i][0], fpmeta[i][1]);
	trace_rec_meta(&tg.rb, "metric.0.name", "cputime");
	trace_rec_meta(&tg.rb, "metric.0.unit", "ns");
	trace_rec_meta(&tg.rb, "start.time_ns", "1714564800000000000");
	trace_rec_meta(&tg.rb, "env.I:E:i:X:I", "75");
	trace_rec_meta(&tg.rb, "env.O:E:O:E:O", "5"); /* a key no delta has */
	trace_rec_meta(&tg.rb, "env.method", "child JVM -Xint");
	trace_rec_meta(&tg.rb, "env.runs", "3"); /* not a key: ignored */
	trace_rec_thread_start(&tg.rb, 1, 1, 100, 0, 0, "main", 1, m);
	trace_rec_thread_start(&tg.rb, 2, 12, 101, 0, 0, "Thread-0", 1, m);
	tg_flush(&tg);
	/* main: I -> i call with delta 1 (would pollute the minimum) */
	tg_events_begin(&tg, 1, 1);
	m[0] = 10;
	tg_event(&tg, JCAL_TR_ENTRY, JCAL_MT_INTERP_STATIC, 1, m);
	m[0] = 11;
	tg_event(&tg, JCAL_TR_ENTRY, JCAL_MT_INTERP, 2, m);
	m[0] = 12;
	tg_event(&tg, JCAL_TR_EXIT, JCAL_MT_INTERP, 2, m);
	tg_events_end(&tg);
	/* the calibrator: 100 rounds of I calls i, deltas 800+r%50 inside i,
	 * 300+r%7 between calls in I */
	tg_events_begin(&tg, 2, 1);
	m[0] = 1000;
	tg_event(&tg, JCAL_TR_ENTRY, JCAL_MT_INTERP_STATIC, 1, m);
	for (unsigned r = 0; r < 100; r++) {
		m[0] += 300 + r % 7;
		tg_event(&tg, JCAL_TR_ENTRY, JCAL_MT_INTERP, 2, m);
		m[0] += 800 + r % 50;
		tg_event(&tg, JCAL_TR_EXIT, JCAL_MT_INTERP, 2, m);
	}
	m[0] -= 5; /* backwards: left out */
	tg_event(&tg, JCAL_TR_EXIT, JCAL_MT_INTERP_STATIC, 1, m);
	tg_events_end(&tg);
	/* the name comes after the events (THREAD_NAME), and so does calib.thread */
	trace_rec_thread_name(&tg.rb, 2, 0, "jcal-calibrator", 0);
	if (with_thread_meta)
		trace_rec_meta(&tg.rb, "calib.thread", "jcal-calibrator");
	trace_rec_end(&tg.rb, 205, 2, 0);
	CHECK_EQ_I(tg_close(&tg), 0);
}

static void test_derive(void)
{
	struct calib_table t;
	struct calib_derive_info info;
	struct calib_fingerprint fp;
	struct trace_result res;
	const struct calib_entry *e;
	struct seqkey k;
	char path[512], err[512];

	tmp_path(path, sizeof(path), "calib.jcal");
	write_calib_trace(path, 1);
	CHECK_EQ_I(calib_derive_file(path, &t, &info, err, sizeof(err)), 0);
	if (test_cur_failed)
		fprintf(stderr, "  %s\n", err);
	CHECK_STR(info.calib_thread, "jcal-calibrator");
	CHECK_EQ_U(info.threads, 2);
	CHECK_EQ_U(info.threads_used, 1);
	CHECK_EQ_U(info.events, 205);
	CHECK_EQ_U(info.backwards, 1);
	CHECK_EQ_U(info.deltas, 200); /* 202 events: 201 deltas, 1 backwards */
	CHECK_EQ_U(info.env_records, 2);
	CHECK_EQ_U(info.env_unused, 1);
	CHECK_EQ_U(t.nkeys, 3); /* i:X:I:X:O only had the backwards delta */
	CHECK_EQ_U(info.env_missing, 2);
	CHECK_EQ_U(calib_table_env_missing(&t), 2);
	CHECK_STR(t.unit, "ns");
	CHECK_STR(t.env_method, "child JVM -Xint");
	CHECK_STR(t.created, "2024-05-01T12:00:00Z");
	CHECK_STR(t.fp.field[CALIB_FP_METRICS], "cputime");
	CHECK_STR(t.fp.field[CALIB_FP_CPU_MODEL_NAME], "Xeon");
	/* inside i: 800..849, twice each value */
	key_of("I:E:i:X:I", &k);
	e = calib_table_get(&t, &k);
	CHECK(e != NULL);
	if (e) {
		CHECK_EQ_U(e->min, 800);
		CHECK_EQ_U(e->samples, 100);
		CHECK_EQ_U(e->env, 75);
		CHECK_EQ_U(e->comp, 725);
		CHECK(e->has_stats);
		CHECK(e->mean > 824.49 && e->mean < 824.51);
		/* histogram buckets of 8 at this size: within 1% */
		CHECK(e->median >= 820 && e->median <= 830);
		CHECK(e->p10 >= 800 && e->p10 <= 812);
		CHECK(e->has_q);
		CHECK(e->q[0] >= 800 && e->q[0] <= 808);
		CHECK(e->q[15] >= 840 && e->q[15] <= 856);
		for (unsigned j = 1; j < CALIB_NQ; j++)
			CHECK(e->q[j] >= e->q[j - 1]);
	}
	/* between calls in I, rounds 1..99: 300 + r % 7 */
	key_of("i:X:I:E:i", &k);
	e = calib_table_get(&t, &k);
	CHECK(e != NULL);
	if (e) {
		CHECK_EQ_U(e->min, 300);
		CHECK_EQ_U(e->samples, 99);
		CHECK_EQ_U(e->env, 0);
		CHECK_EQ_U(e->comp, 300);
		CHECK(e->median >= 300 && e->median <= 306);
	}
	key_of("O:E:I:E:i", &k);
	CHECK(calib_table_get(&t, &k) != NULL);
	key_of("O:E:i:X:I", &k); /* main's step: not counted */
	CHECK(calib_table_get(&t, &k) == NULL);
	calib_table_free(&t);

	/* without calib.thread every thread counts */
	write_calib_trace(path, 0);
	CHECK_EQ_I(calib_derive_file(path, &t, &info, err, sizeof(err)), 0);
	CHECK_EQ_U(info.threads_used, 2);
	key_of("I:E:i:X:I", &k);
	CHECK_EQ_U(calib_table_get(&t, &k)->min, 1);
	calib_table_free(&t);

	/* the fingerprint scan stops once every field is known */
	{
		int recal = -1;

		CHECK_EQ_I(calib_trace_fingerprint(path, &fp, &recal, &res), TRACE_OK);
		CHECK_EQ_I(recal, 1); /* options "trace,recalibrate=start,out=t.bin" */
	}
	CHECK_STR(fp.field[CALIB_FP_AGENT_VERSION], "0.1.0");
	CHECK_STR(fp.field[CALIB_FP_KERNEL], "6.1.0");
	CHECK_EQ_U(res.events, 0);

	/* errors */
	CHECK_EQ_I(calib_derive_file("/nonexistent/t.jcal", &t, NULL, err, sizeof(err)), -1);
	CHECK(strstr(err, "/nonexistent/t.jcal") != NULL);
	calib_table_free(&t);
}

/* A calibrator thread that runs I calling i with bodies of several work
 * loop lengths, marked as the calibration marks them: inside i the raw
 * delta is w + 20 + 0.2 w exactly, w = env 75 + i's loop (0, 100 at 8,
 * 400 at 32 iterations). A length without a cost (64) and a mark of another
 * label do not disturb the fit. */
static void write_work_trace(const char *path, const char *bad_meta)
{
	static const struct {
		uint32_t label; /* 0: none */
		unsigned rounds;
		uint64_t inside;
	} blocks[] = {{0, 40, 110}, {1, 20, 230},  {4, 1, 230},
		      {2, 20, 590}, {5, 20, 9999}, {3, 5, 110}};
	struct tracegen tg;
	uint64_t m[1] = {1000};

	CHECK_EQ_I(tg_open(&tg, path), 0);
	trace_rec_meta(&tg.rb, "metric.0.unit", "ns");
	trace_rec_meta(&tg.rb, "env.I:E:i:X:I", "75");
	trace_rec_meta(&tg.rb, "calib.work.i.8", "100");
	trace_rec_meta(&tg.rb, "calib.work.i.32", "400");
	if (bad_meta)
		trace_rec_meta(&tg.rb, bad_meta, "5");
	trace_rec_label(&tg.rb, 1, "calib.work=8");
	trace_rec_label(&tg.rb, 2, "calib.work=32");
	trace_rec_label(&tg.rb, 3, "calib.work=0");
	trace_rec_label(&tg.rb, 4, "phase two");
	trace_rec_label(&tg.rb, 5, "calib.work=64");
	trace_rec_thread_start(&tg.rb, 1, 1, 100, 0, 0, "jcal-calibrator", 1, m);
	tg_flush(&tg);
	tg_events_begin(&tg, 1, 1);
	tg_event(&tg, JCAL_TR_ENTRY, JCAL_MT_INTERP_STATIC, 1, m);
	for (size_t b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++) {
		if (blocks[b].label)
			trace_events_add_control(&tg.enc, JCAL_CTL_MARK, blocks[b].label, m);
		for (unsigned r = 0; r < blocks[b].rounds; r++) {
			m[0] += 300;
			tg_event(&tg, JCAL_TR_ENTRY, JCAL_MT_INTERP, 2, m);
			m[0] += blocks[b].inside;
			tg_event(&tg, JCAL_TR_EXIT, JCAL_MT_INTERP, 2, m);
		}
	}
	m[0] += 50;
	tg_event(&tg, JCAL_TR_EXIT, JCAL_MT_INTERP_STATIC, 1, m);
	tg_events_end(&tg);
	trace_rec_end(&tg.rb, 214, 1, 0);
	CHECK_EQ_I(tg_close(&tg), 0);
}

static void test_derive_fit(void)
{
	struct calib_table t, u;
	struct calib_derive_info info;
	const struct calib_entry *e;
	struct seqkey k;
	char path[512], err[512], *text;

	tmp_path(path, sizeof(path), "work.jcal");
	write_work_trace(path, NULL);
	CHECK_EQ_I(calib_derive_file(path, &t, &info, err, sizeof(err)), 0);
	if (test_cur_failed)
		fprintf(stderr, "  %s\n", err);
	CHECK_EQ_U(info.work_levels, 4); /* 0, 8, 32, 64 */
	CHECK_EQ_U(info.deltas, 208);
	CHECK_EQ_U(info.work_deltas, 118);
	CHECK_EQ_U(info.fit_keys, 1);
	CHECK_EQ_U(info.fit_one_work, 1); /* i:X:I:E:i: I's loop has no cost */
	CHECK_EQ_U(info.fit_too_few, 2);  /* O:E:I:E:i and i:X:I:X:O: one sample */
	key_of("I:E:i:X:I", &k);
	e = calib_table_get(&t, &k);
	CHECK(e != NULL);
	if (e) {
		/* the statistics are those of the empty bodies */
		CHECK_EQ_U(e->samples, 45);
		CHECK_EQ_U(e->min, 110);
		CHECK(e->mean == 110);
		CHECK(e->has_fit);
		CHECK(e->fit_a == 20);
		CHECK(e->fit_b == 0.2);
	}
	key_of("i:X:I:E:i", &k);
	e = calib_table_get(&t, &k);
	CHECK(e && !e->has_fit && e->samples == 43);
	text = to_text(&t);
	CHECK(text && !strncmp(text, "jcal-calibration 3\n", 19));
	CHECK(text && strstr(text, "I:E:i:X:I 110 samples=45 env=75 comp=35 "));
	CHECK(text && strstr(text, " a=20.0 b=0.2000\n"));
	CHECK_EQ_I(calib_table_init(&u), 0);
	CHECK_EQ_I(parse_text(&u, text, err, sizeof(err)), 0);
	CHECK_EQ_U(calib_table_keys_with_fit(&u), 1);
	free(text);
	calib_table_free(&u);
	calib_table_free(&t);

	write_work_trace(path, "calib.work.X.8");
	CHECK_EQ_I(calib_derive_file(path, &t, &info, err, sizeof(err)), -1);
	CHECK(strstr(err, "meta record calib.work.X.8 = '5'") != NULL);
	calib_table_free(&t);
}

/* Which agent option strings ask for in-run bursts. */
static void test_options_recalibrate(void)
{
	CHECK_EQ_I(calib_options_recalibrate("trace,recalibrate=start,out=t.bin"), 1);
	CHECK_EQ_I(calib_options_recalibrate("recalibrate=5m"), 1);
	CHECK_EQ_I(calib_options_recalibrate("trace,out=recalibrate=x.bin"), 0);
	CHECK_EQ_I(calib_options_recalibrate("trace,out=t.bin"), 0);
	CHECK_EQ_I(calib_options_recalibrate(""), 0);
	CHECK_EQ_I(calib_options_recalibrate(NULL), 0);
}

static void test_derive_errors(void)
{
	struct calib_table t;
	struct tracegen tg;
	char path[512], err[512];
	uint64_t m[1] = {5};

	tmp_path(path, sizeof(path), "bad-env.jcal");
	CHECK_EQ_I(tg_open(&tg, path), 0);
	trace_rec_meta(&tg.rb, "env.I:E:i:X:I", "-3");
	CHECK_EQ_I(tg_close(&tg), 0);
	CHECK_EQ_I(calib_derive_file(path, &t, NULL, err, sizeof(err)), -1);
	CHECK(strstr(err, "env.I:E:i:X:I: '-3' is not an unsigned integer") != NULL);
	calib_table_free(&t);

	tmp_path(path, sizeof(path), "no-thread.jcal");
	CHECK_EQ_I(tg_open(&tg, path), 0);
	trace_rec_meta(&tg.rb, "calib.thread", "jcal-calibrator");
	trace_rec_thread_start(&tg.rb, 1, 1, 100, 0, 0, "main", 1, m);
	tg_flush(&tg);
	tg_events_begin(&tg, 1, 1);
	tg_event(&tg, JCAL_TR_ENTRY, JCAL_MT_INTERP, 1, m);
	tg_event(&tg, JCAL_TR_EXIT, JCAL_MT_INTERP, 1, m);
	tg_events_end(&tg);
	CHECK_EQ_I(tg_close(&tg), 0);
	CHECK_EQ_I(calib_derive_file(path, &t, NULL, err, sizeof(err)), -1);
	CHECK(strstr(err, "no thread of that name has events") != NULL);
	calib_table_free(&t);

	tmp_path(path, sizeof(path), "empty.jcal");
	CHECK_EQ_I(tg_open(&tg, path), 0);
	CHECK_EQ_I(tg_close(&tg), 0);
	CHECK_EQ_I(calib_derive_file(path, &t, NULL, err, sizeof(err)), -1);
	CHECK(strstr(err, "no delta") != NULL);
	calib_table_free(&t);
}

static void cleanup(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "  could not remove %s\n", tmpdir);
}

/* An entry with statistics (no quantiles). */
static struct calib_entry entry_with_stats(uint64_t min, uint64_t samples, uint64_t env,
					   uint64_t p10, uint64_t median, double mean)
{
	struct calib_entry e = {0};

	e.min = min;
	e.samples = samples;
	e.env = env;
	e.has_stats = 1;
	e.p10 = p10;
	e.median = median;
	e.mean = mean;
	return e;
}

/* Estimators other than the minimum: comp = max(0, statistic - env), keys
 * without statistics keep the minimum, and min restores the table's comps. */
static void test_estimators(void)
{
	struct calib_table t;
	struct calib_entry e = {0};
	struct seqkey k, k2;
	uint64_t comp = 0;
	enum calib_estimator est;

	CHECK(calib_table_init(&t) == 0);
	key_of("I:E:i:X:I", &k);
	e = entry_with_stats(100, 50, 30, 110, 140, 151.6);
	calib_table_set(&t, &k, &e);
	set_key(&t, "i:X:I:E:N", 80, 10, 90); /* no statistics; env above min */
	key_of("i:X:I:E:N", &k2);

	static const struct {
		const char *name;
		uint64_t comp, comp2;
	} want[] = {{"p10", 80, 0}, {"median", 110, 0}, {"mean", 122, 0}, {"min", 70, 0}};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		CHECK(calib_estimator_parse(want[i].name, &est) == 0);
		CHECK_STR(calib_estimator_name(est), want[i].name);
		calib_table_use_estimator(&t, est);
		CHECK(calib_table_lookup(&t, &k, &comp) == CALIB_EXACT);
		CHECK_EQ_U(comp, want[i].comp);
		CHECK(calib_table_lookup(&t, &k2, &comp) == CALIB_EXACT);
		CHECK_EQ_U(comp, want[i].comp2);
	}
	CHECK(calib_estimator_parse("average", &est) == -1);
	calib_table_free(&t);
}

/*
 * cond: the overheads q[j] - env of a key are 10, 20, ..., 160 (env 40);
 * a delta of 55 can hold at most the five lowest (10..50): mean 30; a
 * delta of 1000 all sixteen: mean 85; a delta of 5 none: o_0 = 10, which
 * the apply hook clamps (delta 0, counted). A key without q keeps its
 * comp (the mean's), a fallback key uses the entry it resolves to.
 */
/*
 * The batch forms against the per-delta ones on n deltas, delta d / 2 for
 * the key ks[d % nks]: calib_table_comp_batch's comps against
 * calib_table_comp_for, calib_apply_comp_batch's values and clamped count
 * against calib_apply_comp's.
 */
static void check_batch_forms(struct calib_apply *a, const struct seqkey *const *ks, unsigned nks,
			      unsigned n)
{
	uint16_t *keys = malloc(n * sizeof(*keys));
	uint64_t *deltas = malloc(n * sizeof(*deltas)), *comps = malloc(n * sizeof(*comps));
	int64_t *out = malloc(n * sizeof(*out));
	uint64_t comp, clamped = 0, clamped0 = a->clamped;

	CHECK(keys && deltas && comps && out);
	if (!keys || !deltas || !comps || !out)
		goto out;
	for (unsigned d = 0; d < n; d++) {
		keys[d] = (uint16_t)seqkey_index(ks[d % nks]);
		deltas[d] = d / 2;
	}
	CHECK_EQ_I(calib_table_comp_batch(&a->table, keys, deltas, comps, n), 0);
	calib_apply_comp_batch(a, keys, deltas, out, n);
	for (unsigned d = 0; d < n; d++) {
		calib_table_comp_for(&a->table, ks[d % nks], deltas[d], &comp);
		if (comps[d] != comp || out[d] != calib_apply_comp(a, ks[d % nks], 0, deltas[d])) {
			CHECK_EQ_U(comps[d], comp);
			CHECK(!"the batch form differs");
			break;
		}
		clamped += comps[d] > deltas[d];
	}
	CHECK_EQ_U(a->clamped - clamped0, 2 * clamped);
out:
	free(keys);
	free(deltas);
	free(comps);
	free(out);
}

/* The estimator tests' key entry: env 40 and quantiles 50, 60, ... 200,
 * so its overheads are 10, 20, ... 160 (mean 85). */
static struct calib_entry cond_entry(void)
{
	struct calib_entry e = entry_with_stats(45, 160, 40, 55, 120, 125.0);

	e.has_q = 1;
	for (unsigned j = 0; j < CALIB_NQ; j++)
		e.q[j] = 50 + 10 * j;
	return e;
}

/* cond's count of overheads at or below a delta is taken in 32-bit lanes:
 * overheads near and past INT32_MAX (a key that is wide, one just under)
 * and deltas around them give what the reference gives, one by one and
 * in a batch. */
static void test_cond_wide(void)
{
	struct calib_table t;
	struct calib_entry e = {0};
	struct seqkey wide, narrow;
	const uint64_t big = (uint64_t)INT32_MAX;
	const uint64_t deltas[] = {0,	    1,	     big - 3, big - 2,	      big - 1,	 big,
				   big + 1, big + 5, 2 * big, UINT64_MAX / 2, UINT64_MAX};
	enum { ND = sizeof(deltas) / sizeof(deltas[0]) };
	uint16_t keys[2 * ND];
	uint64_t d[2 * ND], comps[2 * ND], comp;

	CHECK(calib_table_init(&t) == 0);
	key_of("I:E:i:X:I", &wide);
	key_of("I:E:I:X:I", &narrow);
	e = entry_with_stats(10, 100, 0, 20, 30, 40.0);
	e.has_q = 1;
	for (unsigned j = 0; j < CALIB_NQ; j++)
		e.q[j] = big - 8 + j; /* 2^31 - 9 .. 2^31 + 6: wide */
	calib_table_set(&t, &wide, &e);
	for (unsigned j = 0; j < CALIB_NQ; j++)
		e.q[j] = big - 17 + j; /* up to 2^31 - 2: not wide */
	calib_table_set(&t, &narrow, &e);
	calib_table_use_estimator(&t, CALIB_EST_COND);
	for (unsigned k = 0; k < 2 * ND; k++) {
		const struct seqkey *key = k < ND ? &wide : &narrow;

		keys[k] = (uint16_t)seqkey_index(key);
		d[k] = deltas[k % ND];
		CHECK(calib_table_comp_for(&t, key, d[k], &comp) == CALIB_EXACT);
		CHECK_EQ_U(comp, calib_entry_cond(calib_table_get(&t, key), d[k]));
	}
	CHECK_EQ_I(calib_table_comp_batch(&t, keys, d, comps, 2 * ND), 0);
	for (unsigned k = 0; k < 2 * ND; k++)
		CHECK_EQ_U(comps[k],
			   calib_entry_cond(calib_table_get(&t, k < ND ? &wide : &narrow), d[k]));
	calib_table_free(&t);
}

static void test_cond_estimator(void)
{
	struct calib_apply a;
	struct calib_entry e = {0};
	struct seqkey k, k2, k3;
	uint64_t comp = 0;
	enum calib_estimator est;

	CHECK(calib_apply_init(&a) == 0);
	key_of("I:E:i:X:I", &k);
	e = cond_entry();
	calib_table_set(&a.table, &k, &e);
	CHECK_EQ_U(calib_entry_cond(calib_table_get(&a.table, &k), 55), 30);
	CHECK_EQ_U(calib_entry_cond(calib_table_get(&a.table, &k), 59), 30);
	CHECK_EQ_U(calib_entry_cond(calib_table_get(&a.table, &k), 60), 35);
	CHECK_EQ_U(calib_entry_cond(calib_table_get(&a.table, &k), 1000), 85);
	CHECK_EQ_U(calib_entry_cond(calib_table_get(&a.table, &k), 5), 10);
	/* env above the low quantiles: their overhead is 0 */
	e.env = 75;
	e.min = 80;
	calib_table_set(&a.table, &k, &e);
	CHECK_EQ_U(calib_entry_cond(calib_table_get(&a.table, &k), 0), 0);
	CHECK_EQ_U(calib_entry_cond(calib_table_get(&a.table, &k), 10), 1); /* 0,0,0,5: 5/4 */
	e.env = 40;
	e.min = 45;
	calib_table_set(&a.table, &k, &e);

	CHECK(calib_estimator_parse("cond", &est) == 0);
	CHECK_STR(calib_estimator_name(est), "cond");
	calib_table_use_estimator(&a.table, est);
	/* the table's comp under cond is the mean's: for lookups and shifts */
	CHECK(calib_table_lookup(&a.table, &k, &comp) == CALIB_EXACT);
	CHECK_EQ_U(comp, 85);
	CHECK_EQ_I(calib_apply_comp(&a, &k, 0, 55), 25);
	CHECK_EQ_I(calib_apply_comp(&a, &k, 0, 1000), 915);
	CHECK_EQ_I(calib_apply_comp(&a, &k, 0, 5), 0);
	CHECK_EQ_U(a.clamped, 1);
	CHECK_EQ_I(calib_apply_comp(&a, &k, 1, 55), 55); /* other metrics raw */
	/* the per-key cache gives what the reference gives, for every delta */
	CHECK(a.table.step != NULL);
	for (uint64_t d = 0; d <= 400; d++) {
		CHECK(calib_table_comp_for(&a.table, &k, d, &comp) == CALIB_EXACT);
		if (comp != calib_entry_cond(calib_table_get(&a.table, &k), d)) {
			CHECK_EQ_U(comp, calib_entry_cond(calib_table_get(&a.table, &k), d));
			break;
		}
	}
	/* i:E:I:X:i is missing: resolves to I:E:i:X:I (static-ness ignored) */
	key_of("i:E:I:X:i", &k2);
	CHECK(calib_table_comp_for(&a.table, &k2, 55, &comp) == CALIB_SIMILAR);
	CHECK_EQ_U(comp, 30);
	/* a key without q: its comp whatever the delta */
	set_key(&a.table, "i:X:I:E:N", 80, 10, 30);
	calib_table_use_estimator(&a.table, est);
	key_of("i:X:I:E:N", &k3);
	CHECK(calib_table_comp_for(&a.table, &k3, 1000, &comp) == CALIB_EXACT);
	CHECK_EQ_U(comp, 50);
	/* quantiles with runs of equal values: the search still counts every
	 * overhead <= the delta; and the batch forms give the per-delta ones,
	 * counts included */
	e.env = 40;
	for (unsigned j = 0; j < CALIB_NQ; j++)
		e.q[j] = 50 + 10 * (j / 5) + (j == 15 ? 7 : 0);
	calib_table_set(&a.table, &k, &e);
	calib_table_use_estimator(&a.table, est);
	{
		const struct seqkey *ks[3] = {&k2, &k, &k};
		uint64_t deltas0 = a.deltas, similar0 = a.fallback_similar;

		for (unsigned d = 0; d < 600; d++) {
			CHECK(calib_table_comp_for(&a.table, ks[d % 3], d / 2, &comp) ==
			      (d % 3 ? CALIB_EXACT : CALIB_SIMILAR));
			if (comp != calib_entry_cond(calib_table_get(&a.table, &k), d / 2)) {
				CHECK_EQ_U(comp,
					   calib_entry_cond(calib_table_get(&a.table, &k), d / 2));
				break;
			}
		}
		check_batch_forms(&a, ks, 3, 600);
		CHECK_EQ_U(a.deltas - deltas0, 1200);
		CHECK_EQ_U(a.fallback_similar - similar0, 400);
	}
	/* the other estimators ignore the delta, in the batch form too (the
	 * largest delta included, which passes every split of the search) */
	calib_table_use_estimator(&a.table, CALIB_EST_MEDIAN);
	CHECK(calib_table_comp_for(&a.table, &k, 55, &comp) == CALIB_EXACT);
	CHECK_EQ_U(comp, 80);
	{
		const uint16_t keys[4] = {(uint16_t)seqkey_index(&k), (uint16_t)seqkey_index(&k),
					  (uint16_t)seqkey_index(&k2), (uint16_t)seqkey_index(&k)};
		const uint64_t deltas[4] = {0, 79, 1000, UINT64_MAX};
		uint64_t comps[4];

		CHECK_EQ_I(calib_table_comp_batch(&a.table, keys, deltas, comps, 4), 0);
		CHECK_EQ_U(comps[0], 80);
		CHECK_EQ_U(comps[1], 80);
		CHECK_EQ_U(comps[2], 80); /* k2 resolves to k */
		CHECK_EQ_U(comps[3], 80);
	}
	calib_apply_free(&a);
}

/* --calib inrun against the stored table: per-key relative shift of comp,
 * median and range. In-run comps 100, 200; stored 80, 250, and one key
 * only in-run: shifts +25% and -20%, median +2.5%. */
static void test_inrun_shift(void)
{
	struct calib_apply a;
	struct calib_table ref;
	char path[4096], err[256];

	CHECK(calib_apply_init(&a) == 0);
	set_key(&a.table, "I:E:i:X:I", 100, 5, 0);
	set_key(&a.table, "i:X:I:E:N", 200, 5, 0);
	set_key(&a.table, "I:E:I:X:I", 300, 5, 0);
	CHECK(calib_table_init(&ref) == 0);
	fill_header(&ref);
	set_key(&ref, "I:E:i:X:I", 80, 5, 0);
	set_key(&ref, "i:X:I:E:N", 250, 5, 0);
	tmp_path(path, sizeof(path), "stored.txt");
	CHECK_EQ_I(calib_table_write_file(&ref, path, err, sizeof(err)), 0);
	CHECK_EQ_I(calib_apply_compare(&a, path, CALIB_EST_MIN), 0);
	CHECK(a.has_ref);
	CHECK_EQ_U(a.shift_keys, 2);
	CHECK(a.shift_median > 0.0249 && a.shift_median < 0.0251);
	CHECK(a.shift_low > -0.2001 && a.shift_low < -0.1999);
	CHECK(a.shift_high > 0.2499 && a.shift_high < 0.2501);
	CHECK_EQ_I(calib_apply_compare(&a, "/nonexistent/table.txt", CALIB_EST_MIN), -1);
	calib_table_free(&ref);
	calib_apply_free(&a);
}

/* The clock (clock=agentfree|raw) is a fingerprint field: "raw" when a
 * trace or table does not say, left out of raw tables and of the hash (raw
 * tables keep their names), and a table of another clock is not applied. */
static void test_clock(void)
{
	struct calib_fingerprint raw, af;
	struct calib_table t, back;
	struct calib_apply a;
	char name[64], name2[64], dir[512], path[1024], msg[2048], line[512];
	FILE *f;
	int has_clock = 0;

	fill_fp(&raw);
	CHECK_STR(raw.field[CALIB_FP_CLOCK], "raw");
	af = raw;
	CHECK_EQ_I(calib_fingerprint_set_meta(&af, "clock", "agentfree"), 1);
	CHECK_EQ_U(calib_fingerprint_diff(&raw, &af), 1u << CALIB_FP_CLOCK);
	calib_fingerprint_filename(&raw, name, sizeof(name));
	calib_fingerprint_filename(&af, name2, sizeof(name2));
	CHECK(strcmp(name, name2) != 0);
	CHECK_EQ_I(calib_fingerprint_set_meta(&af, "clock", " "), 1);
	CHECK_STR(af.field[CALIB_FP_CLOCK], "raw");
	CHECK_EQ_U(calib_fingerprint_diff(&raw, &af), 0);
	calib_fingerprint_set_meta(&af, "clock", "agentfree");

	/* an agentfree table says so; a raw one has no clock line */
	CHECK_EQ_I(calib_table_init(&t), 0);
	CHECK_EQ_I(calib_table_init(&back), 0);
	fill_header(&t);
	t.fp = af;
	set_key(&t, "i:E:I:X:i", 80, 1000, 75);
	tmp_path(dir, sizeof(dir), "clock");
	CHECK_EQ_I(calib_dir_create(dir, msg, sizeof(msg)), 0);
	CHECK_EQ_I(calib_dir_path(dir, &af, path, sizeof(path)), 0);
	CHECK_EQ_I(calib_table_write_file(&t, path, msg, sizeof(msg)), 0);
	f = fopen(path, "r");
	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f))
		has_clock += !strcmp(line, "clock agentfree\n");
	if (f)
		fclose(f);
	CHECK_EQ_I(has_clock, 1);
	CHECK_EQ_I(calib_table_read_file(&back, path, msg, sizeof(msg)), 0);
	CHECK_STR(back.fp.field[CALIB_FP_CLOCK], "agentfree");
	CHECK_EQ_U(calib_table_check(&back, msg, sizeof(msg)), 0);
	t.fp = raw;
	tmp_path(path, sizeof(path), "clock-raw.txt");
	CHECK_EQ_I(calib_table_write_file(&t, path, msg, sizeof(msg)), 0);
	f = fopen(path, "r");
	has_clock = 0;
	while (f && fgets(line, sizeof(line), f))
		has_clock += !strncmp(line, "clock", 5);
	if (f)
		fclose(f);
	CHECK_EQ_I(has_clock, 0);
	CHECK_EQ_I(calib_table_read_file(&back, path, msg, sizeof(msg)), 0);
	CHECK_STR(back.fp.field[CALIB_FP_CLOCK], "raw");
	/* an unknown clock is a problem of the table */
	snprintf(back.fp.field[CALIB_FP_CLOCK], CALIB_VALUE_MAX, "fast");
	CHECK_EQ_U(calib_table_check(&back, msg, sizeof(msg)), 1);
	CHECK(strstr(msg, "clock 'fast' is not agentfree or raw") != NULL);

	/* the directory holds the agentfree table only: a raw trace gets none,
	 * and the note names the table of the other clock */
	CHECK_EQ_I(calib_apply_init(&a), 0);
	CHECK_EQ_I(calib_apply_select(&a, dir, &af, msg, sizeof(msg)), CALIB_SEL_APPLIED);
	CHECK_EQ_I(calib_apply_clock_differs(&a.table, a.path, &af, msg, sizeof(msg)), 0);
	CHECK_EQ_I(calib_apply_clock_differs(&a.table, a.path, &raw, msg, sizeof(msg)), 1);
	CHECK(strstr(msg, "was measured with clock=agentfree, the trace with clock=raw: not "
			  "applied") != NULL);
	calib_apply_free(&a);
	CHECK_EQ_I(calib_apply_init(&a), 0);
	CHECK_EQ_I(calib_apply_select(&a, dir, &raw, msg, sizeof(msg)), CALIB_SEL_NONE);
	CHECK(strstr(msg, "no calibration table for this host/JVM/metric and clock=raw in ") !=
	      NULL);
	CHECK(strstr(msg, "was measured with clock=agentfree: not applied") != NULL);
	CHECK_EQ_I(a.active, 0);
	calib_apply_free(&a);
	calib_table_free(&t);
	calib_table_free(&back);
}

/* The calibration hint names the trace's own java, mode and chosen metric. */
static void test_hint(void)
{
	char buf[8192];
	struct calib_hint events = {"/usr/lib/jvm/j17",		  "mixed mode", "events", "cputime",
				    "auto: no hardware counters", "agentfree"};
	struct calib_hint bci = {"/opt/jdk25", "mixed mode",	   "bci",
				 "tsc",	       "requested; rdtsc", "raw"};
	struct calib_hint xint = {"/j", "interpreted mode", "events", "cputime", "auto: x", NULL};
	struct calib_hint old = {NULL, NULL, NULL, NULL, NULL, NULL};

	calib_apply_hint(&events, buf, sizeof(buf));
	CHECK(!strncmp(buf, "/usr/lib/jvm/j17/bin/java -agentpath:", 37));
	CHECK(strstr(buf, "libjcal.so=calibrate") != NULL);
	CHECK(strstr(buf, "mode=") == NULL && strstr(buf, "metric=") == NULL);
	CHECK(strstr(buf, "clock=") == NULL); /* agentfree: the default */
	calib_apply_hint(&bci, buf, sizeof(buf));
	CHECK(!strncmp(buf, "/opt/jdk25/bin/java -agentpath:", 31));
	CHECK(strstr(buf, "libjcal.so=calibrate,mode=bci,metric=tsc,clock=raw") != NULL);
	calib_apply_hint(&xint, buf, sizeof(buf));
	CHECK(!strncmp(buf, "/j/bin/java -Xint -agentpath:", 29));
	/* a trace without the clock meta is of the raw clock */
	CHECK(strstr(buf, "libjcal.so=calibrate,clock=raw") != NULL);
	calib_apply_hint(&old, buf, sizeof(buf));
	CHECK(!strncmp(buf, "java -agentpath:", 16));
}

/*
 * Version 3: a key with a fit (a, b) makes the table version 3, written
 * and read back equal; without one the table stays version 2. Merges
 * average the fits by samples, diff names them, the digest sees them.
 */
static void test_fit_table(void)
{
	struct calib_table t, u;
	struct calib_entry e = {0};
	struct seqkey k, k2;
	char err[256], *a = NULL, *b = NULL, *d = NULL;
	size_t dlen = 0;
	uint64_t digest;
	FILE *f;

	CHECK_EQ_I(calib_table_init(&t), 0);
	CHECK_EQ_I(calib_table_init(&u), 0);
	fill_header(&t);
	set_key(&t, "i:E:I:X:i", 812, 1000, 75);
	a = to_text(&t);
	CHECK(a && !strncmp(a, "jcal-calibration 2\n", 19));
	free(a);
	digest = calib_table_digest(&t);
	key_of("I:E:i:X:I", &k);
	e = entry_with_stats(100, 300, 30, 110, 140, 151.6);
	e.has_fit = 1;
	e.fit_a = 41.26;    /* kept to 0.1 */
	e.fit_b = 0.123456; /* kept to 0.0001 */
	calib_table_set(&t, &k, &e);
	CHECK(calib_table_get(&t, &k)->fit_a == 41.3);
	CHECK(calib_table_get(&t, &k)->fit_b == 0.1235);
	CHECK_EQ_U(calib_table_keys_with_fit(&t), 1);
	CHECK(calib_table_digest(&t) != digest);
	a = to_text(&t);
	CHECK(a && !strncmp(a, "jcal-calibration 3\n", 19));
	CHECK(a && strstr(a, " p10=110 a=41.3 b=0.1235\n"));
	CHECK_EQ_I(parse_text(&u, a, err, sizeof(err)), 0);
	if (test_cur_failed)
		fprintf(stderr, "  %s\n", err);
	CHECK(calib_table_get(&u, &k) && calib_table_get(&u, &k)->has_fit);
	CHECK(calib_table_digest(&u) == calib_table_digest(&t));
	b = to_text(&u);
	if (a && b)
		CHECK_STR(b, a);
	free(b);

	/* merge: 300 samples of a=41.3 b=0.1235 and 100 of a=20 b=0.5 */
	e.samples = 100;
	e.fit_a = 20;
	e.fit_b = 0.5;
	calib_table_set(&u, &k, &e);
	f = open_memstream(&d, &dlen);
	CHECK_EQ_U(calib_table_diff(&t, &u, f), 1);
	fclose(f);
	CHECK(d && strstr(d, "I:E:i:X:I  min 100 -> 100 (+0.0%)  env 30 -> 30  comp 70 -> 70  "
			     "fit a=41.3 b=0.1235 -> a=20.0 b=0.5000\n"));
	free(d);
	CHECK_EQ_I(calib_table_merge(&t, &u, 0, err, sizeof(err)), 0);
	CHECK(calib_table_get(&t, &k)->fit_a == 36.0);	 /* (41.3*300 + 20*100) / 400 = 35.975 */
	CHECK(calib_table_get(&t, &k)->fit_b == 0.2176); /* 0.217625 */
	/* a fit only in the source is taken as it is */
	key_of("i:E:I:X:i", &k2);
	e.samples = 5;
	e.min = 812;
	e.env = 75;
	e.fit_a = 7;
	e.fit_b = 1;
	calib_table_set(&u, &k2, &e);
	CHECK_EQ_I(calib_table_merge(&t, &u, 0, err, sizeof(err)), 0);
	CHECK(calib_table_get(&t, &k2)->has_fit && calib_table_get(&t, &k2)->fit_a == 7);
	free(a);
	calib_table_free(&t);
	calib_table_free(&u);
}

/* a initialised, with cond_entry()'s quantiles under I:E:i:X:I (*k) and
 * the fit fit_a + fit_b * work, and the same quantiles without a fit
 * (cond) under i:X:I:E:N (*k3). */
static void fit_table(struct calib_apply *a, double fit_a, double fit_b, struct seqkey *k,
		      struct seqkey *k3)
{
	struct calib_entry e = cond_entry();

	CHECK(calib_apply_init(a) == 0);
	key_of("I:E:i:X:I", k);
	e.has_fit = 1;
	e.fit_a = fit_a;
	e.fit_b = fit_b;
	calib_table_set(&a->table, k, &e);
	e.has_fit = 0;
	key_of("i:X:I:E:N", k3);
	calib_table_set(&a->table, k3, &e);
}

/* The estimator called name (which must parse as want and print back as
 * name) put to use in a's table. */
static void use_estimator(struct calib_apply *a, const char *name, enum calib_estimator want)
{
	enum calib_estimator est;

	CHECK(calib_estimator_parse(name, &est) == 0);
	CHECK(est == want);
	CHECK_STR(calib_estimator_name(est), name);
	calib_table_use_estimator(&a->table, est);
}

/*
 * --estimator fit: a key with a fit subtracts calib_fit_comp of the delta
 * (a = 50, b = 0.25: a delta of 175 is work 100), a key without one takes
 * cond, a fallback key the fit of the entry it resolves to; the per-delta
 * and the batch forms agree, clamped counts included.
 */
static void test_fit_estimator(void)
{
	struct calib_apply a;
	struct seqkey k, k2, k3;
	uint64_t comp = 0;

	fit_table(&a, 50, 0.25, &k, &k3);
	use_estimator(&a, "fit", CALIB_EST_FIT);
	CHECK(calib_table_comp_for(&a.table, &k, 175, &comp) == CALIB_EXACT);
	CHECK_EQ_U(comp, 75);
	CHECK_EQ_I(calib_apply_comp(&a, &k, 0, 175), 100);
	CHECK_EQ_I(calib_apply_comp(&a, &k, 0, 1050), 800);
	CHECK_EQ_I(calib_apply_comp(&a, &k, 0, 30), 0);
	CHECK_EQ_U(a.clamped, 1);
	CHECK_EQ_I(calib_apply_comp(&a, &k, 1, 30), 30); /* other metrics raw */
	CHECK(calib_table_comp_for(&a.table, &k3, 55, &comp) == CALIB_EXACT);
	CHECK_EQ_U(comp, 30); /* cond: the mean of 10..50 */
	/* i:E:I:X:i is missing: resolves to I:E:i:X:I and its fit */
	key_of("i:E:I:X:i", &k2);
	CHECK(calib_table_comp_for(&a.table, &k2, 175, &comp) == CALIB_SIMILAR);
	CHECK_EQ_U(comp, 75);
	{
		const struct seqkey *ks[3] = {&k, &k2, &k3};

		for (uint64_t d = 0; d < 450; d++) /* k and k2 take the fit */
			for (unsigned kk = 0; kk < 2; kk++) {
				calib_table_comp_for(&a.table, ks[kk], d, &comp);
				if (comp != calib_fit_comp(50, 0.25, d)) {
					CHECK_EQ_U(comp, calib_fit_comp(50, 0.25, d));
					d = 450;
					break;
				}
			}
		check_batch_forms(&a, ks, 3, 900);
	}
	/* the same table under cond ignores the fit */
	calib_table_use_estimator(&a.table, CALIB_EST_COND);
	CHECK(calib_table_comp_for(&a.table, &k, 55, &comp) == CALIB_EXACT);
	CHECK_EQ_U(comp, 30);
	calib_apply_free(&a);
}

/*
 * --estimator cfit on a hand-built key: overheads q[j] - env = 10, 20,
 * ..., 160 (env 40, q[15] = 200: the hand-over), cond's mean of them 85,
 * fit a = 120, b = 0.25. At and below 200 cond; above it the fit held
 * between 85 and 85 + (delta - 200), so the calibrated delta never jumps.
 */
static void test_cfit_estimator(void)
{
	struct calib_apply a;
	struct calib_entry e;
	struct seqkey k, k2, k3, k4;
	uint64_t comp = 0, cond_comp = 0;

	/* the arithmetic alone: fit(230) = 230 - 88 = 142, capped at 85 + 30 */
	CHECK_EQ_U(calib_cfit_comp(120, 0.25, 200, 85, 230), 115);
	CHECK_EQ_U(calib_cfit_comp(120, 0.25, 200, 85, 270), 150); /* the fit */
	CHECK_EQ_U(calib_cfit_comp(0, 0, 200, 85, 5000), 85);	   /* at least cond's */
	CHECK_EQ_U(calib_cfit_comp(120, 0.25, 200, 85, 200), 85);  /* both bounds meet */

	fit_table(&a, 120, 0.25, &k, &k3);
	/* a fit below cond's mean overhead: a = 10, b = 0.5 */
	key_of("I:X:I:E:I", &k4);
	e = cond_entry();
	e.has_fit = 1;
	e.fit_a = 10;
	e.fit_b = 0.5;
	calib_table_set(&a.table, &k4, &e);
	use_estimator(&a, "cfit", CALIB_EST_CFIT);

	/* below the hand-over: cond (the mean of 10..100), not the fit (120) */
	CHECK(calib_table_comp_for(&a.table, &k, 100, &comp) == CALIB_EXACT);
	CHECK_EQ_U(comp, 55);
	CHECK(calib_table_comp_for(&a.table, &k, 5, &comp) == CALIB_EXACT);
	CHECK_EQ_U(comp, 10); /* below every overhead: o_0, clamped */
	/* at it: cond's mean of all 16, where the fit alone would take 136 */
	calib_table_comp_for(&a.table, &k, 200, &comp);
	CHECK_EQ_U(comp, 85);
	CHECK_EQ_U(calib_fit_comp(120, 0.25, 200), 136);
	/* above it: capped by the excess, then the fit */
	calib_table_comp_for(&a.table, &k, 201, &comp);
	CHECK_EQ_U(comp, 86);
	calib_table_comp_for(&a.table, &k, 260, &comp);
	CHECK_EQ_U(comp, 145); /* fit 148 > 85 + 60 */
	calib_table_comp_for(&a.table, &k, 270, &comp);
	CHECK_EQ_U(comp, 150); /* fit 150 < 85 + 70 */
	calib_table_comp_for(&a.table, &k, 1120, &comp);
	CHECK_EQ_U(comp, 320); /* work (1120 - 120) / 1.25 = 800 */
	CHECK_EQ_I(calib_apply_comp(&a, &k, 0, 1120), 800);
	/* the low fit: never below cond's 85, the fit once above it */
	calib_table_comp_for(&a.table, &k4, 210, &comp);
	CHECK_EQ_U(comp, 85); /* fit 210 - 133 = 77 */
	calib_table_comp_for(&a.table, &k4, 250, &comp);
	CHECK_EQ_U(comp, 90); /* fit 250 - 160 */

	/* the calibrated delta never jumps past the hand-over and never goes
	 * back: it grows by 0 or 1 per ns of delta, from 200 - 85 at 200 */
	for (unsigned kk = 0; kk < 2; kk++) {
		const struct seqkey *kp = kk ? &k4 : &k;
		int64_t prev = calib_apply_comp(&a, kp, 0, 200);

		CHECK_EQ_I(prev, 115);
		for (uint64_t d = 201; d < 5000; d++) {
			int64_t v = calib_apply_comp(&a, kp, 0, d);

			if (v < prev || v > prev + 1) {
				CHECK_EQ_I(v, prev);
				break;
			}
			prev = v;
		}
	}

	/* keys without a fit, a fallback without one, a key with a fit but no
	 * q: cond at every delta */
	key_of("i:X:I:E:n", &k2); /* missing: resolves to i:X:I:E:N, no fit */
	{
		struct calib_table c;
		const struct seqkey *ks[2] = {&k3, &k2};

		CHECK(calib_table_init(&c) == 0);
		CHECK(calib_table_copy(&c, &a.table) == 0);
		calib_table_use_estimator(&c, CALIB_EST_COND);
		for (unsigned kk = 0; kk < 2; kk++)
			for (uint64_t d = 0; d < 3000; d++) {
				calib_table_comp_for(&a.table, ks[kk], d, &comp);
				calib_table_comp_for(&c, ks[kk], d, &cond_comp);
				if (comp != cond_comp) {
					CHECK_EQ_U(comp, cond_comp);
					break;
				}
			}
		calib_table_free(&c);
	}
	e.has_fit = 1;
	e.has_q = 0;
	calib_table_set(&a.table, &k3, &e);
	calib_table_use_estimator(&a.table, CALIB_EST_CFIT);
	calib_table_comp_for(&a.table, &k3, 1120, &comp);
	CHECK_EQ_U(comp, 85); /* the mean 125 - env 40, as cond */

	/* the per-delta and the batch forms agree, clamped counts included */
	{
		const struct seqkey *ks[4] = {&k, &k2, &k3, &k4};

		check_batch_forms(&a, ks, 4, 3000);
	}
	calib_apply_free(&a);
}

/* The saturating subtraction every compensated delta goes through: 0
 * below the overhead, at most INT64_MAX, exact in between. */
static void test_comp_sub_edges(void)
{
	CHECK_EQ_U(calib_comp_sub(10, 3), 7);
	CHECK_EQ_U(calib_comp_sub(3, 10), 0);
	CHECK_EQ_U(calib_comp_sub(5, 5), 0);
	CHECK_EQ_U(calib_comp_sub(0, 0), 0);
	CHECK_EQ_U(calib_comp_sub(0, UINT64_MAX), 0);
	CHECK_EQ_U(calib_comp_sub(UINT64_MAX, UINT64_MAX - 1), 1);
	CHECK_EQ_U(calib_comp_sub(UINT64_MAX, 0), INT64_MAX);
	CHECK_EQ_U(calib_comp_sub((uint64_t)INT64_MAX + 5, 5), INT64_MAX);
	CHECK_EQ_U(calib_comp_sub((uint64_t)INT64_MAX + 5, 4), INT64_MAX);
	CHECK_EQ_U(calib_comp_sub((uint64_t)INT64_MAX + 5, 6), INT64_MAX - 1);
}

int main(void)
{
	make_tmpdir();
	RUN(test_comp_sub_edges);
	RUN(test_golden_calib_small);
	RUN(test_comp_clamp_fallback);
	RUN(test_roundtrip);
	RUN(test_malformed);
	RUN(test_fingerprint);
	RUN(test_merge_diff_check);
	RUN(test_files_and_dir);
	RUN(test_apply_select);
	RUN(test_derive);
	RUN(test_derive_errors);
	RUN(test_derive_fit);
	RUN(test_options_recalibrate);
	RUN(test_estimators);
	RUN(test_cond_estimator);
	RUN(test_cond_wide);
	RUN(test_fit_table);
	RUN(test_fit_estimator);
	RUN(test_cfit_estimator);
	RUN(test_inrun_shift);
	RUN(test_hint);
	RUN(test_clock);
	cleanup();
	return test_summary("calib");
}
