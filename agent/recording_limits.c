/*
 * recording_limits.c - owns the thread that ends a recording at its
 * duration= or maxsize= limit (see recording_limits.h).
 *
 * The thread sleeps on a condition variable (CLOCK_MONOTONIC) until the
 * deadline, a wake from the trace file, or a cancel; each start or cancel
 * bumps a generation number, so a thread of an earlier recording never
 * stops a later one. To stop the recording it attaches itself to the JVM
 * as a daemon (retransforming classes needs a JNI environment) and calls
 * the stop it was given (the session's, which the stop command runs too).
 */
#include "agent/recording_limits.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/core/agent_state.h"
#include "agent/base/log.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static pthread_once_t wake_once = PTHREAD_ONCE_INIT;
static unsigned generation;
static int at_limit;

struct limits {
	unsigned gen;
	unsigned duration_s;
	uint64_t maxsize;
	recording_limits_stop_fn stop;
};
static struct limits current; /* the last recording's, under lock */

static void init_wake(void)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&wake, &a);
	pthread_condattr_destroy(&a);
}

/* "30s", "5m", "2h", or "90s" for what does not divide evenly. */
static void format_time(unsigned s, char *out, size_t len)
{
	if (s % 3600 == 0)
		snprintf(out, len, "%uh", s / 3600);
	else if (s % 60 == 0)
		snprintf(out, len, "%um", s / 60);
	else
		snprintf(out, len, "%us", s);
}

static void *limits_main(void *arg)
{
	struct limits me = *(struct limits *)arg;
	struct timespec deadline;
	char reason[128] = "", t[32];
	int timed_out = 0;

	free(arg);
	pthread_mutex_lock(&lock);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += me.duration_s;
	while (generation == me.gen && !at_limit && !timed_out) {
		if (me.duration_s)
			timed_out = pthread_cond_timedwait(&wake, &lock, &deadline) == ETIMEDOUT;
		else
			pthread_cond_wait(&wake, &lock);
	}
	int act = generation == me.gen;
	if (act && at_limit)
		snprintf(reason, sizeof(reason), "maxsize=%llu bytes reached",
			 (unsigned long long)me.maxsize);
	else if (act) {
		format_time(me.duration_s, t, sizeof(t));
		snprintf(reason, sizeof(reason), "duration=%s reached", t);
	}
	pthread_mutex_unlock(&lock);
	if (!act)
		return NULL;

	JNIEnv *jni = NULL;
	jcal_internal_thread = 1;
	JavaVMAttachArgs args = {JNI_VERSION_1_6, (char *)"jcal limits", NULL};
	int attached =
	    (*jcal.vm)->AttachCurrentThreadAsDaemon(jcal.vm, (void **)&jni, &args) == JNI_OK;
	char msg[256];
	/* Not attached (the JVM is going down): the file is still finished.
	 * The generation names the recording: rotations keep it. */
	me.stop(attached ? jni : NULL, me.gen, reason, msg, sizeof(msg));
	if (attached)
		(*jcal.vm)->DetachCurrentThread(jcal.vm);
	return NULL;
}

void recording_limits_start(const struct jcal_options *o, recording_limits_stop_fn stop)
{
	pthread_t t;
	pthread_attr_t attr;
	int rc;

	pthread_once(&wake_once, init_wake);
	pthread_mutex_lock(&lock);
	generation++;
	at_limit = 0;
	current.gen = generation;
	current.duration_s = o->duration_s;
	current.maxsize = o->maxsize;
	current.stop = stop;
	pthread_mutex_unlock(&lock);
	if (!o->duration_s && !o->maxsize)
		return;
	/* The thread gets its own copy: a later start changes current. */
	struct limits *mine = malloc(sizeof(*mine));
	pthread_mutex_lock(&lock);
	if (mine)
		*mine = current;
	pthread_mutex_unlock(&lock);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = mine ? pthread_create(&t, &attr, limits_main, mine) : ENOMEM;
	pthread_attr_destroy(&attr);
	if (rc)
		free(mine);
	if (rc)
		jcal_warn("cannot start the thread of duration=/maxsize= (%s): the recording "
			  "runs until stop or the JVM's end",
			  strerror(rc));
}

void recording_limits_wake(void)
{
	pthread_once(&wake_once, init_wake);
	pthread_mutex_lock(&lock);
	at_limit = 1;
	pthread_cond_broadcast(&wake);
	pthread_mutex_unlock(&lock);
}

int recording_limits_current(unsigned gen)
{
	int same;

	pthread_once(&wake_once, init_wake);
	pthread_mutex_lock(&lock);
	same = generation == gen;
	pthread_mutex_unlock(&lock);
	return same;
}

void recording_limits_cancel(void)
{
	pthread_once(&wake_once, init_wake);
	pthread_mutex_lock(&lock);
	generation++;
	pthread_cond_broadcast(&wake);
	pthread_mutex_unlock(&lock);
}
