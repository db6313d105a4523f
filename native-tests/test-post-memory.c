/*
 * test-post-memory.c - what a thread costs jcal-post (docs/performance.md,
 * "jcal-post memory vs threads"): a tree keeps its contexts, not the buffers it
 * needed while it took events, so that a trace of many short threads (a
 * program that starts a thread per task) needs memory in proportion to
 * what the threads hold. In process: the heap a loaded model holds per
 * thread, with a calibration table and tree workers as jcal-post runs
 * them. End to end: build/jcal-post on 100 000 short threads under an
 * address-space limit gives the exact reports.
 */
#include <malloc.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
/* ASan's own count (libasan; GCC has no header for it) */
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

#include "postproc/calib_apply.h"
#include "postproc/model.h"
#include "native-tests/postrun.h"
#include "native-tests/test.h"
#include "native-tests/threadgen.h"

static char dir[64], err_path[128];

/* The table the tests apply: the keys of the generated threads' steps. */
static const char table_text[] =
    "jcal-calibration 2\n"
    "cpu.vendor x\ncpu.family 0\ncpu.model 0\ncpu.stepping 0\ncpu.model_name x\n"
    "kernel x\njvm.vendor x\njvm.version x\njvm.exec interpreted mode\nmode events\n"
    "metrics ticks\nagent.version threadgen\ncreated 2024-05-01T12:00:00Z\nunit ticks\n"
    "env.method none\nenv.missing 1\nkeys 2\n"
    "O:E:i:E:I 1 samples=10 env=0 comp=1 mean=1.0 median=1 p10=1\n"
    "i:E:I:X:i 1 samples=10 env=1 comp=0 mean=1.0 median=1 p10=1\n";

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* Bytes of heap in use (malloc's own count; ASan's under ASan). */
static size_t heap_in_use(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return __sanitizer_get_current_allocated_bytes();
#else
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
#endif
}

/* ---- in process ---- */

#define HEAP_THREADS 20000u
/* A thread of the generator holds 3 contexts: its record (with its tree's
 * fixed part, about 700 bytes), its name and a few nodes. */
#define HEAP_PER_THREAD 1536u

static void test_heap_per_thread(void)
{
	char trace[128], table[128], msg[512];
	struct calib_apply a;
	struct calltree_comp comp;
	struct trace_result res;
	struct model m;
	FILE *f;
	size_t before, after;

	path_of(trace, sizeof(trace), "heap.bin");
	path_of(table, sizeof(table), "table.txt");
	CHECK_EQ_I(threadgen_write(trace, HEAP_THREADS, 1), 0);
	f = fopen(table, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(table_text, f);
	fclose(f);
	CHECK_EQ_I(calib_apply_init(&a), 0);
	CHECK_EQ_I(calib_apply_select(&a, table, NULL, msg, sizeof(msg)), CALIB_SEL_APPLIED);
	CHECK_EQ_I(calib_table_prepare(&a.table), 0);
	comp = (struct calltree_comp){.fn = calib_apply_comp,
				      .ctx = &a,
				      .batch = calib_apply_comp_batch,
				      .table = &a.table,
				      .counted = calib_apply_counted};
	before = heap_in_use();
	model_init(&m, &comp);
	/* as jcal-post reads a file: workers that decode the chunks */
	CHECK_EQ_I(model_jobs(&m, 2, 1), 0);
	CHECK_EQ_I(model_load(&m, trace, &res), TRACE_OK);
	CHECK_EQ_I(model_redo(&m), 0);
	CHECK_EQ_I(model_finish(&m), 0);
	after = heap_in_use();
	printf("  %u threads: %zu bytes of heap each\n", HEAP_THREADS,
	       (after - before) / HEAP_THREADS);
	CHECK(after - before <= (size_t)HEAP_THREADS * HEAP_PER_THREAD);
	/* every thread and step is there, each delta compensated */
	CHECK_EQ_U(m.nthreads, HEAP_THREADS + 1);
	CHECK_EQ_U(a.deltas, (uint64_t)HEAP_THREADS * (THREADGEN_EVENTS - 1));
	CHECK_EQ_U(a.keys_seen, 4);
	CHECK_EQ_U(a.keys_found, 2);
	uint64_t base = 0, raw = 0;
	for (size_t i = 0; i < m.nthreads; i++) {
		base += calltree_fig(&m.thread_list[i]->tree, CALLTREE_ROOT, 0)->cum;
		raw += calltree_fig(&m.thread_list[i]->tree, CALLTREE_ROOT, 0)->raw_cum;
	}
	CHECK_EQ_U(raw, (uint64_t)HEAP_THREADS * (THREADGEN_EVENTS - 1));
	/* the first step of each thread (O:E:i:E:I) loses its tick; the
	 * other keys' comp is 0 */
	CHECK_EQ_U(base, (uint64_t)HEAP_THREADS * (THREADGEN_EVENTS - 2));
	model_free(&m);
	calib_apply_free(&a);
}

/* ---- end to end ---- */

#define E2E_THREADS 100000u
/* jcal-post needed 1.8 GB for these (4.2 GB with a table) when each
 * thread's tree kept its batch buffers; it now needs about 110 MB. One
 * malloc arena, so that the limit counts what is used rather than the
 * address space each worker's arena reserves. */
#define E2E_LIMIT (256ul << 20)

/* Runs build/jcal-post with args under the limit (postrun.h). */
static int run_post(const char *const *args, const char *out, unsigned long limit)
{
	return postrun(args, out, err_path, limit);
}

static char *slurp(const char *path, size_t *len)
{
	return postrun_slurp(path, len);
}

/* The folded stacks of the generated threads: per thread its run's own
 * ticks and its steps'. */
static char *expected_collapsed(size_t *len)
{
	char *s = NULL;
	FILE *f = open_memstream(&s, len);

	if (!f)
		return NULL;
	for (uint32_t k = 0; k < E2E_THREADS; k++) {
		fprintf(f, "task-%u;gen.Task.run 3\n", k);
		fprintf(f, "task-%u;gen.Task.run;gen.Work.step 2\n", k);
	}
	fclose(f);
	return s;
}

static void check_file(const char *path, const char *want, size_t want_len)
{
	size_t len = 0;
	char *got = slurp(path, &len);

	CHECK(got != NULL);
	CHECK_EQ_U(len, want_len);
	CHECK(got && len == want_len && !memcmp(got, want, len));
	free(got);
}

static void test_many_threads_limited(void)
{
	char trace[128], table[128], out[128], ref[128], *want;
	size_t want_len = 0, ref_len = 0;
	const char flat[] = "Flat profile  metric ticks  100001 threads  total 500000\n"
			    " Calls   Base   Base%    Cum    Cum%  Name\n"
			    "100000 300000   60.00 500000  100.00  gen.Task.run\n"
			    "200000 200000   40.00 200000   40.00  gen.Work.step\n";

	if (access("build/jcal-post", X_OK)) {
		fprintf(stderr, "  build/jcal-post is missing (run from the repository root, "
				"after make)\n");
		CHECK(0);
		return;
	}
	path_of(trace, sizeof(trace), "e2e.bin");
	path_of(table, sizeof(table), "table.txt");
	path_of(out, sizeof(out), "out.txt");
	path_of(ref, sizeof(ref), "ref.txt");
	CHECK_EQ_I(threadgen_write(trace, E2E_THREADS, 1), 0);

	const char *a_flat[] = {trace, "--raw", "--report", "flat", NULL};
	CHECK_EQ_I(run_post(a_flat, out, E2E_LIMIT), 0);
	check_file(out, flat, sizeof(flat) - 1);

	/* every thread apart (--split-pools: task-0 .. task-99999 are one
	 * pool) */
	want = expected_collapsed(&want_len);
	CHECK(want != NULL);
	const char *a_coll[] = {trace,	 "--raw",	  "--report", "collapsed",
				"--all", "--split-pools", NULL};
	CHECK_EQ_I(run_post(a_coll, out, E2E_LIMIT), 0);
	if (want)
		check_file(out, want, want_len);
	free(want);

	/* by default one pool's tree, its figures the threads' added up */
	const char pool[] = "task-* (100000 threads);gen.Task.run 300000\n"
			    "task-* (100000 threads);gen.Task.run;gen.Work.step 200000\n";
	const char *a_pool[] = {trace, "--raw", "--report", "collapsed", "--all", NULL};
	CHECK_EQ_I(run_post(a_pool, out, E2E_LIMIT), 0);
	check_file(out, pool, sizeof(pool) - 1);

	/* with the table: the same under the limit as without it */
	const char *a_cal[] = {trace, "--calib", table, "--report", "flat", NULL};
	CHECK_EQ_I(run_post(a_cal, ref, 0), 0);
	CHECK_EQ_I(run_post(a_cal, out, E2E_LIMIT), 0);
	want = slurp(ref, &ref_len);
	CHECK(want && strstr(want, "400000") != NULL); /* the base of both */
	if (want)
		check_file(out, want, ref_len);
	free(want);
}

int main(void)
{
	char cmd[128];

	snprintf(dir, sizeof(dir), "/tmp/jcal-post-memory.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(err_path, sizeof(err_path), "%s/err.txt", dir);
	RUN(test_heap_per_thread);
	RUN(test_many_threads_limited);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "  cannot remove %s\n", dir);
	return test_summary("post-memory");
}
