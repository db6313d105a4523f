/*
 * throttle_fact.h - adaptive de-instrumentation (mode=bci, throttle=CALLS:NS,
 * docs/agent-internals.md "Throttling"): the rule that decides when a
 * method loses its probes, and the trace meta record that says it did
 * (docs/trace-format.md), written by the agent and read by jcal-post.
 *
 * Pure code, no JVM: unit-tested in native-tests/test-throttle.c.
 */
#ifndef JCAL_THROTTLE_FACT_H
#define JCAL_THROTTLE_FACT_H

#include <stddef.h>
#include <stdint.h>

/* The meta key of one throttled method is THROTTLE_META_PREFIX + its id;
 * the rule in effect is the meta "throttle" ("CALLS:NS"). */
#define THROTTLE_META_PREFIX "throttle.method."
#define THROTTLE_META_RULE "throttle"
/* What the rule averaged: "self" (each call's own time, its timed callees'
 * taken out: common/throttle_stack.h) in the traces of agents that write
 * it; a trace without it averaged entry-to-exit (inclusive) time. */
#define THROTTLE_META_TIME "throttle.time"
#define THROTTLE_TIME_SELF "self"
/* tiny=count (agent/bci/bci_tiny.h): the meta "throttle.tiny" is the
 * largest tiny method in bytes of bytecode; each tiny method's record says
 * reason=tiny. */
#define THROTTLE_META_TINY "throttle.tiny"
/* The meta key of inlined=count: "count" when it was on (a record with
 * reason=inlined is one of its methods) */
#define THROTTLE_META_INLINED "throttle.inlined"

/* Whether a method with `calls` entries counted, `timed` of them completed
 * (entry and exit seen on one thread) for a sum of own time `sum`, is to be
 * throttled under throttle=max_calls:max_avg: more than max_calls calls
 * whose completed calls average under max_avg (sum / timed < max_avg,
 * computed without overflow). */
static inline int throttle_decide(uint64_t calls, uint64_t timed, uint64_t sum, uint64_t max_calls,
				  uint64_t max_avg)
{
	if (calls <= max_calls || timed == 0)
		return 0;
	/* sum / timed < max_avg  <=>  sum < max_avg * timed (exact, no division) */
	if (max_avg > UINT64_MAX / timed)
		return 1;
	return sum < max_avg * timed;
}

/* What the trace says about one throttled method. Its entries are counted
 * from the agent's load, inside a recorded region or not
 * (docs/agent-internals.md, "Throttling"). */
struct throttle_fact {
	uint32_t method;      /* method id (METHOD record) */
	uint64_t time_ns;     /* wall clock, ns since the epoch: probes removed */
	uint64_t calls;	      /* entries counted when the probes were removed */
	uint64_t timed, sum;  /* at the decision: completed calls and their own time's sum */
	uint64_t final_calls; /* entries counted when the recording ended */
	int has_final;	      /* final_calls known (written when the recording ends) */
	/* entries counted in this recording by the probe it kept, which only
	 * counts (jcal.Tracker.count), after its other probes went: with the
	 * recorded ones, its calls in the recording */
	uint64_t counted;
	int has_counted; /* counted known (written when the recording ends) */
	/* reason=tiny: a tiny method, which had only the counting probe from
	 * its first instrumentation (tiny=count); otherwise (no reason) the
	 * rule took its probes out */
	int tiny;
	/* reason=inlined: a method the JIT had inlined into compiled code when
	 * a recording started, without a loop, which had only the counting
	 * probe from its instrumentation then on (inlined=count) */
	int inlined;
};

/* The reason= of f's record: "tiny", "inlined", or NULL for a method the
 * rule throttled. */
const char *throttle_fact_reason(const struct throttle_fact *f);

/* Formats f as a meta record: key "throttle.method.ID", value
 * "time_ns=T calls=N timed=K sum=S[ final_calls=F][ counted=C][ reason=tiny|inlined]".
 * Returns 0, or -1 when a buffer is too small. */
int throttle_fact_format(const struct throttle_fact *f, char *key, size_t keylen, char *val,
			 size_t vallen);

/* Parses a meta record. Returns 1 when key is not a throttle.method. key,
 * 0 with *f filled, -1 when the record is malformed (a bad id, a field
 * missing or not a number). Unknown name=value fields (and reasons other
 * than tiny and inlined) are skipped, so later agents may add some. */
int throttle_fact_parse(const char *key, const char *val, struct throttle_fact *f);

#endif
