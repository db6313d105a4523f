/*
 * throttle.h - adaptive de-instrumentation in mode=bci (throttle=CALLS:NS,
 * docs/agent-internals.md "Throttling"): the thread that takes the probes
 * out of the methods the rule (throttle_fact.h) picks, and their meta
 * records. The counting and the picking run on the event path, in
 * agent/core/throttle_count.h.
 *
 * The throttle thread retransforms the picked methods' classes without
 * their probes (RetransformClasses, from the agent's own attached thread,
 * never under a lock) and writes a throttle.method.ID meta record for each.
 */
#ifndef JCAL_THROTTLE_H
#define JCAL_THROTTLE_H

#include <stdatomic.h>

#include "agent/core/method_table.h"
#include "agent/core/throttle_count.h"
#include "common/trace_encoder.h"

/* mode=bci with throttle=: converts the rule to the metric's unit and
 * turns counting on (onload). */
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
/* Such a method keeps one probe that only counts its calls
 * (jcal.Tracker.count) when it has a counter: 1 with its slot in *slot. */
static inline int throttle_counter(const struct jcal_method *m, uint32_t *slot)
{
	if (!m->thr_counter)
		return 0;
	*slot = m->thr_counter - 1;
	return 1;
}
/* A recording (or the next file of a rotation) begins: its counted calls
 * start from the counters' values now. jni: the calling thread's. */
void throttle_new_recording(JNIEnv *jni);
/* The recording's file ends: each throttled method's calls counted in it
 * (read now, before the file lock; throttle_finish writes them). */
void throttle_read_counts(JNIEnv *jni);
/* tiny=count (bci_tiny.h): whether the rewriter gives tiny method m only
 * the probe that counts its calls, from its first instrumentation: 1 with
 * its counter's slot in *slot (given now, with its record, when it is new
 * here), 0 when it gets every probe (tiny=probe, a JDK class, a method
 * that had its probes already). Called from the class file hook. */
int throttle_tiny(struct jcal_method *m, uint32_t *slot);
/* inlined=count (jit_inlined.h): the same for a loop-free method the JIT
 * had inlined when the recording started, with its record's reason=inlined. */
int throttle_inlined(struct jcal_method *m, uint32_t *slot);
/* For status: throttle=, tiny=count and inlined=count, and their methods so far. */
struct throttle_state {
	int rule_on, tiny_on, inlined_on;
	char rule[64];	  /* "CALLS:NS", or "off" */
	size_t throttled; /* methods the rule throttled */
	size_t counted;	  /* of which keep the probe that counts */
	size_t tiny;	  /* tiny methods that only count */
	size_t inlined;	  /* inlined methods that only count */
};
/* Fills *st: 1, or 0 with neither throttle= nor tiny=count. */
int throttle_status(struct throttle_state *st);
/* Each recording's file: the meta "throttle" (the rule, "off" with
 * tiny=count alone), "throttle.tiny" (tiny=count) and a record for every
 * method throttled or tiny so far. Caller holds the file lock. */
void throttle_write_meta(struct trace_recbuf *rb);
/* The recording ends (file lock held, threads quiet): each throttled
 * method's record again, with its calls over the whole recording. Returns
 * the number of throttled methods. */
unsigned throttle_finish(struct trace_recbuf *rb);

#endif
