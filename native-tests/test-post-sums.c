/*
 * test-post-sums.c - sums that pass 2^64 - 1 saturate (common/satsum.h,
 * docs/jcal-post.md "Limits"): a tree snapshot whose CRCs are right but
 * whose calls and figures add up past what 64 bits hold, and a trace
 * whose metric jumps back and forth, show 18446744073709551615 where they
 * used to wrap round (calls of 2^64 - 1 and 2 printed as 1, a Base% of
 * 461168601842738790400.00%), every share stays within 100%, and
 * build/jcal-post says once which figures were saturated. A trace whose
 * figures fit notes nothing.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "postproc/model.h"
#include "postproc/report.h"
#include "common/satsum.h"
#include "native-tests/test.h"
#include "native-tests/threadgen.h"
#include "native-tests/tracegen.h"

#define MAX UINT64_MAX
#define S(x) #x

static char dir[64];

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void node(struct trace_tree_node *nd, uint32_t serial, uint32_t i, uint32_t parent,
		 uint32_t method, uint64_t calls, uint64_t raw)
{
	memset(nd, 0, sizeof(*nd));
	nd->serial = serial;
	nd->nmetrics = 1;
	nd->index = i;
	nd->parent = parent;
	nd->method = method;
	nd->calls = calls;
	nd->raw[0] = nd->comp[0] = raw;
}

/*
 * Two threads of a snapshot, each root -> run -> step: "main"'s run has
 * 2^64 - 1 calls and base 10, "worker"'s run 2 calls and base 2^64 - 5;
 * each step 1 call and base 5. Over both threads run has 2^64 + 1 calls
 * and a base of 2^64 + 5: both saturate, and so does the worker's cum.
 */
static void write_snapshot(const char *path)
{
	static struct tracegen tg;
	struct trace_tree_thread th;
	struct trace_tree_node nd[3];
	uint8_t h[TRACE_FILE_HEADER_LEN];
	uint64_t zero = 0;

	CHECK_EQ_I(tg_open(&tg, path), 0);
	/* a snapshot's header instead of a trace's */
	trace_snapshot_header(h);
	CHECK_EQ_I(fseek(tg.f, 0, SEEK_SET), 0);
	CHECK_EQ_U(fwrite(h, 1, sizeof(h), tg.f), sizeof(h));
	trace_rec_meta(&tg.rb, "metrics", "ticks");
	trace_rec_method(&tg.rb, 1, JCAL_ACC_STATIC, "Lp/App;", "run", "()V");
	trace_rec_method(&tg.rb, 2, JCAL_ACC_STATIC, "Lp/App;", "step", "()V");
	for (uint32_t s = 1; s <= 2; s++) {
		trace_rec_thread_start(&tg.rb, s, s, 100 + s, 0, 1, s == 1 ? "main" : "worker", 1,
				       &zero);
		memset(&th, 0, sizeof(th));
		th.serial = s;
		th.nmetrics = 1;
		th.nodes = 3;
		th.stat[TRACE_TS_EVENTS] = s == 1 ? MAX : 7;
		trace_rec_tree_thread(&tg.rb, &th);
		node(&nd[0], s, 0, 0, CALLTREE_ROOT_METHOD, 1, 0);
		node(&nd[1], s, 1, 0, 1, s == 1 ? MAX : 2, s == 1 ? 10 : MAX - 4);
		node(&nd[2], s, 2, 1, 2, 1, 5);
		trace_rec_tree_nodes(&tg.rb, nd, 3);
	}
	trace_rec_end(&tg.rb, 0, 2, 0);
	CHECK_EQ_I(tg_close(&tg), 0);
}

static int load(struct model *m, const char *path, unsigned jobs)
{
	struct trace_result res;

	model_init(m, NULL);
	if (jobs)
		CHECK_EQ_I(model_jobs(m, jobs, 1), 0);
	CHECK_EQ_I(model_load(m, path, &res), TRACE_OK);
	CHECK_EQ_I(model_redo(m), 0);
	return model_finish(m) || model_names(m, 0);
}

/* The report of kind on m, in format, as a string. */
static char *report(const struct model *m, const char *kind, enum report_format format)
{
	static char err[REPORT_ERR_LEN];
	const struct report_kind *k = report_kind_find(kind);
	struct report_opts o;
	char *s = NULL;
	size_t len = 0;

	CHECK(k != NULL);
	if (!k)
		return NULL;
	memset(&o, 0, sizeof(o));
	o.format = format;
	o.err = err;
	o.out = open_memstream(&s, &len);
	CHECK(o.out != NULL);
	if (!o.out)
		return NULL;
	CHECK_EQ_I(k->run(m, &o), 0);
	fclose(o.out);
	return s;
}

static void test_snapshot_sums(void)
{
	char path[128], *s;
	struct model m;

	path_of(path, sizeof(path), "huge.snap");
	write_snapshot(path);
	satsum_reset();
	CHECK_EQ_I(load(&m, path, 0), 0);
	s = report(&m, "flat", REPORT_TEXT);
	CHECK_STR(s,
		  "Flat profile  metric ticks  2 threads  total 18446744073709551615\n"
		  "               Calls                 Base   Base%                  Cum    Cum%  "
		  "Name\n"
		  "18446744073709551615 18446744073709551615  100.00 18446744073709551615  100.00  "
		  "p.App.run\n"
		  "                   2                   10    0.00                   10    0.00  "
		  "p.App.step\n");
	free(s);
	s = report(&m, "flat", REPORT_CSV);
	CHECK_STR(
	    s,
	    "method,calls,base,cum,raw_base,raw_cum\n"
	    "p.App.run," S(18446744073709551615) "," S(18446744073709551615) "," S(
		18446744073709551615) "," S(18446744073709551615) "," S(18446744073709551615) "\n"
											      "p."
											      "App."
											      "step"
											      ",2,"
											      "10,"
											      "10,"
											      "10,"
											      "10"
											      "\n");
	free(s);
	/* the worker's tree: its cum saturated, run's own base kept */
	s = report(&m, "hot", REPORT_TEXT);
	CHECK_STR(s,
		  "Hot path of thread \"main\" #1  metric ticks  2 contexts deep\n"
		  "Lvl RL                Calls Base Cum   Cum%  Name\n"
		  "  0  1                    1    0  15 100.00  <thread root>\n"
		  "  1  1 18446744073709551615   10  15 100.00    p.App.run\n"
		  "  2  1                    1    5   5  33.33      p.App.step\n"
		  "\n"
		  "Hot path of thread \"worker\" #2  metric ticks  2 contexts deep\n"
		  "Lvl RL Calls                 Base                  Cum   Cum%  Name\n"
		  "  0  1     1                    0 18446744073709551615 100.00  <thread root>\n"
		  "  1  1     2 18446744073709551611 18446744073709551615 100.00    p.App.run\n"
		  "  2  1     1                    5                    5   0.00      "
		  "p.App.step\n");
	free(s);
	/* events: 2^64 - 1 and 7 */
	s = report(&m, "summary", REPORT_CSV);
	CHECK(s && strstr(s, "\nevents,18446744073709551615\n") != NULL);
	free(s);
	CHECK_EQ_U(satsum_seen(), SATSUM_CALLS | SATSUM_BASE | SATSUM_RAW_BASE | SATSUM_CUM |
				      SATSUM_RAW_CUM | SATSUM_EVENTS);
	model_free(&m);
}

/* One thread whose metric jumps back: run gets 2^63 twice (2^64 in all),
 * then step 1. */
static void write_jumping_trace(const char *path)
{
	static struct tracegen tg;
	static const struct {
		unsigned tr;
		uint32_t m;
		uint64_t v;
	} ev[] = {
	    {JCAL_TR_ENTRY, 1, 0},
	    {JCAL_TR_EXIT, 1, 1ull << 63},
	    {JCAL_TR_ENTRY, 1, 0}, /* back: charged as 0 */
	    {JCAL_TR_EXIT, 1, 1ull << 63},
	    {JCAL_TR_ENTRY, 2, 1ull << 63},
	    {JCAL_TR_EXIT, 2, (1ull << 63) + 1},
	};
	uint64_t zero = 0;

	CHECK_EQ_I(tg_open(&tg, path), 0);
	trace_rec_meta(&tg.rb, "metrics", "ticks");
	trace_rec_method(&tg.rb, 1, JCAL_ACC_STATIC, "Lp/App;", "run", "()V");
	trace_rec_method(&tg.rb, 2, JCAL_ACC_STATIC, "Lp/App;", "step", "()V");
	trace_rec_thread_start(&tg.rb, 1, 1, 101, 0, 1, "main", 1, &zero);
	tg_flush(&tg);
	tg_events_begin(&tg, 1, 1);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		tg_event(&tg, ev[i].tr, JCAL_MT_INTERP_STATIC, ev[i].m, &ev[i].v);
	tg_events_end(&tg);
	trace_rec_end(&tg.rb, 6, 1, 0);
	CHECK_EQ_I(tg_close(&tg), 0);
}

static void test_trace_sums(void)
{
	char path[128];

	path_of(path, sizeof(path), "jump.bin");
	write_jumping_trace(path);
	/* built on the reading thread, and by workers from the chunks */
	for (unsigned jobs = 0; jobs <= 2; jobs += 2) {
		struct model m;
		const struct calltree *t;
		uint32_t run;

		satsum_reset();
		CHECK_EQ_I(load(&m, path, jobs), 0);
		CHECK_EQ_U(m.nthreads, 1);
		t = &m.thread_list[0]->tree;
		run = calltree_child_find(t, CALLTREE_ROOT, 1);
		CHECK(run != CALLTREE_NONE);
		if (run != CALLTREE_NONE) {
			CHECK_EQ_U(t->nodes[run].calls, 2);
			CHECK_EQ_U(calltree_fig(t, run, 0)->raw_base, MAX);
			CHECK_EQ_U(calltree_fig(t, run, 0)->base, MAX);
		}
		CHECK_EQ_U(calltree_fig(t, CALLTREE_ROOT, 0)->raw_cum, MAX);
		CHECK_EQ_U(t->stats.backwards, 1);
		CHECK_EQ_U(satsum_seen(),
			   SATSUM_BASE | SATSUM_RAW_BASE | SATSUM_CUM | SATSUM_RAW_CUM);
		model_free(&m);
	}
}

/* A trace whose figures fit notes nothing. */
static void test_nothing_saturated(void)
{
	char path[128];
	struct model m;

	path_of(path, sizeof(path), "fit.bin");
	CHECK_EQ_I(threadgen_write(path, 50, 2), 0);
	satsum_reset();
	CHECK_EQ_I(load(&m, path, 0), 0);
	for (const char *const *k = (const char *const[]){"tree", "flat", "arcs", "callers",
							  "summary", "collapsed", "pprof", NULL};
	     *k; k++)
		free(report(&m, *k, REPORT_TEXT));
	CHECK_EQ_U(satsum_seen(), 0);
	model_free(&m);
	/* names of what was saturated, for the warning */
	satsum_names(SATSUM_CALLS | SATSUM_CUM | SATSUM_INT64, path, sizeof(path));
	CHECK_STR(path, "calls, cum, pprof values");
}

/* build/jcal-post on the snapshot: its report, then one warning. */
static void test_one_warning(void)
{
	char snap[128], out[128], err[128], line[1024];
	int st, warnings = 0;
	FILE *f;
	pid_t pid;

	path_of(snap, sizeof(snap), "huge.snap");
	path_of(out, sizeof(out), "out.txt");
	path_of(err, sizeof(err), "err.txt");
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		if (!freopen(err, "w", stderr))
			_exit(126);
		execl("build/jcal-post", "jcal-post", snap, "--report", "flat", "-o", out,
		      (char *)NULL);
		_exit(127);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	f = fopen(err, "r");
	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "jcal-post: warning: ", 20)) {
			warnings++;
			CHECK_STR(line, "jcal-post: warning: figures past 2^64 - 1 were saturated "
					"(calls, base, raw_base, cum, raw_cum): shown as "
					"18446744073709551615; the input holds more than its "
					"counters can (a damaged or crafted file?)\n");
		}
	if (f)
		fclose(f);
	CHECK_EQ_I(warnings, 1);
}

int main(void)
{
	char cmd[128];

	snprintf(dir, sizeof(dir), "/tmp/jcal-post-sums.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_snapshot_sums);
	RUN(test_trace_sums);
	RUN(test_nothing_saturated);
	RUN(test_one_warning);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "  cannot remove %s\n", dir);
	return test_summary("post-sums");
}
