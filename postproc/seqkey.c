/*
 * seqkey.c - text form and dense index of sequence keys.
 */
#include "seqkey.h"

#include <string.h>

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
