/*
 * calib_env.h - the execution-environment overhead of each sequence key
 * (docs/calibration-format.md), from call costs measured in an
 * uninstrumented JVM: -Xint for mode=events (types I i N n), mixed mode
 * for mode=bci (types I i J j).
 *
 * Pure code: parses EnvTimer's output and splits call costs over keys.
 */
#ifndef JCAL_CALIB_ENV_H
#define JCAL_CALIB_ENV_H

#include <stddef.h>

/* Types the env timer measures, in this order: I i N n J j. */
#define CALIB_ENV_TYPES 6

/* Work loop lengths the env timer may report (Workload.work). */
#define CALIB_ENV_WORK_MAX 8

/* Costs caller x callee, by type index (CALIB_ENV_TYPES). */
struct calib_env {
	/* ns per empty call */
	double call[CALIB_ENV_TYPES][CALIB_ENV_TYPES];
	/* ns per call whose callee throws and whose caller catches */
	double thrown[CALIB_ENV_TYPES][CALIB_ENV_TYPES];
	int have_call[CALIB_ENV_TYPES][CALIB_ENV_TYPES];
	int have_throw[CALIB_ENV_TYPES][CALIB_ENV_TYPES];
	/* ns of a node's work loop of work_iters[l] iterations, per type */
	int work_iters[CALIB_ENV_WORK_MAX];
	unsigned nwork;
	double work[CALIB_ENV_TYPES][CALIB_ENV_WORK_MAX];
	int have_work[CALIB_ENV_TYPES][CALIB_ENV_WORK_MAX];
};

/* Parses "call A B NS" / "throw A B NS" lines ending with "done" (A, B
 * among I i N n J j), and "work A K NS" lines (the cost of a node's work
 * loop of K iterations, optional; at most CALIB_ENV_WORK_MAX lengths). Every pair of I i N n, or
 * every pair of I i J j, must be there (both sets may be): 0, or -1 with a message naming the bad
 * line or the missing pair. */
int calib_env_parse(struct calib_env *e, const char *text, char *err, size_t errlen);

/* Environment cost, in ns, of the step whose key is "m1:t1:m2:t2:m3"
 * (type letters I i J j N n O, transitions E X T). Returns -1 for a
 * malformed key.
 *
 * A call's uninstrumented cost is split in two halves around the callee's
 * entry and exit events: the step ending at the callee's entry carries the
 * first half of the call, the step starting at its exit carries the rest
 * (half a call for a normal return, the throwing cost minus half a call for
 * an exception). The callee's own empty body costs nothing here, so over a
 * whole call the halves add up to exactly the measured cost. The thread
 * root (O) is costed like a static interpreted caller; a jitted type (J j)
 * has its own costs when they were measured, else it is costed like its
 * interpreted twin (I i). Returns -1 as well when a pair the key needs
 * was not measured (N n without the I i N n set). */
double calib_env_key(const struct calib_env *e, const char *key);

/* ns of the work loop of iterations iterations in a node of type letter
 * type (I i N n J j), or -1 when it was not measured. */
double calib_env_work(const struct calib_env *e, char type, int iterations);

#endif
