/*
 * seqkey.h - sequence keys m1:t1:m2:t2:m3 (docs/jcal-post.md, "How the tree
 * is built"), shared by the agent and jcal-post.
 *
 * A key names the step between two consecutive events of a thread: the
 * method type current before the earlier event, its transition, the type
 * current between the events, the later event's transition and the type
 * current after it. Text form "i:E:I:X:i". The calibration table, its
 * derivation from a calibration trace and the tree builder's compensation
 * hook all speak in these keys, and all of them compute keys with the one
 * stepper below, so that a key means the same step everywhere.
 */
#ifndef JCAL_SEQKEY_H
#define JCAL_SEQKEY_H

#include <stdint.h>

#include "common/trace_format.h"

struct seqkey {
	uint8_t m1, t1, m2, t2, m3; /* enum jcal_mtype / enum jcal_transition */
};

/* "i:E:I:X:i" plus the terminating NUL. */
#define SEQKEY_TEXT_LEN 10

/* Number of distinct keys (dense index range), O included. */
#define SEQKEY_COUNT (JCAL_MT_COUNT * JCAL_TR_COUNT * JCAL_MT_COUNT * JCAL_TR_COUNT * JCAL_MT_COUNT)

/* Writes the text form into buf (SEQKEY_TEXT_LEN bytes); returns buf. */
char *seqkey_format(const struct seqkey *k, char *buf);

/* Parses exactly the text form (no blanks); returns 0, or -1 when s is
 * not a key. */
int seqkey_parse(const char *s, struct seqkey *k);

/* Dense index in [0, SEQKEY_COUNT) and back, for arrays indexed by key. */
static inline unsigned seqkey_index(const struct seqkey *k)
{
	return (((k->m1 * JCAL_TR_COUNT + k->t1) * JCAL_MT_COUNT + k->m2) * JCAL_TR_COUNT + k->t2) *
		   JCAL_MT_COUNT +
	       k->m3;
}

void seqkey_from_index(unsigned index, struct seqkey *k);

/* Tracing mode, as the "mode" meta record names it. */
enum seqkey_mode {
	SEQKEY_MODE_EVENTS, /* JVMTI MethodEntry/Exit: threads run interpreted, I i N n O */
	SEQKEY_MODE_BCI,    /* bytecode instrumentation: J j as well */
};

/* "events" / "bci" -> mode; returns 0, or -1 for another name. */
int seqkey_mode_parse(const char *name, enum seqkey_mode *mode);

/*
 * Whether a balanced trace of mode can produce key: types of the mode only
 * (J/j with bci); O is the thread root, never entered nor exited (t1 = E
 * => m2 != O, t1 = X/T => m1 != O, t2 = E => m3 != O, t2 = X/T => m2 != O);
 * an entry followed by an exit returns to the caller (t1 = E, t2 = X/T =>
 * m3 = m1). Unbalanced traces (frames live before tracing started) can
 * produce other keys; they are compensated through the table's fallback.
 */
int seqkey_reachable(enum seqkey_mode mode, const struct seqkey *k);

/* Number of keys seqkey_reachable() accepts: 600 for events, 1848 for bci. */
unsigned seqkey_reachable_count(enum seqkey_mode mode);

/*
 * Per-thread key stepper: feed a thread's events in order; each step gives
 * the key of the delta that ends at this event. The stack discipline is
 * the tree builder's (calltree.h), so keys match the deltas the builder
 * charges exactly:
 *  - an entry pushes the entered method;
 *  - an exit pops the top frame when its method matches; else, when the
 *    method is deeper in the stack, pops every frame above it and then it;
 *    else (not on the stack: a frame live before tracing started) pops all
 *    frames and is "unmatched": when no frame was open, the exiting method
 *    was the one running, so it is the type current between the events
 *    (m2); otherwise the frame that was current is;
 *  - the type current with no frame open is O (the thread root).
 * The stack holds method ids and types; it grows with malloc.
 */
struct seqkey_frame {
	uint32_t method;
	uint8_t type;
};

struct seqkey_stepper {
	struct seqkey_frame *stack;
	uint32_t depth, cap;
	int have_prev; /* a previous event exists: steps have keys */
	uint8_t m1;    /* m1 of the next key: type current before the previous event */
	uint8_t t1;    /* t1 of the next key: the previous event's transition */
};

/* What one event did. */
struct seqkey_step {
	struct seqkey key; /* valid when has_key */
	int has_key;	   /* 0 for the thread's first event */
	uint32_t popped;   /* frames removed by an exit (1 for a matching exit) */
	int unmatched;	   /* exit of a method not on the stack */
	int root_running;  /* no frame was open before the event */
};

void seqkey_stepper_init(struct seqkey_stepper *s);
void seqkey_stepper_free(struct seqkey_stepper *s);

/* Type current now: the top frame's, O with none open. */
static inline unsigned seqkey_stepper_top(const struct seqkey_stepper *s)
{
	return s->depth ? s->stack[s->depth - 1].type : JCAL_MT_OTHER;
}

/* Completes a step: the key ending at this event, and m1/t1 of the next.
 * Internal to seqkey_step(). */
static inline void seqkey_step_finish(struct seqkey_stepper *s, unsigned between,
				      unsigned transition, struct seqkey_step *out)
{
	out->has_key = s->have_prev;
	out->key.m1 = s->m1;
	out->key.t1 = s->t1;
	out->key.m2 = (uint8_t)between;
	out->key.t2 = (uint8_t)transition;
	out->key.m3 = (uint8_t)seqkey_stepper_top(s);
	s->have_prev = 1;
	s->m1 = (uint8_t)between;
	s->t1 = (uint8_t)transition;
}

/* Every case of seqkey_step(); the inline version below handles the
 * common ones (an entry with room on the stack, an exit of the top frame). */
int seqkey_step_slow(struct seqkey_stepper *s, uint32_t method, unsigned transition, unsigned type,
		     struct seqkey_step *out);

/*
 * One event: method id, transition (enum jcal_transition), type of the
 * entered or exiting method (enum jcal_mtype; out of range = O). Fills
 * out. Returns 0, -EINVAL (bad transition; nothing changed) or -ENOMEM
 * (the entry could not be pushed; nothing changed).
 */
static inline int seqkey_step(struct seqkey_stepper *s, uint32_t method, unsigned transition,
			      unsigned type, struct seqkey_step *out)
{
	unsigned between = seqkey_stepper_top(s);
	uint32_t before = s->depth;

	if (type >= JCAL_MT_COUNT)
		type = JCAL_MT_OTHER;
	if (transition == JCAL_TR_ENTRY && s->depth < s->cap) {
		s->stack[s->depth].method = method;
		s->stack[s->depth].type = (uint8_t)type;
		s->depth++;
		out->popped = 0;
	} else if (transition != JCAL_TR_ENTRY && transition < JCAL_TR_COUNT && s->depth &&
		   s->stack[s->depth - 1].method == method) {
		s->depth--;
		out->popped = 1;
	} else {
		return seqkey_step_slow(s, method, transition, type, out);
	}
	out->unmatched = 0;
	out->root_running = before == 0;
	seqkey_step_finish(s, between, transition, out);
	return 0;
}

#endif
