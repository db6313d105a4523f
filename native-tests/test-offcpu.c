/*
 * test-offcpu.c - --metric offcpu (postproc/offcpu.c): wall time minus CPU
 * time per context, base and cum, in the flat and tree reports, per call
 * in the latency report, and per thread in the summary, exactly, on a
 * generated trace of cputime and a 1 GHz TSC; refused in one line for a
 * trace without both.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "native-tests/modelgen.h"
#include "native-tests/test.h"
#include "native-tests/tracegen.h"
#include "postproc/offcpu.h"
#include "postproc/report.h"

static char err_buf[REPORT_ERR_LEN];

static void tmp_path(char *path, size_t len)
{
	int fd;

	snprintf(path, len, "/tmp/jcal-test-offcpu-XXXXXX");
	fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
}

/*
 * Thread "main": M.main from TSC 1000 to 2600 with 200 ns of CPU; inside
 * it M.nap from 1500 to 2500 with 10 ns of CPU. main's own time: 600 ns
 * of wall, 190 of CPU, 410 off; nap's 1000, 10, 990. Thread "w" spins:
 * M.spin, 100 of wall and 100 of CPU.
 */
static int write_trace(const char *path, const char *hz)
{
	const char *const meta[] = {"mode",	     "events",	"metrics",	 "cputime+tsc",
				    "metric.0.name", "cputime", "metric.0.unit", "ns",
				    "metric.1.name", "tsc",	"metric.1.unit", "ticks",
				    "tsc.hz",	     hz};
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
	trace_rec_method(&tg.rb, 3, JCAL_ACC_STATIC, "LM;", "spin", "()V");
	trace_rec_thread_start(&tg.rb, 1, 1, 4242, 0, 0, "main", 2, (uint64_t[]){0, 1000});
	trace_rec_thread_start(&tg.rb, 2, 2, 4243, 0, 0, "w", 2, (uint64_t[]){0, 0});
	tg_flush(&tg);
	tg_events_begin(&tg, 1, 2);
	for (size_t i = 0; i < 4; i++)
		tg_event(&tg, (unsigned)ev[i][2], JCAL_MT_INTERP_STATIC, (uint32_t)ev[i][3],
			 (uint64_t[]){ev[i][1], ev[i][0]});
	tg_events_end(&tg);
	tg_events_begin(&tg, 2, 2);
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

static void test_reports(void)
{
	char path[64], *s;
	struct report_opts o = {.format = REPORT_CSV};
	struct model m;
	int st;

	tmp_path(path, sizeof(path));
	CHECK_EQ_I(write_trace(path, "1000000000"), 0);
	CHECK_EQ_I(mg_load(&m, path, NULL), 0);
	CHECK_EQ_I(offcpu_add(&m, err_buf, sizeof(err_buf)), 0);
	CHECK_EQ_I(model_metric_index(&m, "offcpu"), 2);
	CHECK(offcpu_is(&m, 2) && !offcpu_is(&m, 1));
	o.metric = 2;
	o.trace_path = path;
	s = run(report_flat, &m, &o, &st);
	CHECK_EQ_I(st, 0);
	CHECK_STR(s, "method,calls,base,cum,raw_base,raw_cum\n"
		     "M.nap,1,990,990,990,990\n"
		     "M.main,1,410,1400,410,1400\n"
		     "M.spin,1,0,0,0,0\n");
	free(s);
	s = run(report_latency, &m, &o, &st);
	CHECK_EQ_I(st, 0);
	CHECK_STR(s, "method,calls,min,p50,p90,p99,p99_9,max,mean,total\n"
		     "M.main,1,1400,1400,1400,1400,1400,1400,1400,1400\n"
		     "M.nap,1,990,990,990,990,990,990,990,990\n"
		     "M.spin,1,0,0,0,0,0,0,0,0\n");
	free(s);
	s = run(report_summary, &m, &o, &st);
	CHECK(strstr(s, "\nthread.1.wall,1600\nthread.1.offcpu,1400\nthread.2.wall,100\n"
			"thread.2.offcpu,0\n") != NULL);
	CHECK(strstr(s, "\nmetric.2.name,offcpu\nmetric.2.unit,ns\nmetric.2.total,1400\n") != NULL);
	free(s);
	o.format = REPORT_TEXT;
	s = run(report_summary, &m, &o, &st);
	CHECK(strstr(s, "Off the CPU (wall time minus CPU time, raw, ns)\n"
			"  #1    main                     wall         1600  off CPU         1400 "
			"( 87.50%)\n") != NULL);
	free(s);
	model_free(&m);
	unlink(path);
}

/* A TSC of 2 GHz: the wall time is ticks / 2 in ns before the CPU time
 * is taken out. */
static void test_tsc_frequency(void)
{
	char path[64], *s;
	struct report_opts o = {.format = REPORT_CSV, .metric = 2};
	struct model m;
	int st;

	tmp_path(path, sizeof(path));
	CHECK_EQ_I(write_trace(path, "2000000000"), 0);
	CHECK_EQ_I(mg_load(&m, path, NULL), 0);
	CHECK_EQ_I(offcpu_add(&m, err_buf, sizeof(err_buf)), 0);
	s = run(report_flat, &m, &o, &st);
	/* nap: 500 ns of wall, 10 of CPU; main: 300 and 190 */
	CHECK_STR(s, "method,calls,base,cum,raw_base,raw_cum\n"
		     "M.nap,1,490,490,490,490\n"
		     "M.main,1,110,600,110,600\n"
		     "M.spin,1,0,0,0,0\n");
	free(s);
	model_free(&m);
	unlink(path);
}

/* One metric only: refused in one line, the model left as it was. */
static void test_refused(void)
{
	struct model m;

	CHECK_EQ_I(mg_fig4a(&m), 0);
	CHECK_EQ_I(offcpu_add(&m, err_buf, sizeof(err_buf)), -1);
	CHECK(strstr(err_buf, "metric=cputime+tsc") && !strchr(err_buf, '\n'));
	CHECK_EQ_U(m.nmetrics, 1);
	model_free(&m);
}

int main(void)
{
	RUN(test_reports);
	RUN(test_tsc_frequency);
	RUN(test_refused);
	return test_summary("offcpu");
}
