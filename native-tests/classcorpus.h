/*
 * classcorpus.h - the class files the tests of agent/bci/ read: those make
 * compiles from native-tests/bci/src into BUILD/bci/classes (beside
 * BUILD/tests, where the test binary is), found by corpus_load() from the
 * binary's own path, read whole by slurp() or found by the end of their
 * path and read by find_file(). The Makefile gives every test that
 * includes this header the class files as a prerequisite.
 */
#ifndef JCAL_TEST_CLASSCORPUS_H
#define JCAL_TEST_CLASSCORPUS_H

#include <dirent.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_FILES 256

static char class_dir[4096];
static char *files[MAX_FILES];
static int nfiles;

static void find_classes(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && nfiles < MAX_FILES) {
		char path[4096];
		struct stat sb;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &sb))
			continue;
		if (S_ISDIR(sb.st_mode))
			find_classes(path);
		else if (strlen(e->d_name) > 6 &&
			 !strcmp(e->d_name + strlen(e->d_name) - 6, ".class"))
			files[nfiles++] = strdup(path);
	}
	closedir(d);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		p = malloc((size_t)n);
		if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
			free(p);
			p = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return p;
}

static const uint8_t *find_file(const char *suffix, size_t *len, uint8_t **owned)
{
	for (int i = 0; i < nfiles; i++) {
		size_t n = strlen(files[i]), m = strlen(suffix);
		if (n >= m && !strcmp(files[i] + n - m, suffix))
			return *owned = slurp(files[i], len);
	}
	return *owned = NULL;
}

/* Finds the class files under BUILD/bci/classes, BUILD being the folder
 * above the test binary argv0. */
static void corpus_load(const char *argv0)
{
	char self[4096];
	snprintf(self, sizeof(self), "%s", argv0);
	snprintf(class_dir, sizeof(class_dir), "%s/../bci/classes", dirname(self));
	find_classes(class_dir);
	if (nfiles == 0)
		fprintf(stderr, "  no class files under %s (make builds them)\n", class_dir);
}

static void corpus_free(void)
{
	for (int i = 0; i < nfiles; i++)
		free(files[i]);
}

#endif
