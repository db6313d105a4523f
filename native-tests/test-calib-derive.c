/*
 * test-calib-derive.c - a calibration table derived from a calibration
 * trace (common/calib_derive.c) written with the real encoder: the
 * calibrator thread's deltas per key with their statistics, env records,
 * the fingerprint scan, the work-loop fit, which option strings ask for
 * in-run bursts, and traces it refuses.
 */
#include <stdlib.h>

#include "common/calib_derive.h"
#include "common/calib_table.h"
#include "native-tests/calibgen.h"
#include "native-tests/test.h"
#include "native-tests/tracegen.h"

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

int main(void)
{
	make_tmpdir();
	RUN(test_derive);
	RUN(test_derive_errors);
	RUN(test_derive_fit);
	RUN(test_options_recalibrate);
	cleanup();
	return test_summary("calib-derive");
}
