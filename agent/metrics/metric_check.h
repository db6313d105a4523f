/*
 * metric_check.h - the start-time check of each counting event of metric=
 * (docs/metrics.md, "Which events work where"): its modes planned
 * (metric_event.h), the event opened alone on the loading thread (kernel
 * mode dropped, or the event refused, where perf_event_open denies it), and
 * the action that must move it performed once (a short sleep, a page
 * touched, a little CPU work) where the kind has one.
 */
#ifndef JCAL_METRIC_CHECK_H
#define JCAL_METRIC_CHECK_H

#include <linux/perf_event.h>
#include <stddef.h>

#include "agent/metrics/metric_event.h"
#include "agent/metrics/perf_counter.h"

enum metric_check_status {
	METRIC_CHECK_OK = 0,
	METRIC_CHECK_WARN,	  /* usable, but cannot move for this thread: reason says why */
	METRIC_CHECK_NEVER,	  /* can never count: reason says why */
	METRIC_CHECK_OPEN_FAILED, /* perf_event_open or the check's open failed: *errnum */
};

struct metric_check {
	enum metric_check_status status;
	int errnum;	  /* OPEN_FAILED */
	char words[256];  /* for the metric's why: the modes counted, the check's result
			   * (WARN: and a few words of the warning) */
	char reason[512]; /* WARN, NEVER: the sentence of the warning or error */
};

/* Checks the event of libpfm4 string `event`, encoded in *attr by
 * perf_counter_encode_given: sets attr's exclude_* bits to the plan's and
 * fills c. Runs on the thread that loads the agent. */
void metric_check_event(const char *event, struct perf_event_attr *attr, struct metric_check *c);

/* The self-test of metric_check_event, open to the unit tests: performs
 * the action (up to 3 times, until counter c moves), says what it did in
 * done and returns how far c moved; *scheduled says whether c was on the
 * PMU meanwhile (a hardware counter of a busy PMU may not be: then 0 proves
 * nothing). */
unsigned long long metric_check_act(enum metric_event_action action, const struct perf_counter *c,
				    char *done, size_t len, int *scheduled);

#endif
