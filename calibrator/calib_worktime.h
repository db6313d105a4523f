/*
 * calib_worktime.h - the untraced cost of the calibration workload's work
 * loop (Workload.work), timed in the calibration JVM itself (mode=events):
 * between blocks of traced rounds, with the thread's method events off, a
 * leaf node of each type is called from Java (Workload.repeat) with each
 * loop length and with none, on the thread's CPU clock. Timed at the same moment and in the same
 * JVM as the traced steps, the loop's cost is not shifted by what else the host runs meanwhile
 * (docs/calibration-format.md, "a= b=").
 */
#ifndef JCAL_CALIB_WORKTIME_H
#define JCAL_CALIB_WORKTIME_H

#include <jni.h>

#define CALIB_WORKTIME_TYPES 4	 /* node types I i N n */
#define CALIB_WORKTIME_LEVELS 8	 /* loop lengths */
#define CALIB_WORKTIME_BLOCKS 64 /* samples kept per type and length */

struct calib_worktime {
	jmethodID repeat;		      /* Workload.repeat */
	jintArray leaf[CALIB_WORKTIME_TYPES]; /* global refs: {type, 0, 0, 4} */
	double ns[CALIB_WORKTIME_TYPES][CALIB_WORKTIME_LEVELS][CALIB_WORKTIME_BLOCKS];
	unsigned n[CALIB_WORKTIME_TYPES][CALIB_WORKTIME_LEVELS];
};

/* Makes the leaf nodes. Returns 0, or -1 (out of memory in the JVM). */
int calib_worktime_init(JNIEnv *env, struct calib_worktime *w);
void calib_worktime_free(JNIEnv *env, struct calib_worktime *w);

/* One sample of every type and of the loop lengths levels[0..nlevels-1]
 * (the thread's method events must be off); leaves the loop at 0. */
void calib_worktime_sample(JNIEnv *env, struct calib_worktime *w, const int *levels, int nlevels);

/* The median of the samples of node type type (CALIB_I ... CALIB_n) and
 * length index level, in ns per loop; -1 without samples. */
double calib_worktime_ns(const struct calib_worktime *w, int type, int level);

#endif
