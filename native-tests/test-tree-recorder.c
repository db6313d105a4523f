/*
 * test-tree-recorder.c - the agent's trees without a JVM
 * (agent/core/tree_recorder.h, the front of tree_recorder.c and the files
 * it hands the work to: tree_comp.c, tree_handshake.c, tree_registry.c,
 * tree_fold.c, tree_dump.c):
 * four threads send events while the main thread dumps snapshots again and
 * again (each must read back complete: the per-tree locks, or the events'
 * lock-free way with membarrier(2), and the temp-and-rename write), with
 * maxcontexts= small enough to fold all the time; at the end every
 * thread's calls and metric are all there, in the tree or counted as
 * folded; slow= keeps the longest calls of all threads as they end (each
 * snapshot holds at most its bound, every one at least its threshold, and
 * a reset empties it). Which events say they did rare work.
 *
 * Runs threads: also run under ThreadSanitizer (make tsan).
 */
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent/core/agent_state.h"
#include "native-tests/test.h"
#include "agent/core/trace_file.h"
#include "common/trace_reader.h"
#include "agent/core/tree_recorder.h"

struct jcal_agent jcal; /* what agent_state.c owns in the agent */

#define THREADS 4
#define EVENTS 200000

/* workers past their first event: a tree is in the snapshots from then on
 * (after a reset, until then it is idle) */
static atomic_int started;

struct worker {
	pthread_t th;
	uint32_t serial;
	struct tree_thread *tt;
	uint64_t entries, first, last;
};

/* A walk over many contexts: depth 1..6, methods 1..12 chosen by a PRNG. */
static void *work(void *arg)
{
	struct worker *w = arg;
	uint32_t stack[8], depth = 0, x = w->serial * 2654435761u;
	uint64_t metric = 1000;

	for (int i = 0; i < EVENTS; i++) {
		x = x * 1103515245u + 12345u;
		metric += 1 + (x >> 24) % 50;
		if (i == 0)
			w->first = metric; /* nothing is charged before the first event */
		if (depth < 6 && (depth == 0 || (x >> 16) % 3)) {
			stack[depth] = 1 + (x >> 8) % 12;
			tree_recorder_event(w->tt, stack[depth++], JCAL_TR_ENTRY, JCAL_MT_INTERP,
					    &metric);
			if (!w->entries++)
				atomic_fetch_add(&started, 1);
		} else {
			--depth;
			tree_recorder_event(w->tt, stack[depth], JCAL_TR_EXIT, JCAL_MT_INTERP,
					    &metric);
		}
	}
	w->last = metric;
	return NULL;
}

/* slow= of the test: calls of at least SLOW_NS metric units, SLOW_MAX kept */
#define SLOW_NS 400
#define SLOW_MAX 50

struct check {
	uint64_t threads, nodes, announced, calls[THREADS + 1], folded_calls[THREADS + 1],
	    raw[THREADS + 1];
	uint64_t slow, slow_bad, slow_last, slow_over;
};

/* A call kept by slow=: of a worker, long enough, no longer than the one
 * before it, its callees within it. */
static int on_tree_slow(void *ctx, const struct trace_slow *t)
{
	struct check *c = ctx;

	if (t->thread < 1 || t->thread > THREADS || t->value < SLOW_NS || t->depth < 1 ||
	    t->depth > 6 || (c->slow && t->value > c->slow_last))
		c->slow_bad++;
	c->slow_last = t->value;
	c->slow++;
	return 0;
}

static int on_meta(void *ctx, const char *key, const char *value)
{
	struct check *c = ctx;

	if (!strcmp(key, "snapshot.slow.over"))
		c->slow_over = strtoull(value, NULL, 10);
	return 0;
}

static int on_tree_thread(void *ctx, const struct trace_tree_thread *t)
{
	struct check *c = ctx;

	c->threads++;
	c->announced += t->nodes;
	if (t->serial <= THREADS)
		c->folded_calls[t->serial] = t->stat[TRACE_TS_FOLDED_CALLS];
	return 0;
}

static int on_tree_node(void *ctx, const struct trace_tree_node *n)
{
	struct check *c = ctx;

	c->nodes++;
	if (n->serial <= THREADS) {
		c->raw[n->serial] += n->raw[0];
		if (n->index && n->method != UINT32_MAX - 2) /* not <cold contexts> */
			c->calls[n->serial] += n->calls;
	}
	return 0;
}

static enum trace_status read_back(const char *path, struct check *c)
{
	struct trace_visitor v;
	struct trace_result res;

	memset(c, 0, sizeof(*c));
	memset(&v, 0, sizeof(v));
	v.ctx = c;
	v.tree_thread = on_tree_thread;
	v.tree_node = on_tree_node;
	v.tree_slow = on_tree_slow;
	v.meta = on_meta;
	return trace_read_file(path, &v, &res);
}

/* One round: the workers' events against 20 dumps (and the folds of
 * maxcontexts=1000), then every call and every unit of metric checked;
 * ends with the trees reset. w[].tt are the threads' trees. */
static void dumps_while_events_run(struct worker *w, const char *path)
{
	char err[512];
	struct check c;
	uint64_t contexts = 0, fc = 0, fk = 0, ev = 0;

	atomic_store(&started, 0);
	for (int i = 0; i < THREADS; i++) {
		w[i].entries = w[i].first = w[i].last = 0;
		CHECK_EQ_I(pthread_create(&w[i].th, NULL, work, &w[i]), 0);
	}
	while (atomic_load(&started) < THREADS)
		sched_yield();
	for (int k = 0; k < 20; k++) {
		CHECK_EQ_I(tree_recorder_dump(path, err, sizeof(err)), 0);
		CHECK_EQ_I(read_back(path, &c), TRACE_OK);
		CHECK_EQ_U(c.threads, THREADS);
		CHECK_EQ_U(c.nodes, c.announced);
		CHECK_EQ_U(c.slow_bad, 0);
		CHECK(c.slow <= SLOW_MAX && c.slow <= c.slow_over);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(w[i].th, NULL);
	tree_recorder_thread_ended(w[0].tt);
	CHECK_EQ_I(tree_recorder_dump(path, err, sizeof(err)), 0);
	CHECK_EQ_I(read_back(path, &c), TRACE_OK);
	tree_recorder_counts(&contexts, &fc, &fk, &ev);
	CHECK(fc > 0);		/* maxcontexts=1000 folded */
	CHECK(contexts < 1500); /* and the trees stayed near it */
	uint64_t entries = 0;
	for (int i = 0; i < THREADS; i++) {
		uint32_t s = w[i].serial;

		entries += w[i].entries;

		/* every entry and every unit of metric is in the tree, or folded */
		CHECK_EQ_U(c.calls[s] + c.folded_calls[s], w[i].entries);
		CHECK_EQ_U(c.raw[s], w[i].last - w[i].first);
	}
	CHECK(ev >= entries); /* every entry is an event the trees took */
	/* many calls were that long: the bound is full, and status says so */
	CHECK_EQ_U(c.slow, SLOW_MAX);
	CHECK_EQ_U(c.slow_bad, 0);
	uint64_t sns, sover, skept, smax;
	CHECK_EQ_I(tree_recorder_slow_counts(&sns, &sover, &skept, &smax), 1);
	CHECK(sns == SLOW_NS && sover == c.slow_over && skept == SLOW_MAX && smax == SLOW_MAX);
	tree_recorder_reset(); /* frees w[0]'s ended tree, empties the others */
	CHECK_EQ_I(tree_recorder_slow_counts(&sns, &sover, &skept, &smax), 1);
	CHECK(sover == 0 && skept == 0);
	tree_recorder_counts(&contexts, &fc, &fk, &ev);
	CHECK_EQ_U(contexts, 0);
	CHECK_EQ_U(fc, 0);
	CHECK_EQ_U(ev, 0);
}

/* The rounds with every event under its tree's lock, and (where
 * membarrier(2) can be registered) with the events' lock-free way, whose
 * fence ThreadSanitizer cannot see: not in its build. */
static void test_dumps_while_events_run(void)
{
	char dir[] = "/tmp/jcal-trees-XXXXXX", path[64], err[512];
	struct worker w[THREADS];

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/t.tree", dir);
	setenv("JCAL_CALIB_DIR", dir, 1); /* no table there: raw figures */
	jcal.opts.maxcontexts = 1000;
	jcal.opts.slow_ns = SLOW_NS; /* ns of cputime: the metric's units */
	jcal.opts.slow_max = SLOW_MAX;
	jcal.metrics.n = 1;
	jcal.metrics.m[0].kind = METRIC_CPUTIME;
	snprintf(jcal.metrics.m[0].name, sizeof(jcal.metrics.m[0].name), "cputime");
	CHECK_EQ_I(tree_recorder_slow_setup(1, err, sizeof(err)), 0);
	CHECK_EQ_I(trace_file_open_none(path), 0);
	struct trace_recbuf *rb = trace_file_lock();
	trace_rec_meta(rb, "metrics", "cputime");
	for (uint32_t s = 1; s <= THREADS; s++)
		trace_rec_thread_start(rb, s, s, s, 0, 0, "worker", 1, (uint64_t[]){0});
	trace_file_unlock();
	CHECK_EQ_I(tree_recorder_init(path, err, sizeof(err)), 0);
	CHECK_EQ_I(tree_recorder_choose_table(err, sizeof(err)), 0);
	for (int i = 0; i < THREADS; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].serial = (uint32_t)i + 1;
		w[i].tt = tree_recorder_thread_new(w[i].serial, 1);
		CHECK(w[i].tt != NULL);
	}
	jcal.membarrier = 0;
	dumps_while_events_run(w, path);
#ifndef __SANITIZE_THREAD__
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0) {
		jcal.membarrier = 1;
		w[0].tt = tree_recorder_thread_new(w[0].serial, 1);
		CHECK(w[0].tt != NULL);
		dumps_while_events_run(w, path);
		jcal.membarrier = 0;
	} else {
		printf("  (no membarrier(2) here: the lock-free event path is not tested)\n");
	}
#else
	printf("  (ThreadSanitizer build: the lock-free event path is tested in the others)\n");
#endif
	jcal.opts.slow_ns = 0;
	CHECK_EQ_I(tree_recorder_slow_setup(1, err, sizeof(err)), 0); /* none kept from now on */
	/* nothing is left beside the snapshot */
	CHECK_EQ_I(unlink(path), 0);
	CHECK_EQ_I(rmdir(dir), 0);
}

/* tree_recorder_event says which events did rare work (for the agent-free
 * clock): those that made a new calling context, not those that found
 * theirs. */
static void test_event_says_rare(void)
{
	char dir[] = "/tmp/jcal-trees-XXXXXX", path[64], err[512];
	/* A entered (new), left, entered again (found), B under it (new), ... */
	static const struct {
		uint32_t method;
		unsigned tr;
		int rare;
	} steps[] = {{1, JCAL_TR_ENTRY, 1}, {1, JCAL_TR_EXIT, 0}, {1, JCAL_TR_ENTRY, 0},
		     {2, JCAL_TR_ENTRY, 1}, {2, JCAL_TR_EXIT, 0}, {1, JCAL_TR_EXIT, 0}};
	struct tree_thread *tt;
	uint64_t m = 100;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/t.tree", dir);
	setenv("JCAL_CALIB_DIR", dir, 1);
	jcal.opts.maxcontexts = 0;
	jcal.metrics.n = 1;
	/* the trace file of the test before stays open (opening it again
	 * would drop its definitions); this one writes no snapshot */
	CHECK_EQ_I(tree_recorder_init(path, err, sizeof(err)), 0);
	tt = tree_recorder_thread_new(9, 1);
	CHECK(tt != NULL);
	for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
		m += 10;
		CHECK_EQ_I(
		    tree_recorder_event(tt, steps[k].method, steps[k].tr, JCAL_MT_INTERP, &m),
		    steps[k].rare);
	}
	CHECK_EQ_I(tree_recorder_event(NULL, 1, JCAL_TR_EXIT, JCAL_MT_INTERP, &m), 0);
	tree_recorder_thread_ended(tt);
	tree_recorder_reset();
	unlink(path);
	CHECK_EQ_I(rmdir(dir), 0);
}

int main(void)
{
	RUN(test_dumps_while_events_run);
	RUN(test_event_says_rare);
	return test_summary("tree-recorder");
}
