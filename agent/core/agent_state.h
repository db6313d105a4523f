/*
 * agent_state.h - the agent's global state, shared by its files (defined
 * in agent_state.c).
 *
 * Set up in Agent_OnLoad before any event is enabled; afterwards only the
 * atomic fields change.
 */
#ifndef JCAL_AGENT_STATE_H
#define JCAL_AGENT_STATE_H

#include <jvmti.h>
#include <stdatomic.h>
#include <stdint.h>

#include "agent/metrics/metric.h"
#include "agent/base/options.h"

#define JCAL_AGENT_VERSION "0.2.0"

struct jcal_agent {
	JavaVM *vm;
	jvmtiEnv *jvmti;
	struct jcal_options opts;
	struct metric_set metrics;
	char out_path[JCAL_OPT_PATH_MAX];
	jfieldID thread_tid;		/* java.lang.Thread.tid, set at VMInit */
	int vthreads;			/* JVMTI 21+: virtual thread events are on */
	int vthreads_possible;		/* JVMTI 21+: the JVM can run virtual threads */
	int loaded_live;		/* the agent was loaded into a running JVM */
	atomic_int vthread_started;	/* a VirtualThreadStart event came */
	jmethodID vt_mount, vt_unmount; /* java.lang.VirtualThread.mount/unmount, or NULL */
	/* JDK 21+: jdk.internal.misc.CarrierThread, the only platform threads
	 * that run virtual threads (set at VMInit; carrier_known = -1 when it
	 * could not be found: every platform thread may then carry one). */
	jclass carrier_cls;
	int carrier_known;
	/* no recording runs (stopped, VM death, a failed write): 1; a rotation
	 * holds the event path while it changes files: JCAL_HELD */
	atomic_int stopped;
	atomic_int dead; /* VM death: nothing is recorded again */
	/* Recordings are numbered from 1; a thread state of an earlier one
	 * starts again in the file at its next event (thread_state_renew). */
	atomic_uint recording;
	/* the first recording of the session a start began (rotations go on in
	 * it): a thread renewed from one of its recordings continues its file */
	atomic_uint session_first;
	int membarrier; /* membarrier(2) registered: see event_recorder.c */
	/* clock=agentfree: the period of the second read, in ordinary
	 * events (common/agent_clock.h); JCAL_CLOCK_EVERY=N, 1 for every event */
	unsigned clock_every;
	/* can_generate_monitor_events was granted: the monitor events are
	 * on while a recording with a trace runs (monitor_events.c) */
	int monitor_events;
	atomic_uint next_serial;	     /* thread serials, from 1 */
	atomic_uint_fast64_t lost_events;    /* events dropped after tracing stopped on error */
	atomic_uint_fast64_t probes_stopped; /* bci probes run while no recording ran */
	/* mode=bci, clock=agentfree, since the recording began: classes
	 * rewritten on known platform threads, and the agent's class work
	 * (first metric) taken out of those threads' figures (thread_state.h) */
	atomic_uint_fast64_t work_classes, work_metric;
};

extern struct jcal_agent jcal;

/* Set on the agent's own threads that attach to the JVM (recording_limits.c):
 * they are not Java threads of the program and get no trace state. */
extern _Thread_local int jcal_internal_thread;

/* Stops the recording (disk full, maxsize=, stop, VM death): the event
 * path records nothing until the next start; safe from any thread. */
void jcal_tracing_stop(void);

/* Enables or disables MethodEntry and MethodExit, for thread (NULL: every
 * thread), reporting a failure through check (a jvmti_check.h checker). */
void jcal_method_events(jvmtiEventMode mode, jthread thread,
			int (*check)(jvmtiEnv *, jvmtiError, const char *));

/* Enables (when jcal.monitor_events, the recording writes a trace and
 * monitors= is not off) or disables the four monitor events for every
 * thread, reporting a failure through check. */
void jcal_monitor_events(jvmtiEventMode mode, int (*check)(jvmtiEnv *, jvmtiError, const char *));

static inline int jcal_stopped(void)
{
	return atomic_load(&jcal.stopped);
}

/* jcal.stopped while a rotation (rotate command) closes one file and
 * opens the next: the event path waits instead of dropping its event, so
 * that each event goes to exactly one of the files (docs/live-profiling.md,
 * "Continuous recordings"). */
#define JCAL_HELD 2

/* Waits while a rotation holds the event path (milliseconds: a file
 * closed and one opened). Only where the thread may block: a JVMTI
 * callback or a JNI call, never a critical downcall. */
void jcal_hold_wait(void);

/* Any recalibrate= burst (start, end or periodic) asked for. */
static inline int jcal_recalibrating(void)
{
	return jcal.opts.recalibrate_start || jcal.opts.recalibrate_end ||
	       jcal.opts.recalibrate_period_s;
}

#endif
