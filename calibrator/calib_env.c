/*
 * calib_env.c - parses the env timer's call costs and derives the
 * environment overhead per sequence key (model in calib_env.h).
 */
#include "calib_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int type_index(char c)
{
	switch (c) {
	case 'I':
	case 'J':
	case 'O':
		return 0;
	case 'i':
	case 'j':
		return 1;
	case 'N':
		return 2;
	case 'n':
		return 3;
	default:
		return -1;
	}
}

int calib_env_parse(struct calib_env *e, const char *text, char *err, size_t errlen)
{
	const char *line = text;
	int lineno = 0, done = 0;

	memset(e, 0, sizeof(*e));
	while (*line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char buf[128], kind[16], a, b;
		double ns;

		lineno++;
		if (len >= sizeof(buf)) {
			snprintf(err, errlen, "env timer output line %d too long", lineno);
			return -1;
		}
		memcpy(buf, line, len);
		buf[len] = '\0';
		line = end ? end + 1 : line + len;
		if (len == 0)
			continue;
		if (!strcmp(buf, "done")) {
			done = 1;
			continue;
		}
		if (sscanf(buf, "%15s %c %c %lf", kind, &a, &b, &ns) != 4 || type_index(a) < 0 ||
		    type_index(b) < 0 || (a != 'I' && a != 'i' && a != 'N' && a != 'n') ||
		    (b != 'I' && b != 'i' && b != 'N' && b != 'n') || ns < 0) {
			snprintf(err, errlen, "env timer output line %d not understood: '%s'",
				 lineno, buf);
			return -1;
		}
		int x = type_index(a), y = type_index(b);
		if (!strcmp(kind, "call")) {
			e->call[x][y] = ns;
			e->have_call[x][y] = 1;
		} else if (!strcmp(kind, "throw")) {
			e->thrown[x][y] = ns;
			e->have_throw[x][y] = 1;
		} else {
			snprintf(err, errlen, "env timer output line %d: unknown kind '%s'", lineno,
				 kind);
			return -1;
		}
	}
	if (!done) {
		snprintf(err, errlen, "env timer output ends early (no 'done' line)");
		return -1;
	}
	for (int x = 0; x < 4; x++)
		for (int y = 0; y < 4; y++)
			if (!e->have_call[x][y] || !e->have_throw[x][y]) {
				snprintf(err, errlen, "env timer output lacks the %c -> %c costs",
					 "IiNn"[x], "IiNn"[y]);
				return -1;
			}
	return 0;
}

double calib_env_key(const struct calib_env *e, const char *key)
{
	int m1, m2, m3;
	char t1, t2;
	double cost = 0;

	if (strlen(key) != 9 || key[1] != ':' || key[3] != ':' || key[5] != ':' || key[7] != ':')
		return -1;
	m1 = type_index(key[0]);
	t1 = key[2];
	m2 = type_index(key[4]);
	t2 = key[6];
	m3 = type_index(key[8]);
	if (m1 < 0 || m2 < 0 || m3 < 0 || !strchr("EXT", t1) || !strchr("EXT", t2))
		return -1;
	/* After m1 returned to m2: the rest of m2's call to m1. */
	if (t1 == 'X')
		cost += e->call[m2][m1] / 2;
	else if (t1 == 'T')
		cost += e->thrown[m2][m1] - e->call[m2][m1] / 2;
	/* Before m3 is entered from m2: the first half of that call. */
	if (t2 == 'E')
		cost += e->call[m2][m3] / 2;
	return cost > 0 ? cost : 0;
}
