/*
 * thread_state.h - per-Java-thread state of the agent, kept in JVMTI
 * thread-local storage: the events buffer and encoder, the method cache,
 * the metric state, and the registry that lets VM death flush every thread.
 */
#ifndef JCAL_THREAD_STATE_H
#define JCAL_THREAD_STATE_H

#include <jvmti.h>
#include <stdatomic.h>
#include <stdint.h>

#include "common/agent_clock.h"
#include "agent/core/agent_state.h"
#include "agent/core/kthread.h"
#include "agent/metrics/metric.h"
#include "common/trace_encoder.h"

struct tree_thread;
struct throttle_thread;

#define THREAD_BUFFER_BYTES (64 * 1024)
#define VTHREAD_BUFFER_BYTES (16 * 1024) /* thousands may live at once */

/* The start of a wait the JVM reported (monitor_events.c), until its end:
 * the thread's metric readings, the wall clock and monotonic time, the
 * recording it began in. */
struct jcal_monitor_open {
	uint8_t open;
	uint32_t recording;
	uint64_t time_ns, mono_ns;
	uint64_t metric[JCAL_MAX_METRICS];
};

struct jcal_thread {
	atomic_int busy; /* inside an event callback (see agent.c) */
	uint32_t serial;
	uint32_t recording; /* the recording (jcal.recording) its THREAD_START is in */
	uint8_t is_virtual;
	uint8_t is_daemon; /* as at its start: each recording's THREAD_START says so */
	/* a platform thread that may run virtual threads (a carrier): its
	 * kernel thread's events find their Java thread through JVMTI TLS;
	 * other platform threads are at hand in kthread.platform */
	uint8_t may_carry;
	uint8_t paused;	      /* a carrier while it runs a virtual thread */
	uint32_t mounts_open; /* a carrier's VirtualThread.mount() frames not yet exited */
	/* traced while > 0: the jcal.Control regions it has open, plus one with
	 * start=auto (the base); based: the recording whose start= the base
	 * follows, manual: that base (thread_state_rebase) */
	uint32_t regions;
	uint32_t based;
	uint8_t manual;
	uint64_t events;   /* recorded in all */
	uint64_t filtered; /* not recorded: excluded methods (mode=events) */
	/* A thread's metric = its kernel thread's counter + offset (mod 2^64).
	 * 0 for platform threads; a virtual thread's offset is reset at each
	 * mount so that only the time it is mounted counts (saved holds its
	 * value at the last unmount). */
	uint64_t offset[JCAL_MAX_METRICS];
	uint64_t saved[JCAL_MAX_METRICS];
	/* clock=agentfree: the metric its events spent inside the agent, taken
	 * out of every value it records (agent_clock.h). Sits on top of offset:
	 * pausing saves and resumes the metric without it. */
	struct agent_clock clock;
	jobject ref;	   /* global reference to the java.lang.Thread */
	uint64_t java_tid; /* 0 until known (threads seen before VMInit) */
	char *name;	   /* the name last recorded */
	struct trace_events_enc enc;
	struct tree_thread *tree;	  /* output=tree|both: its calling-context tree */
	struct throttle_thread *throttle; /* throttle=: its call counts (core/throttle_count.h) */
	struct jcal_thread *prev, *next;  /* registry */
	/* a contended monitor enter, an Object.wait under way */
	struct jcal_monitor_open mon_enter, mon_wait;
};

/* What JVMTI thread-local storage holds once a thread has ended: events
 * after ThreadEnd or VirtualThreadEnd (the last frames of the JDK's own
 * thread code) are dropped instead of opening a second tree. */
extern struct jcal_thread thread_state_ended;

/* Creates the state of the current thread, writes its THREAD_START record
 * and stores it in JVMTI thread-local storage. late: first seen at an event.
 * Returns NULL when memory runs out. */
struct jcal_thread *thread_state_create(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, int late);

/* The thread's metric now (its kernel thread's counters + offset), read on
 * the kernel thread running it, before the agent-free clock. */
static inline void thread_state_metric_raw(const struct jcal_thread *st, struct jcal_kthread *kt,
					   uint64_t *out)
{
	metric_read_all(&jcal.metrics, &kt->mt, out);
	for (unsigned i = 0; i < jcal.metrics.n; i++)
		out[i] += st->offset[i];
}

/* The thread's metric values to record now: with clock=agentfree, without
 * the time its earlier events spent inside the agent. */
static inline void thread_state_metric(struct jcal_thread *st, struct jcal_kthread *kt,
				       uint64_t *out)
{
	thread_state_metric_raw(st, kt, out);
	if (jcal.opts.clock == JCAL_CLOCK_AGENTFREE)
		agent_clock_value(&st->clock, jcal.metrics.n, out);
}

/* The first read of an event: out gets the values to record, start (with
 * clock=agentfree) the reading that thread_state_event_end charges from. */
static inline void thread_state_event_start(struct jcal_thread *st, struct jcal_kthread *kt,
					    uint64_t *start, uint64_t *out)
{
	if (jcal.opts.clock != JCAL_CLOCK_AGENTFREE) {
		thread_state_metric_raw(st, kt, out);
		return;
	}
	thread_state_metric_raw(st, kt, start);
	for (unsigned i = 0; i < jcal.metrics.n; i++)
		out[i] = start[i];
	agent_clock_value(&st->clock, jcal.metrics.n, out);
}

/* The second read, when the event's work is done (clock=agentfree): the
 * time since start goes to the thread's sum inside the agent; on most
 * ordinary events the thread's estimate of that time instead, without a
 * read (common/agent_clock.h). */
static inline void thread_state_event_end(struct jcal_thread *st, struct jcal_kthread *kt,
					  const uint64_t *start)
{
	uint64_t end[JCAL_MAX_METRICS];

	if (jcal.opts.clock != JCAL_CLOCK_AGENTFREE)
		return;
	if (!agent_clock_end_needed(&st->clock)) {
		agent_clock_end_estimated(&st->clock, jcal.metrics.n, jcal.clock_every);
		return;
	}
	thread_state_metric_raw(st, kt, end);
	agent_clock_end_read(&st->clock, jcal.metrics.n, start, end, jcal.clock_every);
}

/* The agent's work on a program thread outside its events (mode=bci: a
 * class rewritten while the thread loads it): with clock=agentfree its time
 * is taken out of the thread's figures as an event's is (docs/accuracy.md,
 * "The agent-free clock"). thread_state_work_begin returns the state of the
 * platform thread that runs here with its metric now in start, or NULL when
 * there is nothing to do (another clock, a thread jcal does not know yet, a
 * thread that may run virtual threads, whose metric moves with each mount);
 * thread_state_work_end charges the time since start to its clock. Only the
 * thread itself touches its clock, as on the event path. */
static inline struct jcal_thread *thread_state_work_begin(uint64_t *start)
{
	struct jcal_kthread *kt = kthread_current;
	struct jcal_thread *st = kt ? kt->platform : NULL;

	if (jcal.opts.clock != JCAL_CLOCK_AGENTFREE || !st || st == &thread_state_ended ||
	    st->may_carry)
		return NULL;
	thread_state_metric_raw(st, kt, start);
	return st;
}

static inline void thread_state_work_end(struct jcal_thread *st, const uint64_t *start)
{
	uint64_t end[JCAL_MAX_METRICS];
	struct jcal_kthread *kt = kthread_current;

	if (!st || !kt || kt->platform != st)
		return;
	thread_state_metric_raw(st, kt, end);
	agent_clock_charge(&st->clock, jcal.metrics.n, start, end);
	if ((int64_t)(end[0] - start[0]) > 0) /* the trace's agent_work.metric */
		atomic_fetch_add_explicit(&jcal.work_metric, end[0] - start[0],
					  memory_order_relaxed);
}

/* The slow part of thread_state_rebase(). */
uint32_t thread_state_rebase_slow(struct jcal_thread *st, uint32_t recording);

/* A recording's start= applies to a thread first seen before it: on the
 * thread itself, at its first event or jcal.Control call in the recording,
 * its region depth gains (start=auto) or loses (start=manual) the base of
 * one. Returns its region depth: 0, the thread is not traced. */
static inline uint32_t thread_state_rebase(struct jcal_thread *st)
{
	uint32_t r = atomic_load_explicit(&jcal.recording, memory_order_relaxed);

	return st->based == r ? st->regions : thread_state_rebase_slow(st, r);
}

/* A thread first seen in an earlier recording, at its first event in this
 * one (on the thread itself, its busy flag set): its start= base follows
 * the recording's (thread_state_rebase); when it is traced, it starts
 * again in the new file (THREAD_START, marked late: its open frames come
 * back as unmatched exits) with an empty buffer, and gets a tree when the
 * recording keeps trees (one made for it now when it had none; given back
 * when it keeps none). Returns 0 when it is not traced (not renewed). */
int thread_state_renew(struct jcal_thread *st, struct jcal_kthread *kt);

/* Threads in this recording so far (THREAD_START records written). */
uint64_t thread_state_count(void);

/* Java thread states alive now (created, not yet retired), of every
 * recording: what a long run must see level off. */
uint64_t thread_state_live(void);

/* A new recording begins: the thread and event counts start from 0. */
void thread_state_new_recording(void);

/* Appends a control event (enum jcal_control, label id or 0) to the
 * calling thread's stream (region_control.c). */
void thread_state_control(struct jcal_thread *st, unsigned kind, uint32_t label);

/* Virtual threads: at VirtualThreadMount / VirtualThreadUnmount (and start
 * and end), the virtual thread's metric resumes / stops, and its carrier's
 * stops / resumes, so that no time is charged to both. Idempotent. */
void thread_state_mounted(struct jcal_thread *vt);
void thread_state_unmounting(struct jcal_thread *vt);
/* The carrier's metric goes on (a virtual thread ended on it). */
void thread_state_carrier_resume(void);

/* Records the thread's current name (THREAD_NAME) when it differs from the
 * one recorded: at VMInit for a thread first seen before it, and at thread
 * end and VM death for threads renamed while they ran. */
void thread_state_rename(jvmtiEnv *jvmti, JNIEnv *jni, struct jcal_thread *st);

/* At ThreadEnd: writes the thread's events and THREAD_END, frees the state. */
void thread_state_retire(jvmtiEnv *jvmti, JNIEnv *jni, struct jcal_thread *st);

/* At VM death (tracing already stopped): waits for callbacks in flight and
 * writes every live thread's buffered events. Returns the total events
 * recorded by all threads, ended or alive; *threads gets the thread count
 * and *filtered the events not recorded (include=/exclude= in mode=events). */
uint64_t thread_state_flush_all(jvmtiEnv *jvmti, JNIEnv *jni, uint64_t *threads,
				uint64_t *filtered);

static inline struct jcal_thread *thread_state_get(jvmtiEnv *jvmti)
{
	void *p = NULL;
	if ((*jvmti)->GetThreadLocalStorage(jvmti, NULL, &p) != JVMTI_ERROR_NONE)
		return NULL;
	return p;
}

#endif
