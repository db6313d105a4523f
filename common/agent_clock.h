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
 * The second read costs as much as the first (an rdtsc, a perf page read),
 * and an ordinary event spends about the same time inside the agent as the
 * one before it. So the second read is taken in bursts: the first
 * AGENT_CLOCK_BURST ordinary events of every `every` (their time is the
 * sample the estimate learns from, but for the first AGENT_CLOCK_WARM of
 * each burst, whose rarely taken path runs slower: branch mispredictions
 * and cold lines, measured at 9-14 ns an event), and every event that did
 * rare work (a buffer written out, a method looked up for the first time:
 * the caller says so with agent_clock_mark_rare). The other events add the
 * thread's estimate, an exponential average (weight 1/8) of the samples.
 * every = 1 reads at every event, as the first version did.
 *
 * Pure arithmetic on metric arrays, shared by the agent's event path and
 * anything else that needs the same compensation; no I/O, no locks (each
 * state belongs to one thread).
 */
#ifndef JCAL_AGENT_CLOCK_H
#define JCAL_AGENT_CLOCK_H

#include <stdint.h>

#include "common/trace_format.h"

/* Ordinary events per period of the second read, by default (the agent's
 * JCAL_CLOCK_EVERY changes it, 256 for bursts); the first AGENT_CLOCK_BURST
 * of each period have their end read, and all but the first
 * AGENT_CLOCK_WARM of those teach the estimate. 1 (every event read) by
 * default: the estimate takes the part of the second read before its
 * timestamp out of events that no longer run it, which in mode=bci with
 * metric=cputime left tiny methods with no own time at all
 * (docs/accuracy.md, "The agent-free clock"). */
#define AGENT_CLOCK_EVERY_DEFAULT 1
#define AGENT_CLOCK_BURST 8
#define AGENT_CLOCK_WARM 2

struct agent_clock {
	uint64_t inside[JCAL_MAX_METRICS]; /* metric spent inside the agent, summed */
	uint64_t last[JCAL_MAX_METRICS];   /* the last value given out */
	int started;			   /* a value was given out (last is set) */
	/* an ordinary event's time inside the agent (valid once has_est) */
	uint64_t est[JCAL_MAX_METRICS];
	int has_est;
	unsigned phase; /* ordinary events since the period began */
	int rare;	/* the current event did rare work: its end is read */
};

/* The current event did work an ordinary event does not: its end will be
 * read and charged as it is, and it is not a sample of the estimate. */
static inline void agent_clock_mark_rare(struct agent_clock *c)
{
	c->rare = 1;
}

/* Whether the current event's end must be read (agent_clock_end_read);
 * otherwise agent_clock_end_estimated charges the estimate. A period of
 * AGENT_CLOCK_BURST events or fewer is read whole; the first ordinary event
 * (phase 0) is read, so the estimate is there before it is used. */
static inline int agent_clock_end_needed(const struct agent_clock *c)
{
	return c->rare || c->phase < AGENT_CLOCK_BURST;
}

/* The next ordinary event of the period. */
static inline void agent_clock_next(struct agent_clock *c, unsigned every)
{
	if (++c->phase >= every)
		c->phase = 0;
}

/* The current event's end is not read: adds the estimate to the sum. */
static inline void agent_clock_end_estimated(struct agent_clock *c, unsigned n, unsigned every)
{
	for (unsigned i = 0; i < n; i++)
		c->inside[i] += c->est[i];
	agent_clock_next(c, every);
}

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

/* The current event's end was read (start[] and end[] as for
 * agent_clock_charge, which it does): an ordinary event past the warm-up
 * of its burst (or the thread's first) also moves the estimate, when the
 * period leaves events unread to use it (every > AGENT_CLOCK_BURST; with
 * the default of 1 no estimate is kept). */
static inline void agent_clock_end_read(struct agent_clock *c, unsigned n, const uint64_t *start,
					const uint64_t *end, unsigned every)
{
	agent_clock_charge(c, n, start, end);
	if (c->rare) {
		c->rare = 0;
		return;
	}
	if (every > AGENT_CLOCK_BURST && (c->phase >= AGENT_CLOCK_WARM || !c->has_est)) {
		for (unsigned i = 0; i < n; i++) {
			const uint64_t d = (int64_t)(end[i] - start[i]) > 0 ? end[i] - start[i] : 0;

			/* est + (d - est) / 8, in signed steps */
			c->est[i] = c->has_est ? (uint64_t)((int64_t)c->est[i] +
							    ((int64_t)d - (int64_t)c->est[i]) / 8)
					       : d;
		}
		c->has_est = 1;
	}
	agent_clock_next(c, every);
}

#endif
