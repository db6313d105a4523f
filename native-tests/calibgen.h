/*
 * calibgen.h - what the tests of the calibration code (test-calib-*.c)
 * share: a scratch directory under /tmp, keys and entries set from text,
 * a filled-in fingerprint and table header, a table parsed from text and
 * written to text.
 */
#ifndef JCAL_TEST_CALIBGEN_H
#define JCAL_TEST_CALIBGEN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/calib_table.h"
#include "common/seqkey.h"
#include "native-tests/test.h"

static char tmpdir[256];

static inline void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/jcal-test-calib-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(1);
	}
}

static inline void tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

static inline void cleanup(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "  could not remove %s\n", tmpdir);
}

static inline void key_of(const char *text, struct seqkey *k)
{
	if (seqkey_parse(text, k)) {
		fprintf(stderr, "  bad key in test: %s\n", text);
		test_cur_failed = 1;
	}
}

static inline void set_key(struct calib_table *t, const char *key, uint64_t min, uint64_t samples,
			   uint64_t env)
{
	struct calib_entry e = {0};
	struct seqkey k;

	key_of(key, &k);
	e.min = min;
	e.samples = samples;
	e.env = env;
	calib_table_set(t, &k, &e);
}

static inline void fill_fp(struct calib_fingerprint *fp)
{
	static const char *values[CALIB_FP_COUNT] = {
	    "GenuineIntel",
	    "6",
	    "85",
	    "7",
	    "Intel(R) Xeon(R) Platinum 8275CL CPU @ 3.00GHz",
	    "6.1.0-18-amd64",
	    "Debian",
	    "17.0.10+7-Debian-1deb12u1",
	    "mixed mode",
	    "events",
	    "cputime",
	    "0.1.0"};

	calib_fingerprint_clear(fp);
	for (unsigned i = 0; i < CALIB_FP_COUNT; i++)
		CHECK_EQ_I(calib_fingerprint_set_meta(fp, calib_fp_meta_key(i), values[i]), 1);
}

static inline void fill_header(struct calib_table *t)
{
	fill_fp(&t->fp);
	snprintf(t->created, sizeof(t->created), "2024-05-01T12:00:00Z");
	snprintf(t->unit, sizeof(t->unit), "ns");
	snprintf(t->env_method, sizeof(t->env_method), "child JVM -Xint, same workload, no events");
}

static inline int parse_text(struct calib_table *t, const char *text, char *err, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r;

	if (!f)
		return -2;
	r = calib_table_parse(t, f, "t.txt", err, len);
	fclose(f);
	return r;
}

/* Writes t to a string (malloc'ed). */
static inline char *to_text(const struct calib_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	CHECK_EQ_I(calib_table_write(t, f), 0);
	fclose(f);
	return buf;
}

/* An entry with statistics (no quantiles). */
static inline struct calib_entry entry_with_stats(uint64_t min, uint64_t samples, uint64_t env,
						  uint64_t p10, uint64_t median, double mean)
{
	struct calib_entry e = {0};

	e.min = min;
	e.samples = samples;
	e.env = env;
	e.has_stats = 1;
	e.p10 = p10;
	e.median = median;
	e.mean = mean;
	return e;
}

#endif
