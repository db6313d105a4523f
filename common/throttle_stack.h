/*
 * throttle_stack.h - one thread's stack of timed calls for throttle=CALLS:NS
 * (docs/agent-internals.md, "Throttling"): at each exit, the own (self)
 * time of the call, which the rule compares with NS.
 *
 * A call's own time is its time from entry to exit less the time of the
 * timed calls it made (its callees' entry-to-exit times), so a recursive
 * method whose every level does little is seen as the cheap method it is,
 * however deep the recursion under a call goes. What a callee's probes
 * cost outside its own entry-to-exit time stays in the caller's own time.
 *
 * Pure: no JVM, no locks (each thread has its own stack); the agent's
 * event path (agent/core/throttle_count.h) runs it, native-tests/test-throttle.c
 * tests it.
 */
#ifndef JCAL_THROTTLE_STACK_H
#define JCAL_THROTTLE_STACK_H

#include <stdint.h>

#define THROTTLE_DEPTH 256 /* calls timed per thread; deeper ones are counted only */

struct throttle_frame {
	const void *m; /* the method (the agent's struct jcal_method) */
	uint64_t t;    /* the first metric at entry */
	uint64_t kids; /* entry-to-exit time of the timed calls it made */
};

struct throttle_stack {
	struct throttle_frame f[THROTTLE_DEPTH];
	uint32_t depth; /* may pass THROTTLE_DEPTH: frames beyond it are not timed */
};

/* An entry of m at metric value v. */
static inline void throttle_stack_enter(struct throttle_stack *s, const void *m, uint64_t v)
{
	if (s->depth < THROTTLE_DEPTH)
		s->f[s->depth] = (struct throttle_frame){m, v, 0};
	s->depth++;
}

/*
 * An exit of m (normal or by a throw) at metric value v. Returns 1 with
 * *self = the call's own time when the call was timed, else 0: an exit
 * with no entry seen (a frame open when the thread was first traced), of a
 * frame deeper than THROTTLE_DEPTH, or of a method not among the top four
 * frames. A frame that never saw its exit (a constructor's throw before
 * its handler's range) is dropped when m is found a few frames below it;
 * its time then counts as its caller's own.
 */
static inline int throttle_stack_exit(struct throttle_stack *s, const void *m, uint64_t v,
				      uint64_t *self)
{
	const struct throttle_frame *f;
	uint64_t incl;

	if (!s->depth)
		return 0;
	if (s->depth > THROTTLE_DEPTH) {
		s->depth--;
		return 0;
	}
	for (uint32_t k = 1; s->f[s->depth - 1].m != m; k++)
		if (k == 4 || k == s->depth)
			return 0;
		else if (s->f[s->depth - 1 - k].m == m)
			s->depth -= k;
	f = &s->f[--s->depth];
	incl = v > f->t ? v - f->t : 0;
	*self = incl > f->kids ? incl - f->kids : 0;
	if (s->depth)
		s->f[s->depth - 1].kids += incl;
	return 1;
}

#endif
