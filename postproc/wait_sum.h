/*
 * wait_sum.h - the figures reports show of the waits the JVM reported
 * (waits.h; docs/jcal-post.md, waits and "Off the CPU"): per thread, the
 * part of its time off the CPU blocked on a monitor and in Object.wait, by
 * the monitor's class (the summary); per kind, method and class, the
 * waits' count, total and longest (--report waits).
 *
 * A wait's wall time is the record's own span (the agent's monotonic
 * clock: a virtual thread's wait counts while it was unmounted too); its
 * time off the CPU, with tsc and cputime, is its thread's tsc difference
 * (ns) less its cputime difference, as the thread's off-CPU time is
 * counted (else its wall time).
 */
#ifndef JCAL_WAIT_SUM_H
#define JCAL_WAIT_SUM_H

#include <stddef.h>
#include <stdint.h>

#include "postproc/model.h"
#include "postproc/threadsel.h"

/* Where a model's waits take their times from. */
struct wait_clock {
	int tsc, cpu; /* the metrics are there: their indices below */
	unsigned wall_i, cpu_i;
	double hz;
};

void wait_clock_init(const struct model *m, struct wait_clock *c);
uint64_t wait_wall(const struct wait_clock *c, const struct waits_rec *r);
/* Its time off the CPU: tsc less cputime; the wall time without both. */
uint64_t wait_off(const struct wait_clock *c, const struct waits_rec *r);

/* One kind and class of a thread's waits. */
struct wait_class_sum {
	uint8_t kind;
	uint32_t cls;
	uint64_t count, time;
};

/* A thread's waits, per kind (index enum trace_monitor_kind) and per kind
 * and class (kind, then time, largest first, then class). */
struct wait_thread_sum {
	uint64_t count[3], time[3];
	struct wait_class_sum *by_cls;
	size_t n;
};

/* The waits of thread serial, their time off the CPU (off set) or wall
 * time. 0, or -1 when memory runs out. */
int wait_thread_sum(const struct model *m, uint32_t serial, int off, struct wait_thread_sum *s);
void wait_thread_sum_free(struct wait_thread_sum *s);

/* One row of --report waits: the waits of one kind, in one method, on
 * monitors of one class; wall times. */
struct wait_row {
	uint8_t kind;
	uint32_t method; /* model_event_method's id; 0 not known */
	uint32_t cls;
	uint64_t count, total, max, timeouts;
};

/* The rows over the threads sel selects (NULL: all), by kind (contended
 * enters first), then total (largest first), class and method. *rows is
 * malloc'ed (NULL when none). 0, or -1 when memory runs out. */
int wait_rows(const struct model *m, const struct threadsel *sel, struct wait_row **rows,
	      size_t *n);

/* Whether sel (NULL: every thread) selects the thread of serial; one
 * without a THREAD_START record only when every thread is. */
int wait_selected(const struct model *m, const struct threadsel *sel, uint32_t serial);

/* The Java name of class cls of m's waits ("pkg.C$D") into buf. */
void wait_class_name(const struct model *m, uint32_t cls, char *buf, size_t len);

#endif
