/*
 * diff_model_add.c - adds one run to jcal-post diff's model (see
 * diff_model.h): each method of the run named by its normalised class,
 * name and descriptor, each selected thread's whole tree into the flat
 * figures (cum once per activation of the normalised name), and its tree
 * (depth-limited) into the thread group's contexts.
 */
#include "postproc/diff_model_internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/satsum.h"
#include "postproc/shaping.h"
#include "postproc/throttled.h"

/* What one run's import needs. */
struct run_ctx {
	struct diff_model *dm;
	const struct model *m;
	unsigned run;
	struct u64map cache; /* method id -> name */
};

/* s normalised (name_norm_class) into a malloc'ed string; NULL when out
 * of memory. */
static char *norm_dup(const char *s, unsigned *kinds)
{
	size_t n = name_norm_class(s ? s : "", NULL, 0, kinds);
	char *d = malloc(n + 1);

	if (d)
		name_norm_class(s ? s : "", d, n + 1, kinds);
	return d;
}

/* Counts a method name whose normalised form differs, once per name. */
static int count_method(struct diff_model *dm, const struct model_method *mm, unsigned kinds)
{
	size_t len = strlen(mm->class_sig ? mm->class_sig : "") + strlen(mm->name ? mm->name : "") +
		     strlen(mm->sig ? mm->sig : "") + 4;
	char *key = malloc(len);
	int r;

	if (!key)
		return -1;
	snprintf(key, len, "M%s\1%s\1%s", mm->class_sig ? mm->class_sig : "",
		 mm->name ? mm->name : "", mm->sig ? mm->sig : "");
	r = diff_model_set_add(&dm->norm_seen, key);
	free(key);
	if (r > 0) {
		dm->norm_methods++;
		dm->norm_kind[name_norm_index(name_norm_primary(kinds))]++;
	}
	return r < 0 ? -1 : 0;
}

/* The name of a pseudo-frame or a method without a record: its label. */
static uint32_t special(struct diff_model *dm, const char *label)
{
	size_t len = strlen(label) + 2;
	char *key = malloc(len);
	uint32_t id;

	if (!key)
		return DIFF_NONE;
	snprintf(key, len, "S%s", label);
	id = diff_model_intern(dm, DIFF_NAME_SPECIAL, key, label, NULL, NULL, NULL);
	free(key);
	return id;
}

static uint32_t method_name(struct run_ctx *c, uint32_t method)
{
	struct model_method *mm = NULL;
	unsigned kc = 0, ks = 0;
	char *cls, *sig, *key = NULL;
	uint32_t id = DIFF_NONE;

	if (method != CALLTREE_FOLDED_METHOD && method != CALLTREE_COLD_METHOD &&
	    method != CALLTREE_ROOT_METHOD)
		HASH_FIND(hh, c->m->methods, &method, sizeof(method), mm);
	if (!mm || !mm->defined)
		return special(c->dm, model_method_name(c->m, method));
	cls = norm_dup(mm->class_sig, &kc);
	sig = norm_dup(mm->sig, &ks);
	if (cls && sig) {
		size_t len = strlen(cls) + strlen(mm->name ? mm->name : "") + strlen(sig) + 4;

		key = malloc(len);
		if (key)
			snprintf(key, len, "M%s\1%s\1%s", cls, mm->name ? mm->name : "", sig);
	}
	if (key && (!(kc | ks) || !count_method(c->dm, mm, kc | ks)))
		id = diff_model_intern(c->dm, DIFF_NAME_METHOD, key, NULL, cls,
				       mm->name ? mm->name : "", sig);
	free(cls);
	free(sig);
	free(key);
	return id;
}

/* The name of method in this run, from the cache; DIFF_NONE when out of
 * memory. */
static uint32_t name_of(struct run_ctx *c, uint32_t method)
{
	uint32_t *v = u64map_find(&c->cache, method);
	uint32_t id;

	if (v)
		return *v;
	id = method_name(c, method);
	if (id != DIFF_NONE && u64map_put(&c->cache, method, id))
		return DIFF_NONE;
	return id;
}

/* The thread group of a thread's name. */
static uint32_t group_of(struct diff_model *dm, const char *name)
{
	size_t n;
	char *norm, *key;
	int changed;
	uint32_t id = DIFF_NONE;

	n = name_norm_thread(name, NULL, 0, &changed);
	norm = malloc(n + 1);
	key = malloc(n + 2);
	if (norm && key) {
		name_norm_thread(name, norm, n + 1, &changed);
		snprintf(key, n + 2, "T%s", norm);
		id = diff_model_intern(dm, DIFF_NAME_THREAD, key, norm, NULL, NULL, NULL);
	}
	free(norm);
	free(key);
	if (id != DIFF_NONE && changed) {
		size_t len = strlen(name) + 2;
		char *seen = malloc(len);
		int r = -1;

		if (seen) {
			snprintf(seen, len, "T%s", name);
			r = diff_model_set_add(&dm->norm_seen, seen);
			free(seen);
		}
		if (r < 0)
			return DIFF_NONE;
		dm->norm_threads += (uint64_t)r;
	}
	return id;
}

/*
 * The flat figures of a thread's whole tree t in this run: per node its
 * name (names[n], set here for every node), calls and base added to its
 * method, cum when no frame above it on its path has the same normalised
 * name. Returns 0 or -1.
 */
static int add_flat(struct run_ctx *c, const struct calltree *t, unsigned metric, uint32_t *names)
{
	struct diff_model *dm = c->dm;
	uint32_t *onpath, *stack = malloc(((size_t)t->max_level + 2) * sizeof(*stack));
	size_t depth = 0;

	for (uint32_t n = 1; n < t->nnodes; n++)
		if ((names[n] = name_of(c, t->nodes[n].method)) == DIFF_NONE) {
			free(stack);
			return -1;
		}
	onpath = calloc(dm->nnames ? dm->nnames : 1, sizeof(*onpath));
	if (!stack || !onpath) {
		free(stack);
		free(onpath);
		return -1;
	}
	/* pre-order: a node's level says how many frames of the path stay */
	for (uint32_t k = 1; k < t->nnodes; k++) {
		uint32_t n = t->order[k], lvl = t->nodes[n].level;
		const struct calltree_fig *f = calltree_fig(t, n, metric);
		struct diff_fig *row = &dm->flat[(size_t)names[n] * dm->nruns + c->run];

		while (depth >= lvl)
			onpath[names[stack[--depth]]]--;
		satsum_addto(&row->calls, t->nodes[n].calls, SATSUM_CALLS);
		satsum_addto(&row->base, f->base, SATSUM_BASE);
		if (!onpath[names[n]])
			satsum_addto(&row->cum, f->cum, SATSUM_CUM);
		dm->flat_seen[(size_t)names[n] * dm->nruns + c->run] = 1;
		onpath[names[n]]++;
		stack[depth++] = n;
	}
	free(stack);
	free(onpath);
	return 0;
}

/* The contexts of tree t (the thread's, or its depth-limited view) under
 * the thread group's node g; names[] holds the names of t's nodes when
 * t is the thread's own tree, else NULL. Returns 0 or -1. */
static int add_tree(struct run_ctx *c, const struct calltree *t, unsigned metric, uint32_t g,
		    const uint32_t *names)
{
	struct diff_tree *dt = &c->dm->tree;
	uint32_t *map = malloc((size_t)t->nnodes * sizeof(*map));

	if (!map)
		return -1;
	map[CALLTREE_ROOT] = g;
	/* a thread group's calls: its threads */
	diff_tree_add(dt, g, c->run, 1, calltree_fig(t, CALLTREE_ROOT, metric)->base);
	for (uint32_t k = 1; k < t->nnodes; k++) {
		uint32_t n = t->order[k];
		uint32_t name = names ? names[n] : name_of(c, t->nodes[n].method);

		if (name == DIFF_NONE ||
		    diff_tree_get(dt, map[t->nodes[n].parent], name, &map[n])) {
			free(map);
			return -1;
		}
		diff_tree_add(dt, map[n], c->run, t->nodes[n].calls,
			      calltree_fig(t, n, metric)->base);
	}
	free(map);
	return 0;
}

/* One selected thread of the run. Returns 0 or -1. */
static int add_thread(struct run_ctx *c, const struct model_thread *th,
		      const struct diff_import *im)
{
	const struct calltree *t = &th->tree;
	uint32_t *names = malloc(((size_t)t->nnodes + 1) * sizeof(*names));
	/* a merged profile's thread by its own name, not its input's */
	uint32_t grp = group_of(c->dm, th->plain ? th->plain : th->name), g;
	int err = -1;

	if (!names || grp == DIFF_NONE || add_flat(c, t, im->metric, names) ||
	    diff_tree_get(&c->dm->tree, 0, grp, &g))
		goto out;
	if (im->max_depth && t->max_level > im->max_depth) {
		struct calltree view;
		uint64_t folded = 0;

		if (shape_cap_depth(t, im->max_depth, &view, &folded))
			goto out;
		c->dm->folded += folded;
		err = add_tree(c, &view, im->metric, g, NULL);
		calltree_free(&view);
	} else {
		err = add_tree(c, t, im->metric, g, names);
	}
out:
	free(names);
	return err;
}

static int describe(struct diff_model *dm, const struct model *m, const struct diff_import *im,
		    const struct diff_run *desc, uint32_t threads)
{
	struct diff_run *r = &dm->runs[dm->added];
	const char *jname = model_meta(m, "jvm.name"), *jver = model_meta(m, "jvm.version");
	const char *mode = model_meta(m, "mode");
	size_t len = strlen(jname ? jname : "") + strlen(jver ? jver : "") + 2;

	*r = *desc;
	r->side = dm->added < dm->nbase ? DIFF_BASE : DIFF_NEW;
	r->threads = threads;
	r->tsc_hz = m->metric[im->metric].tsc_hz;
	r->path = strdup(desc->path ? desc->path : "");
	r->mode = strdup(mode ? mode : "");
	r->calib = desc->calib ? strdup(desc->calib) : NULL;
	r->jvm = malloc(len);
	dm->added++; /* its strings are freed from here on */
	if (!r->path || !r->mode || (desc->calib && !r->calib) || !r->jvm)
		return -1;
	snprintf(r->jvm, len, "%s%s%s", jname ? jname : "", jname && jver ? " " : "",
		 jver ? jver : "");
	if (dm->added == 1) {
		snprintf(dm->metric, sizeof(dm->metric), "%s", m->metric[im->metric].name);
		snprintf(dm->unit, sizeof(dm->unit), "%s", m->metric[im->metric].unit);
	}
	return 0;
}

/* mode=bci, throttle=: over every thread, a throttled method's calls
 * counted after its probes went are its calls too (postproc/throttled.h,
 * as the flat report adds them). Returns 0 or -1. */
static int add_counted(struct run_ctx *c)
{
	struct throttle_fact *v;
	size_t n, bad;

	if (throttled_list(c->m, &v, &n, &bad))
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint32_t name;

		if (!v[i].has_counted || !v[i].counted)
			continue;
		if ((name = name_of(c, v[i].method)) == DIFF_NONE) {
			free(v);
			return -1;
		}
		struct diff_fig *row = &c->dm->flat[(size_t)name * c->dm->nruns + c->run];
		satsum_addto(&row->calls, v[i].counted, SATSUM_CALLS);
		c->dm->flat_seen[(size_t)name * c->dm->nruns + c->run] = 1;
	}
	free(v);
	return 0;
}

int diff_model_add(struct diff_model *dm, const struct model *m, const struct diff_import *im,
		   const struct diff_run *desc)
{
	struct run_ctx c = {dm, m, dm->added, {0}};
	uint32_t threads = 0;
	int err = 0;

	if (dm->added >= dm->nruns || im->metric >= m->nmetrics)
		return -1;
	if (!dm->nnames &&
	    special(dm, model_method_name(m, CALLTREE_ROOT_METHOD)) != DIFF_ROOT_NAME)
		return -1;
	dm->max_depth = im->max_depth;
	if (u64map_init(&c.cache, 1024))
		return -1;
	diff_tree_add(&dm->tree, 0, c.run, 0, 0);
	for (size_t i = 0; i < m->nthreads && !err; i++) {
		const struct model_thread *th = m->thread_list[i];

		if (!model_thread_selected(im->sel, th))
			continue;
		threads++;
		err = add_thread(&c, th, im);
	}
	if (!err && (!im->sel || !im->sel->npats) && throttled_rule(m))
		err = add_counted(&c);
	u64map_free(&c.cache);
	if (!err)
		err = describe(dm, m, im, desc, threads);
	return err;
}
