/*
 * replay.c - a second read of the trace as balanced frame spans per thread
 * (see replay.h).
 */
#include "postproc/replay.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "postproc/progress.h"
#include "common/satsum.h"
#include "postproc/shaping.h"
#include "common/u64map.h"

struct rframe {
	uint32_t method;
	uint32_t rdepth; /* reported depth, 0 for excluded frames */
	uint64_t opened;
};

struct rstate {
	const struct model_thread *t;
	int in_batch, begun;
	struct rframe *stack;
	uint32_t depth, cap;
	uint64_t first, last;
	uint32_t *unmatched; /* prescan: methods of unmatched exits, in order */
	size_t nun, uncap;
};

struct replay {
	const struct model *m;
	const struct replay_opts *ro;
	const struct replay_cb *cb;
	struct rstate *st;
	size_t nst;
	struct u64map idx;  /* serial -> state */
	struct u64map excl; /* method -> 0/1 */
	int pass;	    /* 1 prescan, 2 report */
	char *err;
	size_t errlen;
	int cb_failed;
};

static int is_excluded(struct replay *r, uint32_t method)
{
	uint32_t *v;
	char buf[1024];
	int x;

	if (!r->ro->nexclude)
		return 0;
	v = u64map_find(&r->excl, method);
	if (v)
		return (int)*v;
	shape_method_name(r->m, method, buf, sizeof(buf));
	x = shape_match(r->ro->exclude, r->ro->nexclude, buf);
	u64map_put(&r->excl, method, (uint32_t)x); /* no memory: asked again next time */
	return x;
}

static int push(struct rstate *s, uint32_t method, uint32_t rdepth, uint64_t at)
{
	size_t cap = s->cap;

	if (s->depth == s->cap &&
	    (s->cap >= UINT32_MAX / 2 || grow(&s->stack, &cap, (size_t)s->depth + 1)))
		return -1;
	s->cap = (uint32_t)cap;
	s->stack[s->depth].method = method;
	s->stack[s->depth].rdepth = rdepth;
	s->stack[s->depth].opened = at;
	s->depth++;
	return 0;
}

static uint32_t top_rdepth(const struct rstate *s)
{
	for (uint32_t d = s->depth; d > 0; d--)
		if (s->stack[d - 1].rdepth)
			return s->stack[d - 1].rdepth;
	return 0;
}

static int fail_cb(struct replay *r)
{
	r->cb_failed = 1;
	return -1;
}

/* Opens a frame (pass 2 reports it). */
static int open_frame(struct replay *r, struct rstate *s, uint32_t method, uint64_t at)
{
	uint32_t rd = 0;

	if (r->pass == 2 && !is_excluded(r, method)) {
		rd = top_rdepth(s) + 1;
		if (r->cb->open && r->cb->open(r->cb->ctx, s->t, method, at))
			return fail_cb(r);
	}
	if (push(s, method, rd, at)) {
		snprintf(r->err, r->errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* Pops frames down to depth d, closing the reported ones at at. */
static int pop_to(struct replay *r, struct rstate *s, uint32_t d, uint64_t at)
{
	while (s->depth > d) {
		struct rframe *f = &s->stack[--s->depth];

		if (r->pass == 2 && f->rdepth && r->cb->close &&
		    r->cb->close(r->cb->ctx, s->t, f->method, f->opened, at, f->rdepth))
			return fail_cb(r);
	}
	return 0;
}

static int unmatched_add(struct replay *r, struct rstate *s, uint32_t method)
{
	if (grow(&s->unmatched, &s->uncap, s->nun + 1)) {
		snprintf(r->err, r->errlen, "out of memory");
		return -1;
	}
	s->unmatched[s->nun++] = method;
	return 0;
}

static int on_event(void *ctx, const struct trace_event *e)
{
	struct replay *r = ctx;
	uint32_t *v = u64map_find(&r->idx, e->thread);
	struct rstate *s;
	uint64_t at;
	uint32_t d;

	if (!v || e->transition == JCAL_TR_CONTROL) /* timelines ignore region marks */
		return 0;
	s = &r->st[*v];
	if (!s->in_batch)
		return 0;
	at = r->ro->metric < e->nmetrics
		 ? model_value(r->m, r->ro->metric, e->metric[r->ro->metric])
		 : 0;
	if (!s->begun) {
		s->begun = 1;
		s->first = s->last = at;
		if (r->pass == 2) {
			if (r->cb->begin && r->cb->begin(r->cb->ctx, s->t, at))
				return fail_cb(r);
			for (size_t i = s->nun; i-- > 0;)
				if (open_frame(r, s, s->unmatched[i], at))
					return -1;
		}
	}
	if (at < s->last)
		at = s->last;
	s->last = at;
	if (e->transition == JCAL_TR_ENTRY)
		return open_frame(r, s, e->method, at);
	for (d = s->depth; d > 0 && s->stack[d - 1].method != e->method; d--)
		;
	if (d > 0)
		return pop_to(r, s, d - 1, at);
	/* not on the stack: live before tracing started */
	if (pop_to(r, s, 0, at))
		return -1;
	if (r->pass == 1)
		return unmatched_add(r, s, e->method);
	if (!is_excluded(r, e->method) && r->cb->close &&
	    r->cb->close(r->cb->ctx, s->t, e->method, s->first, at, 1))
		return fail_cb(r);
	return 0;
}

static int by_serial(const void *a, const void *b)
{
	const struct model_thread *x = *(const struct model_thread *const *)a;
	const struct model_thread *y = *(const struct model_thread *const *)b;

	return x->serial < y->serial ? -1 : x->serial > y->serial;
}

/* The selected threads that have events, by serial (malloc'ed). */
static const struct model_thread **selected(const struct model *m, const struct threadsel *sel,
					    size_t *n)
{
	const struct model_thread **l;
	struct model_thread *t, *tmp;
	size_t k = 0;

	l = malloc((HASH_COUNT(m->threads) + 1) * sizeof(*l));
	if (!l)
		return NULL;
	HASH_ITER (hh, m->threads, t, tmp)
		if (t->tree.stats.events && model_thread_selected(sel, t))
			l[k++] = t;
	qsort(l, k, sizeof(*l), by_serial);
	*n = k;
	return l;
}

size_t replay_threads(const struct model *m, const struct threadsel *sel)
{
	size_t n = 0;
	const struct model_thread **l = selected(m, sel, &n);

	free(l);
	return n;
}

static int read_pass(struct replay *r, int pass)
{
	struct trace_visitor v = {0};
	struct trace_result res;
	enum trace_status st;

	r->pass = pass;
	for (size_t i = 0; i < r->nst; i++) {
		r->st[i].begun = 0;
		r->st[i].depth = 0;
	}
	v.ctx = r;
	v.event = on_event;
	st =
	    progress_read(r->ro->path, &v, &res, r->ro->progress, pass == 1 ? "prescan" : "replay");
	if (st == TRACE_ABORTED)
		return -1; /* err set by the callback or by us */
	if (st != TRACE_OK && st != TRACE_TRUNCATED) {
		snprintf(r->err, r->errlen, "%s: %s", r->ro->path,
			 res.msg[0] ? res.msg : trace_status_str(st));
		return -1;
	}
	return 0;
}

/*
 * A tree snapshot has no events: each thread's tree is laid out as spans
 * instead (docs/jcal-post.md, "Tree snapshots"). A context's span lasts
 * its raw cum; its children follow one another from its start, in the
 * order they were first called, and its own time comes after them.
 */
static int replay_tree(struct replay *r, const struct model_thread *th)
{
	const struct calltree *t = &th->tree;
	const struct replay_cb *cb = r->cb;
	const struct model *m = r->m;
	unsigned mi = r->ro->metric < t->nmetrics ? r->ro->metric : 0;
	uint64_t *start = malloc((size_t)t->nnodes * 2 * sizeof(*start)), *cursor;
	uint32_t *rd = malloc((size_t)t->nnodes * sizeof(*rd)), *stack, depth = 0;
	int ret = -1;

	stack = malloc(((size_t)t->max_level + 1) * sizeof(*stack));
	if (!start || !rd || !stack) {
		snprintf(r->err, r->errlen, "out of memory");
		goto out;
	}
	cursor = start + t->nnodes;
	start[CALLTREE_ROOT] = cursor[CALLTREE_ROOT] = 0;
	rd[CALLTREE_ROOT] = 0;
	if (cb->begin && cb->begin(cb->ctx, th, 0))
		goto cb_failed;
	for (uint32_t i = 1; i <= t->nnodes; i++) {
		uint32_t n = i < t->nnodes ? t->order[i] : CALLTREE_NONE;
		uint32_t p = i < t->nnodes ? t->nodes[n].parent : CALLTREE_ROOT;

		/* close the frames this node is not below */
		while (depth && stack[depth - 1] != p) {
			uint32_t c = stack[--depth];
			const struct calltree_node *cn = &t->nodes[c];
			const struct calltree_fig *cnf = calltree_fig(t, c, 0);

			if (rd[c] != rd[cn->parent] && cb->close &&
			    cb->close(
				cb->ctx, th, cn->method, model_value(m, mi, start[c]),
				model_value(m, mi,
					    satsum_add(start[c], cnf[mi].raw_cum, SATSUM_RAW_CUM)),
				rd[c]))
				goto cb_failed;
		}
		if (i == t->nnodes)
			break;
		start[n] = cursor[n] = cursor[p];
		cursor[p] = satsum_add(cursor[p], calltree_fig(t, n, mi)->raw_cum, SATSUM_RAW_CUM);
		rd[n] = rd[p] + !is_excluded(r, t->nodes[n].method);
		if (rd[n] != rd[p] && cb->open &&
		    cb->open(cb->ctx, th, t->nodes[n].method, model_value(m, mi, start[n])))
			goto cb_failed;
		stack[depth++] = n;
	}
	if (cb->end &&
	    cb->end(cb->ctx, th, model_value(m, mi, calltree_fig(t, CALLTREE_ROOT, mi)->raw_cum)))
		goto cb_failed;
	ret = 0;
	goto out;
cb_failed:
	r->cb_failed = 1;
out:
	free(start);
	free(rd);
	free(stack);
	return ret;
}

int replay_run(const struct model *m, const struct replay_opts *ro, const struct replay_cb *cb,
	       char *err, size_t errlen)
{
	struct replay r = {0};
	const struct model_thread **l;
	size_t n = 0;
	int ret = -1;

	r.m = m;
	r.ro = ro;
	r.cb = cb;
	r.err = err;
	r.errlen = errlen;
	err[0] = '\0';
	if (!m->snapshot && !strcmp(ro->path, "-")) {
		snprintf(err, errlen, "this export reads the trace again: give a file, not stdin");
		return -1;
	}
	l = selected(m, ro->sel, &n);
	r.st = calloc(n ? n : 1, sizeof(*r.st));
	if (!l || !r.st || u64map_init(&r.idx, n + 1) || u64map_init(&r.excl, 256)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	r.nst = n;
	for (size_t i = 0; i < n; i++) {
		r.st[i].t = l[i];
		r.st[i].in_batch = !ro->batch || i / ro->batch == ro->batch_no;
		if (u64map_put(&r.idx, l[i]->serial, (uint32_t)i)) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	}
	if (m->snapshot) {
		for (size_t i = 0; i < n; i++)
			if (r.st[i].in_batch && replay_tree(&r, l[i]))
				goto out;
		ret = 0;
		goto out;
	}
	if ((ro->prescan && read_pass(&r, 1)) || read_pass(&r, 2))
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct rstate *s = &r.st[i];

		if (!s->in_batch || !s->begun)
			continue;
		if (pop_to(&r, s, 0, s->last) ||
		    (cb->end && cb->end(cb->ctx, s->t, s->last) && fail_cb(&r)))
			goto out;
	}
	ret = 0;
out:
	if (ret && !err[0] && !r.cb_failed)
		snprintf(err, errlen, "out of memory");
	for (size_t i = 0; r.st && i < r.nst; i++) {
		free(r.st[i].stack);
		free(r.st[i].unmatched);
	}
	free(r.st);
	free(l);
	u64map_free(&r.idx);
	u64map_free(&r.excl);
	return ret;
}
