/*
 * gen-trace.c - writes a large synthetic jcal trace with the agent's own
 * encoder (common/trace_encoder.h), for the jcal-post throughput and memory
 * benchmarks of docs/performance.md.
 *
 * usage: gen-trace OUT EVENTS [FANOUT [THREADS [MAXDEPTH]]]
 *
 * Shape: THREADS threads (default 4) whose 64 KiB event chunks interleave as
 * the agent writes them; 4096 methods (instance/static, a few natives).
 * Each thread walks a random call tree: from a frame it enters one of
 * FANOUT callees (default 4) of the caller's method, mostly callee k with
 * probability 2^-(k+1) (hot paths, as in real programs), one entry in four
 * any of them, or returns;
 * the walk drifts around depth 16 (at most MAXDEPTH, default 48), 1% of
 * exits are by exception, and the metric (TSC ticks) advances by 40-300
 * per step. FANOUT and MAXDEPTH set how many calling contexts the trees
 * get. Deterministic: the same arguments give the same file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/trace_encoder.h"

#define NMETHODS 4096u
#define MAXTHREADS 64u

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* xorshift64*: fast, good enough for shapes. */
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static uint32_t modifiers(uint32_t m)
{
	uint32_t mod = (m % 3 == 0) ? JCAL_ACC_STATIC : 0;
	if (m % 97 == 5)
		mod |= JCAL_ACC_NATIVE;
	return mod;
}

struct walker {
	struct trace_events_enc enc;
	uint8_t *buf;
	uint32_t stack[256];
	uint32_t depth;
	uint64_t metric;
	uint64_t events;
};

static int write_all(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -1;
}

static int flush_records(FILE *f, struct trace_recbuf *rb)
{
	if (!trace_recbuf_pending(rb))
		return 0;
	size_t n = trace_recbuf_finish(rb);
	int r = write_all(f, rb->buf, n);
	trace_recbuf_clear(rb);
	return r;
}

/* One step of thread w's walk: an entry or an exit. */
static void step(struct walker *w, unsigned fanout, unsigned maxdepth)
{
	uint64_t r = rnd();
	unsigned want_in = 50; /* of 128: a slight pull back towards depth 16 */

	if (w->depth < 2)
		want_in = 90;
	else if (w->depth >= maxdepth)
		want_in = 0;
	else if (w->depth > 16)
		want_in = 44;
	uint32_t m;
	unsigned tr;

	w->metric += 40 + (r >> 40) % 261;
	if (w->depth == 0 || (r & 127) < want_in) {
		uint32_t caller = w->depth ? w->stack[w->depth - 1] : 0;
		/* Mostly callee k of the caller with probability 2^-(k+1) (hot
		 * paths); one entry in four picks any of the FANOUT callees. */
		unsigned k = (unsigned)__builtin_ctzll((r >> 8) | (1ull << 40));
		if (k >= fanout || ((r >> 48) & 3) == 0)
			k = (unsigned)((r >> 50) % fanout);
		m = (uint32_t)((caller * 2654435761u + 1 + k * 40503u) % NMETHODS) + 1;
		w->stack[w->depth++] = m;
		tr = JCAL_TR_ENTRY;
	} else {
		m = w->stack[--w->depth];
		tr = ((r >> 20) % 100 == 0) ? JCAL_TR_THROW : JCAL_TR_EXIT;
	}
	trace_events_add(&w->enc, tr, jcal_mtype_of(modifiers(m), 0), m, &w->metric);
	w->events++;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: gen-trace OUT EVENTS [FANOUT [THREADS [MAXDEPTH]]]\n");
		return 2;
	}
	const char *out = argv[1];
	uint64_t events = strtoull(argv[2], NULL, 10);
	unsigned fanout = argc > 3 ? (unsigned)atoi(argv[3]) : 4;
	unsigned nthreads = argc > 4 ? (unsigned)atoi(argv[4]) : 4;
	unsigned maxdepth = argc > 5 ? (unsigned)atoi(argv[5]) : 48;
	if (fanout < 1 || nthreads < 1 || nthreads > MAXTHREADS || maxdepth < 2 || maxdepth > 250) {
		fprintf(stderr, "gen-trace: error: FANOUT >= 1, THREADS 1..%u, MAXDEPTH 2..250\n",
			MAXTHREADS);
		return 2;
	}

	FILE *f = fopen(out, "wb");
	if (!f) {
		perror(out);
		return 1;
	}
	static char iobuf[1 << 20];
	setvbuf(f, iobuf, _IOFBF, sizeof(iobuf));

	uint8_t h[TRACE_FILE_HEADER_LEN];
	struct trace_recbuf rb;
	char cls[64], name[32];
	trace_header_encode(h);
	int err = write_all(f, h, sizeof(h));
	trace_recbuf_init(&rb);
	trace_rec_meta(&rb, "agent.version", "gen-trace");
	trace_rec_meta(&rb, "mode", "events");
	trace_rec_meta(&rb, "metrics", "tsc");
	trace_rec_meta(&rb, "tsc.hz", "2000000000");
	/* a host and JVM fingerprint as the agent writes one, so that jcal-post
	 * --calib stops its fingerprint scan here rather than read the whole
	 * file once more (docs/calibration-format.md) */
	static const char *const fp[][2] = {
	    {"host.cpu.vendor", "synthetic"},
	    {"host.cpu.family", "0"},
	    {"host.cpu.model", "0"},
	    {"host.cpu.stepping", "0"},
	    {"host.cpu.model_name", "gen-trace"},
	    {"host.kernel", "none"},
	    {"jvm.vendor", "none"},
	    {"jvm.version", "none"},
	    {"jvm.exec", "interpreted mode"},
	};
	for (size_t i = 0; i < sizeof(fp) / sizeof(fp[0]); i++)
		trace_rec_meta(&rb, fp[i][0], fp[i][1]);
	for (uint32_t m = 1; m <= NMETHODS; m++) {
		snprintf(cls, sizeof(cls), "Lbench/pkg%u/Class%u;", m % 13, m / 8);
		snprintf(name, sizeof(name), "method%u", m);
		trace_rec_method(&rb, m, modifiers(m), cls, name, "()V");
	}
	struct walker *w = calloc(nthreads, sizeof(*w));
	if (!w)
		return 1;
	for (unsigned i = 0; i < nthreads; i++) {
		uint64_t zero = 0;
		snprintf(name, sizeof(name), "worker-%u", i + 1);
		trace_rec_thread_start(&rb, i + 1, 20 + i, 1000 + i, 0, 0, name, 1, &zero);
		w[i].buf = malloc(1 << 16);
		if (!w[i].buf)
			return 1;
		trace_events_init(&w[i].enc, w[i].buf, 1 << 16, i + 1, 1);
	}
	err |= flush_records(f, &rb);

	/* Round-robin: each thread fills one chunk, then the next thread. */
	uint64_t per = events / nthreads, total = 0;
	for (int busy = 1; busy && !err;) {
		busy = 0;
		for (unsigned i = 0; i < nthreads; i++) {
			struct walker *t = &w[i];
			if (t->events >= per)
				continue;
			busy = 1;
			while (t->events < per && !trace_events_full(&t->enc))
				step(t, fanout, maxdepth);
			size_t n = trace_events_finish(&t->enc);
			if (n)
				err |= write_all(f, t->buf, n);
			trace_events_reset(&t->enc);
		}
	}
	for (unsigned i = 0; i < nthreads; i++) {
		trace_rec_thread_end(&rb, i + 1, 1, w[i].events, 1, &w[i].metric);
		total += w[i].events;
		free(w[i].buf);
	}
	trace_rec_end(&rb, total, nthreads, 0);
	err |= flush_records(f, &rb);
	trace_recbuf_free(&rb);
	free(w);
	if (fclose(f) || err) {
		perror(out);
		return 1;
	}
	printf("%s: %llu events, %u threads, fanout %u, max depth %u\n", out,
	       (unsigned long long)total, nthreads, fanout, maxdepth);
	return 0;
}
