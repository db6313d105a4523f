/*
 * test-report-latency.c - the latency report (postproc/report_latency.c,
 * postproc/latency.c) and the single calls it reads (postproc/calls.c,
 * calltree_watch in common/calltree.c), on synthetic traces whose every
 * call's duration is known: percentiles by nearest rank, exactly; the
 * durations of a context's calls adding up to its cum, compensated;
 * --by context, --include, --exclude, --thread, --top; the formats; and
 * the one-line refusals of a snapshot and of stdin.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "native-tests/modelgen.h"
#include "native-tests/test.h"
#include "native-tests/xorshift.h"
#include "postproc/latency.h"
#include "postproc/report.h"

static char err_buf[REPORT_ERR_LEN];

/* A temporary file name (the file made empty). */
static void tmp_path(char *path, size_t len)
{
	int fd;

	snprintf(path, len, "/tmp/jcal-test-latency-XXXXXX");
	fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
}

/*
 * M.main calls M.work 100 times: call i lasts 1000 + i when i % 10 == 9
 * (ten slow ones), else 10, and calls M.leaf for 4 of them inside; then
 * M.leaf once at the top, lasting 7. Times start at t0.
 */
static char *script_work(unsigned long long t0)
{
	size_t cap = 1 << 16, pos = 0;
	char *s = malloc(cap);
	unsigned long long t = t0;

	pos += (size_t)snprintf(s + pos, cap - pos, "%llu E M.main\n", t);
	for (int i = 0; i < 100; i++) {
		unsigned long long d = i % 10 == 9 ? 1000ull + (unsigned)i : 10;

		pos += (size_t)snprintf(s + pos, cap - pos, "%llu E M.work\n", t);
		pos += (size_t)snprintf(s + pos, cap - pos, "%llu E M.leaf\n", t + 3);
		pos += (size_t)snprintf(s + pos, cap - pos, "%llu X M.leaf\n", t + 7);
		t += d;
		pos += (size_t)snprintf(s + pos, cap - pos, "%llu X M.work\n", t);
	}
	pos += (size_t)snprintf(s + pos, cap - pos, "%llu E M.leaf\n", t);
	t += 7;
	pos += (size_t)snprintf(s + pos, cap - pos, "%llu X M.leaf\n", t);
	snprintf(s + pos, cap - pos, "%llu X M.main\n", t + 1);
	return s;
}

static char *run_latency(const struct model *m, struct report_opts *o, const char *path, int *st)
{
	o->trace_path = path;
	o->err = err_buf;
	err_buf[0] = '\0';
	return mg_run(report_latency, m, o, st);
}

/* The percentiles of the 100 calls, exactly: 90 of 10 below the ten slow
 * ones, 1009 ... 1099; p90 is the 90th, still a quick one. */
static void test_percentiles(void)
{
	char path[64], *script = script_work(0), *s;
	const char *names[] = {"main"};
	struct report_opts o = {.format = REPORT_CSV};
	struct model m;
	int st;

	tmp_path(path, sizeof(path));
	CHECK_EQ_I(mg_trace_file(path, (const char *const *)&script, names, 1, NULL, NULL), 0);
	CHECK_EQ_I(mg_load(&m, path, NULL), 0);
	s = run_latency(&m, &o, path, &st);
	CHECK_EQ_I(st, 0);
	/* main: 10 * 90 + (1009 + ... + 1099) + 7 + 1 = 11448 */
	CHECK_STR(s, "method,calls,min,p50,p90,p99,p99_9,max,mean,total\n"
		     "M.main,1,11448,11448,11448,11448,11448,11448,11448,11448\n"
		     "M.work,100,10,10,10,1089,1099,1099,114,11440\n"
		     "M.leaf,101,4,4,4,4,7,7,4,407\n");
	free(s);
	/* --top 1: the first row */
	o.top = 1;
	s = run_latency(&m, &o, path, &st);
	CHECK_EQ_I(st, 0);
	CHECK_STR(s, "method,calls,min,p50,p90,p99,p99_9,max,mean,total\n"
		     "M.main,1,11448,11448,11448,11448,11448,11448,11448,11448\n");
	free(s);
	o.top = 0;
	o.format = REPORT_TEXT;
	s = run_latency(&m, &o, path, &st);
	CHECK_STR(s, "Latency  metric ticks (ticks)  1 thread  202 calls  per method; percentiles "
		     "by nearest rank\n"
		     "Calls   Min   P50   P90   P99 P99.9   Max  Mean  Name\n"
		     "    1 11448 11448 11448 11448 11448 11448 11448  M.main\n"
		     "  100    10    10    10  1089  1099  1099   114  M.work\n"
		     "  101     4     4     4     4     7     7     4  M.leaf\n");
	free(s);
	o.format = REPORT_JSON;
	s = run_latency(&m, &o, path, &st);
	CHECK(strstr(s, "\"percentiles\":\"nearest-rank\"") != NULL);
	CHECK(strstr(s, "{\"method\":\"M.work\",\"calls\":100,\"min\":10,\"p50\":10,\"p90\":10,"
			"\"p99\":1089,\"p99_9\":1099,\"max\":1099,\"mean\":114,\"total\":11440}") !=
	      NULL);
	free(s);
	model_free(&m);
	unlink(path);
	free(script);
}

/* --by context: M.leaf apart under M.work and under M.main; --include
 * and --exclude as the shaping reads them. */
static void test_contexts_and_filters(void)
{
	char path[64], *script = script_work(5), *s;
	const char *names[] = {"main"};
	const char *inc[] = {"*.work"}, *exc[] = {"M.main"};
	struct shape_opts so = {0};
	struct report_opts o = {.format = REPORT_CSV, .by_context = 1};
	struct model m;
	int st;

	tmp_path(path, sizeof(path));
	CHECK_EQ_I(mg_trace_file(path, (const char *const *)&script, names, 1, NULL, NULL), 0);
	CHECK_EQ_I(mg_load(&m, path, NULL), 0);
	s = run_latency(&m, &o, path, &st);
	CHECK_EQ_I(st, 0);
	CHECK_STR(s, "method,context,calls,min,p50,p90,p99,p99_9,max,mean,total\n"
		     "M.main,M.main,1,11448,11448,11448,11448,11448,11448,11448,11448\n"
		     "M.work,M.main;M.work,100,10,10,10,1089,1099,1099,114,11440\n"
		     "M.leaf,M.main;M.leaf,1,7,7,7,7,7,7,7,7\n"
		     "M.leaf,M.main;M.work;M.leaf,100,4,4,4,4,4,4,4,400\n");
	free(s);
	o.by_context = 0;
	o.shaping = &so;
	so.include = inc;
	so.ninclude = 1;
	s = run_latency(&m, &o, path, &st);
	CHECK_STR(s, "method,calls,min,p50,p90,p99,p99_9,max,mean,total\n"
		     "M.work,100,10,10,10,1089,1099,1099,114,11440\n"
		     "M.leaf,100,4,4,4,4,4,4,4,400\n");
	free(s);
	so.ninclude = 0;
	so.exclude = exc;
	so.nexclude = 1;
	s = run_latency(&m, &o, path, &st);
	CHECK_STR(s, "method,calls,min,p50,p90,p99,p99_9,max,mean,total\n"
		     "M.work,100,10,10,10,1089,1099,1099,114,11440\n"
		     "M.leaf,101,4,4,4,4,7,7,4,407\n");
	free(s);
	model_free(&m);
	unlink(path);
	free(script);
}

/* Compensation of 1 per delta (each step): a context's calls add up to
 * its cum in the tree, exactly, in every context of two threads; --thread
 * picks one. */
static int64_t minus_one(void *ctx, const struct seqkey *key, unsigned metric, uint64_t d)
{
	(void)ctx, (void)key, (void)metric;
	return (int64_t)d - 1;
}

static void test_compensated_sums(void)
{
	char path[64], *s0 = script_work(0), *s1 = script_work(100), *s;
	const char *scripts[2] = {s0, s1};
	const char *names[] = {"main", "worker"};
	const char *pat[] = {"worker"};
	struct calltree_comp comp = {.fn = minus_one};
	struct threadsel sel = {pat, 1};
	struct report_opts o = {.format = REPORT_CSV, .by_context = 1};
	struct model m;
	int st;

	tmp_path(path, sizeof(path));
	CHECK_EQ_I(mg_trace_file(path, scripts, names, 2, NULL, NULL), 0);
	CHECK_EQ_I(mg_load(&m, path, &comp), 0);
	o.sel = &sel;
	s = run_latency(&m, &o, path, &st);
	CHECK_EQ_I(st, 0);
	/* a call of work takes three steps (leaf's entry and exit, its own
	 * exit), 1 less each: 10 - 3 = 7, the slow ones 3 less too; leaf one
	 * step, 4 - 1; the steps ending at work's entries last 0 and stay 0:
	 * main's 11448 less 3 per work, less 1 for the top leaf's exit and 1
	 * for its own */
	CHECK_STR(s, "method,context,calls,min,p50,p90,p99,p99_9,max,mean,total\n"
		     "M.main,M.main,1,11146,11146,11146,11146,11146,11146,11146,11146\n"
		     "M.work,M.main;M.work,100,7,7,7,1086,1096,1096,111,11140\n"
		     "M.leaf,M.main;M.leaf,1,6,6,6,6,6,6,6,6\n"
		     "M.leaf,M.main;M.work;M.leaf,100,3,3,3,3,3,3,3,300\n");
	free(s);
	/* the tree's cums are the same sums */
	for (size_t i = 0; i < m.nthreads; i++) {
		const struct calltree *t = &m.thread_list[i]->tree;
		uint32_t mainn = calltree_child_find(t, CALLTREE_ROOT, t->nodes[1].method);

		CHECK_EQ_U(calltree_fig(t, mainn, 0)->cum, 11146);
	}
	model_free(&m);
	unlink(path);
	free(s0);
	free(s1);
}

/* Frames live before tracing and frames still open at the end are calls
 * too, as the tree counts them. */
static void test_unbalanced(void)
{
	const char *script = "0 E M.a\n5 X M.a\n9 X M.live\n10 E M.open\n12 E M.b\n15 X M.b\n";
	const char *names[] = {"main"};
	char path[64], *s;
	struct report_opts o = {.format = REPORT_CSV};
	struct model m;
	int st;

	tmp_path(path, sizeof(path));
	CHECK_EQ_I(mg_trace_file(path, &script, names, 1, NULL, NULL), 0);
	CHECK_EQ_I(mg_load(&m, path, NULL), 0);
	s = run_latency(&m, &o, path, &st);
	CHECK_EQ_I(st, 0);
	CHECK_STR(s, "method,calls,min,p50,p90,p99,p99_9,max,mean,total\n"
		     "M.live,1,9,9,9,9,9,9,9,9\n"
		     "M.a,1,5,5,5,5,5,5,5,5\n"
		     "M.open,1,5,5,5,5,5,5,5,5\n"
		     "M.b,1,3,3,3,3,3,3,3,3\n");
	free(s);
	model_free(&m);
	unlink(path);
}

/* The numbers of a CSV row of the latency report (after the method). */
static int csv_nums(const char *line, uint64_t v[9])
{
	const char *p = strchr(line, ',');

	for (int k = 0; k < 9; k++) {
		if (!p)
			return -1;
		v[k] = strtoull(p + 1, NULL, 10);
		p = strchr(p + 1, ',');
	}
	return 0;
}

/* Whether got is within 1/32 of want (lathist.h). */
static int within(uint64_t got, uint64_t want)
{
	uint64_t d = got > want ? got - want : want - got;

	return d * LATHIST_ERROR_DIV <= want;
}

/*
 * The same threads as a trace and as a snapshot with histograms: the same
 * rows, calls, min, max, mean and total exact, each percentile within
 * 1/32 of the trace's; open frames and frames live before tracing counted
 * as in the trace. The report says where its figures come from.
 */
static void test_snapshot_hists(void)
{
	char *work = script_work(0), trace[64], snap[64], *a, *b, *la, *lb, *sa, *sb;
	const char *scripts[] = {work, "0 E M.a\n5 X M.a\n9 X M.live\n10 E M.open\n12 E M.b\n"
				       "15 X M.b\n"};
	const char *names[] = {"main", "other"};
	struct report_opts o = {.format = REPORT_CSV};
	struct model mt, ms;
	int st, rows = 0;

	tmp_path(trace, sizeof(trace));
	tmp_path(snap, sizeof(snap));
	CHECK_EQ_I(mg_trace_file(trace, scripts, names, 2, NULL, NULL), 0);
	mg_snapshot_hists = 1;
	CHECK_EQ_I(mg_snapshot_file(snap, scripts, names, 2), 0);
	mg_snapshot_hists = 0;
	CHECK_EQ_I(mg_load(&mt, trace, NULL), 0);
	CHECK_EQ_I(mg_load(&ms, snap, NULL), 0);
	for (int by = 0; by < 2; by++) {
		o.by_context = by;
		a = run_latency(&mt, &o, trace, &st);
		CHECK_EQ_I(st, 0);
		b = run_latency(&ms, &o, snap, &st);
		CHECK_EQ_I(st, 0);
		/* rows in the same order: by p99, and the p99s are far apart */
		la = strtok_r(a, "\n", &sa);
		lb = strtok_r(b, "\n", &sb);
		CHECK_STR(lb, la); /* the header */
		for (la = strtok_r(NULL, "\n", &sa), lb = strtok_r(NULL, "\n", &sb); la && lb;
		     la = strtok_r(NULL, "\n", &sa), lb = strtok_r(NULL, "\n", &sb), rows++) {
			uint64_t x[9], y[9];

			CHECK(!strncmp(la, lb, (size_t)(strchr(la, ',') - la)));
			if (csv_nums(by ? strchr(la, ',') : la, x) ||
			    csv_nums(by ? strchr(lb, ',') : lb, y)) {
				CHECK(0);
				continue;
			}
			/* calls min p50 p90 p99 p99.9 max mean total */
			CHECK_EQ_U(y[0], x[0]);
			CHECK_EQ_U(y[1], x[1]);
			CHECK_EQ_U(y[6], x[6]);
			CHECK_EQ_U(y[7], x[7]);
			CHECK_EQ_U(y[8], x[8]);
			for (int k = 2; k < 6; k++)
				if (!within(y[k], x[k])) {
					fprintf(stderr, "  %s\n  %s\n", la, lb);
					CHECK(0);
				}
		}
		CHECK(!la && !lb);
		free(a);
		free(b);
	}
	/* 7 methods; 8 contexts (M.leaf under M.work and under M.main) */
	CHECK_EQ_I(rows, 15);
	o.by_context = 0;
	o.format = REPORT_TEXT;
	b = run_latency(&ms, &o, snap, &st);
	CHECK(strstr(b, "percentiles by nearest rank, from histograms, within 3.2%\n") != NULL);
	free(b);
	o.format = REPORT_JSON;
	b = run_latency(&ms, &o, snap, &st);
	CHECK(strstr(b, "\"from_histograms\":true,\"relative_error\":0.03125,") != NULL);
	free(b);
	model_free(&mt);
	model_free(&ms);
	unlink(trace);
	unlink(snap);
	free(work);
}

/* A snapshot without histograms, and stdin: one line saying why, no report. */
static void test_refusals(void)
{
	const char *script = "0 E M.a\n5 X M.a\n";
	const char *names[] = {"main"};
	char path[64], *s;
	struct report_opts o = {.format = REPORT_CSV};
	struct model m;
	int st;

	tmp_path(path, sizeof(path));
	CHECK_EQ_I(mg_snapshot_file(path, &script, names, 1), 0);
	CHECK_EQ_I(mg_load(&m, path, NULL), 0);
	s = run_latency(&m, &o, path, &st);
	CHECK_EQ_I(st, -1);
	CHECK_STR(s, "");
	CHECK(strstr(err_buf, "keeps no durations of single calls") && !strchr(err_buf, '\n'));
	free(s);
	model_free(&m);
	CHECK_EQ_I(mg_trace_file(path, &script, names, 1, NULL, NULL), 0);
	CHECK_EQ_I(mg_load(&m, path, NULL), 0);
	s = run_latency(&m, &o, "-", &st);
	CHECK_EQ_I(st, -1);
	CHECK(strstr(err_buf, "not stdin") != NULL);
	free(s);
	model_free(&m);
	unlink(path);
}

static void test_rank(void)
{
	static const uint64_t v[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

	CHECK_EQ_U(latency_rank(v, 10, 500), 5);
	CHECK_EQ_U(latency_rank(v, 10, 900), 9);
	CHECK_EQ_U(latency_rank(v, 10, 990), 10);
	CHECK_EQ_U(latency_rank(v, 10, 999), 10);
	CHECK_EQ_U(latency_rank(v, 1, 500), 1);
	CHECK_EQ_U(latency_rank(v, 3, 500), 2);
	CHECK_EQ_U(latency_rank(v, 4, 500), 2);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* latency_sort against qsort: random values, few distinct ones, sorted,
 * reversed, all equal; lengths around its insertion-sort cut. */
static void test_sort(void)
{
	static uint64_t a[100000], b[100000];
	static const size_t lens[] = {0, 1, 2, 15, 16, 17, 33, 1000, 100000};
	uint64_t rng = 0x9e3779b97f4a7c15ull;

	for (unsigned shape = 0; shape < 5; shape++)
		for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
			size_t n = lens[li];

			for (size_t i = 0; i < n; i++) {
				uint64_t r = xorshift_next(&rng);

				a[i] = shape == 0   ? r
				       : shape == 1 ? r % 7
				       : shape == 2 ? i
				       : shape == 3 ? n - i
						    : 42;
				b[i] = a[i];
			}
			latency_sort(a, n);
			qsort(b, n, sizeof(*b), cmp_u64);
			if (memcmp(a, b, n * sizeof(*a)))
				fprintf(stderr, "  shape %u, %zu values: not sorted\n", shape, n);
			CHECK(!memcmp(a, b, n * sizeof(*a)));
		}
}

int main(void)
{
	RUN(test_sort);
	RUN(test_rank);
	RUN(test_percentiles);
	RUN(test_contexts_and_filters);
	RUN(test_compensated_sums);
	RUN(test_unbalanced);
	RUN(test_refusals);
	RUN(test_snapshot_hists);
	return test_summary("report-latency");
}
