/*
 * throttle.h - adaptive de-instrumentation in mode=bci (throttle=CALLS:NS,
 * docs/agent-internals.md "Throttling"): per-thread call counts and times
 * on the event path, and the thread that takes the probes out of the
 * methods the rule (throttle_fact.h) picks.
 *
 * Event path: each Java thread counts, per method, its calls (at entry),
 * and its completed calls with the sum of their own time (at exit, from
 * its stack of calls under way, common/throttle_stack.h) in a
 * direct-mapped table of its own; a slot is added to the method's totals
 * (atomics on struct jcal_method) every THROTTLE_FLUSH calls and when
 * another method takes it, which is where the rule is checked. A method
 * the rule picks is pushed (once) on a lock-free list; the throttle thread
 * retransforms its class without its probes (RetransformClasses, from the
 * agent's own attached thread, never under a lock) and writes a
 * throttle.method.ID meta record.
 */
#ifndef JCAL_THROTTLE_H
#define JCAL_THROTTLE_H

#include <jvmti.h>
#include <stdatomic.h>
#include <stdint.h>

#include "method_table.h"
#include "throttle_stack.h"
#include "trace_encoder.h"
#include "trace_format.h"

#define THROTTLE_SLOTS 1024 /* per thread, by method id */
#define THROTTLE_FLUSH 128  /* calls of one slot between flushes to the method */

/* struct jcal_method.thr_state */
enum {
	THROTTLE_NONE = 0,    /* instrumented */
	THROTTLE_PENDING = 1, /* picked: waits for the throttle thread's next batch */
	THROTTLE_DONE = 2,    /* retransformed without probes */
	THROTTLE_FAILED = 3,  /* the retransform failed: left instrumented */
	THROTTLE_TAKING = 4,  /* in the batch being retransformed */
};

struct throttle_slot {
	_Atomic(struct jcal_method *) m;
	atomic_uint_fast64_t calls; /* not yet flushed (read by the throttle thread) */
	uint64_t timed, sum;	    /* not yet flushed (owner only) */
};

struct throttle_thread {
	struct throttle_slot slot[THROTTLE_SLOTS];
	struct throttle_stack stack;	     /* the calls under way, for their own time */
	struct throttle_thread *prev, *next; /* registry (throttle.c) */
};

/* Set when throttle= is on in mode=bci (bci_agent_onload). */
extern int throttle_on;

/* The first event of a thread: its counts, registered. NULL without memory. */
struct throttle_thread *throttle_thread_new(void);
/* Adds the slot's counts to its method's totals and checks the rule. */
void throttle_slot_flush(struct throttle_slot *s);

/* The event path (event_recorder.c), for each event of method m, recorded
 * or not (a probe outside the thread's regions counts too), with the
 * thread's first metric value v; *tp is the thread's counts (created at
 * its first event). */
static inline void throttle_event(struct throttle_thread **tp, struct jcal_method *m,
				  unsigned transition, uint64_t v)
{
	struct throttle_thread *t = *tp;
	struct throttle_slot *s;
	uint64_t self;

	if (!t && !(t = *tp = throttle_thread_new()))
		return;
	s = &t->slot[m->id & (THROTTLE_SLOTS - 1)];
	if (transition == JCAL_TR_ENTRY) {
		uint64_t c;

		if (atomic_load_explicit(&s->m, memory_order_relaxed) != m) {
			throttle_slot_flush(s);
			atomic_store_explicit(&s->m, m, memory_order_relaxed);
		}
		c = atomic_load_explicit(&s->calls, memory_order_relaxed) + 1;
		atomic_store_explicit(&s->calls, c, memory_order_relaxed);
		throttle_stack_enter(&t->stack, m, v);
		if (c >= THROTTLE_FLUSH)
			throttle_slot_flush(s);
		return;
	}
	if (transition != JCAL_TR_EXIT && transition != JCAL_TR_THROW)
		return;
	if (throttle_stack_exit(&t->stack, m, v, &self) &&
	    atomic_load_explicit(&s->m, memory_order_relaxed) == m) {
		s->timed++;
		s->sum += self;
	}
}

/* A thread's state is freed (ThreadEnd): its counts go to the methods. */
void throttle_thread_end(struct throttle_thread *t);

/* mode=bci with throttle=: converts the rule to the metric's unit (onload). */
void throttle_onload(void);
/* VMInit (after the tracker is ready): starts the throttle thread. */
void throttle_start(void);
/* Whether the rewriter leaves method m without probes: only once its own
 * batch retransforms it. A method merely picked keeps them when its class
 * is retransformed for another's sake, so that no method loses its probes
 * without the record that says so (its batch may never come: the JVM may
 * end first). */
static inline int throttle_skips(struct jcal_method *m)
{
	int st = atomic_load_explicit(&m->thr_state, memory_order_relaxed);
	return st == THROTTLE_TAKING || st == THROTTLE_DONE;
}
/* Each recording's file: the meta "throttle" (the rule) and a record for
 * every method throttled so far. Caller holds the file lock. */
void throttle_write_meta(struct trace_recbuf *rb);
/* The recording ends (file lock held, threads quiet): each throttled
 * method's record again, with its calls over the whole recording. Returns
 * the number of throttled methods. */
unsigned throttle_finish(struct trace_recbuf *rb);

#endif
