/*
 * seqkey.c - sequence keys: text form, dense index, which keys a mode can
 * produce, and the per-thread stepper that computes them (see seqkey.h).
 */
#include "common/seqkey.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"

char *seqkey_format(const struct seqkey *k, char *buf)
{
	buf[0] = jcal_mtype_letter(k->m1);
	buf[1] = ':';
	buf[2] = jcal_transition_letter(k->t1);
	buf[3] = ':';
	buf[4] = jcal_mtype_letter(k->m2);
	buf[5] = ':';
	buf[6] = jcal_transition_letter(k->t2);
	buf[7] = ':';
	buf[8] = jcal_mtype_letter(k->m3);
	buf[9] = '\0';
	return buf;
}

static int type_of(char c)
{
	const char *p = c ? strchr("IiJjNnO", c) : NULL;
	return p ? (int)(p - "IiJjNnO") : -1;
}

static int transition_of(char c)
{
	const char *p = c ? strchr("EXT", c) : NULL;
	return p ? (int)(p - "EXT") : -1;
}

int seqkey_parse(const char *s, struct seqkey *k)
{
	int m1, t1, m2, t2, m3;

	if (strlen(s) != SEQKEY_TEXT_LEN - 1 || s[1] != ':' || s[3] != ':' || s[5] != ':' ||
	    s[7] != ':')
		return -1;
	m1 = type_of(s[0]);
	t1 = transition_of(s[2]);
	m2 = type_of(s[4]);
	t2 = transition_of(s[6]);
	m3 = type_of(s[8]);
	if (m1 < 0 || t1 < 0 || m2 < 0 || t2 < 0 || m3 < 0)
		return -1;
	k->m1 = (uint8_t)m1;
	k->t1 = (uint8_t)t1;
	k->m2 = (uint8_t)m2;
	k->t2 = (uint8_t)t2;
	k->m3 = (uint8_t)m3;
	return 0;
}

void seqkey_from_index(unsigned index, struct seqkey *k)
{
	k->m3 = (uint8_t)(index % JCAL_MT_COUNT);
	index /= JCAL_MT_COUNT;
	k->t2 = (uint8_t)(index % JCAL_TR_COUNT);
	index /= JCAL_TR_COUNT;
	k->m2 = (uint8_t)(index % JCAL_MT_COUNT);
	index /= JCAL_MT_COUNT;
	k->t1 = (uint8_t)(index % JCAL_TR_COUNT);
	index /= JCAL_TR_COUNT;
	k->m1 = (uint8_t)index;
}

int seqkey_mode_parse(const char *name, enum seqkey_mode *mode)
{
	if (!strcmp(name, "events"))
		*mode = SEQKEY_MODE_EVENTS;
	else if (!strcmp(name, "bci"))
		*mode = SEQKEY_MODE_BCI;
	else
		return -1;
	return 0;
}

static int type_in_mode(enum seqkey_mode mode, unsigned t)
{
	if (t >= JCAL_MT_COUNT)
		return 0;
	if (t == JCAL_MT_JIT_STATIC || t == JCAL_MT_JIT)
		return mode == SEQKEY_MODE_BCI;
	return 1;
}

int seqkey_reachable(enum seqkey_mode mode, const struct seqkey *k)
{
	const unsigned o = JCAL_MT_OTHER;

	if (!type_in_mode(mode, k->m1) || !type_in_mode(mode, k->m2) ||
	    !type_in_mode(mode, k->m3) || k->t1 >= JCAL_TR_COUNT || k->t2 >= JCAL_TR_COUNT)
		return 0;
	/* O is never entered (the entered type is current after an entry)... */
	if ((k->t1 == JCAL_TR_ENTRY && k->m2 == o) || (k->t2 == JCAL_TR_ENTRY && k->m3 == o))
		return 0;
	/* ...nor exited (the exiting type is current before an exit) */
	if ((k->t1 != JCAL_TR_ENTRY && k->m1 == o) || (k->t2 != JCAL_TR_ENTRY && k->m2 == o))
		return 0;
	/* an exit right after an entry returns to the caller */
	if (k->t1 == JCAL_TR_ENTRY && k->t2 != JCAL_TR_ENTRY && k->m3 != k->m1)
		return 0;
	return 1;
}

unsigned seqkey_reachable_count(enum seqkey_mode mode)
{
	unsigned n = 0;
	struct seqkey k;

	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		seqkey_from_index(i, &k);
		n += (unsigned)seqkey_reachable(mode, &k);
	}
	return n;
}

void seqkey_stepper_init(struct seqkey_stepper *s)
{
	memset(s, 0, sizeof(*s));
}

void seqkey_stepper_free(struct seqkey_stepper *s)
{
	free(s->stack);
	memset(s, 0, sizeof(*s));
}

static int push(struct seqkey_stepper *s, uint32_t method, unsigned type)
{
	size_t cap = s->cap;

	if (s->depth == s->cap &&
	    (s->cap >= UINT32_MAX / 2 || grow(&s->stack, &cap, (size_t)s->depth + 1)))
		return -ENOMEM;
	s->cap = (uint32_t)cap;
	s->stack[s->depth].method = method;
	s->stack[s->depth].type = (uint8_t)type;
	s->depth++;
	return 0;
}

int seqkey_step_slow(struct seqkey_stepper *s, uint32_t method, unsigned transition, unsigned type,
		     struct seqkey_step *out)
{
	unsigned between = seqkey_stepper_top(s);

	if (transition >= JCAL_TR_COUNT)
		return -EINVAL;
	if (type >= JCAL_MT_COUNT)
		type = JCAL_MT_OTHER;
	out->popped = 0;
	out->unmatched = 0;
	out->root_running = s->depth == 0;
	if (transition == JCAL_TR_ENTRY) {
		if (push(s, method, type))
			return -ENOMEM;
	} else if (s->depth && s->stack[s->depth - 1].method == method) {
		s->depth--;
		out->popped = 1;
	} else {
		uint32_t d = s->depth;

		while (d > 0 && s->stack[d - 1].method != method)
			d--;
		if (d > 0) {
			out->popped = s->depth - d + 1;
			s->depth = d - 1;
		} else {
			out->popped = s->depth;
			out->unmatched = 1;
			s->depth = 0;
			/* with no frame open, the exiting method was the one running */
			if (out->root_running)
				between = type;
		}
	}
	seqkey_step_finish(s, between, transition, out);
	return 0;
}
