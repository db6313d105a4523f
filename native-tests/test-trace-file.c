/*
 * test-trace-file.c - unit tests of the agent's trace file
 * (agent/core/trace_file.h) without a JVM: the END record of a trace, and of a
 * dump's copy, counts exactly the THREAD_START records its file holds,
 * whichever recording a thread's start raced with.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "native-tests/test.h"
#include "common/trace_encoder.h"
#include "agent/core/trace_file.h"
#include "common/trace_reader.h"

struct seen {
	uint64_t starts, end_threads;
	int ends;
};

static int on_start(void *ctx, const struct trace_thread *t)
{
	(void)t;
	((struct seen *)ctx)->starts++;
	return 0;
}

static int on_end(void *ctx, const struct trace_end *e)
{
	struct seen *s = ctx;
	s->end_threads = e->threads;
	s->ends++;
	return 0;
}

/* Reads path; its status, what it holds and what its END says. */
static enum trace_status read_back(const char *path, struct seen *s, struct trace_result *res)
{
	struct trace_visitor v = {.ctx = s, .thread_start = on_start, .end = on_end};

	memset(s, 0, sizeof(*s));
	return trace_read_file(path, &v, res);
}

/* One thread's start, as thread_state.c writes it: into the definitions
 * under the file mutex, flushed with them later. */
static void thread_started(uint32_t serial)
{
	uint64_t m = 1;
	struct trace_recbuf *rb = trace_file_lock();
	trace_rec_thread_start(rb, serial, serial, 100 + serial, 0, 5, "t", 1, &m);
	trace_file_unlock();
}

static char dir[64];

static void path_in(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", dir, name);
}

/* Two recordings one after the other; a thread starts while the first
 * is being closed: its THREAD_START went into the first file, so the
 * first END counts it and the second does not (the agent of 0.2.0 counted
 * it in the second). */
static void test_start_raced_with_a_new_recording(void)
{
	char a[128], b[128], err[256];
	struct seen s;
	struct trace_result res;

	path_in(a, sizeof(a), "a.bin");
	path_in(b, sizeof(b), "b.bin");
	CHECK(trace_file_open(a, 0, err, sizeof(err)) == 0);
	CHECK(trace_file_begin() == 0);
	thread_started(1);
	thread_started(2);
	trace_file_flush();
	thread_started(3); /* pending in the definitions when the file closes */
	CHECK(trace_file_write_end(0) == 0);
	CHECK_EQ_U(trace_file_threads(), 3);
	trace_file_close();

	CHECK(trace_file_open(b, 0, err, sizeof(err)) == 0);
	CHECK_EQ_U(trace_file_threads(), 0);
	CHECK(trace_file_begin() == 0);
	thread_started(4);
	CHECK(trace_file_write_end(0) == 0);
	trace_file_close();

	CHECK(read_back(a, &s, &res) == TRACE_OK);
	CHECK_EQ_U(s.starts, 3);
	CHECK_EQ_U(s.end_threads, 3);
	CHECK_EQ_U(res.end_threads_missing, 0);
	CHECK(read_back(b, &s, &res) == TRACE_OK);
	CHECK_EQ_U(s.starts, 1);
	CHECK_EQ_U(s.end_threads, 1);
	CHECK_EQ_U(res.end_threads_missing, 0);
	unlink(a);
	unlink(b);
}

/* A dump's copy: a thread start still pending in the definitions goes
 * into the copy, and the copy's END counts it; the trace goes on and
 * counts its own. */
static void test_dump_counts_what_it_holds(void)
{
	char a[128], d[128], err[256];
	struct seen s;
	struct trace_result res;

	path_in(a, sizeof(a), "c.bin");
	path_in(d, sizeof(d), "c.dump.bin");
	CHECK(trace_file_open(a, 0, err, sizeof(err)) == 0);
	CHECK(trace_file_begin() == 0);
	thread_started(1);
	thread_started(2);
	CHECK(trace_file_copy(d, err, sizeof(err)) == 0);
	thread_started(3);
	CHECK(trace_file_write_end(0) == 0);
	trace_file_close();

	CHECK(read_back(d, &s, &res) == TRACE_OK);
	CHECK_EQ_U(s.ends, 1);
	CHECK_EQ_U(s.starts, 2);
	CHECK_EQ_U(s.end_threads, 2);
	CHECK(read_back(a, &s, &res) == TRACE_OK);
	CHECK_EQ_U(s.starts, 3);
	CHECK_EQ_U(s.end_threads, 3);
	unlink(a);
	unlink(d);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/jcal-trace-file-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_start_raced_with_a_new_recording);
	RUN(test_dump_counts_what_it_holds);
	rmdir(dir);
	return test_summary("trace-file");
}
