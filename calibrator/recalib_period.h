/*
 * recalib_period.h - trace,recalibrate=PERIOD: a native thread that runs
 * the in-run calibration burst every PERIOD seconds while the program runs.
 */
#ifndef JCAL_RECALIB_PERIOD_H
#define JCAL_RECALIB_PERIOD_H

#include <jvmti.h>

/* VMInit: starts the timer thread (not attached to the JVM; each burst
 * attaches its own workload thread). Warns and goes on when it cannot. */
void recalib_period_start(jvmtiEnv *jvmti, unsigned period_s);

/* VM death: wakes the timer thread and tells it to end. It does not wait
 * for a burst under way (that thread may be parked by the exiting VM);
 * the burst's results are dropped once tracing has stopped. */
void recalib_period_stop(void);

#endif
