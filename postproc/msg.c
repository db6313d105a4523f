/*
 * msg.c - prints jcal-post's one-line messages (errors, warnings, notes).
 * The text is escaped (output.h): thread names, method names, file names
 * and table values in a message cannot break the line or reach the
 * terminal as control characters. A note or warning that says exactly
 * what an earlier one said is not printed again (several inputs, as in
 * jcal-post diff, often share one: the same missing table), and a merge of
 * many inputs caps its notes (msg_notes_cap).
 */
#include "postproc/msg.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "postproc/output.h"

/* FNV-1a hashes of the notes and warnings printed so far (a few suffice:
 * past them a repeat is printed again). */
#define MSG_SEEN 64
static uint64_t seen[MSG_SEEN];
static unsigned nseen;
/* notes: at most cap more printed (0: no cap), and those left out */
static unsigned notes_cap, notes_printed, notes_dropped;

void msg_notes_cap(unsigned cap)
{
	notes_cap = cap;
	notes_printed = notes_dropped = 0;
}

unsigned msg_notes_dropped(void)
{
	return notes_dropped;
}

static uint64_t hash(const char *level, const char *text)
{
	uint64_t h = 1469598103934665603u;

	for (const char *p = level; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211u;
	h = (h ^ ':') * 1099511628211u;
	for (const char *p = text; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211u;
	return h;
}

/* Whether this note or warning was printed already (and remembers it). */
static int repeated(const char *level, const char *text)
{
	uint64_t h;

	if (strcmp(level, "note") != 0 && strcmp(level, "warning") != 0)
		return 0;
	h = hash(level, text);
	for (unsigned i = 0; i < nseen; i++)
		if (seen[i] == h)
			return 1;
	if (nseen < MSG_SEEN)
		seen[nseen++] = h;
	return 0;
}

void msg(const char *level, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n >= 0 && repeated(level, text)) {
		free(text);
		return;
	}
	if (notes_cap && !strcmp(level, "note") && notes_printed++ >= notes_cap) {
		notes_dropped++;
		free(n >= 0 ? text : NULL);
		return;
	}
	fprintf(stderr, "jcal-post: %s: ", level);
	text_escape(stderr, n >= 0 ? text : "(out of memory while formatting)");
	fputc('\n', stderr);
	free(n >= 0 ? text : NULL);
}
