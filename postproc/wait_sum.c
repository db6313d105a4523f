/*
 * wait_sum.c - the figures of the waits the JVM reported (wait_sum.h).
 */
#include "postproc/wait_sum.h"

#include <stdlib.h>
#include <string.h>

#include "common/satsum.h"
#include "postproc/names.h"
#include "postproc/offcpu.h"

void wait_clock_init(const struct model *m, struct wait_clock *c)
{
	int w = model_metric_index(m, "tsc"), k = model_metric_index(m, "cputime");

	memset(c, 0, sizeof(*c));
	if (w >= 0 && !m->metric[w].offcpu && m->metric[w].tsc_hz > 0) {
		c->tsc = 1;
		c->wall_i = (unsigned)w;
		c->hz = m->metric[w].tsc_hz;
	}
	if (k >= 0 && !m->metric[k].offcpu && !(m->metric[k].tsc_hz > 0)) {
		c->cpu = 1;
		c->cpu_i = (unsigned)k;
	}
}

uint64_t wait_wall(const struct wait_clock *c, const struct waits_rec *r)
{
	(void)c;
	return r->wall_ns;
}

uint64_t wait_off(const struct wait_clock *c, const struct waits_rec *r)
{
	if (!c->tsc || !c->cpu || c->wall_i >= r->nmetrics || c->cpu_i >= r->nmetrics)
		return r->wall_ns;
	return offcpu_of(model_ticks_value(c->hz, r->delta[c->wall_i]), r->delta[c->cpu_i]);
}

void wait_class_name(const struct model *m, uint32_t cls, char *buf, size_t len)
{
	names_class(cls < m->waits.ncls ? m->waits.cls[cls] : "L<unknown>;", buf, len);
}

/* Orders by kind, then time (largest first), then the class's name. */
static const struct model *sort_model;

static int cmp_class_sum(const void *a, const void *b)
{
	const struct wait_class_sum *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	return strcmp(sort_model->waits.cls[x->cls], sort_model->waits.cls[y->cls]);
}

int wait_thread_sum(const struct model *m, uint32_t serial, int off, struct wait_thread_sum *s)
{
	struct wait_clock c;

	memset(s, 0, sizeof(*s));
	wait_clock_init(m, &c);
	for (size_t i = 0; i < m->waits.n; i++) {
		const struct waits_rec *r = &m->waits.r[i];
		uint64_t t = off ? wait_off(&c, r) : wait_wall(&c, r);
		size_t k = 0;

		if (r->serial != serial)
			continue;
		s->count[r->kind]++;
		satsum_addto(&s->time[r->kind], t, SATSUM_CUM);
		while (k < s->n && (s->by_cls[k].kind != r->kind || s->by_cls[k].cls != r->cls))
			k++;
		if (k == s->n) {
			struct wait_class_sum *p = realloc(s->by_cls, (s->n + 1) * sizeof(*p));

			if (!p) {
				wait_thread_sum_free(s);
				return -1;
			}
			s->by_cls = p;
			s->by_cls[s->n++] = (struct wait_class_sum){r->kind, r->cls, 0, 0};
		}
		s->by_cls[k].count++;
		satsum_addto(&s->by_cls[k].time, t, SATSUM_CUM);
	}
	sort_model = m;
	if (s->n)
		qsort(s->by_cls, s->n, sizeof(*s->by_cls), cmp_class_sum);
	return 0;
}

void wait_thread_sum_free(struct wait_thread_sum *s)
{
	free(s->by_cls);
	memset(s, 0, sizeof(*s));
}

static int cmp_key(const void *a, const void *b)
{
	const struct wait_row *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	return x->method < y->method ? -1 : x->method > y->method;
}

static int cmp_shown(const void *a, const void *b)
{
	const struct wait_row *x = a, *y = b;
	int d;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if ((d = strcmp(sort_model->waits.cls[x->cls], sort_model->waits.cls[y->cls])))
		return d;
	return x->method < y->method ? -1 : x->method > y->method;
}

int wait_selected(const struct model *m, const struct threadsel *sel, uint32_t serial)
{
	struct model_thread *t;

	if (!sel)
		return 1;
	HASH_FIND(hh, m->threads, &serial, sizeof(serial), t);
	return t && model_thread_selected(sel, t);
}

/* Adds up the runs of rows of one key (rows sorted by it); the count left. */
static size_t merge_runs(struct wait_row *rows, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (k && !cmp_key(&rows[k - 1], &rows[i])) {
			struct wait_row *d = &rows[k - 1];

			d->count += rows[i].count;
			satsum_addto(&d->total, rows[i].total, SATSUM_CUM);
			d->max = rows[i].max > d->max ? rows[i].max : d->max;
			d->timeouts += rows[i].timeouts;
		} else {
			rows[k++] = rows[i];
		}
	}
	return k;
}

int wait_rows(const struct model *m, const struct threadsel *sel, struct wait_row **rows, size_t *n)
{
	struct wait_clock c;
	struct wait_row *r;
	size_t k = 0;

	*rows = NULL;
	*n = 0;
	if (!m->waits.n)
		return 0;
	if (!(r = calloc(m->waits.n, sizeof(*r))))
		return -1;
	wait_clock_init(m, &c);
	for (size_t i = 0; i < m->waits.n; i++) {
		const struct waits_rec *w = &m->waits.r[i];
		uint64_t t = wait_wall(&c, w);

		if (!wait_selected(m, sel, w->serial))
			continue;
		r[k++] = (struct wait_row){
		    w->kind,	 w->method ? model_event_method(m, w->method) : 0, w->cls, 1, t, t,
		    w->timed_out};
	}
	if (k)
		qsort(r, k, sizeof(*r), cmp_key);
	k = merge_runs(r, k);
	sort_model = m;
	if (k)
		qsort(r, k, sizeof(*r), cmp_shown);
	if (!k) {
		free(r);
		r = NULL;
	}
	*rows = r;
	*n = k;
	return 0;
}
