/*
 * golden.h - access to the golden files in native-tests/golden/ for the
 * post-processor's unit tests, and a driver that feeds fig4a.events-style
 * text ("metric transition method" per line, '#' comments) into a calltree.
 *
 * The directory is $JCAL_GOLDEN_DIR, else native-tests/golden relative to
 * the current directory (tests run from the repository root).
 */
#ifndef JCAL_TEST_GOLDEN_H
#define JCAL_TEST_GOLDEN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/calltree.h"

static inline FILE *golden_open(const char *name)
{
	const char *dir = getenv("JCAL_GOLDEN_DIR");
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "native-tests/golden", name);
	f = fopen(path, "r");
	if (!f)
		fprintf(stderr,
			"  cannot open golden file %s (run from the repository root "
			"or set JCAL_GOLDEN_DIR)\n",
			path);
	return f;
}

/* Reads the non-comment, non-empty lines of a golden file into lines[]
 * (each without its newline); returns the count, -1 when it cannot. */
/* The whole text of a golden file (free it), or NULL. */
static inline char *golden_text(const char *name)
{
	FILE *f = golden_open(name);
	char *s;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = calloc(1, (size_t)n + 1);
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	fclose(f);
	return s;
}

static inline int golden_lines(const char *name, char lines[][256], int max)
{
	FILE *f = golden_open(name);
	char buf[256];
	int n = 0;

	if (!f)
		return -1;
	while (n < max && fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\r\n")] = '\0';
		if (buf[0] == '#' || buf[0] == '\0')
			continue;
		strcpy(lines[n++], buf);
	}
	fclose(f);
	return n;
}

/* Method id of a one-letter golden method name: A=1 ... Z=26. */
static inline uint32_t golden_method_id(const char *name)
{
	return (uint32_t)(name[0] - 'A' + 1);
}

/* Feeds golden events file name into t (every method of type I).
 * Returns the number of events, -1 on error. */
static inline int golden_feed(struct calltree *t, const char *name)
{
	char lines[256][256];
	int n = golden_lines(name, lines, 256);

	for (int i = 0; i < n; i++) {
		unsigned long long v;
		char tr, m[64];
		unsigned trans;
		uint64_t metric[JCAL_MAX_METRICS] = {0};

		if (sscanf(lines[i], "%llu %c %63s", &v, &tr, m) != 3)
			return -1;
		trans = tr == 'E' ? JCAL_TR_ENTRY : tr == 'X' ? JCAL_TR_EXIT : JCAL_TR_THROW;
		metric[0] = v;
		if (calltree_event(t, golden_method_id(m), trans, JCAL_MT_INTERP_STATIC, metric))
			return -1;
	}
	return n;
}

#endif
