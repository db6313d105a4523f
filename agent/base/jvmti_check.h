/*
 * jvmti_check.h - the one checker of JVMTI results outside the event path:
 * a failure is logged with the error's name,
 * "jcal: error: WHAT failed: JVMTI_ERROR_X (n)" (or at warning or debug
 * level), and the caller decides what follows.
 */
#ifndef JCAL_JVMTI_CHECK_H
#define JCAL_JVMTI_CHECK_H

#include <jvmti.h>

/* 0 when e is JVMTI_ERROR_NONE, else -1 after an error line. */
int jvmti_check(jvmtiEnv *jvmti, jvmtiError e, const char *what);
/* The same with a warning line. */
int jvmti_check_warn(jvmtiEnv *jvmti, jvmtiError e, const char *what);
/* The same at debug level: for failures the caller deliberately ignores
 * or reports in its own words. */
int jvmti_check_debug(jvmtiEnv *jvmti, jvmtiError e, const char *what);

/* Deallocate of memory JVMTI gave (NULL is ignored), checked at debug level. */
void jvmti_free(jvmtiEnv *jvmti, void *p);

#endif
