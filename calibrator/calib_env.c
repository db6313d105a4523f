/*
 * calib_env.c - parses the env timer's call costs and derives the
 * environment overhead per sequence key (model in calib_env.h).
 */
#include "calibrator/calib_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPE_LETTERS "IiNnJj"

/* Index of a type letter of the env timer's output; -1 for another. */
static int type_index(char c)
{
	const char *p = c ? strchr(TYPE_LETTERS, c) : NULL;
	return p ? (int)(p - TYPE_LETTERS) : -1;
}

/* Index of a key's type letter: the thread root O is a static interpreted
 * caller. */
static int key_type_index(char c)
{
	return c == 'O' ? 0 : type_index(c);
}

/* Whether every pair of the types in set was measured. */
static int have_set(const struct calib_env *e, const char *set, char *missing)
{
	for (const char *a = set; *a; a++)
		for (const char *b = set; *b; b++) {
			int x = type_index(*a), y = type_index(*b);
			if (!e->have_call[x][y] || !e->have_throw[x][y]) {
				missing[0] = *a;
				missing[1] = *b;
				return 0;
			}
		}
	return 1;
}

/* "work A K NS": 0, or -1 when malformed or one length too many. */
static int parse_work(struct calib_env *e, const char *line)
{
	char a, end;
	int iters, t;
	double ns;
	unsigned l;

	if (sscanf(line, "work %c %d %lf %c", &a, &iters, &ns, &end) != 3)
		return -1;
	t = type_index(a);
	if (t < 0 || iters <= 0 || !(ns >= 0))
		return -1;
	for (l = 0; l < e->nwork && e->work_iters[l] != iters; l++)
		;
	if (l == e->nwork) {
		if (e->nwork == CALIB_ENV_WORK_MAX)
			return -1;
		e->work_iters[e->nwork++] = iters;
	}
	e->work[t][l] = ns;
	e->have_work[t][l] = 1;
	return 0;
}

double calib_env_work(const struct calib_env *e, char type, int iterations)
{
	int t = type ? type_index(type) : -1;

	if (t < 0)
		return -1;
	for (unsigned l = 0; l < e->nwork; l++)
		if (e->work_iters[l] == iterations)
			return e->have_work[t][l] ? e->work[t][l] : -1;
	return -1;
}

int calib_env_parse(struct calib_env *e, const char *text, char *err, size_t errlen)
{
	const char *line = text;
	int lineno = 0, done = 0, saw_jit = 0, saw_native = 0;

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
		int is_work = !strncmp(buf, "work ", 5);
		if (is_work ? parse_work(e, buf) != 0
			    : sscanf(buf, "%15s %c %c %lf", kind, &a, &b, &ns) != 4 ||
				  type_index(a) < 0 || type_index(b) < 0 || !(ns >= 0)) {
			snprintf(err, errlen, "env timer output line %d not understood: '%s'",
				 lineno, buf);
			return -1;
		}
		if (is_work)
			continue;
		int x = type_index(a), y = type_index(b);
		saw_jit |= x >= 4 || y >= 4;
		saw_native |= x == 2 || x == 3 || y == 2 || y == 3;
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
	/* Each set the output speaks of is complete: I i N n (mode=events) when
	 * it has natives or no jitted type, I i J j (mode=bci) when it has
	 * jitted types. */
	char miss[2];
	if (((saw_native || !saw_jit) && !have_set(e, "IiNn", miss)) ||
	    (saw_jit && !have_set(e, "IiJj", miss))) {
		snprintf(err, errlen, "env timer output lacks the %c -> %c costs", miss[0],
			 miss[1]);
		return -1;
	}
	return 0;
}

/* Caller x and callee y's costs, or a jitted type's interpreted twin's
 * when the jitted pair was not measured: 0, or -1 when neither was. */
static int pair(const struct calib_env *e, int x, int y, int *ox, int *oy)
{
	if (!e->have_call[x][y] || !e->have_throw[x][y]) {
		x = x >= 4 ? x - 4 : x;
		y = y >= 4 ? y - 4 : y;
	}
	*ox = x;
	*oy = y;
	return e->have_call[x][y] && e->have_throw[x][y] ? 0 : -1;
}

double calib_env_key(const struct calib_env *e, const char *key)
{
	int m1, m2, m3;
	char t1, t2;
	double cost = 0;

	if (strlen(key) != 9 || key[1] != ':' || key[3] != ':' || key[5] != ':' || key[7] != ':')
		return -1;
	m1 = key_type_index(key[0]);
	t1 = key[2];
	m2 = key_type_index(key[4]);
	t2 = key[6];
	m3 = key_type_index(key[8]);
	if (m1 < 0 || m2 < 0 || m3 < 0 || !t1 || !t2 || !strchr("EXT", t1) || !strchr("EXT", t2))
		return -1;
	int x, y;
	/* After m1 returned to m2: the rest of m2's call to m1. */
	if (t1 != 'E') {
		if (pair(e, m2, m1, &x, &y))
			return -1;
		cost += t1 == 'X' ? e->call[x][y] / 2 : e->thrown[x][y] - e->call[x][y] / 2;
	}
	/* Before m3 is entered from m2: the first half of that call. */
	if (t2 == 'E') {
		if (pair(e, m2, m3, &x, &y))
			return -1;
		cost += e->call[x][y] / 2;
	}
	return cost > 0 ? cost : 0;
}
