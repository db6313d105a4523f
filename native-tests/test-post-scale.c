/*
 * test-post-scale.c - jcal-post's time and output stay linear in the trace
 * (docs/jcal-post.md, --max-depth; docs/performance.md): many distinct meta
 * keys are read in bounded time, and every report and export of a 100 000
 * frame deep recursion stays under a stated byte bound and time limit
 * (each runs in a child process that is stopped as soon as it writes too
 * much or runs too long, so a quadratic report fails fast instead of
 * writing gigabytes), with totals that folding leaves exact: the root's
 * cum, the sum of all calls, the flat profile's calls per method.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "postproc/model.h"
#include "postproc/report.h"
#include "postproc/shaping.h"
#include "native-tests/test.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- meta records ---- */

#define META_KEYS 120000
#define META_SECONDS 2.0 /* a sanity bound: linear reading takes ~0.1 s */

static void test_meta_keys(void)
{
	struct model m;
	struct trace_visitor v;
	char key[32];
	double t0 = now();
	unsigned i;

	model_init(&m, NULL);
	model_visitor(&m, &v);
	for (i = 0; i < META_KEYS; i++) {
		snprintf(key, sizeof(key), "user.k%u", i);
		CHECK_EQ_I(v.meta(v.ctx, key, "v"), 0);
		/* give up early rather than run for minutes */
		if (i % 1000 == 999 && now() - t0 > META_SECONDS)
			break;
	}
	CHECK_EQ_U(i, META_KEYS);
	CHECK(now() - t0 <= META_SECONDS);
	CHECK_EQ_U(m.nmeta, i);
	/* a repeated key replaces the value in place, first-seen order kept */
	CHECK_EQ_I(v.meta(v.ctx, "user.k7", "seven"), 0);
	CHECK_EQ_U(m.nmeta, i);
	CHECK_STR(model_meta(&m, "user.k7"), "seven");
	CHECK_STR(m.meta[7].value, "seven");
	CHECK_STR(m.meta[0].key, "user.k0");
	if (i == META_KEYS)
		CHECK_STR(model_meta(&m, "user.k119999"), "v");
	CHECK(model_meta(&m, "user.k120000") == NULL);
	CHECK(model_meta(&m, "") == NULL);
	model_free(&m);
}

/* ---- a deep recursion: main -> r -> r -> ... (depth r frames) ---- */

#define DEEP 100000u

/* One thread "t": main enters, r recurses depth times, all return; every
 * delta is 1 tick, so the root's cum is 2 * depth + 1. */
static int deep_model(struct model *m, uint32_t depth)
{
	struct trace_visitor v;
	struct trace_method tm = {0};
	struct trace_thread tt = {0};
	struct trace_event e = {0};
	uint64_t t = 0;

	model_init(m, NULL);
	model_visitor(m, &v);
	if (v.meta(m, "metrics", "ticks"))
		return -1;
	tm.modifiers = JCAL_ACC_STATIC;
	tm.class_sig = "LD;";
	tm.sig = "()V";
	tm.id = 1;
	tm.name = "main";
	if (v.method(m, &tm))
		return -1;
	tm.id = 2;
	tm.name = "r";
	if (v.method(m, &tm))
		return -1;
	tt.serial = 1;
	tt.name = "t";
	if (v.thread_start(m, &tt))
		return -1;
	e.thread = 1;
	e.nmetrics = 1;
	e.type = JCAL_MT_INTERP_STATIC;
	for (uint32_t i = 0; i < 2 * depth + 2; i++) {
		e.transition = i <= depth ? JCAL_TR_ENTRY : JCAL_TR_EXIT;
		e.method = i == 0 || i == 2 * depth + 1 ? 1 : 2;
		e.metric[0] = ++t;
		if (v.event(m, &e))
			return -1;
	}
	return model_finish(m) || model_names(m, 0) ? -1 : 0;
}

/* A stream that counts what is written and ends the (child) process with
 * status 3 once more than its bound was written. */
struct counter {
	size_t bytes, bound;
};

static ssize_t count_write(void *c, const char *buf, size_t n)
{
	struct counter *k = c;

	(void)buf;
	k->bytes += n;
	if (k->bytes > k->bound)
		_exit(3);
	return (ssize_t)n;
}

/*
 * Runs fn(m, o) in a child process writing to a counting stream, for at
 * most seconds. Returns the bytes written, or -1 (more than bound bytes),
 * -2 (out of time), -3 (the report failed or the child died otherwise).
 */
static long long run_bounded(int (*fn)(const struct model *, const struct report_opts *),
			     const struct model *m, struct report_opts *o, size_t bound,
			     unsigned seconds)
{
	int fds[2], st;
	pid_t pid;
	long long got = -3;

	fflush(NULL);
	if (pipe(fds))
		return -3;
	pid = fork();
	if (pid == 0) {
		struct counter k = {0, bound};
		cookie_io_functions_t io = {NULL, count_write, NULL, NULL};
		FILE *f = fopencookie(&k, "w", io);
		long long n;

		close(fds[0]);
		alarm(seconds);
		if (!f)
			_exit(4);
		o->out = f;
		if (fn(m, o) || fflush(f))
			_exit(5);
		n = (long long)k.bytes;
		if (write(fds[1], &n, sizeof(n)) != sizeof(n))
			_exit(6);
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return -3;
	}
	if (read(fds[0], &got, sizeof(got)) != sizeof(got))
		got = -3;
	close(fds[0]);
	if (waitpid(pid, &st, 0) != pid)
		return -3;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
		return -1;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
		return -2;
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return -3;
	return got;
}

/*
 * The bound: at the default depth limit the deepest chain a report prints
 * is about 4100 contexts whose paths average 2050 frames of at most 7 bytes
 * ("D.r <- " in the callers text, "D.r;" elsewhere): under 59 MB; without a
 * limit the same reports write 20 to 35 GB.
 */
#define DEEP_BOUND (64u << 20)
#define DEEP_SECONDS 30u /* each report; linear ones take a few seconds under ASan */

static void check_bounded(const char *what,
			  int (*fn)(const struct model *, const struct report_opts *),
			  const struct model *m, enum report_format format)
{
	static char err[REPORT_ERR_LEN];
	struct report_opts o = {0};
	double t0 = now();
	long long n;

	o.format = format;
	o.err = err;
	n = run_bounded(fn, m, &o, DEEP_BOUND, DEEP_SECONDS);
	if (n < 0)
		fprintf(stderr, "  %s: %s\n", what,
			n == -1	  ? "more than the byte bound"
			: n == -2 ? "out of time"
				  : "failed");
	CHECK(n > 0);
	CHECK(n <= (long long)DEEP_BOUND);
	if (n > 0)
		fprintf(stderr, "ok %s: %lld bytes, %.2f s\n", what, n, now() - t0);
}

/* Every report and export of a 100 000 deep recursion, default options. */
static void test_deep_bounded(void)
{
	struct model m;

	CHECK_EQ_I(deep_model(&m, DEEP), 0);
	check_bounded("tree text", report_tree, &m, REPORT_TEXT);
	check_bounded("tree csv", report_tree, &m, REPORT_CSV);
	check_bounded("tree json", report_tree, &m, REPORT_JSON);
	check_bounded("callers text", report_callers, &m, REPORT_TEXT);
	check_bounded("callers csv", report_callers, &m, REPORT_CSV);
	check_bounded("flat", report_flat, &m, REPORT_TEXT);
	check_bounded("arcs", report_arcs, &m, REPORT_TEXT);
	check_bounded("summary", report_summary, &m, REPORT_TEXT);
	check_bounded("collapsed", export_collapsed, &m, REPORT_TEXT);
	check_bounded("speedscope", export_speedscope, &m, REPORT_TEXT);
	check_bounded("pprof", export_pprof, &m, REPORT_TEXT);
	check_bounded("html", export_html, &m, REPORT_TEXT);
	model_free(&m);
}

/* ---- exact totals under folding ---- */

static char *run_mem(int (*fn)(const struct model *, const struct report_opts *),
		     const struct model *m, struct report_opts *o)
{
	static char err[REPORT_ERR_LEN];
	char *s = NULL;
	size_t len = 0;

	o->out = open_memstream(&s, &len);
	o->err = err;
	if (!o->out)
		return NULL;
	CHECK_EQ_I(fn(m, o), 0);
	fclose(o->out);
	return s;
}

/* The copy keeps every kept node's figures; the pseudo-frame holds the rest. */
static void test_cap_depth_tree(void)
{
	struct model m;
	struct calltree c;
	const struct calltree *t;
	uint64_t folded = 0, calls_src = 0, calls_dst = 0;
	uint32_t pseudo = CALLTREE_NONE;

	CHECK_EQ_I(deep_model(&m, 1000), 0);
	t = &m.thread_list[0]->tree;
	CHECK_EQ_I(shape_cap_depth(t, 100, &c, &folded), 0);
	/* root 0, main 1, r at 2..1001: levels 101..1001 fold */
	CHECK_EQ_U(folded, 901);
	CHECK_EQ_U(c.nnodes, 102);
	CHECK_EQ_U(c.max_level, 101);
	CHECK_EQ_U(calltree_fig(&c, CALLTREE_ROOT, 0)->cum, calltree_fig(t, CALLTREE_ROOT, 0)->cum);
	CHECK_EQ_U(calltree_fig(&c, CALLTREE_ROOT, 0)->cum, 2 * 1000 + 1);
	CHECK_EQ_U(calltree_fig(&c, CALLTREE_ROOT, 0)->raw_cum,
		   calltree_fig(t, CALLTREE_ROOT, 0)->raw_cum);
	for (uint32_t i = 0; i < t->nnodes; i++)
		calls_src += t->nodes[i].calls;
	for (uint32_t i = 0; i < c.nnodes; i++) {
		calls_dst += c.nodes[i].calls;
		if (c.nodes[i].method == CALLTREE_FOLDED_METHOD)
			pseudo = i;
		else if (i) /* a kept node: same path, same figures (chain: same index) */
			CHECK_EQ_U(calltree_fig(&c, i, 0)->cum, calltree_fig(t, i, 0)->cum);
	}
	CHECK_EQ_U(calls_dst, calls_src);
	CHECK(pseudo != CALLTREE_NONE);
	if (pseudo != CALLTREE_NONE) {
		CHECK_EQ_U(c.nodes[pseudo].level, 101);
		CHECK_EQ_U(c.nodes[pseudo].calls, 901);
		/* its base is the cum of the first folded frame (node 101 of the chain) */
		CHECK_EQ_U(calltree_fig(&c, pseudo, 0)->base, calltree_fig(t, 101, 0)->cum);
		CHECK_EQ_U(calltree_fig(&c, c.nodes[pseudo].parent, 0)->cum,
			   calltree_fig(t, 100, 0)->cum);
	}
	calltree_free(&c);
	model_free(&m);
}

/* Sum of the numbers after the last blank of each line (folded stacks). */
static uint64_t collapsed_sum(const char *s, unsigned *lines, unsigned *max_frames)
{
	uint64_t sum = 0;

	*lines = 0;
	*max_frames = 0;
	while (*s) {
		const char *nl = strchr(s, '\n'), *sp;
		unsigned frames = 1;

		if (!nl)
			break;
		for (sp = nl; sp > s && sp[-1] != ' '; sp--)
			;
		sum += strtoull(sp, NULL, 10);
		for (const char *p = s; p < nl; p++)
			frames += *p == ';';
		if (frames > *max_frames)
			*max_frames = frames;
		(*lines)++;
		s = nl + 1;
	}
	return sum;
}

static void test_folding_exact(void)
{
	struct model m;
	struct report_opts o = {0};
	unsigned lines, frames;
	char *s, *p;
	uint64_t calls = 0, fcalls = 0;

	CHECK_EQ_I(deep_model(&m, DEEP), 0);
	o.max_depth = 100;
	/* folded stacks: every tick once, no path longer than the limit + 1 */
	s = run_mem(export_collapsed, &m, &o);
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ_U(collapsed_sum(s, &lines, &frames), 2 * DEEP + 1);
		CHECK_EQ_U(lines, 101);	 /* main, 99 r, the pseudo-frame */
		CHECK_EQ_U(frames, 102); /* the thread, levels 1..101 */
		CHECK(strstr(s, ";D.r;<deeper frames folded> ") != NULL);
		free(s);
	}
	/* tree CSV: all calls kept, the pseudo-frame's are the folded frames' */
	o.format = REPORT_CSV;
	s = run_mem(report_tree, &m, &o);
	CHECK(s != NULL);
	for (p = s ? strchr(s, '\n') : NULL; p && p[1]; p = strchr(p + 1, '\n')) {
		unsigned long long level, rl, c, base, cum;

		CHECK_EQ_I(
		    sscanf(p + 1, "t#1,%llu,%llu,%llu,%llu,%llu,", &level, &rl, &c, &base, &cum),
		    5);
		calls += c;
		if (level == 0)
			CHECK_EQ_U(cum, 2 * DEEP + 1);
		if (level == 101) {
			fcalls = c;
			CHECK(strstr(p + 1, ";D.r;<deeper frames folded>\n") != NULL);
		}
		CHECK(level <= 101);
	}
	CHECK_EQ_U(calls, 1 + 1 + DEEP); /* root, main, every r */
	CHECK_EQ_U(fcalls, DEEP - 99);
	free(s);
	/* flat: per method exact whatever the limit */
	s = run_mem(report_flat, &m, &o);
	CHECK(s != NULL && strstr(s, "\nD.r,100000,") != NULL);
	CHECK(s != NULL && strstr(s, "deeper") == NULL);
	free(s);
	/* callers: the folded frames are one pseudo-method with their calls */
	s = run_mem(report_callers, &m, &o);
	CHECK(s != NULL && strstr(s, "\n<deeper frames folded>,") != NULL);
	CHECK(s != NULL && strstr(s, ",99901,") != NULL);
	free(s);
	/* summary: how many contexts a report folds */
	o.format = REPORT_TEXT;
	s = run_mem(report_summary, &m, &o);
	CHECK(s != NULL &&
	      strstr(s, "99901 contexts (deepest 100001) below --max-depth 100") != NULL);
	free(s);
	/* text tree: the note and the pseudo-frame */
	s = run_mem(report_tree, &m, &o);
	CHECK(s != NULL &&
	      strstr(s, "note: 99901 contexts deeper than --max-depth 100 folded") != NULL);
	CHECK(s != NULL && strstr(s, " <deeper frames folded>\n") != NULL);
	free(s);
	model_free(&m);
}

/* At the default limit, the 3001 deep recursion of the Java tests is shown
 * whole: the report reads the thread's own tree. */
static void test_default_keeps_3001(void)
{
	struct model m;
	struct report_opts o = {0};
	char *s;

	CHECK_EQ_I(deep_model(&m, 3001), 0);
	o.format = REPORT_CSV;
	s = run_mem(report_tree, &m, &o);
	CHECK(s != NULL && strstr(s, "deeper") == NULL);
	CHECK(s != NULL && strstr(s, "\nt#1,3002,3001,1,") != NULL);
	free(s);
	model_free(&m);
}

int main(void)
{
	RUN(test_meta_keys);
	RUN(test_deep_bounded);
	RUN(test_cap_depth_tree);
	RUN(test_folding_exact);
	RUN(test_default_keeps_3001);
	return test_summary("post-scale");
}
