/*
 * recalib_period.c - owns the timer thread of trace,recalibrate=PERIOD.
 *
 * The thread sleeps on a condition variable for PERIOD seconds, then runs
 * calibrate_inrun() (the same burst as recalibrate=start|end, serialised
 * with them there), until VM death wakes it. The bursts' samples are pooled
 * by jcal-post --calib inrun like those of start and end.
 */
#include "calibrator/recalib_period.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "agent/core/recording.h"
#include "calibrator/calibrate.h"
#include "agent/base/log.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int stopping;
static unsigned period;
static jvmtiEnv *period_jvmti;
static atomic_int in_burst;

static void *timer_main(void *arg)
{
	struct timespec deadline;
	unsigned bursts = 0;

	(void)arg;
	for (;;) {
		int rc = 0;

		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline.tv_sec += (time_t)period;
		pthread_mutex_lock(&lock);
		while (!stopping && rc == 0)
			rc = pthread_cond_timedwait(&wake, &lock, &deadline);
		int stop = stopping;
		pthread_mutex_unlock(&lock);
		if (stop || jcal_stopped())
			break;
		bursts++;
		jcal_debug("recalibrate: periodic burst %u", bursts);
		atomic_store(&in_burst, 1);
		calibrate_inrun(period_jvmti, NULL);
		atomic_store(&in_burst, 0);
	}
	return NULL;
}

void recalib_period_start(jvmtiEnv *jvmti, unsigned period_s)
{
	pthread_t t;
	pthread_attr_t attr;
	int rc;

	if (calibrate_prepare(jvmti)) {
		jcal_warn("recalibrate=%us: java.home is not known; no periodic bursts", period_s);
		return;
	}
	period = period_s;
	period_jvmti = jvmti;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&t, &attr, timer_main, NULL);
	pthread_attr_destroy(&attr);
	if (rc)
		jcal_warn("recalibrate=%us: cannot start the timer thread (%s); no periodic bursts",
			  period_s, strerror(rc));
}

void recalib_period_stop(void)
{
	pthread_mutex_lock(&lock);
	stopping = 1;
	pthread_cond_broadcast(&wake);
	pthread_mutex_unlock(&lock);
	if (atomic_load(&in_burst))
		jcal_info("recalibrate: the program ended during a periodic burst; that burst's "
			  "results are not in the trace");
}
