/*
 * seqkey.h - sequence keys m1:t1:m2:t2:m3 (SPEC §3).
 *
 * A key names the step between two consecutive events of a thread: the
 * method type current before the earlier event, its transition, the type
 * current between the events, the later event's transition and the type
 * current after it. Text form "i:E:I:X:i". The calibration table and the
 * tree builder's compensation hook both speak in these keys.
 */
#ifndef JCAL_SEQKEY_H
#define JCAL_SEQKEY_H

#include <stdint.h>

#include "trace_format.h"

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

#endif
