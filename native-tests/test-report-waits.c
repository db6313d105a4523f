/*
 * test-report-waits.c - the waits the JVM reports (MONITOR records): the
 * record's encoding and decoding (common/trace_encoder.c,
 * common/trace_reader.c: bytes, round trip, a bad record refused, an
 * older reader skipping it), the model's copy (postproc/waits.c), the
 * figures (postproc/wait_sum.c), --report waits (postproc/report_waits.c)
 * and the summary's "Waiting" part (postproc/wait_summary.c), exactly, on
 * generated traces of cputime and a 1 GHz TSC, and of cputime alone.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/trace_reader.h"
#include "native-tests/modelgen.h"
#include "native-tests/test.h"
#include "native-tests/tracegen.h"
#include "postproc/report.h"
#include "postproc/wait_sum.h"

static char err_buf[REPORT_ERR_LEN];

static void tmp_path(char *path, size_t len)
{
	int fd;

	snprintf(path, len, "/tmp/jcal-test-waits-XXXXXX");
	fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
}

/* A MONITOR record of thread serial: kind, method, class, flags, cputime
 * and tsc from..to (two metrics, cputime first, or cputime alone); its own
 * span wall_ns ten times the tsc's, plus 7 (so that a test sees which of
 * the two a figure comes from). */
static void monitor(struct trace_recbuf *rb, uint32_t serial, unsigned kind, uint32_t method,
		    const char *cls, uint32_t flags, uint64_t c0, uint64_t c1, uint64_t t0,
		    uint64_t t1, unsigned nmetrics)
{
	struct trace_monitor m = {.thread = serial,
				  .kind = kind,
				  .flags = flags,
				  .method = method,
				  .class_sig = cls,
				  .time_ns = 1700000000000000000ull,
				  .wall_ns = t1 > t0 ? 10 * (t1 - t0) + 7 : 7,
				  .nmetrics = nmetrics,
				  .start = {c0, t0},
				  .end = {c1, t1}};

	trace_rec_monitor(rb, &m);
}

/*
 * Thread "main" (serial 1): M.main from TSC 1000 to 2600 with 200 ns of
 * CPU: 1400 ns off the CPU. In it, blocked on a p.Lock in M.main for 300
 * ns (10 of CPU: 290 off) and in M.nap for 200 (none: 200 off); in
 * Object.wait on a p.Box in M.nap for 500 (5 of CPU: 495 off, timed out)
 * and 100 (100 off). Thread "w" (2): blocked on a p.Lock in M.spin for
 * 30 ns, all of it on the CPU (spinning). One record of a kind to come
 * (7), and one whose CPU time went back (counted as none).
 */
static int write_trace(const char *path, int tsc)
{
	const char *const meta[] = {"mode",	     "events", "metric.0.name", "cputime",
				    "metric.0.unit", "ns",     "metric.1.name", "tsc",
				    "metric.1.unit", "ticks",  "tsc.hz",	"1000000000"};
	static const uint64_t ev[][4] = {
	    {1000, 0, JCAL_TR_ENTRY, 1},
	    {1500, 100, JCAL_TR_ENTRY, 2},
	    {2500, 110, JCAL_TR_EXIT, 2},
	    {2600, 200, JCAL_TR_EXIT, 1},
	};
	unsigned nm = tsc ? 2 : 1;
	struct tracegen tg;

	if (tg_open(&tg, path))
		return -1;
	for (size_t i = 0; i < (tsc ? 12u : 4u); i += 2)
		trace_rec_meta(&tg.rb, meta[i], meta[i + 1]);
	trace_rec_method(&tg.rb, 1, JCAL_ACC_STATIC, "LM;", "main", "()V");
	trace_rec_method(&tg.rb, 2, JCAL_ACC_STATIC, "LM;", "nap", "()V");
	trace_rec_method(&tg.rb, 3, JCAL_ACC_STATIC, "LM;", "spin", "()V");
	trace_rec_thread_start(&tg.rb, 1, 1, 4242, 0, 0, "main", nm, (uint64_t[]){0, 1000});
	trace_rec_thread_start(&tg.rb, 2, 2, 4243, 0, 0, "w", nm, (uint64_t[]){0, 0});
	monitor(&tg.rb, 1, TRACE_MON_ENTER, 1, "Lp/Lock;", 0, 10, 20, 1100, 1400, nm);
	monitor(&tg.rb, 1, TRACE_MON_ENTER, 2, "Lp/Lock;", 0, 100, 100, 1500, 1700, nm);
	tg_flush(&tg);
	tg_events_begin(&tg, 1, nm);
	for (size_t i = 0; i < 4; i++)
		tg_event(&tg, (unsigned)ev[i][2], JCAL_MT_INTERP_STATIC, (uint32_t)ev[i][3],
			 (uint64_t[]){ev[i][1], ev[i][0]});
	tg_events_end(&tg);
	monitor(&tg.rb, 1, TRACE_MON_WAIT, 2, "Lp/Box;", TRACE_MON_TIMED_OUT, 100, 105, 1800, 2300,
		nm);
	monitor(&tg.rb, 1, TRACE_MON_WAIT, 2, "Lp/Box;", 0, 105, 104, 2350, 2450, nm);
	monitor(&tg.rb, 1, 7, 2, "Lp/Future;", 0, 0, 0, 0, 0, nm);
	monitor(&tg.rb, 2, TRACE_MON_ENTER, 3, "Lp/Lock;", 0, 60, 90, 60, 90, nm);
	tg_flush(&tg);
	tg_events_begin(&tg, 2, nm);
	tg_event(&tg, JCAL_TR_ENTRY, JCAL_MT_INTERP_STATIC, 3, (uint64_t[]){50, 50});
	tg_event(&tg, JCAL_TR_EXIT, JCAL_MT_INTERP_STATIC, 3, (uint64_t[]){150, 150});
	tg_events_end(&tg);
	trace_rec_end(&tg.rb, 6, 2, 0);
	return tg_close(&tg);
}

static char *run(int (*fn)(const struct model *, const struct report_opts *), const struct model *m,
		 struct report_opts *o, int *st)
{
	o->err = err_buf;
	return mg_run(fn, m, o, st);
}

/* The record's bytes, as docs/trace-format.md shows them. */
static void test_record_bytes(void)
{
	static const uint8_t want[] = {
	    13,	  22,					 /* MONITOR, 22 bytes */
	    5,	  1,	0,    7,			 /* thread 5, enter, flags 0, method 7 */
	    5,	  'L',	'p',  '/',  'L', ';',		 /* "Lp/L;" */
	    0xe8, 0x07, 0xf4, 0x03,			 /* time_ns 1000, wall_ns 500 */
	    2,	  10,	0xe8, 0x07, 2,	 30,  0xdc, 0x0b /* [10 1000] [30 1500] */
	};
	struct trace_monitor m = {.thread = 5,
				  .kind = TRACE_MON_ENTER,
				  .method = 7,
				  .class_sig = "Lp/L;",
				  .time_ns = 1000,
				  .wall_ns = 500,
				  .nmetrics = 2,
				  .start = {10, 1000},
				  .end = {30, 1500}};
	struct trace_recbuf rb;

	trace_recbuf_init(&rb);
	trace_rec_monitor(&rb, &m);
	CHECK_EQ_U(trace_recbuf_pending(&rb), sizeof(want));
	CHECK(trace_recbuf_pending(&rb) == sizeof(want) &&
	      !memcmp(rb.buf + TRACE_CHUNK_HEADER_LEN, want, sizeof(want)));
	trace_recbuf_free(&rb);
}

static struct trace_monitor got;
static int ngot;

static int on_monitor(void *ctx, const struct trace_monitor *m)
{
	(void)ctx;
	got = *m;
	got.class_sig = NULL;
	ngot++;
	return 0;
}

/* Decoded as written; a reader without the callback (an older one) skips
 * it; metric lists of two lengths, a cut field: corrupt, in one line. */
static void test_record_decode(void)
{
	struct trace_visitor v = {.monitor = on_monitor};
	struct trace_visitor old = {0};
	struct trace_result res;
	struct trace_recbuf rb;
	uint8_t bad[] = {13, 11, 1, 1, 0, 0, 1, 'L', 0, 0, 1, 5, 2};

	trace_recbuf_init(&rb);
	monitor(&rb, 3, TRACE_MON_WAIT, 9, "Lp/Box;", TRACE_MON_TIMED_OUT, 1, 2, 3, 400, 2);
	ngot = 0;
	CHECK_EQ_I(trace_decode_chunk(TRACE_CHUNK_RECORDS, rb.buf + TRACE_CHUNK_HEADER_LEN,
				      trace_recbuf_pending(&rb), &v, &res),
		   TRACE_OK);
	CHECK_EQ_I(ngot, 1);
	CHECK(got.thread == 3 && got.kind == TRACE_MON_WAIT && got.method == 9 &&
	      got.flags == TRACE_MON_TIMED_OUT && got.wall_ns == 3977 && got.nmetrics == 2);
	CHECK(got.start[0] == 1 && got.end[0] == 2 && got.start[1] == 3 && got.end[1] == 400);
	CHECK_EQ_I(trace_decode_chunk(TRACE_CHUNK_RECORDS, rb.buf + TRACE_CHUNK_HEADER_LEN,
				      trace_recbuf_pending(&rb), &old, &res),
		   TRACE_OK);
	trace_recbuf_free(&rb);
	/* start: 1 metric (5), end: 2 metrics, cut */
	CHECK_EQ_I(trace_decode_chunk(TRACE_CHUNK_RECORDS, bad, sizeof(bad), &v, &res),
		   TRACE_CORRUPT);
	CHECK(strstr(res.msg, "MONITOR record at payload byte 0") && !strchr(res.msg, '\n'));
	bad[1] = 10; /* a record ending after the start list: end list missing */
	CHECK_EQ_I(trace_decode_chunk(TRACE_CHUNK_RECORDS, bad, sizeof(bad) - 1, &v, &res),
		   TRACE_CORRUPT);
}

static void test_report(void)
{
	char path[64], *s;
	struct report_opts o = {.format = REPORT_CSV};
	const char *pats[] = {"w"};
	struct threadsel sel = {pats, 1};
	struct model m;
	int st;

	tmp_path(path, sizeof(path));
	CHECK_EQ_I(write_trace(path, 1), 0);
	CHECK_EQ_I(mg_load(&m, path, NULL), 0);
	CHECK_EQ_U(m.waits.n, 5);
	CHECK_EQ_U(m.waits.other_kinds, 1);
	s = run(report_waits, &m, &o, &st);
	CHECK_EQ_I(st, 0);
	CHECK_STR(s, "kind,method,class,count,total,max,timeouts\n"
		     "monitor,M.main,p.Lock,1,3007,3007,0\n"
		     "monitor,M.nap,p.Lock,1,2007,2007,0\n"
		     "monitor,M.spin,p.Lock,1,307,307,0\n"
		     "wait,M.nap,p.Box,2,6014,5007,1\n");
	free(s);
	o.sel = &sel;
	s = run(report_waits, &m, &o, &st);
	CHECK_STR(s, "kind,method,class,count,total,max,timeouts\n"
		     "monitor,M.spin,p.Lock,1,307,307,0\n");
	free(s);
	o.sel = NULL;
	o.format = REPORT_TEXT;
	s = run(report_waits, &m, &o, &st);
	CHECK_STR(s, "Waits the JVM reported (wall time, ns): blocked entering a contended monitor "
		     "(monitor), in Object.wait (wait)\n"
		     "Kind     Count  Total   Max  Timeouts  Monitor class  Method\n"
		     "monitor      1   3007  3007         0  p.Lock         M.main\n"
		     "monitor      1   2007  2007         0  p.Lock         M.nap\n"
		     "monitor      1    307   307         0  p.Lock         M.spin\n"
		     "wait         2   6014  5007         1  p.Box          M.nap\n");
	free(s);
	o.format = REPORT_JSON;
	s = run(report_waits, &m, &o, &st);
	CHECK_STR(s, "{\"unit\":\"ns\",\"waits\":[\n"
		     "{\"kind\":\"monitor\",\"method\":\"M.main\",\"class\":\"p.Lock\",\"count\":1,"
		     "\"total\":3007,\"max\":3007,\"timeouts\":0},\n"
		     "{\"kind\":\"monitor\",\"method\":\"M.nap\",\"class\":\"p.Lock\",\"count\":1,"
		     "\"total\":2007,\"max\":2007,\"timeouts\":0},\n"
		     "{\"kind\":\"monitor\",\"method\":\"M.spin\",\"class\":\"p.Lock\",\"count\":1,"
		     "\"total\":307,\"max\":307,\"timeouts\":0},\n"
		     "{\"kind\":\"wait\",\"method\":\"M.nap\",\"class\":\"p.Box\",\"count\":2,"
		     "\"total\":6014,\"max\":5007,\"timeouts\":1}\n]}\n");
	free(s);
	model_free(&m);
	unlink(path);
}

/* main: 1400 ns off the CPU, 490 blocked (2), 595 in Object.wait (2),
 * 315 other; w: blocked once, on the CPU all along. */
static void test_summary_split(void)
{
	char path[64], *s;
	struct report_opts o = {.format = REPORT_CSV};
	struct model m;
	int st;

	tmp_path(path, sizeof(path));
	CHECK_EQ_I(write_trace(path, 1), 0);
	CHECK_EQ_I(mg_load(&m, path, NULL), 0);
	o.trace_path = path;
	s = run(report_summary, &m, &o, &st);
	CHECK_EQ_I(st, 0);
	CHECK(strstr(s, "\nthread.2.offcpu,0\n"
			"thread.1.blocked,490\nthread.1.blocked_count,2\nthread.1.wait,595\n"
			"thread.1.wait_count,2\nthread.1.other,315\nthread.1.blocked.p.Lock,490\n"
			"thread.1.blocked_count.p.Lock,2\nthread.1.wait.p.Box,595\n"
			"thread.1.wait_count.p.Box,2\n"
			"thread.2.blocked,0\nthread.2.blocked_count,1\nthread.2.wait,0\n"
			"thread.2.wait_count,0\nthread.2.other,0\nthread.2.blocked.p.Lock,0\n"
			"thread.2.blocked_count.p.Lock,1\n") != NULL);
	free(s);
	o.format = REPORT_TEXT;
	s = run(report_summary, &m, &o, &st);
	CHECK(strstr(s,
		     "( 87.50%)\n  #2    w                        wall          100  off CPU  "
		     "          0 (  0.00%)\n"
		     "Waiting (the JVM's monitor events; off the CPU, raw, ns; (N) waits; other: "
		     "the rest of the time off the CPU: sleep, park, I/O)\n"
		     "  #1    main                     monitor          490 (2)  Object.wait      "
		     "    595 (2)  other          315\n"
		     "        monitor              490 (2)  p.Lock\n"
		     "        Object.wait          595 (2)  p.Box\n"
		     "  #2    w                        monitor            0 (1)  Object.wait      "
		     "      0 (0)  other            0\n"
		     "        monitor                0 (1)  p.Lock\n") != NULL);
	free(s);
	o.format = REPORT_JSON;
	s = run(report_summary, &m, &o, &st);
	CHECK(strstr(s, "\"offcpu\":1400,\"waiting\":{\"blocked\":490,\"blocked_count\":2,"
			"\"wait\":595,\"wait_count\":2,\"other\":315,\"classes\":["
			"{\"kind\":\"monitor\",\"class\":\"p.Lock\",\"time\":490,\"count\":2},"
			"{\"kind\":\"wait\",\"class\":\"p.Box\",\"time\":595,\"count\":2}]}}") !=
	      NULL);
	free(s);
	model_free(&m);
	unlink(path);
}

/* cputime alone: the summary gives the waits' wall time, the records' own
 * spans, and says so, without "other"; the report is the same as with tsc. */
static void test_without_tsc(void)
{
	char path[64], *s;
	struct report_opts o = {.format = REPORT_TEXT};
	struct model m;
	int st;

	tmp_path(path, sizeof(path));
	CHECK_EQ_I(write_trace(path, 0), 0);
	CHECK_EQ_I(mg_load(&m, path, NULL), 0);
	o.trace_path = path;
	s = run(report_summary, &m, &o, &st);
	CHECK(strstr(s,
		     "Waiting (the JVM's monitor events; wall time, ns; (N) waits; other: the "
		     "rest of the time off the CPU: sleep, park, I/O)\n"
		     "  #1    main                     monitor         5014 (2)  Object.wait      "
		     "   6014 (2)\n") != NULL);
	CHECK(!strstr(s, "other   "));
	free(s);
	o.format = REPORT_CSV;
	s = run(report_waits, &m, &o, &st);
	CHECK_STR(s, "kind,method,class,count,total,max,timeouts\n"
		     "monitor,M.main,p.Lock,1,3007,3007,0\n"
		     "monitor,M.nap,p.Lock,1,2007,2007,0\n"
		     "monitor,M.spin,p.Lock,1,307,307,0\n"
		     "wait,M.nap,p.Box,2,6014,5007,1\n");
	free(s);
	model_free(&m);
	unlink(path);
}

/* No MONITOR record: the summary has no part of it, the report says so. */
static void test_none(void)
{
	struct report_opts o = {.format = REPORT_TEXT};
	struct model m;
	char *s;
	int st;

	CHECK_EQ_I(mg_fig4a(&m), 0);
	s = run(report_summary, &m, &o, &st);
	CHECK(!strstr(s, "Waiting"));
	free(s);
	s = run(report_waits, &m, &o, &st);
	CHECK_EQ_I(st, 0);
	CHECK(strstr(s, "\nNo monitor events in this trace.\n") != NULL);
	free(s);
	o.format = REPORT_CSV;
	s = run(report_waits, &m, &o, &st);
	CHECK_STR(s, "kind,method,class,count,total,max,timeouts\n");
	free(s);
	model_free(&m);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; p && (p = strstr(p, what)); p++)
		n++;
	return n;
}

/* The timeline of tsc: each wait a span on its thread, in the method's;
 * with cputime, or another thread selected, not those. */
static void test_chrome(void)
{
	char path[64], *s;
	struct report_opts o = {.format = REPORT_TEXT, .metric = 1};
	const char *pats[] = {"w"};
	struct threadsel sel = {pats, 1};
	struct model m;
	int st;

	tmp_path(path, sizeof(path));
	CHECK_EQ_I(write_trace(path, 1), 0);
	CHECK_EQ_I(mg_load(&m, path, NULL), 0);
	o.trace_path = path;
	s = run(export_chrome, &m, &o, &st);
	CHECK_EQ_I(st, 0);
	CHECK(strstr(s,
		     "\n{\"name\":\"blocked on p.Lock\",\"cat\":\"monitor\",\"ph\":\"X\",\"pid\":1,"
		     "\"tid\":1,\"ts\":1.100,\"dur\":0.300,\"args\":{\"class\":\"p.Lock\","
		     "\"method\":\"M.main\"}},\n") != NULL);
	CHECK(strstr(s,
		     "\n{\"name\":\"Object.wait on p.Box\",\"cat\":\"wait\",\"ph\":\"X\",\"pid\":1,"
		     "\"tid\":1,\"ts\":1.800,\"dur\":0.500,\"args\":{\"class\":\"p.Box\","
		     "\"method\":\"M.nap\",\"timed_out\":true}},\n") != NULL);
	CHECK_EQ_U(count(s, "\"cat\":\"monitor\""), 3);
	CHECK_EQ_U(count(s, "\"cat\":\"wait\""), 2);
	CHECK(strstr(s, ",\"slow_marked\":3,\"waits\":5}}\n") != NULL);
	free(s);
	o.sel = &sel;
	s = run(export_chrome, &m, &o, &st);
	CHECK_EQ_U(count(s, "\"cat\":\"monitor\""), 1);
	CHECK(strstr(s, "\"tid\":2,\"ts\":0.060,\"dur\":0.030,") != NULL);
	free(s);
	o.sel = NULL;
	o.metric = 0;
	s = run(export_chrome, &m, &o, &st);
	CHECK_EQ_U(count(s, "\"cat\":\"monitor\"") + count(s, "\"cat\":\"wait\""), 0);
	CHECK(s && strstr(s, ",\"slow_marked\":3}}\n") != NULL);
	free(s);
	model_free(&m);
	unlink(path);
}

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* jcal-post on a file whose MONITOR record is malformed (its metric
 * lists of two lengths) in a chunk whose CRC is right: one error line
 * naming the record, exit 1, no crash. */
static void test_bad_record_end_to_end(void)
{
	static const uint8_t rec[] = {13, 12, 1, 1, 0, 0, 1, 'L', 0, 0, 1, 5, 2, 1};
	uint8_t file[TRACE_FILE_HEADER_LEN + TRACE_CHUNK_HEADER_LEN + sizeof(rec)];
	uint8_t *h = file + TRACE_FILE_HEADER_LEN;
	char path[64], cmd[256], err[80], e[1024];
	size_t n, lines = 0;
	FILE *f;
	int st;

	trace_header_encode(file);
	memset(h, 0, TRACE_CHUNK_HEADER_LEN);
	put_u32(h, TRACE_CHUNK_MAGIC);
	h[4] = TRACE_CHUNK_RECORDS;
	put_u32(h + 8, sizeof(rec));
	memcpy(h + TRACE_CHUNK_HEADER_LEN, rec, sizeof(rec));
	put_u32(h + TRACE_CHUNK_CRC_OFFSET, trace_chunk_crc(h, rec, sizeof(rec)));
	tmp_path(path, sizeof(path));
	f = fopen(path, "wb");
	CHECK(f && fwrite(file, 1, sizeof(file), f) == sizeof(file));
	if (f)
		fclose(f);
	snprintf(err, sizeof(err), "%s.err", path);
	snprintf(cmd, sizeof(cmd), "build/jcal-post %s --report waits >/dev/null 2>%s", path, err);
	st = system(cmd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	f = fopen(err, "r");
	n = f ? fread(e, 1, sizeof(e) - 1, f) : 0;
	if (f)
		fclose(f);
	e[n] = '\0';
	for (size_t i = 0; i < n; i++)
		lines += e[i] == '\n';
	CHECK(strstr(e, "jcal-post: error: ") && strstr(e, "MONITOR record at payload byte 0"));
	CHECK_EQ_U(lines, 1);
	unlink(path);
	unlink(err);
}

int main(void)
{
	RUN(test_record_bytes);
	RUN(test_record_decode);
	RUN(test_report);
	RUN(test_summary_split);
	RUN(test_without_tsc);
	RUN(test_none);
	RUN(test_chrome);
	RUN(test_bad_record_end_to_end);
	return test_summary("report-waits");
}
