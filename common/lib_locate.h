/*
 * lib_locate.h - which libjcal.so the launcher loads into a JVM (and
 * jcal-post names in its calibration hint), and whether it and the jars
 * beside it can be read (docs/live-profiling.md, docs/install.md).
 */
#ifndef JCAL_LIB_LOCATE_H
#define JCAL_LIB_LOCATE_H

#include <stddef.h>

/* The library: explicit (--lib) if not NULL, else env ($JCAL_LIB) if not
 * NULL or empty, else exe_dir/libjcal.so, else
 * exe_dir/../lib/jcal/libjcal.so. Its real (absolute) path goes to out.
 * Returns 0, or -1 with a message in err. */
int lib_locate(const char *explicit_path, const char *env, const char *exe_dir, char *out,
	       size_t outlen, char *err, size_t errlen);

/* Checks that lib and the jars libjcal.so loads from its own directory
 * (jcal-agent.jar, jcal-calibrator.jar) are readable regular files.
 * Returns 0, or -1 with a message in err. */
int lib_check(const char *lib, char *err, size_t errlen);

#endif
