/*
 * test-calib-apply.c - calibration tables applied in jcal-post
 * (postproc/calib_apply.c): the golden calib-small.md example through the
 * real table, lookup and hook; the table chosen by fingerprint from the
 * directory or given as a file; the cond, fit and cfit estimators through
 * the hook, one delta at a time and in batches; the in-run shift against
 * the stored table; the clock as a fingerprint field; the calibration
 * hint.
 */
#include <stdlib.h>

#include "postproc/calib_apply.h"
#include "common/calib_comp.h"
#include "common/calib_fit.h"
#include "common/calib_dir.h"
#include "common/calib_table.h"
#include "common/calltree.h"
#include "native-tests/calibgen.h"
#include "native-tests/test.h"

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

int main(void)
{
	make_tmpdir();
	RUN(test_golden_calib_small);
	RUN(test_apply_select);
	RUN(test_cond_estimator);
	RUN(test_fit_estimator);
	RUN(test_cfit_estimator);
	RUN(test_inrun_shift);
	RUN(test_hint);
	RUN(test_clock);
	cleanup();
	return test_summary("calib-apply");
}
