/*
 * latency.c - per method or context, the durations of its single calls
 * and their percentiles (see latency.h).
 */
#include "postproc/latency.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/lathist.h"
#include "common/satsum.h"
#include "common/u64map.h"

/* A context's durations while the trace is read. */
struct vals {
	uint64_t *v;
	size_t n, cap;
};

struct lthread {
	struct vals *node; /* by node of the thread's tree */
	size_t cap;
};

/* The threads of one read (one input of a merged profile). */
struct lsource {
	struct lthread *th;
	size_t cap;
};

struct collect {
	struct lsource *src;
	size_t cap;
	uint64_t calls;
};

/* Room for index i in the array *a of *cap elements of size, new ones
 * zeroed. Returns 0 or -1. */
static int room(void *a, size_t *cap, size_t i, size_t size)
{
	size_t old = *cap;

	if (i < old)
		return 0;
	if (grow_array(a, cap, i + 1, size))
		return -1;
	memset(*(char **)a + old * size, 0, (*cap - old) * size);
	return 0;
}

static int collect(void *ctx, const struct calls_call *c)
{
	struct collect *k = ctx;
	struct lthread *t;
	struct vals *v;

	if (room(&k->src, &k->cap, c->source, sizeof(*k->src)) ||
	    room(&k->src[c->source].th, &k->src[c->source].cap, c->thread, sizeof(struct lthread)))
		return -1;
	t = &k->src[c->source].th[c->thread];

	if (room(&t->node, &t->cap, c->node, sizeof(*t->node)))
		return -1;
	v = &t->node[c->node];
	if (grow(&v->v, &v->cap, v->n + 1))
		return -1;
	v->v[v->n++] = c->value;
	k->calls++;
	return 0;
}

uint64_t latency_rank(const uint64_t *v, size_t n, unsigned permille)
{
	size_t rank = (size_t)(((unsigned __int128)n * permille + 999) / 1000);

	return v[rank ? rank - 1 : 0];
}

/* What the rows are built from: the rows by method or context, the
 * merged contexts, the filters' answers, and per row the nodes whose
 * durations it takes. */
struct build {
	const struct model *m;
	const struct latency_opts *o;
	struct latency *l;
	struct u64map rowmap; /* method or context -> row */
	struct u64map ctxmap; /* (parent context << 32 | method) -> context */
	struct u64map inc, exc;
	size_t cap_ctx;
	size_t cap_rows;
	struct src *src; /* every kept node, in lists by row */
	uint32_t nsrc;
	size_t cap_src;
	uint32_t *head; /* by row, its list's first src (UINT32_MAX: none) */
	size_t cap_head;
	size_t source; /* the read being mapped */
};

/* The merged context of node n (its parent's known: pre-order). */
static int context_of(struct build *b, uint32_t parent_ctx, uint32_t method, uint32_t *out)
{
	struct latency *l = b->l;
	uint64_t key = ((uint64_t)parent_ctx << 32) | method;
	uint32_t *v = u64map_find(&b->ctxmap, key);

	if (v) {
		*out = *v;
		return 0;
	}
	if (l->nctx == UINT32_MAX - 1 || grow(&l->ctx_parent, &b->cap_ctx, (size_t)l->nctx + 1))
		return -1;
	if (!(l->ctx_method = realloc(l->ctx_method, b->cap_ctx * sizeof(*l->ctx_method))))
		return -1;
	l->ctx_parent[l->nctx] = parent_ctx;
	l->ctx_method[l->nctx] = method;
	if (u64map_put(&b->ctxmap, key, l->nctx))
		return -1;
	*out = l->nctx++;
	return 0;
}

/* The row of key (method or context) for method, made when new. */
static int row_of(struct build *b, uint64_t key, uint32_t method, uint32_t ctx, uint32_t *out)
{
	struct latency *l = b->l;
	uint32_t *v = u64map_find(&b->rowmap, key);

	if (v) {
		*out = *v;
		return 0;
	}
	if (grow(&l->rows, &b->cap_rows, l->nrows + 1))
		return -1;
	memset(&l->rows[l->nrows], 0, sizeof(*l->rows));
	l->rows[l->nrows].method = method;
	l->rows[l->nrows].context = ctx;
	if (u64map_put(&b->rowmap, key, (uint32_t)l->nrows))
		return -1;
	*out = (uint32_t)l->nrows++;
	return 0;
}

/* A kept node of a thread of a read, in its row's list (build.src). */
struct src {
	uint32_t source, thread, node;
	uint32_t next; /* the row's next, UINT32_MAX: none */
};

/* Puts node n of thread th of read b->source (its calls) in row r's list.
 * Returns 0 or -1. */
static int src_add(struct build *b, uint32_t r, size_t th, uint32_t n, size_t calls)
{
	if (b->nsrc == UINT32_MAX || grow(&b->src, &b->cap_src, (size_t)b->nsrc + 1))
		return -1;
	if (r >= b->cap_head) {
		size_t old = b->cap_head;

		if (grow(&b->head, &b->cap_head, (size_t)r + 1))
			return -1;
		memset(b->head + old, 0xff, (b->cap_head - old) * sizeof(*b->head));
	}
	b->src[b->nsrc] = (struct src){(uint32_t)b->source, (uint32_t)th, n, b->head[r]};
	b->head[r] = b->nsrc++;
	b->l->rows[r].calls += calls;
	return 0;
}

/* Each node of thread th (tree t) that has calls (in lt, or in t's
 * histograms when lt is NULL) and passes the filters goes into the list
 * of its row (made when new). Returns 0 or -1. */
static int map_nodes(struct build *b, const struct calltree *t, const struct lthread *lt, size_t th)
{
	const struct shape_opts *s = b->o->shp;
	uint32_t *ctx = malloc((size_t)t->nnodes * sizeof(*ctx)), row;
	uint8_t *inc = malloc(t->nnodes);
	int rc = -1;

	if (!ctx || !inc)
		goto out;
	ctx[CALLTREE_ROOT] = 0;
	inc[CALLTREE_ROOT] = 0;
	for (uint32_t i = 1; i < t->nnodes; i++) {
		uint32_t n = t->order[i], p = t->nodes[n].parent, meth = t->nodes[n].method;
		const struct lathist *h = lt ? NULL : calltree_hist(t, n);
		size_t calls = lt ? (n < lt->cap ? lt->node[n].n : 0) : h ? (size_t)h->count : 0;

		inc[n] =
		    inc[p] || (s && s->ninclude &&
			       shape_method_matches(b->m, &b->inc, s->include, s->ninclude, meth));
		ctx[n] = 0;
		if (b->o->by_context && context_of(b, ctx[p], meth, &ctx[n]))
			goto out;
		if (!calls || (s && s->ninclude && !inc[n]) ||
		    (s && s->nexclude &&
		     shape_method_matches(b->m, &b->exc, s->exclude, s->nexclude, meth)))
			continue;
		if (row_of(b, b->o->by_context ? ctx[n] : meth, meth, ctx[n], &row) ||
		    src_add(b, row, th, n, calls))
			goto out;
	}
	rc = 0;
out:
	free(ctx);
	free(inc);
	return rc;
}

/* Sorts v[0..n) ascending in place (latency.h): a quicksort (median of three, the
 * smaller side first so the stack stays shallow) that ends in an insertion
 * sort; no comparison callback and no buffer of n values beside v, which
 * qsort's merge sort would take. */
void latency_sort(uint64_t *v, size_t n)
{
	while (n > 16) {
		size_t mid = n / 2, i = 0, j = n - 1;
		uint64_t a = v[0], b = v[mid], c = v[n - 1], p, t;

		p = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		for (;;) { /* Hoare: v[0..i) <= p, v(j..n) >= p */
			while (v[i] < p)
				i++;
			while (v[j] > p)
				j--;
			if (i >= j)
				break;
			t = v[i];
			v[i++] = v[j];
			v[j--] = t;
		}
		/* v[0..j] <= p <= v[j+1..n) */
		if (j + 1 < n - j - 1) {
			latency_sort(v, j + 1);
			v += j + 1;
			n -= j + 1;
		} else {
			latency_sort(v + j + 1, n - j - 1);
			n = j + 1;
		}
	}
	for (size_t i = 1; i < n; i++) {
		uint64_t x = v[i];
		size_t k = i;

		for (; k > 0 && v[k - 1] > x; k--)
			v[k] = v[k - 1];
		v[k] = x;
	}
}

static void row_stats(struct latency_row *r, uint64_t *v)
{
	size_t n = (size_t)r->calls;

	latency_sort(v, n);
	r->min = v[0];
	r->max = v[n - 1];
	r->p50 = latency_rank(v, n, 500);
	r->p90 = latency_rank(v, n, 900);
	r->p99 = latency_rank(v, n, 990);
	r->p999 = latency_rank(v, n, 999);
	r->total = 0;
	for (size_t i = 0; i < n; i++)
		r->total = satsum_add(r->total, v[i], 0);
}

static const struct model *sort_model;

static int cmp_rows(const void *a, const void *b)
{
	const struct latency_row *x = a, *y = b;
	int c;

	if (x->p99 != y->p99)
		return x->p99 < y->p99 ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	c = strcmp(model_method_name(sort_model, x->method),
		   model_method_name(sort_model, y->method));
	if (c)
		return c;
	return x->context < y->context ? -1 : x->context > y->context;
}

/* Row r's figures from the durations of its nodes, which are freed. */
static int row_fill(struct build *b, struct collect *k, uint32_t r)
{
	struct latency_row *row = &b->l->rows[r];
	uint64_t *v = malloc((size_t)row->calls * sizeof(*v));
	size_t fill = 0;

	if (!v)
		return -1;
	for (uint32_t i = b->head[r]; i != UINT32_MAX; i = b->src[i].next) {
		struct vals *x =
		    &k->src[b->src[i].source].th[b->src[i].thread].node[b->src[i].node];

		memcpy(v + fill, x->v, x->n * sizeof(*v));
		fill += x->n;
		free(x->v);
		x->v = NULL;
		x->n = x->cap = 0;
	}
	row_stats(row, v);
	free(v);
	return 0;
}

/* The rows from the threads' durations: the nodes mapped to rows, then
 * each row's durations gathered, sorted and freed in turn, so that memory
 * holds the nodes' durations and one row's at most. Returns 0 or -1. */
static int rows_build(struct build *b, struct calls_state **cs, size_t ncs, struct collect *k)
{
	struct latency *l = b->l;
	static const struct lthread none;

	for (size_t s = 0; s < ncs; s++)
		for (size_t i = 0; cs[s] && i < calls_nthreads(cs[s]); i++) {
			const struct calltree *t = calls_tree(cs[s], i);
			int have = s < k->cap && i < k->src[s].cap;

			if (!t)
				continue;
			l->nthreads++;
			b->source = s;
			if (map_nodes(b, t, have ? &k->src[s].th[i] : &none, i))
				return -1;
		}
	for (size_t r = 0; r < l->nrows; r++)
		if (row_fill(b, k, (uint32_t)r))
			return -1;
	sort_model = b->m;
	if (l->nrows)
		qsort(l->rows, l->nrows, sizeof(*l->rows), cmp_rows);
	return 0;
}

/* Row r's figures from the histograms of its nodes (threads of sub). */
static int row_fill_hists(struct build *b, const struct model *sub, uint32_t r)
{
	struct latency_row *row = &b->l->rows[r];
	struct lathist *h = NULL;

	for (uint32_t i = b->head[r]; i != UINT32_MAX; i = b->src[i].next)
		if (lathist_merge(&h, calltree_hist(&sub->thread_list[b->src[i].thread]->tree,
						    b->src[i].node))) {
			lathist_free(h);
			return -1;
		}
	row->calls = h ? h->count : 0;
	row->min = lathist_percentile(h, 0);
	row->max = lathist_percentile(h, 1000);
	row->p50 = lathist_percentile(h, 500);
	row->p90 = lathist_percentile(h, 900);
	row->p99 = lathist_percentile(h, 990);
	row->p999 = lathist_percentile(h, 999);
	row->total = h ? h->sum : 0;
	lathist_free(h);
	return 0;
}

/* The rows from the histograms of the snapshot read again into sub. */
static int rows_build_hists(struct build *b, const struct model *sub)
{
	struct latency *l = b->l;

	for (size_t i = 0; i < sub->nthreads; i++) {
		const struct model_thread *t = sub->thread_list[i];

		if (!t || !t->has_tree || !t->tree.hist ||
		    (b->o->sel && !model_thread_selected(b->o->sel, t)))
			continue;
		l->nthreads++;
		b->source = 0;
		if (map_nodes(b, &t->tree, NULL, i))
			return -1;
	}
	for (size_t r = 0; r < l->nrows; r++) {
		if (row_fill_hists(b, sub, (uint32_t)r))
			return -1;
		l->calls += l->rows[r].calls;
	}
	sort_model = b->m;
	if (l->nrows)
		qsort(l->rows, l->nrows, sizeof(*l->rows), cmp_rows);
	return 0;
}

/* Why a snapshot's histograms cannot answer, or NULL. */
static const char *hists_refused(const struct model *m, const struct latency_opts *o)
{
	if (m->ninputs || m->folded)
		return CALLS_ONE_TRACE;
	if (!o->path || !strcmp(o->path, "-"))
		return "this report reads the snapshot again: give a file, not stdin";
	if (o->metric != 0)
		return "a snapshot's histograms are of its first metric's durations: choose it "
		       "with --metric";
	if (m->snapshot_raw)
		return "a snapshot's histograms are of compensated durations: --raw does not "
		       "apply to them";
	return NULL;
}

/* latency_build for a tree snapshot (a file of output=tree, or a live
 * dump): the snapshot read again with its histograms. */
static int build_from_hists(const struct model *m, const struct latency_opts *o, struct latency *l,
			    char *err, size_t errlen)
{
	struct model sub;
	struct trace_result res;
	enum trace_status ts;
	struct build b = {0};
	const char *why = hists_refused(m, o);
	int rc = -1;

	if (why) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	if ((why = model_meta(m, "snapshot.hists")) && !strcmp(why, "off")) {
		snprintf(err, errlen,
			 "%s: this snapshot was recorded with hists=off, so it keeps no durations "
			 "of single calls: record again without hists=off, or a trace "
			 "(output=trace or both)",
			 o->path);
		return -1;
	}
	model_init(&sub, NULL);
	sub.want_hists = 1;
	ts = model_load(&sub, o->path, &res);
	if (ts != TRACE_OK && ts != TRACE_TRUNCATED) {
		snprintf(err, errlen, "%s: %s", o->path,
			 sub.err[0]   ? sub.err
			 : res.msg[0] ? res.msg
				      : trace_status_str(ts));
		goto out;
	}
	if (model_finish(&sub)) {
		snprintf(err, errlen, "%s: %s", o->path, sub.err[0] ? sub.err : "out of memory");
		goto out;
	}
	l->from_hists = 1;
	b.m = m;
	b.o = o;
	b.l = l;
	if (u64map_init(&b.rowmap, 256) || u64map_init(&b.ctxmap, 256) || u64map_init(&b.inc, 64) ||
	    u64map_init(&b.exc, 64) || context_of(&b, 0, CALLTREE_ROOT_METHOD, &(uint32_t){0}) ||
	    rows_build_hists(&b, &sub)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < sub.nthreads; i++)
		if (sub.thread_list[i] && sub.thread_list[i]->has_tree &&
		    !sub.thread_list[i]->tree.hist && sub.thread_list[i]->tree.nnodes > 1)
			l->threads_without++;
	if (!l->nthreads && l->threads_without) {
		snprintf(err, errlen,
			 "%s: this snapshot keeps no durations of single calls (format 3.0, "
			 "before histograms): record a trace (output=trace or both), or take the "
			 "snapshot with a newer agent",
			 o->path);
		goto out;
	}
	rc = 0;
out:
	model_free(&sub);
	u64map_free(&b.rowmap);
	u64map_free(&b.ctxmap);
	u64map_free(&b.inc);
	u64map_free(&b.exc);
	free(b.src);
	free(b.head);
	return rc;
}

int latency_build(const struct model *m, const struct latency_opts *o, struct latency *l, char *err,
		  size_t errlen)
{
	struct calls_opts co = {0};
	struct calls_state **cs = NULL;
	size_t ncs = 0;
	struct collect k = {0};
	struct build b = {0};
	int rc = -1;

	memset(l, 0, sizeof(*l));
	if (m->snapshot) {
		rc = build_from_hists(m, o, l, err, errlen);
		if (rc)
			latency_free(l);
		return rc;
	}
	co.path = o->path;
	co.metric = o->metric;
	co.sel = o->sel;
	co.progress = o->progress;
	co.call = collect;
	co.ctx = &k;
	if (calls_read_all(m, &co, o->inputs, &cs, &ncs, err, errlen))
		goto out;
	l->calls = k.calls;
	b.m = m;
	b.o = o;
	b.l = l;
	if (u64map_init(&b.rowmap, 256) || u64map_init(&b.ctxmap, 256) || u64map_init(&b.inc, 64) ||
	    u64map_init(&b.exc, 64) || context_of(&b, 0, CALLTREE_ROOT_METHOD, &(uint32_t){0}) ||
	    rows_build(&b, cs, ncs, &k)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	rc = 0;
out:
	for (size_t s = 0; s < k.cap; s++) {
		for (size_t i = 0; i < k.src[s].cap; i++) {
			for (size_t n = 0; n < k.src[s].th[i].cap; n++)
				free(k.src[s].th[i].node[n].v);
			free(k.src[s].th[i].node);
		}
		free(k.src[s].th);
	}
	free(k.src);
	calls_free_all(cs, ncs);
	u64map_free(&b.rowmap);
	u64map_free(&b.ctxmap);
	u64map_free(&b.inc);
	u64map_free(&b.exc);
	free(b.src);
	free(b.head);
	if (rc)
		latency_free(l);
	return rc;
}

void latency_free(struct latency *l)
{
	free(l->rows);
	free(l->ctx_parent);
	free(l->ctx_method);
	memset(l, 0, sizeof(*l));
}
