/*
 * threadgen.h - writes a trace of many short threads with the real
 * encoder, as a program that starts a thread per task writes one: each
 * thread's THREAD_START, one events chunk of a few calls, its THREAD_END;
 * the records of 256 threads share a chunk, written before their events. For the per-thread memory
 * test of jcal-post (test-post-memory.c) and its benchmark (bench/gen-threads.c).
 *
 * Thread k (serial k + 2; serial 1 is "main", without events) is named
 * "task-K" and runs: Task.run -> Work.step, Work.step, each step one tick
 * of metric 0 after the one before: 6 events, root cum 5. Deterministic.
 */
#ifndef JCAL_TEST_THREADGEN_H
#define JCAL_TEST_THREADGEN_H

#include <stdio.h>

#include "native-tests/tracegen.h"

#define THREADGEN_EVENTS 6u /* per thread */
#define THREADGEN_RUN 1u    /* method ids */
#define THREADGEN_STEP 2u

static const unsigned threadgen_tr[THREADGEN_EVENTS] = {JCAL_TR_ENTRY, JCAL_TR_ENTRY, JCAL_TR_EXIT,
							JCAL_TR_ENTRY, JCAL_TR_EXIT,  JCAL_TR_EXIT};
static const uint32_t threadgen_me[THREADGEN_EVENTS] = {
    THREADGEN_RUN, THREADGEN_STEP, THREADGEN_STEP, THREADGEN_STEP, THREADGEN_STEP, THREADGEN_RUN};

/* Metric 0 at thread k's first event. */
static inline uint64_t threadgen_tick(uint32_t k)
{
	return 1000 + 10 * (uint64_t)k;
}

/* Writes nthreads short threads to path, with nmetrics metrics (1..4;
 * metric i reads (i + 1) * tick). Returns 0 or -1. */
static inline int threadgen_write(const char *path, uint32_t nthreads, unsigned nmetrics)
{
	static struct tracegen tg;
	uint64_t v[JCAL_MAX_METRICS] = {0};
	static const char *const metrics[] = {"ticks", "ticks+a", "ticks+a+b", "ticks+a+b+c"};
	char name[32];

	if (nmetrics < 1 || nmetrics > 4 || tg_open(&tg, path))
		return -1;
	trace_rec_meta(&tg.rb, "agent.version", "threadgen");
	trace_rec_meta(&tg.rb, "mode", "events");
	trace_rec_meta(&tg.rb, "metrics", metrics[nmetrics - 1]);
	trace_rec_method(&tg.rb, THREADGEN_RUN, 0, "Lgen/Task;", "run", "()V");
	trace_rec_method(&tg.rb, THREADGEN_STEP, JCAL_ACC_STATIC, "Lgen/Work;", "step", "()V");
	trace_rec_thread_start(&tg.rb, 1, 1, 100, 0, 1, "main", nmetrics, v);
	tg_flush(&tg);
	for (uint32_t b = 0; b < nthreads; b += 256) {
		uint32_t n = nthreads - b < 256 ? nthreads - b : 256;

		/* the records of 256 threads in one chunk, before their events;
		 * their ends in the next one */
		for (uint32_t k = b; k < b + n; k++) {
			snprintf(name, sizeof(name), "task-%u", k);
			for (unsigned i = 0; i < nmetrics; i++)
				v[i] = threadgen_tick(k) * (i + 1);
			trace_rec_thread_start(&tg.rb, k + 2, k + 2, 1000 + k, 0, 2 + k, name,
					       nmetrics, v);
		}
		tg_flush(&tg);
		for (uint32_t k = b; k < b + n; k++) {
			tg_events_begin(&tg, k + 2, nmetrics);
			for (unsigned e = 0; e < THREADGEN_EVENTS; e++) {
				for (unsigned i = 0; i < nmetrics; i++)
					v[i] = (threadgen_tick(k) + e) * (i + 1);
				tg_event(&tg, threadgen_tr[e],
					 threadgen_me[e] == THREADGEN_RUN ? JCAL_MT_INTERP
									  : JCAL_MT_INTERP_STATIC,
					 threadgen_me[e], v);
			}
			tg_events_end(&tg);
			trace_rec_thread_end(&tg.rb, k + 2, 3 + k, THREADGEN_EVENTS, nmetrics, v);
		}
	}
	trace_rec_end(&tg.rb, (uint64_t)nthreads * THREADGEN_EVENTS, (uint64_t)nthreads + 1, 0);
	return tg_close(&tg);
}

#endif
