/*
 * test-report-slow.c - the slow report (postproc/report_slow.c,
 * postproc/slow.c) on synthetic traces whose every call's duration is
 * known: the N longest calls in order, exactly, with their thread, path
 * and largest callees in that call; the wall-clock start from a trace
 * with a TSC (thread start time plus ticks since); --include, --exclude,
 * --thread; every format; a caller of 5000 callees.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "native-tests/modelgen.h"
#include "native-tests/test.h"
#include "native-tests/tracegen.h"
#include "postproc/report.h"
#include "postproc/slow.h"

static char err_buf[REPORT_ERR_LEN];

static void tmp_path(char *path, size_t len)
{
	int fd;

	snprintf(path, len, "/tmp/jcal-test-slow-XXXXXX");
	fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
}

static char *run_slow(const struct model *m, struct report_opts *o, const char *path, int *st)
{
	o->trace_path = path;
	o->err = err_buf;
	err_buf[0] = '\0';
	return mg_run(report_slow, m, o, st);
}

/* M.main calls M.work 5 times (durations 10, 50, 20, 50, 30), each of
 * which calls M.a (2) and M.b (3, 1 and more by turns); thread "w,1" runs
 * M.other for 40. */
static const char *const scripts[] = {
    "0 E M.main\n"
    "0 E M.work\n1 E M.a\n3 X M.a\n4 E M.b\n7 X M.b\n10 X M.work\n"
    "10 E M.work\n11 E M.b\n51 X M.b\n51 E M.a\n53 X M.a\n60 X M.work\n"
    "60 E M.work\n61 E M.a\n63 X M.a\n64 E M.b\n65 X M.b\n80 X M.work\n"
    "80 E M.work\n81 E M.b\n91 X M.b\n91 E M.a\n111 X M.a\n111 E M.b\n121 X M.b\n130 X M.work\n"
    "130 E M.work\n160 X M.work\n"
    "161 X M.main\n",
    "0 E M.other\n40 X M.other\n",
};
static const char *const names[] = {"main", "w,1"};

static void test_slowest(void)
{
	char path[64], *s;
	struct report_opts o = {.format = REPORT_CSV, .top = 4};
	struct model m;
	int st;

	tmp_path(path, sizeof(path));
	CHECK_EQ_I(mg_trace_file(path, scripts, names, 2, NULL, NULL), 0);
	CHECK_EQ_I(mg_load(&m, path, NULL), 0);
	s = run_slow(&m, &o, path, &st);
	CHECK_EQ_I(st, 0);
	/* of equal durations the one that ended first comes first; the
	 * callees of a call are those of that call only, each context once */
	CHECK_STR(s, "rank,method,duration,thread,start,start_ns,path,self,callees\n"
		     "1,M.main,161,main#1,,,M.main,1,M.work=160\n"
		     "2,M.work,50,main#1,,,M.main;M.work,8,M.b=40;M.a=2\n"
		     "3,M.work,50,main#1,,,M.main;M.work,10,M.b=20;M.a=20\n"
		     "4,M.b,40,main#1,,,M.main;M.work;M.b,40,\n");
	free(s);
	/* --thread, and the default of 20 is more than there are */
	{
		const char *pat[] = {"w,1"};
		struct threadsel sel = {pat, 1};

		o.top = 0;
		o.sel = &sel;
		s = run_slow(&m, &o, path, &st);
		CHECK_STR(s, "rank,method,duration,thread,start,start_ns,path,self,callees\n"
			     "1,M.other,40,\"w,1#2\",,,M.other,40,\n");
		free(s);
		o.sel = NULL;
	}
	/* --exclude M.main, --include M.b: the calls of b and those below it */
	{
		const char *exc[] = {"M.main", "M.work"}, *inc[] = {"M.b"};
		struct shape_opts so = {0};

		so.exclude = exc;
		so.nexclude = 2;
		o.shaping = &so;
		o.top = 2;
		s = run_slow(&m, &o, path, &st);
		CHECK_STR(s, "rank,method,duration,thread,start,start_ns,path,self,callees\n"
			     "1,M.b,40,main#1,,,M.main;M.work;M.b,40,\n"
			     "2,M.other,40,\"w,1#2\",,,M.other,40,\n");
		free(s);
		so.nexclude = 0;
		so.include = inc;
		so.ninclude = 1;
		o.top = 0;
		s = run_slow(&m, &o, path, &st);
		CHECK_STR(s, "rank,method,duration,thread,start,start_ns,path,self,callees\n"
			     "1,M.b,40,main#1,,,M.main;M.work;M.b,40,\n"
			     "2,M.b,10,main#1,,,M.main;M.work;M.b,10,\n"
			     "3,M.b,10,main#1,,,M.main;M.work;M.b,10,\n"
			     "4,M.b,3,main#1,,,M.main;M.work;M.b,3,\n"
			     "5,M.b,1,main#1,,,M.main;M.work;M.b,1,\n");
		free(s);
		o.shaping = NULL;
	}
	o.top = 2;
	o.format = REPORT_TEXT;
	s = run_slow(&m, &o, path, &st);
	CHECK_STR(s, "Slowest calls  metric ticks (ticks)  2 of 16 calls, longest first\n"
		     "  1  161  M.main  thread \"main\" #1\n"
		     "     path  M.main\n"
		     "     self     1   0.62%\n"
		     "     callee 160  99.38%  M.work\n"
		     "  2  50  M.work  thread \"main\" #1\n"
		     "     path  M.main > M.work\n"
		     "     self    8  16.00%\n"
		     "     callee 40  80.00%  M.b\n"
		     "             2   4.00%  M.a\n");
	free(s);
	o.format = REPORT_JSON;
	o.top = 1;
	s = run_slow(&m, &o, path, &st);
	CHECK_STR(
	    s,
	    "{\"metric\":{\"name\":\"ticks\",\"unit\":\"ticks\"},\"calibrated\":false,"
	    "\"seen\":16,\"calls\":[\n"
	    "{\"rank\":1,\"method\":\"M.main\",\"duration\":161,\"thread\":\"main\","
	    "\"serial\":1,\"start\":null,\"start_ns\":null,\"live\":false,\"path\":["
	    "\"M.main\"],\"self\":1,\"callees\":[{\"method\":\"M.work\",\"duration\":160}]}\n]}\n");
	free(s);
	model_free(&m);
	unlink(path);
}

/* A trace of cputime and a 1 GHz TSC (ticks = ns): the thread started at
 * 1700000000 s on the wall clock with its TSC at 1000; a call entered at
 * TSC 1500 started 500 ns later. */
static int write_tsc(const char *path)
{
	static const char *const meta[] = {
	    "mode",	     "events",	      "metrics", "cputime+tsc",	  "metric.0.name",
	    "cputime",	     "metric.0.unit", "ns",	 "metric.1.name", "tsc",
	    "metric.1.unit", "ticks",	      "tsc.hz",	 "1000000000"};
	/* tsc, cputime, transition, method */
	static const uint64_t ev[][4] = {
	    {1000, 0, JCAL_TR_ENTRY, 1},
	    {1500, 100, JCAL_TR_ENTRY, 2},
	    {2500, 110, JCAL_TR_EXIT, 2},
	    {2600, 200, JCAL_TR_EXIT, 1},
	};
	struct tracegen tg;

	if (tg_open(&tg, path))
		return -1;
	for (size_t i = 0; i < sizeof(meta) / sizeof(meta[0]); i += 2)
		trace_rec_meta(&tg.rb, meta[i], meta[i + 1]);
	trace_rec_method(&tg.rb, 1, JCAL_ACC_STATIC, "LM;", "main", "()V");
	trace_rec_method(&tg.rb, 2, JCAL_ACC_STATIC, "LM;", "nap", "()V");
	trace_rec_thread_start(&tg.rb, 1, 1, 4242, 0, 1700000000000000000ull, "main", 2,
			       (uint64_t[]){0, 1000});
	tg_flush(&tg);
	tg_events_begin(&tg, 1, 2);
	for (size_t i = 0; i < 4; i++)
		tg_event(&tg, (unsigned)ev[i][2], JCAL_MT_INTERP_STATIC, (uint32_t)ev[i][3],
			 (uint64_t[]){ev[i][1], ev[i][0]});
	tg_events_end(&tg);
	trace_rec_end(&tg.rb, 4, 1, 0);
	return tg_close(&tg);
}

static void test_wall_clock_start(void)
{
	char path[64], *s;
	struct report_opts o = {.format = REPORT_CSV, .metric = 1};
	struct model m;
	int st;

	tmp_path(path, sizeof(path));
	CHECK_EQ_I(write_tsc(path), 0);
	CHECK_EQ_I(mg_load(&m, path, NULL), 0);
	s = run_slow(&m, &o, path, &st);
	CHECK_EQ_I(st, 0);
	CHECK_STR(s,
		  "rank,method,duration,thread,start,start_ns,path,self,callees\n"
		  "1,M.main,1600,main#1,2023-11-14T22:13:20.000000000Z,1700000000000000000,M.main,"
		  "600,M.nap=1000\n"
		  "2,M.nap,1000,main#1,2023-11-14T22:13:20.000000500Z,1700000000000000500,"
		  "M.main;M.nap,1000,\n");
	free(s);
	model_free(&m);
	unlink(path);
}

/* M.main calls 5000 methods twice over, M.m<i> lasting i % 11 + 1 each
 * time: main's largest callees are the first five of 22, in the order
 * they were first called; a caller of that many callees takes no longer
 * than one of a few (each callee is found at once). */
static void test_wide_caller(void)
{
	enum { N = 5000 };
	char path[64], name[16], *s;
	struct report_opts o = {.format = REPORT_CSV, .top = 1};
	struct tracegen tg;
	struct model m;
	uint64_t t = 0, sum = 0;
	char want[256];
	int st;

	tmp_path(path, sizeof(path));
	CHECK_EQ_I(tg_open(&tg, path), 0);
	mg_write_meta(&tg.rb, NULL, NULL);
	trace_rec_method(&tg.rb, 1, JCAL_ACC_STATIC, "LM;", "main", "()V");
	for (unsigned i = 1; i <= N; i++) {
		snprintf(name, sizeof(name), "m%u", i);
		trace_rec_method(&tg.rb, 1 + i, JCAL_ACC_STATIC, "LM;", name, "()V");
	}
	trace_rec_thread_start(&tg.rb, 1, 1, 4242, 0, 0, "main", 1, (uint64_t[]){0});
	tg_flush(&tg);
	tg_events_begin(&tg, 1, 1);
	tg_event(&tg, JCAL_TR_ENTRY, JCAL_MT_INTERP_STATIC, 1, &t);
	for (unsigned r = 0; r < 2; r++)
		for (unsigned i = 1; i <= N; i++) {
			tg_event(&tg, JCAL_TR_ENTRY, JCAL_MT_INTERP_STATIC, 1 + i, &t);
			t += i % 11 + 1;
			sum += i % 11 + 1;
			tg_event(&tg, JCAL_TR_EXIT, JCAL_MT_INTERP_STATIC, 1 + i, &t);
		}
	tg_event(&tg, JCAL_TR_EXIT, JCAL_MT_INTERP_STATIC, 1, &t);
	tg_events_end(&tg);
	trace_rec_end(&tg.rb, 4 * N + 2, 1, 0);
	CHECK_EQ_I(tg_close(&tg), 0);
	CHECK_EQ_I(mg_load(&m, path, NULL), 0);
	s = run_slow(&m, &o, path, &st);
	CHECK_EQ_I(st, 0);
	snprintf(want, sizeof(want),
		 "rank,method,duration,thread,start,start_ns,path,self,callees\n"
		 "1,M.main,%llu,main#1,,,M.main,0,M.m10=22;M.m21=22;M.m32=22;M.m43=22;M.m54=22\n",
		 (unsigned long long)sum);
	CHECK_STR(s, want);
	free(s);
	model_free(&m);
	unlink(path);
}

static void test_time(void)
{
	char buf[64];

	slow_time(0, buf, sizeof(buf));
	CHECK_STR(buf, "1970-01-01T00:00:00.000000000Z");
	slow_time(1700000000123456789ull, buf, sizeof(buf));
	CHECK_STR(buf, "2023-11-14T22:13:20.123456789Z");
}

int main(void)
{
	RUN(test_time);
	RUN(test_slowest);
	RUN(test_wall_clock_start);
	RUN(test_wide_caller);
	return test_summary("report-slow");
}
