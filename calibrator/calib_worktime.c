/*
 * calib_worktime.c - times the workload's work loop in the calibration JVM
 * (see calib_worktime.h).
 */
#include "calibrator/calib_worktime.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calibrator/calib_natives.h"
#include "calibrator/calib_programs.h"

/* Calls per timing: short, so that the fastest samples are undisturbed. */
#define CALLS 200

int calib_worktime_init(JNIEnv *env, struct calib_worktime *w)
{
	memset(w, 0, sizeof(*w));
	w->repeat =
	    (*env)->GetStaticMethodID(env, calib_natives_workload_class(), "repeat", "([II)V");
	if (!w->repeat) {
		(*env)->ExceptionClear(env);
		return -1;
	}
	for (int t = 0; t < CALIB_WORKTIME_TYPES; t++) {
		jint code[4] = {t, 0, 0, 4};
		jintArray a = (*env)->NewIntArray(env, 4);

		if (!a) {
			(*env)->ExceptionClear(env);
			calib_worktime_free(env, w);
			return -1;
		}
		(*env)->SetIntArrayRegion(env, a, 0, 4, code);
		w->leaf[t] = (*env)->NewGlobalRef(env, a);
		(*env)->DeleteLocalRef(env, a);
		if (!w->leaf[t]) {
			calib_worktime_free(env, w);
			return -1;
		}
	}
	return 0;
}

void calib_worktime_free(JNIEnv *env, struct calib_worktime *w)
{
	for (int t = 0; t < CALIB_WORKTIME_TYPES; t++)
		if (w->leaf[t]) {
			(*env)->DeleteGlobalRef(env, w->leaf[t]);
			w->leaf[t] = NULL;
		}
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ns of CALLS calls of leaf node t with the loop at iterations, made from
 * Java (Workload.repeat): a loop that follows a Java call costs what it
 * costs in a program, which one after a call from native code, the JNI
 * transition having disturbed the CPU, does not. */
static double time_calls(JNIEnv *env, const struct calib_worktime *w, int t, int iterations)
{
	uint64_t t0;

	calib_natives_set_work(env, iterations);
	t0 = cpu_ns();
	(*env)->CallStaticVoidMethod(env, calib_natives_workload_class(), w->repeat, w->leaf[t],
				     (jint)CALLS);
	if ((*env)->ExceptionCheck(env))
		(*env)->ExceptionClear(env);
	return (double)(cpu_ns() - t0);
}

void calib_worktime_sample(JNIEnv *env, struct calib_worktime *w, const int *levels, int nlevels)
{
	if (nlevels > CALIB_WORKTIME_LEVELS)
		nlevels = CALIB_WORKTIME_LEVELS;
	for (int t = 0; t < CALIB_WORKTIME_TYPES && w->leaf[t]; t++)
		for (int l = 0; l < nlevels; l++) {
			double with = time_calls(env, w, t, levels[l]);
			double without = time_calls(env, w, t, 0);
			unsigned *n = &w->n[t][l];

			if (*n < CALIB_WORKTIME_BLOCKS)
				w->ns[t][l][(*n)++] = (with - without) / CALLS;
		}
	calib_natives_set_work(env, 0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double calib_worktime_ns(const struct calib_worktime *w, int type, int level)
{
	double v[CALIB_WORKTIME_BLOCKS], m;
	unsigned n;

	if (type < 0 || type >= CALIB_WORKTIME_TYPES || level < 0 ||
	    level >= CALIB_WORKTIME_LEVELS || !(n = w->n[type][level]))
		return -1;
	memcpy(v, w->ns[type][level], n * sizeof(v[0]));
	qsort(v, n, sizeof(v[0]), cmp_double);
	m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return m > 0 ? m : 0;
}
