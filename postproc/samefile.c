/*
 * samefile.c - whether an output path names one of the inputs, so that
 * jcal-post refuses before it opens anything for writing (see samefile.h).
 */
#include "postproc/samefile.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int samefile_is_input(const char *out, const char *in)
{
	struct stat so, si;

	if (!out || !in || !strcmp(out, "-") || stat(out, &so) || !S_ISREG(so.st_mode))
		return 0;
	if (!strcmp(in, "-") ? fstat(STDIN_FILENO, &si) : stat(in, &si))
		return 0;
	return so.st_dev == si.st_dev && so.st_ino == si.st_ino;
}
