/*
 * lib_locate.c - the search order for libjcal.so and the check of the
 * files libjcal.so itself looks for beside it (agent/base/lib_dir.c).
 */
#include "common/lib_locate.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const jars[] = {"jcal-agent.jar", "jcal-calibrator.jar"};

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* 0 when path is a regular file this process can read; else -1, errno set. */
static int readable_file(const char *path)
{
	struct stat sb;
	if (stat(path, &sb))
		return -1;
	if (!S_ISREG(sb.st_mode)) {
		errno = S_ISDIR(sb.st_mode) ? EISDIR : EINVAL;
		return -1;
	}
	return access(path, R_OK);
}

static int resolve(const char *path, const char *why, char *out, size_t outlen, char *err,
		   size_t errlen)
{
	char real[PATH_MAX];
	if (readable_file(path) || !realpath(path, real))
		return fail(err, errlen, "agent library %s (%s): %s", path, why, strerror(errno));
	if (strlen(real) >= outlen)
		return fail(err, errlen, "agent library path too long: %s", real);
	memcpy(out, real, strlen(real) + 1);
	return 0;
}

int lib_locate(const char *explicit_path, const char *env, const char *exe_dir, char *out,
	       size_t outlen, char *err, size_t errlen)
{
	char beside[PATH_MAX], installed[PATH_MAX];
	if (explicit_path)
		return resolve(explicit_path, "--lib", out, outlen, err, errlen);
	if (env && *env)
		return resolve(env, "$JCAL_LIB", out, outlen, err, errlen);
	snprintf(beside, sizeof(beside), "%s/libjcal.so", exe_dir);
	snprintf(installed, sizeof(installed), "%s/../lib/jcal/libjcal.so", exe_dir);
	if (readable_file(beside) == 0)
		return resolve(beside, "beside jcal", out, outlen, err, errlen);
	if (readable_file(installed) == 0)
		return resolve(installed, "installed layout", out, outlen, err, errlen);
	return fail(err, errlen,
		    "no agent library: neither %s nor %s can be read (give --lib or $JCAL_LIB)",
		    beside, installed);
}

int lib_check(const char *lib, char *err, size_t errlen)
{
	char path[PATH_MAX];
	if (readable_file(lib))
		return fail(err, errlen, "agent library %s: %s", lib, strerror(errno));
	const char *slash = strrchr(lib, '/');
	int dirlen = slash ? (int)(slash - lib) : 1;
	for (size_t i = 0; i < sizeof(jars) / sizeof(jars[0]); i++) {
		snprintf(path, sizeof(path), "%.*s/%s", dirlen, slash ? lib : ".", jars[i]);
		if (readable_file(path))
			return fail(err, errlen, "%s, which %s needs beside it: %s", path, lib,
				    strerror(errno));
	}
	return 0;
}
