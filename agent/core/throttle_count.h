/*
 * throttle_count.h - the event path's part of throttle=CALLS:NS in
 * mode=bci (docs/agent-internals.md "Throttling"): per-thread call counts
 * and times, the methods' totals, the rule, and the list of methods it
 * picked. Taking the probes out of the picked methods is agent/bci/
 * throttle.c's job; this part only counts and picks.
 *
 * Each Java thread counts, per method, its calls (at entry), and its
 * completed calls with the sum of their own time (at exit, from its stack
 * of calls under way, common/throttle_stack.h) in a direct-mapped table of
 * its own; a slot is added to the method's totals (atomics on struct
 * jcal_method) every THROTTLE_FLUSH calls and when another method takes
 * it, which is where the rule is checked. A method the rule picks is
 * pushed (once) on a lock-free list that the throttle thread takes.
 */
#ifndef JCAL_THROTTLE_COUNT_H
#define JCAL_THROTTLE_COUNT_H

#include <stdatomic.h>
#include <stdint.h>

#include "agent/core/method_table.h"
#include "common/throttle_stack.h"
#include "common/trace_format.h"

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
	struct throttle_thread *prev, *next; /* registry (throttle_count.c) */
};

/* Set when throttle= is on in mode=bci (throttle_count_set_rule). */
extern int throttle_count_on;

/* Turns counting on with the rule: a method is picked once it has had
 * more than max_calls calls and its completed calls average at most
 * max_avg (the first metric's unit) of their own time
 * (common/throttle_fact.h). */
void throttle_count_set_rule(uint64_t max_calls, uint64_t max_avg);

/* The first event of a thread: its counts, registered. NULL without memory. */
struct throttle_thread *throttle_count_thread_new(void);
/* Adds the slot's counts to its method's totals and checks the rule. */
void throttle_count_slot_flush(struct throttle_slot *s);
/* A thread's state is freed (ThreadEnd): its counts go to the methods. */
void throttle_count_thread_end(struct throttle_thread *t);

/* Calls of m counted so far: its total and what the threads hold (exact
 * once they are quiet; while they run, a flush under way may be missed or
 * counted twice). Takes the registry's lock. */
uint64_t throttle_count_calls(struct jcal_method *m);

/* The methods picked since the last call, linked through thr_next (each
 * picked once, when its state left THROTTLE_NONE). */
struct jcal_method *throttle_count_take_picked(void);

/* The event path (event_recorder.c), for each event of method m, recorded
 * or not (a probe outside the thread's regions counts too), with the
 * thread's first metric value v; *tp is the thread's counts (created at
 * its first event). */
static inline void throttle_count_event(struct throttle_thread **tp, struct jcal_method *m,
					unsigned transition, uint64_t v)
{
	struct throttle_thread *t = *tp;
	struct throttle_slot *s;
	uint64_t self;

	if (!t && !(t = *tp = throttle_count_thread_new()))
		return;
	s = &t->slot[m->id & (THROTTLE_SLOTS - 1)];
	if (transition == JCAL_TR_ENTRY) {
		uint64_t c;

		if (atomic_load_explicit(&s->m, memory_order_relaxed) != m) {
			throttle_count_slot_flush(s);
			atomic_store_explicit(&s->m, m, memory_order_relaxed);
		}
		c = atomic_load_explicit(&s->calls, memory_order_relaxed) + 1;
		atomic_store_explicit(&s->calls, c, memory_order_relaxed);
		throttle_stack_enter(&t->stack, m, v);
		if (c >= THROTTLE_FLUSH)
			throttle_count_slot_flush(s);
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

#endif
