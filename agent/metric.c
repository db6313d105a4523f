/*
 * metric.c - metric backends (CPU time of the thread, TSC) and the choice of
 * the metric set, with the fallback chain of SPEC §2 for metric=auto.
 *
 * Hardware counters (instructions, cycles, pfm:EVENT) are not built yet: an
 * explicit request is an error, auto says loudly that it falls back.
 */
#include "metric.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "log.h"

static uint64_t read_cputime(struct metric_thread *mt, unsigned idx)
{
	struct timespec ts;
	(void)mt;
	(void)idx;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t mono_raw_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t tsc_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	return mono_raw_ns();
#endif
}

static uint64_t read_tsc(struct metric_thread *mt, unsigned idx)
{
	(void)mt;
	(void)idx;
	return tsc_now();
}

/* Start of the run, for the final frequency estimate. */
static uint64_t tsc_start, mono_start;

static uint64_t tsc_hz_over(uint64_t t0, uint64_t m0)
{
	uint64_t t1 = tsc_now(), m1 = mono_raw_ns();
	if (m1 <= m0)
		return 0;
	return (uint64_t)((double)(t1 - t0) * 1e9 / (double)(m1 - m0));
}

static uint64_t tsc_hz_estimate(void)
{
#if defined(__x86_64__) || defined(__i386__)
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	uint64_t t0 = tsc_now(), m0 = mono_raw_ns();
	nanosleep(&pause, NULL);
	return tsc_hz_over(t0, m0);
#else
	return 1000000000u; /* the fallback clock counts nanoseconds */
#endif
}

uint64_t metric_set_tsc_hz_final(struct metric_set *ms)
{
	if (!ms->tsc_hz)
		return 0;
#if defined(__x86_64__) || defined(__i386__)
	/* Only trust a run long enough for the estimate to beat the 20 ms one. */
	if (mono_raw_ns() - mono_start > 1000000000u)
		ms->tsc_hz = tsc_hz_over(tsc_start, mono_start);
#endif
	return ms->tsc_hz;
}

static int is_hardware(const char *name)
{
	return !strcmp(name, "instructions") || !strcmp(name, "cycles") ||
	       !strncmp(name, "pfm:", 4);
}

static void use_metric(struct metric_set *ms, const char *name, const char *why)
{
	struct metric_desc *d = &ms->m[ms->n++];

	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->why, sizeof(d->why), "%s", why);
	if (!strcmp(name, "tsc")) {
		d->unit = "ticks";
		d->read = read_tsc;
		if (!ms->tsc_hz) {
			tsc_start = tsc_now();
			mono_start = mono_raw_ns();
			ms->tsc_hz = tsc_hz_estimate();
		}
	} else {
		d->unit = "ns";
		d->read = read_cputime;
	}
}

int metric_set_open(struct metric_set *ms, const struct jcal_options *o, char *err,
		    size_t errlen)
{
	memset(ms, 0, sizeof(*ms));
	if (o->nmetrics == 0) {
		jcal_warn("metric=auto: hardware counters (instructions, cycles) are not "
			  "supported by this build; falling back to cputime "
			  "(CLOCK_THREAD_CPUTIME_ID, a system call per event)");
		use_metric(ms, "cputime",
			   "auto: hardware counters not supported by this build, fell back to "
			   "cputime");
		return 0;
	}
	for (unsigned i = 0; i < o->nmetrics; i++) {
		if (is_hardware(o->metric[i])) {
			snprintf(err, errlen,
				 "cannot open metric '%s': hardware counters are not supported by "
				 "this build (use metric=cputime or metric=tsc)",
				 o->metric[i]);
			return -1;
		}
		use_metric(ms, o->metric[i], "requested");
	}
	return 0;
}

void metric_set_names(const struct metric_set *ms, char *out, size_t outlen)
{
	size_t n = 0;
	out[0] = '\0';
	for (unsigned i = 0; i < ms->n && n < outlen; i++)
		n += (size_t)snprintf(out + n, outlen - n, "%s%s", i ? "+" : "", ms->m[i].name);
}

int metric_thread_open(const struct metric_set *ms, struct metric_thread *mt)
{
	for (unsigned i = 0; i < JCAL_MAX_METRICS; i++)
		mt->fd[i] = -1;
	(void)ms;
	return 0;
}

void metric_thread_close(const struct metric_set *ms, struct metric_thread *mt)
{
	(void)ms;
	(void)mt;
}
