/*
 * slow.c - the slowest single calls, kept in a heap as the trace is read
 * again (see slow.h).
 */
#include "postproc/slow.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/grow.h"
#include "common/minheap.h"
#include "common/u64map.h"

struct keep {
	const struct model *m;
	const struct slow_opts *o;
	struct slow *s;
	size_t top;
	size_t cap;		/* calls s->calls has room for */
	struct u64map inc, exc; /* method -> 1 + match */
};

/* Whether a call whose path is path[0..depth) (root first, its method
 * last) passes --include and --exclude. */
static int kept(struct keep *k, const uint32_t *path, uint32_t depth)
{
	const struct shape_opts *s = k->o->shp;

	if (!s || !depth)
		return 1;
	if (s->nexclude &&
	    shape_method_matches(k->m, &k->exc, s->exclude, s->nexclude, path[depth - 1]))
		return 0;
	if (!s->ninclude)
		return 1;
	for (uint32_t i = depth; i-- > 0;)
		if (shape_method_matches(k->m, &k->inc, s->include, s->ninclude, path[i]))
			return 1;
	return 0;
}

/* kept() for a call of node in tree t. */
static int kept_in_tree(struct keep *k, const struct calltree *t, uint32_t node)
{
	const struct shape_opts *s = k->o->shp;

	if (!s)
		return 1;
	if (s->nexclude &&
	    shape_method_matches(k->m, &k->exc, s->exclude, s->nexclude, t->nodes[node].method))
		return 0;
	if (!s->ninclude)
		return 1;
	for (uint32_t n = node; n != CALLTREE_ROOT && n != CALLTREE_NONE; n = t->nodes[n].parent)
		if (shape_method_matches(k->m, &k->inc, s->include, s->ninclude,
					 t->nodes[n].method))
			return 1;
	return 0;
}

/* The path of node in t into *path (malloc'ed), root first. 0 or -1. */
static int tree_path(const struct calltree *t, uint32_t node, uint32_t **path, uint32_t *depth)
{
	uint32_t d = 0;

	for (uint32_t n = node; n != CALLTREE_ROOT && n != CALLTREE_NONE; n = t->nodes[n].parent)
		d++;
	*path = malloc((d ? d : 1) * sizeof(**path));
	if (!*path)
		return -1;
	*depth = d;
	for (uint32_t n = node, i = d; i > 0; n = t->nodes[n].parent)
		(*path)[--i] = t->nodes[n].method;
	return 0;
}

/* a is shorter than b: less in the heap (ties: the later call is less, so
 * the first of equal calls stays). */
static int less(const void *pa, const void *pb)
{
	const struct slow_call *a = pa, *b = pb;

	return a->value != b->value ? a->value < b->value : a->seq > b->seq;
}

/* The SLOW_CALLEES largest of c's callees into sc, largest first. */
static void callees(struct slow_call *sc, const struct calls_call *c)
{
	uint64_t all = 0;

	sc->ncallees = 0;
	for (size_t i = 0; i < c->ncallees; i++)
		all += c->callees[i].value;
	sc->self = sc->value > all ? sc->value - all : 0;
	for (size_t i = 0; i < c->ncallees; i++) {
		unsigned at = sc->ncallees;

		while (at > 0 && sc->callee[at - 1].value < c->callees[i].value)
			at--;
		if (at >= SLOW_CALLEES)
			continue;
		if (sc->ncallees < SLOW_CALLEES)
			sc->ncallees++;
		memmove(&sc->callee[at + 1], &sc->callee[at],
			(sc->ncallees - 1 - at) * sizeof(sc->callee[0]));
		memmove(&sc->callee_node[at + 1], &sc->callee_node[at],
			(sc->ncallees - 1 - at) * sizeof(sc->callee_node[0]));
		sc->callee[at].value = c->callees[i].value;
		sc->callee_node[at] = c->callees[i].node;
	}
}

static int on_call(void *ctx, const struct calls_call *c)
{
	struct keep *k = ctx;
	struct slow *s = k->s;
	const struct calltree *t = calls_tree(s->cs[c->source], c->thread);
	struct slow_call sc;

	if (!kept_in_tree(k, t, c->node))
		return 0;
	memset(&sc, 0, sizeof(sc));
	sc.source = c->source;
	sc.thread = c->thread;
	sc.node = c->node;
	sc.method = c->method;
	sc.value = c->value;
	sc.live = c->live;
	sc.seq = s->seen++;
	if (s->n == k->top && !less(&s->calls[0], &sc))
		return 0; /* not among the longest */
	sc.start_ns = c->start_ns;
	callees(&sc, c);
	if (s->n < k->top) {
		/* room as calls come, not for --top N at once: N may be far more
		 * than the trace's calls */
		if (grow(&s->calls, &k->cap, s->n + 1))
			return -1;
		s->calls[s->n] = sc;
		minheap_up(s->calls, sizeof(*s->calls), s->n++, less);
	} else {
		s->calls[0] = sc;
		minheap_down(s->calls, s->n, sizeof(*s->calls), 0, less);
	}
	return 0;
}

/* The calls kept from the trace's reads: their threads, paths and
 * callees' methods, from the trees (final once read). 0 or -1. */
static int resolve(struct slow *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct slow_call *c = &s->calls[i];
		const struct calltree *t = calls_tree(s->cs[c->source], c->thread);

		c->th = calls_thread(s->cs[c->source], c->thread);
		c->serial = c->th->serial;
		for (unsigned k = 0; k < c->ncallees; k++)
			c->callee[k].method = t->nodes[c->callee_node[k]].method;
		if (tree_path(t, c->node, &c->path, &c->depth))
			return -1;
	}
	return 0;
}

/* A snapshot's calls kept by slow=, filtered; the first top of them
 * (they come longest first). 0, or -1 with err. */
static int from_snapshot(struct keep *k, char *err, size_t errlen)
{
	const struct model *m = k->m;
	struct slow *s = k->s;

	if (m->ninputs && m->slow_inputs < m->ninputs) { /* merged (merge.c) */
		snprintf(err, errlen,
			 "--report slow of several inputs: each a trace, or each a snapshot of "
			 "slow=; %zu of the %zu inputs are snapshots, %zu of them of slow=",
			 m->snap_inputs, m->ninputs, m->slow_inputs);
		return -1;
	}
	if (!m->slow_inputs) {
		snprintf(err, errlen, "--report slow: %s", SLOW_NEED_TRACE);
		return -1;
	}
	s->kept = 1;
	s->kept_ns = m->slow_ns;
	s->kept_max = m->slow_max;
	s->kept_over = m->slow_over;
	s->metric = m->nslow ? m->slow[0].metric : k->o->metric;
	for (size_t i = 0; i < m->nslow; i++) {
		const struct trace_slow *ts = &m->slow[i];
		const struct model_thread *th = model_thread_find(m, ts->thread);
		struct slow_call *c;

		if ((k->o->sel && (!th || !model_thread_selected(k->o->sel, th))) ||
		    !kept(k, ts->path, ts->depth) || ts->metric >= m->nmetrics)
			continue;
		s->seen++;
		if (s->n >= k->top)
			continue;
		if (grow(&s->calls, &k->cap, s->n + 1)) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		c = &s->calls[s->n++];
		memset(c, 0, sizeof(*c));
		c->th = th;
		c->serial = ts->thread;
		c->method = ts->path[ts->depth - 1];
		c->value = m->snapshot_raw ? ts->raw : ts->value;
		c->self = m->snapshot_raw ? ts->raw_self : ts->self;
		c->live = !!(ts->flags & TRACE_SLOW_LIVE);
		c->partial = !!(ts->flags & TRACE_SLOW_PARTIAL);
		c->start_ns =
		    ts->wall_ns && ts->end_ns >= ts->wall_ns ? ts->end_ns - ts->wall_ns : 0;
		c->omitted = ts->omitted;
		c->depth = ts->depth;
		if (!(c->path = malloc(ts->depth * sizeof(*c->path)))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		memcpy(c->path, ts->path, ts->depth * sizeof(*c->path));
		c->ncallees = ts->ncallees < SLOW_CALLEES ? ts->ncallees : SLOW_CALLEES;
		for (unsigned j = 0; j < c->ncallees; j++) {
			c->callee[j].method = ts->callee[j].method;
			c->callee[j].value =
			    m->snapshot_raw ? ts->callee[j].raw : ts->callee[j].value;
		}
	}
	return 0;
}

static int by_duration(const void *a, const void *b)
{
	const struct slow_call *x = a, *y = b;

	return less(x, y) ? 1 : less(y, x) ? -1 : 0;
}

int slow_build(const struct model *m, const struct slow_opts *o, struct slow *s, char *err,
	       size_t errlen)
{
	struct calls_opts co = {0};
	struct keep k = {0};
	int rc = -1;

	memset(s, 0, sizeof(s[0]));
	k.m = m;
	k.o = o;
	k.s = s;
	k.top = o->top ? o->top : SLOW_TOP_DEFAULT;
	co.path = o->path;
	co.metric = o->metric;
	co.sel = o->sel;
	co.callees = 1;
	co.progress = o->progress;
	co.call = on_call;
	co.ctx = &k;
	s->metric = o->metric;
	if (u64map_init(&k.inc, 64) || u64map_init(&k.exc, 64)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if ((m->snapshot && !m->ninputs) || m->snap_inputs) {
		rc = from_snapshot(&k, err, errlen);
		goto out;
	}
	if (calls_read_all(m, &co, o->inputs, &s->cs, &s->ncs, err, errlen))
		goto out;
	if (s->n)
		qsort(s->calls, s->n, sizeof(*s->calls), by_duration);
	if (resolve(s)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	rc = 0;
out:
	u64map_free(&k.inc);
	u64map_free(&k.exc);
	if (rc)
		slow_free(s);
	return rc;
}

void slow_free(struct slow *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->calls[i].path);
	free(s->calls);
	calls_free_all(s->cs, s->ncs);
	memset(s, 0, sizeof(*s));
}

void slow_time(uint64_t ns, char *buf, size_t len)
{
	time_t sec = (time_t)(ns / 1000000000ull);
	struct tm tm;
	char day[32];

	if (!gmtime_r(&sec, &tm) || !strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(buf, len, "%llu", (unsigned long long)ns);
	else
		snprintf(buf, len, "%s.%09lluZ", day, (unsigned long long)(ns % 1000000000ull));
}
