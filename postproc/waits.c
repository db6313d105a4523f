/*
 * waits.c - the MONITOR records a model keeps (waits.h).
 */
#include "postproc/waits.h"

#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "common/grow.h"

struct waits_cls_idx {
	const char *key; /* the interned string */
	uint32_t i;
	UT_hash_handle hh;
};

/* The index of class signature sig in w->cls, added when new; -1 when
 * memory runs out. */
static int64_t intern(struct waits *w, const char *sig)
{
	struct waits_cls_idx *e;
	char *s;

	HASH_FIND_STR(w->idx, sig, e);
	if (e)
		return e->i;
	if (w->ncls >= UINT32_MAX || grow(&w->cls, &w->cls_cap, w->ncls + 1) ||
	    !(e = calloc(1, sizeof(*e))))
		return -1;
	if (!(s = strdup(sig))) {
		free(e);
		return -1;
	}
	w->cls[w->ncls] = s;
	e->key = s;
	e->i = (uint32_t)w->ncls++;
	HASH_ADD_KEYPTR(hh, w->idx, e->key, strlen(e->key), e);
	return e->i;
}

int waits_add(struct waits *w, const struct trace_monitor *m)
{
	struct waits_rec *r;
	int64_t cls;

	if (m->kind != TRACE_MON_ENTER && m->kind != TRACE_MON_WAIT) {
		w->other_kinds++;
		return 0;
	}
	if (grow(&w->r, &w->cap, w->n + 1) || (cls = intern(w, m->class_sig)) < 0)
		return -1;
	r = &w->r[w->n++];
	memset(r, 0, sizeof(*r));
	r->serial = m->thread;
	r->kind = (uint8_t)m->kind;
	r->timed_out = (m->flags & TRACE_MON_TIMED_OUT) != 0;
	r->method = m->method;
	r->cls = (uint32_t)cls;
	r->wall_ns = m->wall_ns;
	r->nmetrics = m->nmetrics;
	for (unsigned i = 0; i < m->nmetrics && i < JCAL_MAX_METRICS; i++) {
		r->start[i] = m->start[i];
		r->delta[i] = m->end[i] >= m->start[i] ? m->end[i] - m->start[i] : 0;
	}
	return 0;
}

void waits_free(struct waits *w)
{
	struct waits_cls_idx *e, *tmp;

	HASH_ITER (hh, w->idx, e, tmp) {
		HASH_DEL(w->idx, e);
		free(e);
	}
	for (size_t i = 0; i < w->ncls; i++)
		free(w->cls[i]);
	free(w->cls);
	free(w->r);
	memset(w, 0, sizeof(*w));
}
