/*
 * metric.h - the metrics read at every event (SPEC §2 metric=).
 *
 * A metric set is chosen once at load time (auto resolves along the fallback
 * chain); each thread then opens its own per-thread state and reads all
 * metrics of the set at every event into an array, in set order.
 */
#ifndef JCAL_METRIC_H
#define JCAL_METRIC_H

#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "trace_format.h"

struct metric_thread;
typedef uint64_t (*metric_read_fn)(struct metric_thread *mt, unsigned idx);

struct metric_desc {
	char name[JCAL_OPT_METRIC_MAX]; /* "cputime", "tsc" */
	const char *unit;               /* unit of the recorded values: "ns", "ticks" */
	char why[256];                  /* why this metric is used (requested, fallback...) */
	metric_read_fn read;
};

struct metric_set {
	unsigned n;
	struct metric_desc m[JCAL_MAX_METRICS];
	uint64_t tsc_hz; /* ticks per second when a tsc metric is used, else 0 */
};

/* Per-thread state of every metric in a set (fds, mapped pages later). */
struct metric_thread {
	int fd[JCAL_MAX_METRICS];
};

/* Resolves the requested metrics. Returns 0, or -1 with a one-line message
 * (an explicitly requested metric that cannot be used is an error). */
int metric_set_open(struct metric_set *ms, const struct jcal_options *o, char *err,
		    size_t errlen);

/* "cputime" or "instructions+cycles". */
void metric_set_names(const struct metric_set *ms, char *out, size_t outlen);

/* Re-measures the TSC frequency over the whole run (more exact than the
 * start-up estimate); returns ticks per second or 0 without a tsc metric. */
uint64_t metric_set_tsc_hz_final(struct metric_set *ms);

int metric_thread_open(const struct metric_set *ms, struct metric_thread *mt);
void metric_thread_close(const struct metric_set *ms, struct metric_thread *mt);

static inline void metric_read_all(const struct metric_set *ms, struct metric_thread *mt,
				   uint64_t *out)
{
	for (unsigned i = 0; i < ms->n; i++)
		out[i] = ms->m[i].read(mt, i);
}

#endif
