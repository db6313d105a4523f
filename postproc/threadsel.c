/*
 * threadsel.c - thread selection patterns (see threadsel.h).
 */
#include "postproc/threadsel.h"
#include "common/trace_format.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses "N" fully as a serial; returns 0 or -1. */
static int parse_serial(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtoul(s, &end, 10);
	if (*end || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int threadsel_check(const char *pat)
{
	uint32_t s;

	return pat[0] == '#' && parse_serial(pat + 1, &s) ? -1 : 0;
}

static int match_one(const char *pat, uint32_t serial, const char *name)
{
	const char *hash = strrchr(pat, '#');
	uint32_t s;

	if (pat[0] == '#')
		return parse_serial(pat + 1, &s) == 0 && s == serial;
	if (!fnmatch(pat, name, 0))
		return 1;
	if (hash && parse_serial(hash + 1, &s) == 0 && s == serial) {
		size_t n = (size_t)(hash - pat);

		return strlen(name) == n && !strncmp(pat, name, n);
	}
	return 0;
}

int threadsel_match(const struct threadsel *sel, uint32_t serial, const char *name, uint32_t flags)
{
	if (!sel || !sel->npats)
		return 1;
	for (size_t i = 0; i < sel->npats; i++) {
		const char *p = sel->pats[i];
		if (!strcmp(p, "virtual") || !strcmp(p, "platform")) {
			if (!(flags & TRACE_THREAD_VIRTUAL) == (p[0] == 'p'))
				return 1;
		} else if (match_one(p, serial, name ? name : "")) {
			return 1;
		}
	}
	return 0;
}
