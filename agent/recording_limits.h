/*
 * recording_limits.h - duration= and maxsize=: a timer thread per bounded
 * recording that ends it when its time is up or when the trace file
 * reached its size limit (trace_file.c refuses the chunk that would pass
 * it and wakes the thread).
 */
#ifndef JCAL_RECORDING_LIMITS_H
#define JCAL_RECORDING_LIMITS_H

#include <jni.h>
#include <stddef.h>

#include "agent/base/options.h"

/* How a limit ends the recording it belongs to (the session's stop,
 * session.h, the one the stop command runs): jni is the limit thread's own
 * environment, or NULL when it could not attach (the JVM is going down);
 * limit: the limit's generation, which the stop checks with
 * recording_limits_current (a later recording's is another). */
typedef int (*recording_limits_stop_fn)(JNIEnv *jni, unsigned limit, const char *reason, char *msg,
					size_t len);

/* At the start of a recording: starts the thread when o has a limit; at
 * the limit it calls stop. */
void recording_limits_start(const struct jcal_options *o, recording_limits_stop_fn stop);

/* maxsize= reached (called under the trace file's mutex: only wakes). */
void recording_limits_wake(void);

/* Whether gen is the limit of the recording running now (a rotation
 * keeps it; a stop or a start changes it). */
int recording_limits_current(unsigned gen);

/* The recording ended otherwise: the thread goes away without acting. */
void recording_limits_cancel(void);

#endif
