/*
 * satsum.c - the record of what kinds of figures were saturated (see
 * satsum.h).
 */
#include "common/satsum.h"

#include <stdio.h>
#include <string.h>

static unsigned seen;

static const char *const names[SATSUM_COUNT] = {
    "calls", "base", "raw_base", "cum", "raw_cum", "events", "ns", "span", "pprof values",
};

void satsum_note(unsigned what)
{
	__atomic_fetch_or(&seen, what, __ATOMIC_RELAXED);
}

unsigned satsum_seen(void)
{
	return __atomic_load_n(&seen, __ATOMIC_RELAXED);
}

void satsum_reset(void)
{
	__atomic_store_n(&seen, 0, __ATOMIC_RELAXED);
}

void satsum_names(unsigned what, char *buf, size_t len)
{
	size_t pos = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned i = 0; i < SATSUM_COUNT && pos < len; i++) {
		int n;

		if (!(what & (1u << i)))
			continue;
		n = snprintf(buf + pos, len - pos, "%s%s", pos ? ", " : "", names[i]);
		if (n < 0)
			break;
		pos += (size_t)n;
	}
}
