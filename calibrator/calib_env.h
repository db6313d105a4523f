/*
 * calib_env.h - the execution-environment overhead of each sequence key
 * (docs/calibration-format.md), from call costs measured in an
 * uninstrumented -Xint JVM.
 *
 * Pure code: parses EnvTimer's output and splits call costs over keys.
 */
#ifndef JCAL_CALIB_ENV_H
#define JCAL_CALIB_ENV_H

#include <stddef.h>

struct calib_env {
	double call[4][4];   /* ns per empty call, caller x callee, types I i N n */
	double thrown[4][4]; /* ns per call whose callee throws and the caller catches */
	int have_call[4][4], have_throw[4][4];
};

/* Parses "call A B NS" / "throw A B NS" lines ending with "done".
 * 0, or -1 with a message naming the bad line. */
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
 * root (O) is costed like a static caller, jitted types like interpreted. */
double calib_env_key(const struct calib_env *e, const char *key);

#endif
