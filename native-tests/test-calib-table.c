/*
 * test-calib-table.c - unit tests of calibration tables (common/calib_table.c
 * and its parser, writer and operations, calib_table_*.c): lookup with
 * its similar and global fallbacks, comp arithmetic and the hook's clamp
 * (postproc/calib_apply.c); write/parse round trips; malformed tables
 * with their line numbers; fingerprints; merge, diff, check; the
 * estimators (p10, median, mean, min, cond) and fits (table version 3).
 */
#include <stdlib.h>

#include "postproc/calib_apply.h"
#include "common/calib_comp.h"
#include "common/calib_table.h"
#include "native-tests/calibgen.h"
#include "native-tests/test.h"

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

int main(void)
{
	RUN(test_comp_clamp_fallback);
	RUN(test_roundtrip);
	RUN(test_malformed);
	RUN(test_fingerprint);
	RUN(test_merge_diff_check);
	RUN(test_estimators);
	RUN(test_cond_wide);
	RUN(test_fit_table);
	return test_summary("calib-table");
}
