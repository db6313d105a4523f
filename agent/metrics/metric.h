/*
 * metric.h - the metrics read at every event (metric=, docs/metrics.md).
 *
 * A metric set is chosen once at load time (auto resolves along the fallback
 * chain instructions -> cycles -> cputime -> tsc); each thread then opens its
 * own per-thread state (on the thread itself) and reads all metrics of the
 * set at every event into an array, in set order. A thread whose counters
 * cannot be set up (fd or mlock limits) falls back on its own, with a
 * warning; the set stays the same.
 */
#ifndef JCAL_METRIC_H
#define JCAL_METRIC_H

#include <stddef.h>
#include <stdint.h>

#include "agent/base/options.h"
#include "agent/metrics/perf_counter.h"
#include "common/trace_format.h"

enum metric_kind {
	METRIC_HW = 1, /* instructions, cycles, pfm:EVENT: a perf group member */
	METRIC_CPUTIME,
	METRIC_TSC,
};

/* How one thread reads one metric (after its own fallback, if any). */
enum metric_reader {
	METRIC_READ_ZERO = 0,	   /* hardware counter this thread could not open */
	METRIC_READ_HW,		   /* rdpmc from the page, else read() */
	METRIC_READ_CPUTIME_PERF,  /* task-clock page, see perf_counter.h */
	METRIC_READ_CPUTIME_CLOCK, /* clock_gettime(CLOCK_THREAD_CPUTIME_ID) */
	METRIC_READ_TSC,
};

struct metric_desc {
	char name[JCAL_OPT_METRIC_MAX]; /* "cputime", "tsc", "instructions", "pfm:..." */
	const char *unit;		/* unit of the recorded values: "ns", "ticks", "count" */
	char why[1200];			/* why this metric is used (requested, fallback...) */
	char note[800];			/* METRIC_HW: the modes counted, the start-time check */
	enum metric_kind kind;
	unsigned hw_slot; /* METRIC_HW: index in the thread's perf group */
};

struct metric_set {
	unsigned n;
	struct metric_desc m[JCAL_MAX_METRICS];
	uint64_t tsc_hz; /* ticks per second when a tsc metric is used, else 0 */
	unsigned nhw;	 /* hardware metrics, opened as one group per thread */
	struct perf_event_attr hw_attr[JCAL_MAX_METRICS];
	enum perf_cputime_mode cputime_mode; /* NONE: clock_gettime */
	int exclude_kernel;		     /* perf_event_paranoid >= 2 */
};

/* Per-thread state of every metric in a set. */
struct metric_thread {
	uint8_t reader[JCAL_MAX_METRICS]; /* enum metric_reader */
	uint8_t slot[JCAL_MAX_METRICS];	  /* METRIC_READ_HW: group index */
	struct perf_group hw;
	struct perf_cputime ct;
};

/* Resolves the requested metrics and checks on the calling thread that they
 * can be opened. Returns 0, or -1 with a one-line message naming the metric
 * and the reason (an explicitly requested metric that cannot be used, an
 * unknown pfm: event). auto warns loudly (jcal_warn) about what it skipped. */
int metric_set_open(struct metric_set *ms, const struct jcal_options *o, char *err, size_t errlen);

/* "cputime" or "instructions+cycles". */
void metric_set_names(const struct metric_set *ms, char *out, size_t outlen);

/* Re-measures the TSC frequency over the whole run (more exact than the
 * start-up estimate); returns ticks per second or 0 without a tsc metric. */
uint64_t metric_set_tsc_hz_final(struct metric_set *ms);

/* Opens the calling thread's counters; must run on that thread. Returns 0,
 * or -1 when some metric fell back for this thread (a warning said so once
 * per cause: hardware metrics then read 0, cputime uses clock_gettime). The
 * thread is usable either way. */
int metric_thread_open(const struct metric_set *ms, struct metric_thread *mt);
void metric_thread_close(const struct metric_set *ms, struct metric_thread *mt);

/* Threads that fell back so far (for the summary). */
unsigned metric_thread_fallbacks(void);

/* Reads every metric of the set into out[], in set order. Only on the
 * thread that opened mt: the cputime page describes that thread alone. */
static inline void metric_read_all(const struct metric_set *ms, struct metric_thread *mt,
				   uint64_t *out)
{
	for (unsigned i = 0; i < ms->n; i++) {
		switch (mt->reader[i]) {
		case METRIC_READ_CPUTIME_PERF:
			out[i] = perf_cputime_read(&mt->ct);
			break;
		case METRIC_READ_HW:
			out[i] = perf_counter_read(&mt->hw.c[mt->slot[i]]);
			break;
		case METRIC_READ_TSC:
			out[i] = perf_rdtsc();
			break;
		case METRIC_READ_CPUTIME_CLOCK:
			out[i] = perf_thread_cputime_ns();
			break;
		default:
			out[i] = 0;
			break;
		}
	}
}

#endif
