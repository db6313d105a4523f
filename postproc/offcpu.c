/*
 * offcpu.c - the off-CPU metric, wall minus CPU time (see offcpu.h).
 */
#include "postproc/offcpu.h"

#include <stdlib.h>
#include <string.h>

#include "common/satsum.h"

#define OFFCPU_NAME "offcpu"

int offcpu_is(const struct model *m, unsigned metric)
{
	return metric < m->nmetrics && m->metric[metric].offcpu;
}

/* The index of metric name, or -1. */
static int find(const struct model *m, const char *name)
{
	for (unsigned i = 0; i < m->nmetrics; i++)
		if (!m->metric[i].offcpu && !strcmp(m->metric[i].name, name))
			return (int)i;
	return -1;
}

void offcpu_parts(const struct model *m, struct offcpu_parts *p)
{
	int w = find(m, "tsc"), c = find(m, "cputime");

	memset(p, 0, sizeof(*p));
	for (unsigned i = 0; i < m->nmetrics; i++)
		if (m->metric[i].offcpu && w >= 0 && c >= 0) {
			p->ok = 1;
			p->index = i;
			p->wall = (unsigned)w;
			p->cpu = (unsigned)c;
			p->hz = m->metric[w].tsc_hz;
		}
}

uint64_t offcpu_call(const struct offcpu_parts *p, unsigned metric, const uint64_t *cum,
		     const uint64_t *raw, unsigned nm)
{
	if (p->ok && metric == p->index)
		return p->wall < nm && p->cpu < nm
			   ? offcpu_of(model_ticks_value(p->hz, raw[p->wall]), raw[p->cpu])
			   : 0;
	return metric < nm ? cum[metric] : 0;
}

int offcpu_thread(const struct model *m, const struct calltree *t, uint64_t *wall, uint64_t *off)
{
	int w = find(m, "tsc"), c = find(m, "cputime");
	double hz;

	*wall = *off = 0;
	if (w < 0 || c < 0 || (unsigned)w >= t->nmetrics || (unsigned)c >= t->nmetrics || !t->nodes)
		return -1;
	hz = m->metric[w].tsc_hz;
	*wall = model_ticks_value(hz, calltree_fig(t, CALLTREE_ROOT, (unsigned)w)->raw_cum);
	for (uint32_t k = 0; k < t->nnodes; k++) {
		const struct calltree_fig *f = calltree_fig(t, k, 0);

		*off =
		    satsum_add(*off, offcpu_of(model_ticks_value(hz, f[w].raw_base), f[c].raw_base),
			       SATSUM_CUM);
	}
	return 0;
}

/* Gives t's tree n metrics (more than it has), the new ones 0. Returns 0
 * or -1. */
static int extend(struct calltree *t, unsigned n)
{
	size_t cap = t->cap ? t->cap : t->nnodes;
	struct calltree_fig *figs = calloc(cap ? cap * n : 1, sizeof(*figs));

	if (!figs)
		return -1;
	for (uint32_t k = 0; k < t->nnodes; k++)
		memcpy(&figs[(size_t)k * n], calltree_fig(t, k, 0), t->nmetrics * sizeof(*figs));
	free(t->figs);
	t->figs = figs;
	t->nmetrics = n;
	return 0;
}

/* The off-CPU figures of t (extended, finished) in metric p->index. */
static void fill(struct calltree *t, const struct offcpu_parts *p)
{
	for (uint32_t k = 0; k < t->nnodes; k++) {
		struct calltree_fig *f = calltree_fig(t, k, 0);
		uint64_t v =
		    offcpu_of(model_ticks_value(p->hz, f[p->wall].raw_base), f[p->cpu].raw_base);

		f[p->index].raw_base = f[p->index].base = v;
		f[p->index].raw_cum = f[p->index].cum = v;
	}
	/* cum from the leaves up: a node comes after its parent in order */
	for (uint32_t i = t->nnodes; t->order && i-- > 1;) {
		uint32_t n = t->order[i];
		struct calltree_fig *c = calltree_fig(t, n, p->index);
		struct calltree_fig *pf = calltree_fig(t, t->nodes[n].parent, p->index);

		satsum_addto(&pf->raw_cum, c->raw_cum, SATSUM_RAW_CUM);
		satsum_addto(&pf->cum, c->cum, SATSUM_CUM);
	}
}

int offcpu_add(struct model *m, char *err, size_t len)
{
	struct offcpu_parts p;
	struct model_metric *mm;
	int w = find(m, "tsc"), c = find(m, "cputime");

	if (w < 0 || c < 0 || m->metric[c].tsc_hz > 0) {
		snprintf(err, len,
			 "off-CPU time is wall time minus CPU time: it needs a recording with both "
			 "(metric=cputime+tsc)");
		return -1;
	}
	if (m->nmetrics >= JCAL_MAX_METRICS) {
		snprintf(err, len, "the input has %u metrics already: no room for one more",
			 m->nmetrics);
		return -1;
	}
	mm = &m->metric[m->nmetrics];
	memset(mm, 0, sizeof(*mm));
	snprintf(mm->name, sizeof(mm->name), OFFCPU_NAME);
	snprintf(mm->unit, sizeof(mm->unit), "ns");
	snprintf(mm->why, sizeof(mm->why), "wall time (tsc) minus CPU time (cputime), raw");
	mm->offcpu = 1;
	m->nmetrics++;
	offcpu_parts(m, &p);
	for (size_t i = 0; i < m->nthreads; i++) {
		struct calltree *t = &m->thread_list[i]->tree;

		if (!t->nodes)
			continue;
		if (extend(t, m->nmetrics)) {
			snprintf(err, len, "out of memory");
			return -1;
		}
		if ((unsigned)w < p.index && (unsigned)c < p.index)
			fill(t, &p);
	}
	return 0;
}
