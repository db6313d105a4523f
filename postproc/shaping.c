/*
 * shaping.c - filters and shaping of a model's trees (see shaping.h). Every
 * step rebuilds a thread's tree from the old one, deciding per node whether
 * it stays, is folded (alone or with its subtree) into its parent, or goes.
 */
#include "common/satsum.h"
#include "postproc/shaping.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "postproc/flat.h"
#include "postproc/pools.h"
#include "postproc/names.h"
#include "common/u64map.h"

enum decision {
	KEEP,	      /* a node of its own */
	KEEP_STRUCT,  /* a node of its own without its base (--include) */
	FOLD_FRAME,   /* base to the parent; children go on under the parent */
	FOLD_SUBTREE, /* cum to the parent; children are not visited */
	DROP_SUBTREE, /* gone with its children */
};

typedef enum decision (*decide_fn)(void *ctx, const struct calltree *t, uint32_t node);

int shape_active(const struct shape_opts *o)
{
	return o->ninclude || o->nexclude || o->top || o->min_pct > 0 || o->simple || o->merge;
}

int shape_match(const char **pats, size_t npats, const char *name)
{
	for (size_t i = 0; i < npats; i++)
		if (!fnmatch(pats[i], name, 0))
			return 1;
	return 0;
}

size_t shape_simple_name(const char *class_desc, const char *method, const char *sig, char *buf,
			 size_t len)
{
	char cls[1024], tmp[1024];
	const char *c, *dot;
	size_t n;

	names_class(class_desc, cls, sizeof(cls));
	/* the package ends at the last dot before any "[]" */
	n = strcspn(cls, "[");
	dot = NULL;
	for (const char *p = cls; p < cls + n; p++)
		if (*p == '.')
			dot = p;
	c = dot ? dot + 1 : cls;
	snprintf(tmp, sizeof(tmp), "%s", c);
	return names_method(*tmp ? tmp : NULL, method, sig, buf, len);
}

/* Adds node s of src to the base of node d of dst, raw and calibrated: its
 * base, or with cum its cum (a subtree folded into d). */
static void add_figs(struct calltree *dst, uint32_t d, const struct calltree *src, uint32_t s,
		     int cum)
{
	for (unsigned i = 0; i < src->nmetrics; i++) {
		const struct calltree_fig *from = calltree_fig(src, s, i);
		struct calltree_fig *to = calltree_fig(dst, d, i);

		satsum_addto(&to->base, cum ? from->cum : from->base, SATSUM_BASE);
		satsum_addto(&to->raw_base, cum ? from->raw_cum : from->raw_base, SATSUM_RAW_BASE);
	}
}

/*
 * Adds the nodes of src (finished) to dst (not finished) as decide says.
 * Returns 0 or -1.
 */
static int rebuild_into(struct calltree *dst, const struct calltree *src, decide_fn decide,
			void *ctx, struct shape_info *info)
{
	uint32_t *map = malloc((size_t)src->nnodes * sizeof(*map));

	if (!map)
		return -1;
	map[CALLTREE_ROOT] = CALLTREE_ROOT;
	add_figs(dst, CALLTREE_ROOT, src, CALLTREE_ROOT, 0);
	for (uint32_t i = 1; i < src->nnodes; i++) {
		uint32_t n = src->order[i], p = map[src->nodes[n].parent], d;
		const struct calltree_node *sn = &src->nodes[n];
		enum decision how;

		map[n] = CALLTREE_NONE;
		if (p == CALLTREE_NONE)
			continue;
		how = decide ? decide(ctx, src, n) : KEEP;
		switch (how) {
		case KEEP:
		case KEEP_STRUCT:
			if (calltree_child(dst, p, sn->method, &d)) {
				free(map);
				return -1;
			}
			satsum_addto(&dst->nodes[d].calls, sn->calls, SATSUM_CALLS);
			if (how == KEEP) {
				add_figs(dst, d, src, n, 0);
			}
			map[n] = d;
			break;
		case FOLD_FRAME:
			add_figs(dst, p, src, n, 0);
			map[n] = p;
			info->folded++;
			break;
		case FOLD_SUBTREE:
			add_figs(dst, p, src, n, 1);
			info->folded++;
			break;
		case DROP_SUBTREE:
			info->dropped++;
			break;
		}
	}
	calltree_stats_add(&dst->stats, &src->stats);
	free(map);
	return 0;
}

/* Replaces *t by its rebuilt version. */
static int rebuild(struct calltree *t, decide_fn decide, void *ctx, struct shape_info *info)
{
	struct calltree n;

	if (calltree_init(&n, t->nmetrics, NULL))
		return -1;
	if (rebuild_into(&n, t, decide, ctx, info) || calltree_finish(&n)) {
		calltree_free(&n);
		return -1;
	}
	calltree_free(t);
	*t = n;
	return 0;
}

int shape_cap_depth(const struct calltree *src, uint32_t max_depth, struct calltree *dst,
		    uint64_t *folded)
{
	uint32_t *map = malloc(((size_t)src->nnodes + 1) * sizeof(*map));
	uint64_t *calls = malloc(((size_t)src->nnodes + 1) * sizeof(*calls));
	uint64_t *count = malloc(((size_t)src->nnodes + 1) * sizeof(*count));
	uint64_t nfolded = 0;
	int err = -1;

	memset(dst, 0, sizeof(*dst));
	if (!map || !calls || !count || calltree_init(dst, src->nmetrics, NULL))
		goto out;
	/* calls and contexts of each subtree, children before parents */
	for (uint32_t i = 0; i < src->nnodes; i++) {
		calls[i] = src->nodes[i].calls;
		count[i] = 1;
	}
	for (uint32_t i = src->nnodes; i-- > 1;) {
		uint32_t n = src->order[i], p = src->nodes[n].parent;

		calls[p] = satsum_add(calls[p], calls[n], SATSUM_CALLS);
		count[p] += count[n];
	}
	map[CALLTREE_ROOT] = CALLTREE_ROOT;
	add_figs(dst, CALLTREE_ROOT, src, CALLTREE_ROOT, 0);
	for (uint32_t i = 1; i < src->nnodes; i++) {
		uint32_t n = src->order[i], p = map[src->nodes[n].parent], d;
		const struct calltree_node *sn = &src->nodes[n];

		map[n] = CALLTREE_NONE;
		if (p == CALLTREE_NONE)
			continue; /* below a folded frame: counted there */
		if (sn->level <= max_depth) {
			if (calltree_child(dst, p, sn->method, &d))
				goto out;
			satsum_addto(&dst->nodes[d].calls, sn->calls, SATSUM_CALLS);
			add_figs(dst, d, src, n, 0);
			map[n] = d;
		} else {
			/* the first frame past the limit: it and its subtree */
			if (calltree_child(dst, p, CALLTREE_FOLDED_METHOD, &d))
				goto out;
			satsum_addto(&dst->nodes[d].calls, calls[n], SATSUM_CALLS);
			add_figs(dst, d, src, n, 1);
			nfolded += count[n];
		}
	}
	dst->stats = src->stats;
	if (calltree_finish(dst))
		goto out;
	if (folded)
		*folded = nfolded;
	err = 0;
out:
	if (err && dst->nodes)
		calltree_free(dst);
	free(map);
	free(calls);
	free(count);
	return err;
}

/* Per-method pattern results, computed on first use. */
struct matcher {
	const struct model *m;
	const char **pats;
	size_t npats;
	struct u64map cache; /* method -> 0/1 */
	int oom;
};

void shape_method_name(const struct model *m, uint32_t method, char *buf, size_t len)
{
	struct model_method *mm;

	HASH_FIND(hh, m->methods, &method, sizeof(method), mm);
	if (mm && mm->defined)
		names_method(mm->class_sig, mm->name, NULL, buf, len);
	else
		snprintf(buf, len, "<unknown method #%u>", method);
}

static int method_matches(struct matcher *mt, uint32_t method)
{
	uint32_t *v = u64map_find(&mt->cache, method);
	char buf[1024];
	int r;

	if (v)
		return (int)*v;
	shape_method_name(mt->m, method, buf, sizeof(buf));
	r = shape_match(mt->pats, mt->npats, buf);
	if (u64map_put(&mt->cache, method, (uint32_t)r))
		mt->oom = 1;
	return r;
}

static enum decision decide_exclude(void *ctx, const struct calltree *t, uint32_t n)
{
	return method_matches(ctx, t->nodes[n].method) ? FOLD_FRAME : KEEP;
}

/* --include: per node, 1 = a match on its path, 2 = a match below only. */
struct include_ctx {
	struct matcher *mt;
	uint8_t *mark;
};

static int include_marks(struct include_ctx *ic, const struct calltree *t)
{
	ic->mark = calloc(t->nnodes ? t->nnodes : 1, 1);
	if (!ic->mark)
		return -1;
	for (uint32_t i = 1; i < t->nnodes; i++) {
		uint32_t n = t->order[i];

		if (ic->mark[t->nodes[n].parent] == 1 || method_matches(ic->mt, t->nodes[n].method))
			ic->mark[n] = 1;
	}
	for (uint32_t i = t->nnodes; i-- > 1;) {
		uint32_t n = t->order[i], p = t->nodes[n].parent;

		if (ic->mark[n] && !ic->mark[p])
			ic->mark[p] = 2;
	}
	return 0;
}

static enum decision decide_include(void *ctx, const struct calltree *t, uint32_t n)
{
	const struct include_ctx *ic = ctx;

	(void)t;
	return ic->mark[n] == 1 ? KEEP : ic->mark[n] == 2 ? KEEP_STRUCT : DROP_SUBTREE;
}

struct top_ctx {
	struct u64map keep; /* methods in the top N */
};

static enum decision decide_top(void *ctx, const struct calltree *t, uint32_t n)
{
	struct top_ctx *tc = ctx;

	return u64map_find(&tc->keep, t->nodes[n].method) ? KEEP : FOLD_FRAME;
}

struct pct_ctx {
	unsigned metric;
	uint64_t threshold;
};

static enum decision decide_pct(void *ctx, const struct calltree *t, uint32_t n)
{
	const struct pct_ctx *pc = ctx;

	return calltree_fig(t, n, pc->metric)->cum < pc->threshold ? FOLD_SUBTREE : KEEP;
}

uint64_t shape_pct_threshold(const struct calltree *t, unsigned metric, double pct)
{
	long double th = (long double)calltree_fig(t, CALLTREE_ROOT, metric)->cum * pct / 100.0L;
	uint64_t v = th >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)th;

	if ((long double)v < th)
		v++;
	return v;
}

int shape_min_pct(struct calltree *t, unsigned metric, double pct, struct shape_info *info)
{
	struct pct_ctx pc = {metric, shape_pct_threshold(t, metric, pct)};

	return rebuild(t, decide_pct, &pc, info);
}

static int simple_names(struct model *m, int sig)
{
	struct model_method *mm, *tmp;
	char buf[1024];

	HASH_ITER (hh, m->methods, mm, tmp) {
		size_t n;
		char *s;

		if (!mm->defined)
			continue;
		n = shape_simple_name(mm->class_sig, mm->name, sig ? mm->sig : mm->overload, buf,
				      sizeof(buf));
		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		s = malloc(n + 1);
		if (!s)
			return -1;
		memcpy(s, buf, n);
		s[n] = '\0';
		free(mm->display);
		mm->display = s;
	}
	return 0;
}

static int top_methods(const struct model *m, const struct shape_opts *o,
		       struct model_thread **list, size_t n, struct u64map *keep)
{
	const struct calltree **trees = malloc((n ? n : 1) * sizeof(*trees));
	struct flat_row *rows;
	size_t nrows;
	int err;

	if (!trees)
		return -1;
	for (size_t i = 0; i < n; i++)
		trees[i] = &list[i]->tree;
	err = flat_build(trees, n, o->metric, FLAT_BY_CUM, (flat_name_fn)model_method_name,
			 (void *)m, &rows, &nrows);
	free(trees);
	if (err)
		return -1;
	for (size_t i = 0; i < nrows && i < o->top; i++)
		if (u64map_put(keep, rows[i].method, 1)) {
			free(rows);
			return -1;
		}
	free(rows);
	return 0;
}

/* Replaces the thread list by one thread holding the merged trees. */
static int merge_threads(struct model *m, struct model_thread **list, size_t n,
			 struct shape_info *info)
{
	struct model_thread *t = calloc(1, sizeof(*t)), *other;
	char name[64];
	uint32_t serial = 0, maxs = 0;

	if (!t)
		return -1;
	for (size_t i = 0; i < m->nthreads; i++)
		if (m->thread_list[i]->serial > maxs)
			maxs = m->thread_list[i]->serial;
	HASH_FIND(hh, m->threads, &serial, sizeof(serial), other);
	if (other)
		serial = maxs + 1;
	snprintf(name, sizeof(name), "%zu thread%s merged", n, n == 1 ? "" : "s");
	t->serial = serial;
	t->name = strdup(name);
	if (!t->name || calltree_init(&t->tree, m->nmetrics ? m->nmetrics : 1, NULL)) {
		free(t->name);
		free(t);
		return -1;
	}
	t->has_tree = 1;
	t->group = 1;
	t->input = n ? list[0]->input : 0;
	for (size_t i = 0; i < n; i++) {
		t->nfolded += model_thread_count(list[i]);
		if (list[i]->input != t->input)
			t->input = MODEL_INPUT_MANY;
	}
	HASH_ADD(hh, m->threads, serial, sizeof(t->serial), t);
	for (size_t i = 0; i < n; i++)
		if (rebuild_into(&t->tree, &list[i]->tree, NULL, NULL, info))
			return -1;
	if (calltree_finish(&t->tree))
		return -1;
	m->thread_list[0] = t;
	m->nthreads = 1;
	info->merged = n;
	return 0;
}

/* The threads of one pool as one tree (pools.h): m's thread list becomes
 * the selection list[0..*n) with the groups in their place. */
static int group_pools(struct model *m, struct model_thread **list, size_t *n,
		       struct shape_info *info)
{
	struct pools_info pi;
	size_t selected = *n;

	if (pools_group(m, list, n, &pi))
		return -1;
	if (!pi.groups)
		return 0;
	info->elided = m->nthreads - selected;
	info->pools = pi.groups;
	info->pooled = pi.threads;
	memcpy(m->thread_list, list, *n * sizeof(*list));
	m->nthreads = *n;
	return 0;
}

int shape_apply(struct model *m, const struct shape_opts *o, struct shape_info *info)
{
	struct model_thread **list = malloc((m->nthreads ? m->nthreads : 1) * sizeof(*list));
	struct matcher mt = {0};
	size_t n = 0;
	int err = -1;

	memset(info, 0, sizeof(*info));
	if (!list)
		return -1;
	for (size_t i = 0; i < m->nthreads; i++) {
		struct model_thread *t = m->thread_list[i];

		if (model_thread_selected(o->sel, t))
			list[n++] = t;
	}
	/* a folded model's one thread is the selection (model_fold); said
	 * when the trees are shaped (else the reports count it) */
	if (shape_active(o))
		info->elided = m->folded ? m->fold_elided : m->nthreads - n;
	if (o->simple && simple_names(m, o->sig))
		goto out;
	mt.m = m;
	if (u64map_init(&mt.cache, 256))
		goto out;
	if (o->nexclude) {
		mt.pats = o->exclude;
		mt.npats = o->nexclude;
		for (size_t i = 0; i < n; i++)
			if (rebuild(&list[i]->tree, decide_exclude, &mt, info) || mt.oom)
				goto out;
	}
	if (o->ninclude) {
		u64map_free(&mt.cache);
		if (u64map_init(&mt.cache, 256))
			goto out;
		mt.pats = o->include;
		mt.npats = o->ninclude;
		for (size_t i = 0; i < n; i++) {
			struct include_ctx ic = {&mt, NULL};
			int r = include_marks(&ic, &list[i]->tree) ||
				rebuild(&list[i]->tree, decide_include, &ic, info);

			free(ic.mark);
			if (r || mt.oom)
				goto out;
		}
	}
	if (o->top) {
		struct top_ctx tc;
		int r;

		if (u64map_init(&tc.keep, 64))
			goto out;
		r = top_methods(m, o, list, n, &tc.keep);
		for (size_t i = 0; i < n && !r; i++)
			r = rebuild(&list[i]->tree, decide_top, &tc, info);
		u64map_free(&tc.keep);
		if (r)
			goto out;
	}
	if (o->pools && !o->merge && !m->folded && group_pools(m, list, &n, info))
		goto out;
	if (o->merge && m->folded) {
		info->merged = model_thread_count(m->thread_list[0]);
	} else if (o->merge) {
		if (merge_threads(m, list, n, info))
			goto out;
		list[0] = m->thread_list[0];
		n = 1;
	}
	if (o->min_pct > 0)
		for (size_t i = 0; i < n; i++)
			if (shape_min_pct(&list[i]->tree, o->metric, o->min_pct, info))
				goto out;
	err = 0;
out:
	u64map_free(&mt.cache);
	free(list);
	return err;
}

int shape_method_matches(const struct model *m, struct u64map *cache, const char **pats,
			 size_t npats, uint32_t method)
{
	uint32_t *v = u64map_find(cache, method);
	char buf[1024];
	int x;

	if (v)
		return (int)*v - 1;
	shape_method_name(m, method, buf, sizeof(buf));
	x = shape_match(pats, npats, buf);
	u64map_put(cache, method, (uint32_t)x + 1);
	return x;
}
