/*
 * threadsel.h - which threads a report shows (--thread NAME|#N).
 */
#ifndef JCAL_THREADSEL_H
#define JCAL_THREADSEL_H

#include <stddef.h>
#include <stdint.h>

struct threadsel {
	const char **pats; /* NULL or npats patterns */
	size_t npats;
};

/* True when no pattern is given, or one matches: "virtual" / "platform"
 * every virtual / platform thread (flags: TRACE_THREAD_*), "#N" the serial
 * N, "NAME#N" name and serial as the CSV reports print them, otherwise a
 * glob (fnmatch) on the name; a name without glob characters matches
 * exactly. */
int threadsel_match(const struct threadsel *sel, uint32_t serial, const char *name, uint32_t flags);

/* Checks a pattern's syntax: 0, or -1 for "#" without a serial number. */
int threadsel_check(const char *pat);

#endif
