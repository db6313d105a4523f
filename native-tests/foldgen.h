/*
 * foldgen.h - writes random traces of many threads with the real encoder,
 * for the tests of threads folded into one tree (test-model-fold.c,
 * test-merge.c): threads whose events come in several chunks interleaved
 * with the other threads', that end in another order than they started
 * (or never end, frames still open), some without events, with
 * exception exits and exits of frames live before the trace began, over
 * eight methods of both kinds. Deterministic for a seed.
 */
#ifndef JCAL_TEST_FOLDGEN_H
#define JCAL_TEST_FOLDGEN_H

#include <stdio.h>
#include <stdlib.h>

#include "native-tests/tracegen.h"
#include "native-tests/xorshift.h"

#define FOLDGEN_METHODS 8u
#define FOLDGEN_MAX_EVENTS 64u
#define FOLDGEN_DEPTH 6u

struct foldgen_thread {
	uint32_t serial;
	unsigned n, next; /* events, events written */
	uint8_t tr[FOLDGEN_MAX_EVENTS], type[FOLDGEN_MAX_EVENTS];
	uint32_t method[FOLDGEN_MAX_EVENTS];
	uint64_t metric[FOLDGEN_MAX_EVENTS][2];
	int ends, ended;
};

static inline unsigned foldgen_type(uint32_t method)
{
	return method % 2 ? JCAL_MT_INTERP : JCAL_MT_INTERP_STATIC;
}

/* A thread's random walk: entries, exits, exception exits, an exit of a
 * frame live before the trace began now and then. */
static inline void foldgen_walk(struct foldgen_thread *t, uint64_t *rng, uint64_t start)
{
	uint32_t stack[FOLDGEN_DEPTH];
	unsigned d = 0;
	uint64_t v = start;

	t->n = (unsigned)(xorshift_next(rng) % (FOLDGEN_MAX_EVENTS + 1));
	if (xorshift_next(rng) % 8 == 0)
		t->n = 0;
	for (unsigned e = 0; e < t->n; e++) {
		uint64_t r = xorshift_next(rng);

		v += 1 + r % 5;
		t->metric[e][0] = v;
		t->metric[e][1] = 3 * v + e;
		if (d && (d == FOLDGEN_DEPTH || r % 16 < 7)) {
			t->tr[e] = r % 11 == 0 ? JCAL_TR_THROW : JCAL_TR_EXIT;
			t->method[e] = stack[--d];
		} else if (!d && r % 13 == 0) {
			t->tr[e] = JCAL_TR_EXIT; /* a frame live before the trace */
			t->method[e] = 1 + (uint32_t)(r >> 8) % FOLDGEN_METHODS;
		} else {
			t->tr[e] = JCAL_TR_ENTRY;
			t->method[e] = 1 + (uint32_t)(r >> 8) % FOLDGEN_METHODS;
			stack[d++] = t->method[e];
		}
		t->type[e] = (uint8_t)foldgen_type(t->method[e]);
	}
}

/* Writes the events of t from t->next, at most max of them, as a chunk. */
static inline void foldgen_chunk(struct tracegen *tg, struct foldgen_thread *t, unsigned max,
				 unsigned nmetrics)
{
	unsigned end = t->next + max < t->n ? t->next + max : t->n;

	if (t->next >= end)
		return;
	tg_events_begin(tg, t->serial, nmetrics);
	for (; t->next < end; t->next++)
		tg_event(tg, t->tr[t->next], t->type[t->next], t->method[t->next],
			 t->metric[t->next]);
	tg_events_end(tg);
}

static inline void foldgen_end(struct tracegen *tg, struct foldgen_thread *t, unsigned nmetrics)
{
	uint64_t zero[2] = {0, 0};

	trace_rec_thread_end(&tg->rb, t->serial, 5000 + t->serial, t->n, nmetrics,
			     t->n ? t->metric[t->n - 1] : zero);
	tg_flush(tg);
	t->ended = 1;
}

/* Writes nthreads random threads (serials first + 1 ...; "main" and
 * "worker-K") with nmetrics (1 or 2) metrics to path. Returns 0 or -1. */
static inline int foldgen_write(const char *path, unsigned nthreads, unsigned nmetrics,
				uint64_t seed, uint32_t first)
{
	static struct tracegen tg;
	struct foldgen_thread *th = calloc(nthreads ? nthreads : 1, sizeof(*th));
	uint64_t rng = seed | 1, events = 0, zero[2] = {0, 0};
	static const char *const metrics[] = {"ticks", "ticks+other"};
	char name[64], cls[32];
	unsigned left = nthreads;

	if (!th || tg_open(&tg, path)) {
		free(th);
		return -1;
	}
	trace_rec_meta(&tg.rb, "agent.version", "foldgen");
	trace_rec_meta(&tg.rb, "mode", "events");
	trace_rec_meta(&tg.rb, "metrics", metrics[nmetrics - 1]);
	for (uint32_t m = 1; m <= FOLDGEN_METHODS; m++) {
		snprintf(cls, sizeof(cls), "Lfold/C%u;", m % 3);
		snprintf(name, sizeof(name), "m%u", m);
		trace_rec_method(&tg.rb, m, m % 2 ? 0 : JCAL_ACC_STATIC, cls, name, "()V");
	}
	for (unsigned k = 0; k < nthreads; k++) {
		th[k].serial = first + k;
		th[k].ends = xorshift_next(&rng) % 6 != 0;
		foldgen_walk(&th[k], &rng, 100 * (uint64_t)k);
		events += th[k].n;
		if (k)
			snprintf(name, sizeof(name), "worker-%u", k % 7);
		trace_rec_thread_start(&tg.rb, th[k].serial, k + 1, 4000 + k, 0, 10 + k,
				       k ? name : "main", nmetrics, zero);
	}
	tg_flush(&tg);
	/* chunks of random threads, each thread's in order; a thread ends
	 * after its last chunk, when the dice say so */
	while (left) {
		struct foldgen_thread *t = &th[xorshift_next(&rng) % nthreads];

		if (t->ended)
			continue;
		foldgen_chunk(&tg, t, 1 + (unsigned)(xorshift_next(&rng) % 24), nmetrics);
		if (t->next == t->n && (!t->ends || xorshift_next(&rng) % 2)) {
			if (t->ends)
				foldgen_end(&tg, t, nmetrics);
			else
				t->ended = 1;
			left--;
		}
	}
	trace_rec_end(&tg.rb, events, nthreads, 0);
	free(th);
	return tg_close(&tg);
}

#endif
