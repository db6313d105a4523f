/*
 * kthread.h - state of a kernel thread (not a Java thread): its metric
 * counters and its method cache. A carrier thread runs many virtual
 * threads, and a native thread can attach as several Java threads in turn;
 * counters opened with pid=0 and the jmethodID cache belong to the kernel
 * thread, so they live here, created at its first event and closed when the
 * kernel thread exits.
 */
#ifndef JCAL_KTHREAD_H
#define JCAL_KTHREAD_H

#include "agent/core/method_table.h"
#include "agent/metrics/metric.h"

struct jcal_thread;

struct jcal_kthread {
	/* The platform Java thread this kernel thread runs (NULL if none): a
	 * carrier's metric pauses while it runs a virtual thread; without
	 * virtual threads the event path finds the Java thread's state here
	 * (the ended-thread sentinel after ThreadEnd). First: every event
	 * reads it, with the metric's fields beside it rather than past the
	 * method cache's 64 KiB. */
	struct jcal_thread *platform;
	struct metric_thread mt;
	struct method_cache cache;
};

/* The calling kernel thread's state. initial-exec TLS: one %fs-relative
 * load instead of a call to __tls_get_addr at every event (a pointer fits
 * the static TLS surplus glibc keeps for libraries loaded by dlopen). */
extern _Thread_local struct jcal_kthread *kthread_current
    __attribute__((tls_model("initial-exec")));

/* Creates the calling kernel thread's state; NULL when memory runs out. */
struct jcal_kthread *kthread_create(void);

/* Kernel-thread states alive now (created, not yet destroyed). */
unsigned long kthread_live(void);

/* The calling kernel thread's state, created on first use. */
static inline struct jcal_kthread *kthread_get(void)
{
	return kthread_current ? kthread_current : kthread_create();
}

#endif
