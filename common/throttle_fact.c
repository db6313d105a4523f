/*
 * throttle_fact.c - the throttle rule's option value and the throttled
 * method's meta record (throttle_fact.h, docs/trace-format.md).
 */
#include "common/throttle_fact.h"

#include <stdio.h>
#include <string.h>

/* A decimal u64 at *p (no sign, no overflow); advances *p. Returns 0 or -1. */
static int read_u64(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*p = s;
	*out = v;
	return 0;
}

const char *throttle_fact_reason(const struct throttle_fact *f)
{
	return f->tiny ? "tiny" : f->inlined ? "inlined" : NULL;
}

int throttle_fact_format(const struct throttle_fact *f, char *key, size_t keylen, char *val,
			 size_t vallen)
{
	int n = snprintf(key, keylen, THROTTLE_META_PREFIX "%u", (unsigned)f->method);
	if (n < 0 || (size_t)n >= keylen)
		return -1;
	n = snprintf(val, vallen, "time_ns=%llu calls=%llu timed=%llu sum=%llu",
		     (unsigned long long)f->time_ns, (unsigned long long)f->calls,
		     (unsigned long long)f->timed, (unsigned long long)f->sum);
	if (n < 0 || (size_t)n >= vallen)
		return -1;
	if (f->has_final) {
		size_t used = (size_t)n;
		n = snprintf(val + used, vallen - used, " final_calls=%llu",
			     (unsigned long long)f->final_calls);
		if (n < 0 || (size_t)n >= vallen - used)
			return -1;
		n += (int)used;
	}
	if (f->has_counted) {
		size_t used = (size_t)n;
		n = snprintf(val + used, vallen - used, " counted=%llu",
			     (unsigned long long)f->counted);
		if (n < 0 || (size_t)n >= vallen - used)
			return -1;
		n += (int)used;
	}
	if (throttle_fact_reason(f)) {
		size_t used = (size_t)n;
		n = snprintf(val + used, vallen - used, " reason=%s", throttle_fact_reason(f));
		if (n < 0 || (size_t)n >= vallen - used)
			return -1;
	}
	return 0;
}

int throttle_fact_parse(const char *key, const char *val, struct throttle_fact *f)
{
	static const char *const names[] = {"time_ns", "calls",	      "timed",
					    "sum",     "final_calls", "counted"};
	size_t plen = strlen(THROTTLE_META_PREFIX);
	const char *p;
	uint64_t id, v[6];
	unsigned seen = 0;
	int tiny = 0, inlined = 0;

	if (!key || strncmp(key, THROTTLE_META_PREFIX, plen))
		return 1;
	p = key + plen;
	if (read_u64(&p, &id) || *p || id == 0 || id > UINT32_MAX || !val)
		return -1;
	for (p = val; *p;) {
		const char *eq = strchr(p, '='), *end;
		size_t nlen;
		int k = -1;

		if (!eq)
			return -1;
		nlen = (size_t)(eq - p);
		for (int i = 0; i < 6; i++)
			if (strlen(names[i]) == nlen && !strncmp(p, names[i], nlen))
				k = i;
		end = eq + 1;
		if (k >= 0) {
			if (read_u64(&end, &v[k]) || (*end && *end != ' '))
				return -1;
			seen |= 1u << k;
		} else {
			end = strchr(end, ' ');
			if (!end)
				end = eq + 1 + strlen(eq + 1);
			if (nlen == 6 && !strncmp(p, "reason", 6)) {
				size_t vlen = (size_t)(end - eq - 1);

				tiny |= vlen == 4 && !strncmp(eq + 1, "tiny", 4);
				inlined |= vlen == 7 && !strncmp(eq + 1, "inlined", 7);
			}
		}
		while (*end == ' ')
			end++;
		p = end;
	}
	if ((seen & 0xf) != 0xf)
		return -1;
	memset(f, 0, sizeof(*f));
	f->method = (uint32_t)id;
	f->time_ns = v[0];
	f->calls = v[1];
	f->timed = v[2];
	f->sum = v[3];
	f->tiny = tiny;
	f->inlined = inlined;
	if (seen & 0x10) {
		f->final_calls = v[4];
		f->has_final = 1;
	}
	if (seen & 0x20) {
		f->counted = v[5];
		f->has_counted = 1;
	}
	return 0;
}
