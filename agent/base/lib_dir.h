/*
 * lib_dir.h - files installed beside libjcal.so (the jars it loads, the
 * library itself for the env-timer child JVM), found from where the dynamic
 * loader mapped it.
 */
#ifndef JCAL_LIB_DIR_H
#define JCAL_LIB_DIR_H

#include <stddef.h>

/* Writes "<directory of libjcal.so>/name" to out. Returns 0 when that file
 * exists, -1 otherwise (out still holds the path, for messages). */
int jcal_lib_file(const char *name, char *out, size_t len);

#endif
