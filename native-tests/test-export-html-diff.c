/*
 * test-export-html-diff.c - the differential flame graph
 * (postproc/export_html_diff.c): the page's DATA parsed back (frames, both
 * runs' calls and self cost, the names each once, the nesting), its exact
 * text against a golden string, names that would end the script, the page
 * around it (self-contained, the marker the browser check reads), and the
 * cut that bounds a large comparison (totals kept, the ladder's choice);
 * and the page of a diff model of two runs (postproc/export_html_diff_model.c:
 * thread groups, both runs' medians, which run has each frame, --value,
 * --min-pct and its note); and build/jcal-post diff --report html end to
 * end (run from the repository root after make).
 * With JCAL_HTML_DIFF_DIR=DIR it also writes DIR/base.bin and DIR/new.bin,
 * the two runs javatests/html-diff-check.sh draws in Chromium.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "native-tests/jsonmini.h"
#include "native-tests/modelgen.h"
#include "postproc/diff_report.h"
#include "postproc/export_html_diff.h"
#include "native-tests/test.h"

/* all threads > main > App.main > {Hot.tripled, Gone.removed > Lexer.next,
 * Fresh.added}; worker-* > Lexer.next, whose cost changed within the runs'
 * spread */
static const struct html_diff_ctx sample[] = {
    {HTML_DIFF_NONE, "all threads", {0, 0}, {0, 0}, 3},
    {0, "main", {1, 1}, {5, 7}, 3},
    {1, "p.App.main", {1, 1}, {100, 90}, 3},
    {2, "p.Hot.tripled", {10, 30}, {2000, 6000}, 3},
    {2, "p.Gone.removed", {4, 0}, {900, 0}, 1},
    {4, "p.Lexer.next", {8, 0}, {300, 0}, 1},
    {2, "p.Fresh.added", {0, 2}, {0, 700}, 2},
    {0, "worker-*", {1, 1}, {0, 0}, 3},
    {7, "p.Lexer.next", {3, 3}, {50, 40}, 11},
};
#define NSAMPLE (sizeof(sample) / sizeof(sample[0]))

static char *page(const struct html_diff_page *pg, const struct html_diff_ctx *ctx, size_t n,
		  int *st)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	*st = html_diff_write(f, pg, ctx, n);
	fclose(f);
	return s;
}

/* The DATA text of a page (malloc'ed), or NULL. */
static char *data_of(const char *s)
{
	const char *d = strstr(s, "const DATA =\n"), *end;
	char *out;

	if (!d)
		return NULL;
	d += strlen("const DATA =\n");
	end = strstr(d, "\n;\n</script>");
	if (!end)
		return NULL;
	out = malloc((size_t)(end - d) + 1);
	memcpy(out, d, (size_t)(end - d));
	out[end - d] = '\0';
	return out;
}

static const struct html_diff_page sample_page = {
    .title = "jcal-post diff  BASE a.bin  NEW b.bin  metric ticks",
    .metric = "ticks",
    .unit = "ticks",
    .notes = (const char *const[]){"normalised: 1 method name"},
    .nnotes = 1,
};

/* The exact text: names each once in order of first use, contexts nested
 * [name, calls BASE, calls NEW, self BASE, self NEW, flags, callees...]. */
static void test_golden_data(void)
{
	int st;
	char *s = page(&sample_page, sample, NSAMPLE, &st), *d;

	CHECK_EQ_I(st, 0);
	d = data_of(s);
	CHECK(d != NULL);
	if (d)
		CHECK_STR(d, "{\"title\":\"jcal-post diff  BASE a.bin  NEW b.bin  metric ticks\","
			     "\"metric\":\"ticks\",\"unit\":\"ticks\",\"value\":\"cost\","
			     "\"notes\":[\"normalised: 1 method name\"],"
			     "\"names\":[\"all threads\",\"main\",\"p.App.main\",\"p.Hot.tripled\","
			     "\"p.Gone.removed\",\"p.Lexer.next\",\"p.Fresh.added\",\"worker-*\"],"
			     "\"tree\":[0,0,0,0,0,3,[1,1,1,5,7,3,[2,1,1,100,90,3,"
			     "[3,10,30,2000,6000,3],[4,4,0,900,0,1,[5,8,0,300,0,1]],"
			     "[6,0,2,0,700,2]]],[7,1,1,0,0,3,[5,3,3,50,40,11]]]}");
	free(d);
	free(s);
}

/* Parsed back: every context's figures in both runs at its place. */
static void test_parsed(void)
{
	struct html_diff_page pg = sample_page;
	int st;
	char *s, *d;
	struct jv *doc;

	pg.calls = 1;
	s = page(&pg, sample, NSAMPLE, &st);
	d = data_of(s);
	doc = d ? jv_parse(d, strlen(d)) : NULL;
	CHECK(doc != NULL);
	if (doc) {
		const struct jv *names = jv_get(doc, "names"), *t = jv_get(doc, "tree");
		const struct jv *main, *app, *hot, *gone;

		CHECK_STR(jv_get(doc, "value")->str, "calls");
		CHECK(jv_is(t, JV_ARR) && t->n == 8);
		main = t->item[6];
		CHECK_STR(names->item[(size_t)main->item[0]->num]->str, "main");
		app = main->item[6];
		CHECK(app->n == 9); /* 6 figures, 3 callees */
		hot = app->item[6];
		gone = app->item[7];
		CHECK_STR(names->item[(size_t)hot->item[0]->num]->str, "p.Hot.tripled");
		CHECK(hot->item[1]->num == 10 && hot->item[2]->num == 30);
		CHECK(hot->item[3]->num == 2000 && hot->item[4]->num == 6000);
		CHECK(hot->item[5]->num == (HTML_DIFF_IN_BASE | HTML_DIFF_IN_NEW));
		CHECK(gone->item[2]->num == 0 && gone->n == 7);
		CHECK(gone->item[5]->num == HTML_DIFF_IN_BASE);
		CHECK(gone->item[6]->item[1]->num == 8);
		CHECK(app->item[8]->item[1]->num == 0 && app->item[8]->item[2]->num == 2);
		CHECK(app->item[8]->item[5]->num == HTML_DIFF_IN_NEW);
		CHECK(t->item[7]->item[6]->item[5]->num == 11);
		jv_free(doc);
	}
	free(d);
	free(s);
}

/* Names from a file cannot end the script; the page needs nothing outside
 * itself and draws the marker the browser check reads. */
static void test_page(void)
{
	struct html_diff_ctx ctx[] = {
	    {HTML_DIFF_NONE, "all threads", {0, 0}, {0, 0}, 3},
	    {0, "</script><b>x&y", {1, 2}, {3, 4}, 3},
	};
	struct html_diff_page pg = {.title = "</script>", .metric = "cputime", .unit = "ns"};
	int st;
	char *s = page(&pg, ctx, 2, &st);

	CHECK_EQ_I(st, 0);
	CHECK(!strncmp(s, "<!DOCTYPE html>", 15));
	CHECK(strstr(s, "<title>jcal differential flame graph</title>") != NULL);
	CHECK(strstr(s, "</script><b>") == NULL);
	CHECK(strstr(s, "\\u003c/script\\u003e\\u003cb\\u003ex\\u0026y") != NULL);
	CHECK(strstr(s, "://") == NULL);
	CHECK(strstr(s, "jcal-rendered") != NULL);
	CHECK(strstr(s, "id=\"v-calls\"") != NULL && strstr(s, "id=\"s-base\"") != NULL);
	CHECK(strstr(s, "\"unit\":\"ns\"") != NULL);
	free(s);
}

/* The sums of calls and cost, with the callees', of run r from context 0. */
static void totals(const struct html_diff_ctx *ctx, size_t n, int r, uint64_t *calls,
		   uint64_t *cost)
{
	*calls = *cost = 0;
	for (size_t i = 0; i < n; i++) {
		*calls += ctx[i].calls[r];
		*cost += ctx[i].self[r];
	}
}

/* A cut keeps every kept frame's figures and both runs' totals: what it
 * folds is in one frame per caller. */
static void test_fold(void)
{
	struct html_diff_ctx ctx[NSAMPLE];
	struct html_diff_cut cut;
	size_t n = NSAMPLE;

	memcpy(ctx, sample, sizeof(sample));
	/* 40% of calls (BASE 28, NEW 38) is 12 and 16, of cost (3355 and
	 * 6837) 1342 and 2735: Hot.tripled stays by NEW's calls (30),
	 * Gone.removed by BASE's (12 with its callee's); Lexer.next under it
	 * (8 calls, 300) goes, so do Fresh.added (2, 700) and worker-* (4,
	 * 50 and 40 with its callee) */
	CHECK_EQ_I(html_diff_fold(ctx, &n, 40, &cut), 0);
	CHECK_EQ_U(cut.before, NSAMPLE);
	CHECK_EQ_U(cut.folded, 4);
	CHECK_EQ_U(n, cut.after);
	CHECK(cut.pct == 40);
	for (int r = 0; r < 2; r++) {
		uint64_t c0, s0, c1, s1;

		totals(sample, NSAMPLE, r, &c0, &s0);
		totals(ctx, n, r, &c1, &s1);
		CHECK_EQ_U(c1, c0);
		CHECK_EQ_U(s1, s0);
	}
	for (size_t i = 1; i < n; i++)
		CHECK(ctx[i].parent < i);
	/* kept: root, main, App.main, Hot.tripled, Gone.removed; folded
	 * frames: under Gone.removed (Lexer.next), App.main (Fresh.added),
	 * root (worker-* with its callee) */
	CHECK_EQ_U(n, 8);
	CHECK_STR(ctx[4].name, "p.Gone.removed");
	CHECK_STR(ctx[5].name, HTML_DIFF_FOLDED_NAME);
	CHECK_EQ_U(ctx[5].parent, 4);
	CHECK_EQ_U(ctx[5].calls[0], 8);
	CHECK_EQ_U(ctx[5].self[0], 300);
	CHECK_EQ_U(ctx[5].flags, HTML_DIFF_IN_BASE);
	CHECK_STR(ctx[6].name, HTML_DIFF_FOLDED_NAME);
	CHECK_EQ_U(ctx[6].parent, 2);
	CHECK_EQ_U(ctx[6].calls[1], 2);
	CHECK_EQ_U(ctx[6].self[1], 700);
	CHECK_EQ_U(ctx[7].parent, 0);
	CHECK_EQ_U(ctx[7].calls[0], 4);
	CHECK_EQ_U(ctx[7].self[1], 40);
	CHECK_EQ_U(ctx[7].flags, HTML_DIFF_IN_BASE | HTML_DIFF_IN_NEW);
	/* 0: nothing folded */
	n = NSAMPLE;
	memcpy(ctx, sample, sizeof(sample));
	CHECK_EQ_I(html_diff_fold(ctx, &n, 0, &cut), 0);
	CHECK_EQ_U(n, NSAMPLE);
	CHECK(cut.pct == 0);
	CHECK(!memcmp(ctx, sample, sizeof(sample)));
}

/* The default cut: none when the page fits; else the smallest step of the
 * ladder whose estimate does. */
static void test_default_pct(void)
{
	enum { N = 2001 };
	struct html_diff_ctx *ctx = calloc(N, sizeof(*ctx));

	CHECK(html_diff_default_pct(sample, NSAMPLE, 1u << 20) == 0);
	ctx[0].parent = HTML_DIFF_NONE;
	ctx[0].name = "all threads";
	/* 2000 leaves of 1 call and cost 1 .. 2000: each ~20 bytes */
	for (uint32_t i = 1; i < N; i++) {
		ctx[i].parent = 0;
		ctx[i].name = "p.C.m";
		ctx[i].calls[0] = ctx[i].calls[1] = 1;
		ctx[i].self[0] = ctx[i].self[1] = i;
		ctx[i].flags = HTML_DIFF_IN_BASE | HTML_DIFF_IN_NEW;
	}
	CHECK(html_diff_default_pct(ctx, N, 1u << 20) == 0);
	/* about 42 kB: a leaf's call is 0.05% of the calls, so up to 0.02
	 * every leaf is kept (and about half at 0.05, by cost); 0.1% of the
	 * calls is 2 and of the cost 2001: none is kept */
	CHECK(html_diff_default_pct(ctx, N, 20000) == 0.1);
	free(ctx);
}

/* The diff model of two runs, each of threads "pool-N-thread-1" and "main"
 * (the pool threads' names normalise alike). */
static int two_runs(struct diff_model *dm)
{
	static const char *const base[] = {
	    "0 E p.W.run\n1 E p.W.task\n5 X p.W.task\n9 X p.W.run\n",
	    "0 E p.M.main\n2 E p.M.a\n3 X p.M.a\n4 E p.M.gone\n7 X p.M.gone\n8 X p.M.main\n",
	};
	static const char *const new_[] = {
	    "0 E p.W.run\n1 E p.W.task\n4 X p.W.task\n9 X p.W.run\n",
	    "0 E p.M.main\n2 E p.M.a\n3 X p.M.a\n4 E p.M.a\n5 X p.M.a\n6 E p.M.a\n7 X p.M.a\n"
	    "8 E p.M.added\n9 X p.M.added\n10 X p.M.main\n",
	};
	static const char *const names[2][2] = {{"pool-1-thread-1", "main"},
						{"pool-7-thread-1", "main"}};
	struct diff_import im = {0};
	int err = diff_model_init(dm, 1, 1, 0);

	for (int r = 0; r < 2 && !err; r++) {
		struct diff_run desc = {.path = r ? "new.bin" : "base.bin"};
		struct model m;

		err = mg_model(&m, r ? new_ : base, names[r], 2, NULL, NULL) ||
		      diff_model_add(dm, &m, &im, &desc);
		model_free(&m);
	}
	return err || diff_model_finish(dm);
}

/* The page of a diff model: thread groups under the root (their calls 0,
 * their self the threads' time outside any frame), each context with
 * both runs' calls and self cost and the runs that have it. */
static void test_model_page(void)
{
	struct diff_model dm;
	struct diff_report_opts o = {.value = DIFF_VALUE_CALLS};
	char *s = NULL, *d;
	size_t len = 0;

	CHECK_EQ_I(two_runs(&dm), 0);
	o.out = open_memstream(&s, &len);
	CHECK_EQ_I(diff_export_html(&dm, &o), 0);
	fclose(o.out);
	d = data_of(s);
	CHECK(d != NULL);
	if (d)
		CHECK_STR(
		    d,
		    "{\"title\":\"jcal-post diff: differential flame graph  metric ticks "
		    "(ticks)\",\"metric\":\"ticks\",\"unit\":\"ticks\",\"value\":\"calls\","
		    "\"notes\":[\"base  base.bin: JVM unknown, mode events, 0 events, 2 threads, "
		    "calibration none (raw figures)\",\"new   new.bin: JVM unknown, mode "
		    "events, 0 events, 2 threads, calibration none (raw figures)\","
		    "\"normalised: 2 thread names (pool and thread numbers)\"],"
		    "\"names\":[\"all threads\",\"pool-*-thread-*\",\"p.W.run\",\"p.W.task\","
		    "\"main\",\"p.M.main\",\"p.M.a\",\"p.M.gone\",\"p.M.added\"],"
		    "\"tree\":[0,0,0,0,0,3,[1,0,0,0,0,3,[2,1,1,5,6,3,[3,1,1,4,3,3]]],"
		    "[4,0,0,0,0,3,[5,1,1,4,6,3,[6,1,3,1,3,3],[7,1,0,3,0,1],"
		    "[8,0,1,0,1,2]]]]}");
	free(d);
	free(s);
	diff_model_free(&dm);
}

/* --min-pct folds in both runs at once, and says so in a note. */
static void test_model_cut(void)
{
	struct diff_model dm;
	struct diff_report_opts o = {.min_pct = 30, .min_pct_set = 1};
	char *s = NULL, *d, note[REPORT_ERR_LEN] = "";
	size_t len = 0;

	o.note = note;
	CHECK_EQ_I(two_runs(&dm), 0);
	o.out = open_memstream(&s, &len);
	CHECK_EQ_I(diff_export_html(&dm, &o), 0);
	fclose(o.out);
	/* 30% of calls (BASE 5, NEW 7: 2 and 3) and cost (BASE 17, NEW 19:
	 * 6 and 6): p.M.a stays (3 calls in NEW), p.M.gone and p.M.added go
	 * (1 call, cost 3 and 1) into one frame, p.W.task (1 call, cost 4
	 * and 3) into another */
	CHECK_STR(note, ""); /* asked for: only the page says it */
	d = data_of(s);
	CHECK(d != NULL &&
	      strstr(d, "\"3 contexts under --min-pct 30 of both runs' calls and "
			"cost folded into one \\\"\\u003csmall contexts "
			"folded\\u003e\\\" frame per caller (9 -\\u003e 8 contexts)\"") != NULL);
	CHECK(d && strstr(d, "\"names\":[\"all threads\",\"pool-*-thread-*\",\"p.W.run\",\"main\","
			     "\"p.M.main\",\"p.M.a\",\"\\u003csmall contexts folded\\u003e\"],"
			     "\"tree\":[0,0,0,0,0,3,[1,0,0,0,0,3,[2,1,1,5,6,3,[6,1,1,4,3,3]]],"
			     "[3,0,0,0,0,3,[4,1,1,4,6,3,[5,1,3,1,3,3],[6,1,1,3,1,3]]]]}") != NULL);
	free(d);
	free(s);
	diff_model_free(&dm);
}

/* Two runs for javatests/html-diff-check.sh: main > App.main > App.run >
 * {Hot.tripled 10 -> 30 calls, Gone.removed only in BASE, Fresh.added only
 * in NEW, and a random tree the same in both}. */
static void write_sample_runs(const char *dir)
{
	static char bufs[2][1 << 16];
	const char *names[] = {"main"};

	for (int r = 0; r < 2; r++) {
		char *b = bufs[r], path[512];
		size_t p = 0, cap = sizeof(bufs[r]);
		unsigned long long t = 0, seed = 7;

		p += (size_t)snprintf(b + p, cap - p, "0 E p.App.main\n1 E p.App.run\n");
		t = 1;
		for (int i = 0; i < (r ? 30 : 10); i++)
			p += (size_t)snprintf(b + p, cap - p,
					      "%llu E p.Hot.tripled\n%llu X p.Hot.tripled\n", t + 1,
					      t + 201),
			    t += 201;
		if (!r)
			p += (size_t)snprintf(b + p, cap - p,
					      "%llu E p.Gone.removed\n%llu X p.Gone.removed\n",
					      t + 1, t + 900),
			    t += 900;
		else
			p += (size_t)snprintf(b + p, cap - p,
					      "%llu E p.Fresh.added\n%llu X p.Fresh.added\n", t + 1,
					      t + 700),
			    t += 700;
		for (int i = 0; i < 300; i++) {
			static const char *const m[] = {"p.Parser.parse", "p.Lexer.next",
							"java.util.HashMap.get", "p.Eval.apply"};

			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			p += (size_t)snprintf(b + p, cap - p, "%llu E %s\n%llu X %s\n", t + 1,
					      m[(seed >> 33) % 4], t + 2 + (seed >> 58),
					      m[(seed >> 33) % 4]);
			t += 2 + (seed >> 58);
		}
		p += (size_t)snprintf(b + p, cap - p, "%llu X p.App.run\n%llu X p.App.main\n",
				      t + 1, t + 2);
		snprintf(path, sizeof(path), "%s/%s.bin", dir, r ? "new" : "base");
		CHECK_EQ_I(mg_trace_file(path, (const char *const[]){b}, names, 1, "cputime", "ns"),
			   0);
	}
}

/* Runs "build/jcal-post diff BASE NEW ARGS" (the sample runs in dir),
 * stdout to dir/out, stderr to dir/err; returns its exit status. */
static int post(const char *dir, const char *args)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof(cmd),
		 "build/jcal-post diff %s/base.bin %s/new.bin %s >%s/out 2>%s/err </dev/null", dir,
		 dir, args, dir, dir);
	fflush(NULL);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *dir, const char *name)
{
	char path[512], *s = NULL;
	size_t len = 0;
	FILE *f, *m = open_memstream(&s, &len);
	int c;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	while (f && (c = fgetc(f)) != EOF)
		fputc(c, m);
	if (f)
		fclose(f);
	fclose(m);
	return s;
}

/* The command: the page of two runs (exit 0, nothing on stderr, the value
 * asked for); --min-pct and --all only with html (exit 2, one line). */
static void test_cli(void)
{
	char dir[] = "/tmp/jcal-html-diff-XXXXXX", *s;

	if (!mkdtemp(dir)) {
		CHECK(0);
		return;
	}
	write_sample_runs(dir);
	CHECK_EQ_I(post(dir, "--report html --raw --value calls"), 0);
	s = slurp(dir, "out");
	CHECK(!strncmp(s, "<!DOCTYPE html>", 15));
	CHECK(strstr(s, "\"value\":\"calls\"") != NULL);
	CHECK(strstr(s, "[4,10,30,2000,6000,3]") != NULL); /* p.Hot.tripled */
	free(s);
	s = slurp(dir, "err");
	CHECK_STR(s, "");
	free(s);
	CHECK_EQ_I(post(dir, "--report flat --all"), 2);
	s = slurp(dir, "err");
	CHECK_STR(s, "jcal-post: error: --all applies to --report html only\n");
	free(s);
	CHECK_EQ_I(post(dir, "--report html --min-pct 101"), 2);
	s = slurp(dir, "err");
	CHECK_STR(s, "jcal-post: error: --min-pct '101': expected a percentage, 0 to 100\n");
	free(s);
	CHECK_EQ_I(post(dir, "--report html --raw --all -o /dev/null"), 0);
	for (size_t i = 0; i < 4; i++) {
		static const char *const files[] = {"base.bin", "new.bin", "out", "err"};
		char path[512];

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		CHECK_EQ_I(unlink(path), 0);
	}
	CHECK_EQ_I(rmdir(dir), 0);
}

int main(void)
{
	const char *dir = getenv("JCAL_HTML_DIFF_DIR");

	RUN(test_golden_data);
	RUN(test_parsed);
	RUN(test_page);
	RUN(test_fold);
	RUN(test_default_pct);
	RUN(test_model_page);
	RUN(test_model_cut);
	RUN(test_cli);
	if (dir)
		write_sample_runs(dir);
	return test_summary("export-html-diff");
}
