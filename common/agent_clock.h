/*
 * agent_clock.h - the agent-free clock (docs/accuracy.md, "The agent-free
 * clock"): a thread's metric with the time its own events spent inside the
 * agent taken out.
 *
 * The event path reads the metric when a callback starts (the value it
 * records) and again when the callback's work is done; the difference is
 * added to the thread's running sum `inside`, and every value the thread
 * gives out afterwards is its metric less that sum. Between two events the
 * recorded values then advance by what the program did from the end of one
 * callback to the start of the next (plus the JVM's dispatch into and out
 * of the agent, which calibration still measures). The values never go
 * backwards: a reading below the last value given out (a counter that
 * stepped back, a thread first seen inside a callback) gives the last value
 * again (the first value is taken as it is).
 *
 * Pure arithmetic on metric arrays, shared by the agent's event path and
 * anything else that needs the same compensation; no I/O, no locks (each
 * state belongs to one thread).
 */
#ifndef JCAL_AGENT_CLOCK_H
#define JCAL_AGENT_CLOCK_H

#include <stdint.h>

#include "trace_format.h"

struct agent_clock {
	uint64_t inside[JCAL_MAX_METRICS]; /* metric spent inside the agent, summed */
	uint64_t last[JCAL_MAX_METRICS];   /* the last value given out */
	int started;			   /* a value was given out (last is set) */
};

/* v[0..n-1]: the thread's metric now, in place -> the agent-free value:
 * v - inside, never below the last value given out (which it becomes). */
static inline void agent_clock_value(struct agent_clock *c, unsigned n, uint64_t *v)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t x = v[i] - c->inside[i];

		/* modular arithmetic: "below" is a negative signed difference */
		if (c->started && (int64_t)(x - c->last[i]) < 0)
			x = c->last[i];
		c->last[i] = x;
		v[i] = x;
	}
	c->started = 1;
}

/* A callback read start[] on entry and end[] when its work was done (the
 * same counters, same units): adds end - start to the sum. A difference
 * that is negative (a counter that stepped back) adds nothing. */
static inline void agent_clock_charge(struct agent_clock *c, unsigned n, const uint64_t *start,
				      const uint64_t *end)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t d = end[i] - start[i];

		if ((int64_t)d > 0)
			c->inside[i] += d;
	}
}

#endif
