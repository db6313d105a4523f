/*
 * offcpu.h - --metric offcpu: the time a thread spent off the CPU, wall
 * time minus CPU time, for a trace or snapshot that recorded both
 * (metric=cputime+tsc; docs/jcal-post.md, "Off the CPU").
 *
 * Per context, base and cum are the raw wall time (the tsc metric, in ns)
 * minus the raw CPU time (cputime), 0 where the CPU time is the larger
 * (the two clocks tick apart by a little); cum is the sum of the bases of
 * the context and those below it. Raw on purpose: the agent's own work
 * runs on the CPU and takes as much wall time as CPU time, so it drops out
 * of the difference, compensated or not; the calibrated figures are the
 * raw ones.
 */
#ifndef JCAL_OFFCPU_H
#define JCAL_OFFCPU_H

#include <stddef.h>
#include <stdint.h>

#include "postproc/model.h"

/* Where the parts of the off-CPU time are: the wall (tsc) and CPU
 * (cputime) metrics' indices, the TSC's frequency, and the off-CPU
 * metric's own index (ok: offcpu_add made it). */
struct offcpu_parts {
	int ok;
	unsigned wall, cpu, index;
	double hz;
};

/* Adds the metric "offcpu" (unit ns) to m (finished, traced or a
 * snapshot) after its own metrics, with every thread's figures. Returns 0,
 * or -1 with err saying why (no tsc or no cputime metric, no memory). */
int offcpu_add(struct model *m, char *err, size_t len);

/* A thread's wall time (its tree's raw tsc cum, in ns) and the part of it
 * off the CPU (the sum of its contexts' off-CPU bases, as --metric offcpu
 * gives its root's cum). Returns 0, or -1 when m has no tsc and cputime
 * metrics. */
int offcpu_thread(const struct model *m, const struct calltree *t, uint64_t *wall, uint64_t *off);

/* Whether metric is the one offcpu_add made. */
int offcpu_is(const struct model *m, unsigned metric);

/* Fills p from m (p->ok 0 when m has no off-CPU metric). */
void offcpu_parts(const struct model *m, struct offcpu_parts *p);

/* One call's duration for metric from its cum and raw cum (nm metrics):
 * the off-CPU time in ns for p's metric, else cum[metric] (0 past nm). */
uint64_t offcpu_call(const struct offcpu_parts *p, unsigned metric, const uint64_t *cum,
		     const uint64_t *raw, unsigned nm);

/* The off-CPU time of raw wall and CPU figures w and c (ns). */
static inline uint64_t offcpu_of(uint64_t w, uint64_t c)
{
	return w > c ? w - c : 0;
}

#endif
