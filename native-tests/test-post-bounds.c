/*
 * test-post-bounds.c - jcal-post's memory is bounded by the calling
 * contexts, not by the threads nor by the inputs, where the report shows
 * no thread apart (docs/performance.md, 4b and 4e; model_fold in
 * postproc/model.h, postproc/merge.c): end to end, build/jcal-post under
 * an address-space limit of LIMIT, with exact output, on
 *
 *  - a trace of 300 000 short threads (native-tests/threadgen.h): flat,
 *    callers, and --merge-threads tree and pprof, with tree workers and
 *    without (the same trace's per-thread tree report needs 320 MB);
 *  - 1 000 tree snapshots of one program merged (native-tests/snapgen.h):
 *    flat, --merge-threads tree, and the summary listing every input;
 *  - the summary of 100 inputs of 20 200 contexts each (each thread kept
 *    as its counts, merge.c's shells).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "native-tests/postrun.h"
#include "native-tests/snapgen.h"
#include "native-tests/test.h"
#include "native-tests/threadgen.h"

static char dir[64], err_path[128];

#define THREADS 300000u
#define SNAPSHOTS 1000u
/* jcal-post's code, stacks and heap for any number of the threads or
 * snapshots above; 330 MB held the threads before they were folded */
#define LIMIT (48ul << 20)

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* out holds exactly want. */
static void check_file(const char *path, const char *want)
{
	size_t len;
	char *got = postrun_slurp(path, &len);

	CHECK(got != NULL);
	if (got)
		CHECK_STR(got, want);
	free(got);
}

static int have_post(void)
{
	if (!access("build/jcal-post", X_OK))
		return 1;
	fprintf(stderr,
		"  build/jcal-post is missing (run from the repository root, after make)\n");
	CHECK(0);
	return 0;
}

static void test_threads(void)
{
	char trace[128], out[128], flat[512], tree[512], callers[512];
	static const char *const jobs[] = {"0", "2"};

	if (!have_post())
		return;
	path_of(trace, sizeof(trace), "threads.bin");
	path_of(out, sizeof(out), "out.txt");
	CHECK_EQ_I(threadgen_write(trace, THREADS, 1), 0);
	/* each thread: Task.run 3 ticks of its own, Work.step twice, 1 tick each */
	snprintf(flat, sizeof(flat),
		 "method,calls,base,cum,raw_base,raw_cum\n"
		 "gen.Task.run,%u,%u,%u,%u,%u\ngen.Work.step,%u,%u,%u,%u,%u\n",
		 THREADS, 3 * THREADS, 5 * THREADS, 3 * THREADS, 5 * THREADS, 2 * THREADS,
		 2 * THREADS, 2 * THREADS, 2 * THREADS, 2 * THREADS);
	snprintf(callers, sizeof(callers),
		 "method,path,calls,base,raw_base,share_pct\n"
		 "gen.Task.run,gen.Task.run,%u,%u,%u,100.00\n"
		 "gen.Work.step,gen.Task.run;gen.Work.step,%u,%u,%u,100.00\n",
		 THREADS, 3 * THREADS, 3 * THREADS, 2 * THREADS, 2 * THREADS, 2 * THREADS);
	/* the threads and main, which has no event */
	snprintf(tree, sizeof(tree),
		 "thread,level,rl,calls,base,cum,raw_base,raw_cum,path\n"
		 "%u threads merged#0,0,1,1,0,%u,0,%u,\n"
		 "%u threads merged#0,1,1,%u,%u,%u,%u,%u,gen.Task.run\n"
		 "%u threads merged#0,2,1,%u,%u,%u,%u,%u,gen.Task.run;gen.Work.step\n",
		 THREADS + 1, 5 * THREADS, 5 * THREADS, THREADS + 1, THREADS, 3 * THREADS,
		 5 * THREADS, 3 * THREADS, 5 * THREADS, THREADS + 1, 2 * THREADS, 2 * THREADS,
		 2 * THREADS, 2 * THREADS, 2 * THREADS);
	for (size_t j = 0; j < 2; j++) {
		const char *a_flat[] = {trace,	"--raw",    "-j",  jobs[j], "--report",
					"flat", "--format", "csv", NULL};
		const char *a_call[] = {trace,	   "--raw",    "-j",  jobs[j], "--report",
					"callers", "--format", "csv", NULL};
		const char *a_tree[] = {trace,	"--raw",    "-j",  jobs[j],	      "--report",
					"tree", "--format", "csv", "--merge-threads", NULL};
		const char *a_pprof[] = {trace,	  "--raw",	     "-j", jobs[j], "--report",
					 "pprof", "--merge-threads", NULL};

		CHECK_EQ_I(postrun(a_flat, out, err_path, LIMIT), 0);
		check_file(out, flat);
		CHECK_EQ_I(postrun(a_call, out, err_path, LIMIT), 0);
		check_file(out, callers);
		CHECK_EQ_I(postrun(a_tree, out, err_path, LIMIT), 0);
		check_file(out, tree);
		CHECK_EQ_I(postrun(a_pprof, out, err_path, LIMIT), 0);
	}
}

/* The arguments of the snapshots and then more, NULL-terminated (free
 * it; the paths are the test's own). */
static const char **snapshot_args(char (*paths)[128], const char *const *more)
{
	size_t nm = 0, k = 0;
	const char **a;

	while (more[nm])
		nm++;
	a = calloc(SNAPSHOTS + nm + 1, sizeof(*a));
	if (!a)
		return NULL;
	for (unsigned i = 0; i < SNAPSHOTS; i++)
		a[k++] = paths[i];
	for (size_t i = 0; i < nm; i++)
		a[k++] = more[i];
	return a;
}

static void test_snapshots(void)
{
	static char paths[SNAPSHOTS][128];
	static const char *const a_flat[] = {"--report", "flat", "--format", "csv", NULL};
	static const char *const a_tree[] = {"--report",	"tree", "--format", "csv",
					     "--merge-threads", NULL};
	static const char *const a_sum[] = {"--report", "summary", "--format", "csv", NULL};
	char out[128], flat[512], tree[1024], want[256];
	unsigned r = 0;
	const char **a;

	if (!have_post())
		return;
	for (unsigned i = 0; i < SNAPSHOTS; i++) {
		char name[32];

		snprintf(name, sizeof(name), "snap-%u.bin", i);
		path_of(paths[i], sizeof(paths[i]), name);
		CHECK_EQ_I(snapgen_write(paths[i], i), 0);
		r += snapgen_r(i);
	}
	path_of(out, sizeof(out), "out.txt");
	snprintf(flat, sizeof(flat),
		 "method,calls,base,cum,raw_base,raw_cum\n"
		 "app.Main.main,%u,%u,%u,%u,%u\napp.App.work,%u,%u,%u,%u,%u\n"
		 "app.Worker.run,%u,%u,%u,%u,%u\napp.Worker.step,%u,%u,%u,%u,%u\n",
		 SNAPSHOTS, r + SNAPSHOTS, 2 * r + SNAPSHOTS, r + SNAPSHOTS, 2 * r + SNAPSHOTS, r,
		 r, r, r, r, SNAPSHOTS, 2 * SNAPSHOTS, 3 * SNAPSHOTS, 2 * SNAPSHOTS, 3 * SNAPSHOTS,
		 SNAPSHOTS, SNAPSHOTS, SNAPSHOTS, SNAPSHOTS, SNAPSHOTS);
	a = snapshot_args(paths, a_flat);
	CHECK(a != NULL);
	if (a)
		CHECK_EQ_I(postrun(a, out, err_path, LIMIT), 0);
	free(a);
	check_file(out, flat);
	snprintf(tree, sizeof(tree),
		 "thread,level,rl,calls,base,cum,raw_base,raw_cum,path\n"
		 "%u threads merged#0,0,1,1,0,%u,0,%u,\n"
		 "%u threads merged#0,1,1,%u,%u,%u,%u,%u,app.Main.main\n"
		 "%u threads merged#0,2,1,%u,%u,%u,%u,%u,app.Main.main;app.App.work\n"
		 "%u threads merged#0,1,1,%u,%u,%u,%u,%u,app.Worker.run\n"
		 "%u threads merged#0,2,1,%u,%u,%u,%u,%u,app.Worker.run;app.Worker.step\n",
		 2 * SNAPSHOTS, 2 * r + 4 * SNAPSHOTS, 2 * r + 4 * SNAPSHOTS, 2 * SNAPSHOTS,
		 SNAPSHOTS, r + SNAPSHOTS, 2 * r + SNAPSHOTS, r + SNAPSHOTS, 2 * r + SNAPSHOTS,
		 2 * SNAPSHOTS, r, r, r, r, r, 2 * SNAPSHOTS, SNAPSHOTS, 2 * SNAPSHOTS,
		 3 * SNAPSHOTS, 2 * SNAPSHOTS, 3 * SNAPSHOTS, 2 * SNAPSHOTS, SNAPSHOTS, SNAPSHOTS,
		 SNAPSHOTS, SNAPSHOTS, SNAPSHOTS);
	a = snapshot_args(paths, a_tree);
	if (a)
		CHECK_EQ_I(postrun(a, out, err_path, LIMIT), 0);
	free(a);
	check_file(out, tree);
	/* the summary keeps the threads apart, and lists every input */
	a = snapshot_args(paths, a_sum);
	if (a)
		CHECK_EQ_I(postrun(a, out, err_path, LIMIT), 0);
	free(a);
	size_t len;
	char *s = postrun_slurp(out, &len);

	CHECK(s && strstr(s, "\ninputs,1000\n") && strstr(s, "\nthreads,2000\n"));
	snprintf(want, sizeof(want), "\ninput.1000.path,%s\n", paths[999]);
	CHECK(s && strstr(s, want));
	CHECK(s && strstr(s, "\ninput.1000.host,host-9\ninput.1000.pid,1999\n"));
	CHECK(s && strstr(s, "\ninput.1000.label.run,999\n"));
	free(s);
}

/* A trace of one thread of many contexts: main calls each of WIDE_A
 * methods once, each of them each of WIDE_B methods once: WIDE_A * (1 +
 * WIDE_B) contexts, one tick a call. Returns 0 or -1. */
#define WIDE_A 200u
#define WIDE_B 100u
#define WIDE_INPUTS 100u
static int wide_write(const char *path)
{
	static struct tracegen tg;
	uint64_t v[JCAL_MAX_METRICS] = {0}, t = 1000, events = 0;
	char name[16];

	if (tg_open(&tg, path))
		return -1;
	trace_rec_meta(&tg.rb, "mode", "events");
	trace_rec_meta(&tg.rb, "metrics", "ticks");
	for (uint32_t a = 0; a < WIDE_A; a++) {
		snprintf(name, sizeof(name), "a%u", a);
		trace_rec_method(&tg.rb, 1 + a, JCAL_ACC_STATIC, "Lgen/A;", name, "()V");
	}
	for (uint32_t b = 0; b < WIDE_B; b++) {
		snprintf(name, sizeof(name), "b%u", b);
		trace_rec_method(&tg.rb, 1 + WIDE_A + b, JCAL_ACC_STATIC, "Lgen/B;", name, "()V");
	}
	v[0] = t;
	trace_rec_thread_start(&tg.rb, 1, 1, 100, 0, 1, "main", 1, v);
	tg_flush(&tg);
	for (uint32_t a = 0; a < WIDE_A; a++) {
		tg_events_begin(&tg, 1, 1);
		v[0] = ++t;
		tg_event(&tg, JCAL_TR_ENTRY, JCAL_MT_INTERP_STATIC, 1 + a, v);
		for (uint32_t b = 0; b < WIDE_B; b++) {
			v[0] = ++t;
			tg_event(&tg, JCAL_TR_ENTRY, JCAL_MT_INTERP_STATIC, 1 + WIDE_A + b, v);
			v[0] = ++t;
			tg_event(&tg, JCAL_TR_EXIT, JCAL_MT_INTERP_STATIC, 1 + WIDE_A + b, v);
		}
		v[0] = ++t;
		tg_event(&tg, JCAL_TR_EXIT, JCAL_MT_INTERP_STATIC, 1 + a, v);
		tg_events_end(&tg);
		events += 2 + 2 * WIDE_B;
	}
	v[0] = ++t;
	trace_rec_thread_end(&tg.rb, 1, 2, events, 1, v);
	trace_rec_end(&tg.rb, events, 1, 0);
	return tg_close(&tg);
}

/* The summary of many inputs shows each thread's counts, not its contexts:
 * 100 inputs of 20 200 contexts each (links to one trace), summed exactly
 * under the limit that a copy of every input's tree (about 180 MB) passed. */
static void test_summary_wide(void)
{
	static char links[WIDE_INPUTS][128];
	static const char *args[WIDE_INPUTS + 8];
	char trace[128], out[128], want[128];
	size_t n = 0, len;
	char *s;

	if (!have_post())
		return;
	path_of(trace, sizeof(trace), "wide.bin");
	path_of(out, sizeof(out), "wide.txt");
	CHECK_EQ_I(wide_write(trace), 0);
	for (unsigned i = 0; i < WIDE_INPUTS; i++) {
		char name[32];

		snprintf(name, sizeof(name), "wide-%u.bin", i);
		path_of(links[i], sizeof(links[i]), name);
		CHECK(symlink(trace, links[i]) == 0);
		args[n++] = links[i];
	}
	args[n++] = "--raw";
	args[n++] = "--report";
	args[n++] = "summary";
	args[n++] = "--format";
	args[n++] = "csv";
	args[n] = NULL;
	CHECK_EQ_I(postrun(args, out, err_path, LIMIT), 0);
	s = postrun_slurp(out, &len);
	snprintf(want, sizeof(want), "\ncontexts,%u\n", WIDE_INPUTS * WIDE_A * (1 + WIDE_B));
	CHECK(s && strstr(s, want));
	snprintf(want, sizeof(want), "\nthreads,%u\n", WIDE_INPUTS);
	CHECK(s && strstr(s, want));
	snprintf(want, sizeof(want), "\nevents,%u\n", WIDE_INPUTS * WIDE_A * (2 + 2 * WIDE_B));
	CHECK(s && strstr(s, want));
	if (s && !strstr(s, want))
		fprintf(stderr, "  got:\n%.2000s\n", s);
	free(s);
}

int main(void)
{
	char cmd[128];

	snprintf(dir, sizeof(dir), "/tmp/jcal-post-bounds.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(err_path, sizeof(err_path), "%s/err.txt", dir);
	RUN(test_threads);
	RUN(test_snapshots);
	RUN(test_summary_wide);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "  cannot remove %s\n", dir);
	return test_summary("post-bounds");
}
