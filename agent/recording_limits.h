/*
 * recording_limits.h - duration= and maxsize=: a timer thread per bounded
 * recording that ends it when its time is up or when the trace file
 * reached its size limit (trace_file.c refuses the chunk that would pass
 * it and wakes the thread).
 */
#ifndef JCAL_RECORDING_LIMITS_H
#define JCAL_RECORDING_LIMITS_H

#include "options.h"

/* At the start of a recording: starts the thread when o has a limit. */
void recording_limits_start(const struct jcal_options *o);

/* maxsize= reached (called under the trace file's mutex: only wakes). */
void recording_limits_wake(void);

/* The recording ended otherwise: the thread goes away without acting. */
void recording_limits_cancel(void);

#endif
