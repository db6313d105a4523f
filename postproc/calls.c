/*
 * calls.c - the trace read again, call by call, with each call's duration
 * (see calls.h).
 */
#include "postproc/calls.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/u64map.h"
#include "postproc/offcpu.h"
#include "postproc/progress.h"

/* An open call, or (frame 0) what ran outside any frame. */
struct cframe {
	uint64_t start[JCAL_MAX_METRICS];
	struct calls_callee *callees;
	size_t n, cap;
	uint32_t gen; /* which opening of the frame (cthread.slot) */
};

struct cthread {
	struct calls_state *st;
	const struct model_thread *t;	/* the profile's */
	const struct model_thread *own; /* the input's (the same for one input) */
	struct calltree tree;
	int has_tree;
	uint64_t first[JCAL_MAX_METRICS]; /* metric values at its first event */
	struct cframe *fr;		  /* fr[0]: outside any frame */
	size_t depth, cap;
	/* with callees: per node, where it is among the callees of the frame
	 * of opening gen, so that a callee is found at once, however many
	 * its caller has */
	struct {
		uint32_t gen, at;
	} * slot;
	size_t nslot;
	uint32_t gen;
};

struct calls_state {
	const struct model *m;	 /* the profile */
	const struct model *src; /* the input read */
	struct calls_opts o;	 /* a copy */
	struct u64map meth;	 /* merged: the input's method id -> 1 + the profile's */
	int wall;		 /* the input's TSC metric, or -1 */
	int tsc_value;		 /* merged: durations of TSC ticks converted here */
	struct cthread *th;
	size_t n;
	struct u64map idx; /* serial -> index in th */
	struct offcpu_parts off;
	int failed; /* a callback ran out of memory */
};

/* A method of no METHOD record, in a merged profile: named "<unknown
 * method>" (model_method_name). */
#define CALLS_UNKNOWN_METHOD (UINT32_MAX - 3)

uint64_t calls_value(const struct model *m, unsigned metric, uint64_t v)
{
	return offcpu_is(m, metric) ? v : model_value(m, metric, v);
}

/* Adds what the call of node took to the callees of c's frame f. */
static int callee_add(struct cthread *c, struct cframe *f, uint32_t node, uint64_t v)
{
	size_t old = c->nslot;

	if (node >= old) {
		if (grow(&c->slot, &c->nslot, (size_t)node + 1))
			return -1;
		memset(c->slot + old, 0xff, (c->nslot - old) * sizeof(*c->slot));
	}
	if (c->slot[node].gen == f->gen && c->slot[node].at < f->n &&
	    f->callees[c->slot[node].at].node == node) {
		f->callees[c->slot[node].at].value += v;
		return 0;
	}
	if (f->n >= UINT32_MAX || grow(&f->callees, &f->cap, f->n + 1))
		return -1;
	c->slot[node].gen = f->gen;
	c->slot[node].at = (uint32_t)f->n;
	f->callees[f->n].node = node;
	f->callees[f->n++].value = v;
	return 0;
}

/* Room for need frames, the new ones empty. Returns 0 or -1. */
static int frames_room(struct cthread *c, size_t need)
{
	size_t old = c->cap;

	if (grow(&c->fr, &c->cap, need))
		return -1;
	memset(c->fr + old, 0, (c->cap - old) * sizeof(*c->fr));
	return 0;
}

static int on_enter(void *ctx, uint32_t node, const uint64_t *metric)
{
	struct cthread *c = ctx;
	struct cframe *f;

	(void)node;
	if (frames_room(c, c->depth + 2))
		return -1;
	f = &c->fr[++c->depth];
	memcpy(f->start, metric, c->tree.nmetrics * sizeof(*metric));
	f->n = 0;
	f->gen = ++c->gen;
	return 0;
}

/* The wall-clock start of a call of c entered at metric values start. */
static uint64_t wall_start(const struct cthread *c, const uint64_t *start)
{
	const struct model_thread *t = c->own;
	int w = c->st->wall;

	if (w < 0 || !t->start_ns || t->nstart_metric <= (unsigned)w ||
	    c->tree.nmetrics <= (unsigned)w || start[w] < t->start_metric[w])
		return 0;
	return t->start_ns +
	       model_ticks_value(c->st->src->metric[w].tsc_hz, start[w] - t->start_metric[w]);
}

static int on_leave(void *ctx, uint32_t node, const uint64_t *cum, const uint64_t *raw, int live)
{
	struct cthread *c = ctx;
	struct calls_state *st = c->st;
	const struct calls_opts *o = &st->o;
	struct calls_call call = {0};
	struct cframe *f = live || !c->depth ? &c->fr[0] : &c->fr[c->depth];
	int rc;

	call.source = o->source;
	call.thread = (size_t)(c - st->th);
	call.node = node;
	call.method = c->tree.nodes[node].method;
	call.value = offcpu_call(&st->off, o->metric, cum, raw, c->tree.nmetrics);
	if (st->tsc_value)
		call.value = model_value(st->src, o->metric, call.value);
	call.live = live || !c->depth;
	call.start_ns = wall_start(c, call.live ? c->first : f->start);
	call.callees = f->callees;
	call.ncallees = f->n;
	rc = o->call(o->ctx, &call);
	if (rc)
		return rc;
	if (call.live) {
		/* a frame inserted above the root: what ran outside any frame
		 * so far was its, and it is now what ran there */
		c->fr[0].n = 0;
		c->fr[0].gen = ++c->gen;
	} else {
		c->depth--;
	}
	return o->callees ? callee_add(c, &c->fr[c->depth], node, call.value) : 0;
}

/* The thread's tree, made at its first event with nm metrics. */
static int thread_setup(struct cthread *c, unsigned nm, const uint64_t *metric)
{
	const struct model *m = c->st->src;
	struct calltree_comp comp = m->comp;
	struct calltree_watch w = {c, on_enter, on_leave};

	comp.counted = NULL; /* the summary's counts are the first read's */
	if (calltree_init(&c->tree, nm, m->has_comp ? &comp : NULL))
		return -1;
	c->has_tree = 1;
	if (calltree_watch(&c->tree, &w) || frames_room(c, 4))
		return -1;
	memcpy(c->first, metric, nm * sizeof(*metric));
	return 0;
}

/* The profile's method for the input's method id. */
static uint32_t event_method(struct calls_state *st, uint32_t id)
{
	const struct model_method *mm;
	uint32_t *v, pid = CALLS_UNKNOWN_METHOD;

	id = model_event_method(st->src, id);
	if (st->src == st->m)
		return id;
	if ((v = u64map_find(&st->meth, id)))
		return *v - 1;
	HASH_FIND(hh, st->src->methods, &id, sizeof(id), mm);
	if (!mm || model_method_lookup(st->m, mm, &pid) != 0)
		pid = CALLS_UNKNOWN_METHOD;
	u64map_put(&st->meth, id, pid + 1); /* no memory: looked up again */
	return pid;
}

static int on_event(void *ctx, const struct trace_event *e)
{
	struct calls_state *st = ctx;
	uint32_t *v = u64map_find(&st->idx, e->thread);
	uint64_t fit[JCAL_MAX_METRICS] = {0};
	struct cthread *c;
	unsigned nm;

	if (!v)
		return 0;
	c = &st->th[*v];
	nm = e->nmetrics < JCAL_MAX_METRICS ? e->nmetrics : JCAL_MAX_METRICS;
	/* metrics the thread's first chunk had and this one lacks are 0, extra
	 * ones dropped, as the model does */
	memcpy(fit, e->metric, nm * sizeof(*fit));
	if (!c->has_tree && thread_setup(c, nm ? nm : 1, fit))
		goto oom;
	if (calltree_event(&c->tree,
			   e->transition == JCAL_TR_CONTROL ? e->method
							    : event_method(st, e->method),
			   e->transition, e->type, fit) == -ENOMEM)
		goto oom;
	return 0; /* an event the builder refuses is the first read's to report */
oom:
	st->failed = 1;
	return -1;
}

/* Refuses what holds no single calls. Returns 0 or -1 with err. */
static int readable(const struct model *m, const struct calls_opts *o, char *err, size_t len)
{
	if (m->snapshot || (o->src && o->src->snapshot))
		snprintf(err, len, "%s", CALLS_NEED_TRACE);
	else if ((m->ninputs && !o->src) || m->folded)
		snprintf(err, len, "%s", CALLS_ONE_TRACE);
	else if (!o->path || !strcmp(o->path, "-"))
		snprintf(err, len, "this report reads the trace again: give a file, not stdin");
	else
		return 0;
	return -1;
}

/* The profile's thread of the input's thread t (t itself for one input),
 * or NULL. */
static const struct model_thread *profile_thread(const struct calls_state *st,
						 const struct model_thread *t)
{
	if (st->src == st->m)
		return t;
	for (size_t i = 0; i < st->m->nthreads; i++) {
		const struct model_thread *p = st->m->thread_list[i];

		if (p->input == st->o.input && p->own_serial == t->serial)
			return p;
	}
	return NULL;
}

/* The selected threads of the input, indexed by serial. Returns 0 or -1. */
static int threads_setup(struct calls_state *st)
{
	const struct model *m = st->src;

	st->th = calloc(m->nthreads ? m->nthreads : 1, sizeof(*st->th));
	if (!st->th || u64map_init(&st->idx, m->nthreads + 1))
		return -1;
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct model_thread *t = profile_thread(st, m->thread_list[i]);

		if (!t || !model_thread_selected(st->o.sel, t))
			continue;
		st->th[st->n].st = st;
		st->th[st->n].t = t;
		st->th[st->n].own = m->thread_list[i];
		if (u64map_put(&st->idx, m->thread_list[i]->serial, (uint32_t)st->n))
			return -1;
		st->n++;
	}
	return 0;
}

int calls_read(const struct model *m, const struct calls_opts *o, struct calls_state **out,
	       char *err, size_t errlen)
{
	struct calls_state *st;
	struct trace_visitor v = {0};
	struct trace_result res;
	enum trace_status ts;

	*out = NULL;
	err[0] = '\0';
	if (readable(m, o, err, errlen))
		return -1;
	st = calloc(1, sizeof(*st));
	if (!st)
		goto oom;
	*out = st;
	st->m = m;
	st->src = o->src ? o->src : m;
	st->o = *o;
	st->wall = model_metric_index(st->src, "tsc");
	if (st->wall >= 0 && !(st->src->metric[st->wall].tsc_hz > 0))
		st->wall = -1;
	st->tsc_value =
	    st->src != m && o->metric < st->src->nmetrics && st->src->metric[o->metric].tsc_hz > 0;
	offcpu_parts(st->src, &st->off);
	if (u64map_init(&st->meth, 64) || threads_setup(st))
		goto oom;
	v.ctx = st;
	v.event = on_event;
	ts = progress_read(o->path, &v, &res, o->progress, "calls");
	if (st->failed)
		goto oom;
	if (ts != TRACE_OK && ts != TRACE_TRUNCATED) {
		snprintf(err, errlen, "%s: %s", o->path,
			 res.msg[0] ? res.msg : trace_status_str(ts));
		return -1;
	}
	for (size_t i = 0; i < st->n; i++)
		if (st->th[i].has_tree && calltree_finish(&st->th[i].tree))
			goto oom;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

size_t calls_nthreads(const struct calls_state *st)
{
	return st ? st->n : 0;
}

const struct model_thread *calls_thread(const struct calls_state *st, size_t i)
{
	return st->th[i].t;
}

const struct calltree *calls_tree(const struct calls_state *st, size_t i)
{
	return st->th[i].has_tree ? &st->th[i].tree : NULL;
}

void calls_free(struct calls_state *st)
{
	if (!st)
		return;
	for (size_t i = 0; st->th && i < st->n; i++) {
		struct cthread *c = &st->th[i];

		for (size_t k = 0; k < c->cap; k++)
			free(c->fr[k].callees);
		free(c->fr);
		free(c->slot);
		if (c->has_tree)
			calltree_free(&c->tree);
	}
	free(st->th);
	u64map_free(&st->idx);
	u64map_free(&st->meth);
	free(st);
}

int calls_read_all(const struct model *m, const struct calls_opts *o, const struct calls_inputs *in,
		   struct calls_state ***sts, size_t *n, char *err, size_t errlen)
{
	size_t count = m->ninputs ? m->ninputs : 1;

	*n = 0;
	if (!(*sts = calloc(count, sizeof(**sts)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!m->ninputs) {
		*n = 1;
		return calls_read(m, o, &(*sts)[0], err, errlen);
	}
	if (!in || !in->load) {
		snprintf(err, errlen, "%s", CALLS_ONE_TRACE);
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		struct calls_opts so = *o;
		const struct model *sub;
		int rc;

		if (in->load(in->ctx, i, &sub)) {
			snprintf(err, errlen, "%s: not read again", m->inputs[i].path);
			return -1;
		}
		so.src = sub;
		so.input = (uint32_t)i;
		so.path = m->inputs[i].path;
		so.source = i;
		rc = calls_read(m, &so, &(*sts)[i], err, errlen);
		*n = i + 1;
		if ((*sts)[i]) { /* the input's model goes: only the profile's stays */
			(*sts)[i]->src = NULL;
			for (size_t k = 0; k < (*sts)[i]->n; k++)
				(*sts)[i]->th[k].own = NULL;
		}
		in->drop(in->ctx);
		if (rc)
			return -1;
	}
	return 0;
}

void calls_free_all(struct calls_state **sts, size_t n)
{
	for (size_t i = 0; sts && i < n; i++)
		calls_free(sts[i]);
	free(sts);
}
