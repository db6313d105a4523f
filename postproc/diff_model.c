/*
 * diff_model.c - jcal-post diff's model (see diff_model.h): its names, the
 * end of the runs (cum, display names), a side's figures and the
 * comparison of the two sides, the merged-threads tree. The runs are
 * added by diff_model_add.c.
 */
#include "postproc/diff_model_internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "postproc/diff_stats.h"
#include "postproc/model_method.h"
#include "postproc/names.h"
#include "postproc/overloads.h"

int diff_model_init(struct diff_model *dm, unsigned nbase, unsigned nnew, int sig)
{
	memset(dm, 0, sizeof(*dm));
	if (!nbase || !nnew || nbase > DIFF_MAX_RUNS || nnew > DIFF_MAX_RUNS)
		return -1;
	dm->nbase = nbase;
	dm->nnew = nnew;
	dm->nruns = nbase + nnew;
	dm->sig = sig;
	dm->runs = calloc(dm->nruns ? dm->nruns : 1, sizeof(*dm->runs));
	if (!dm->runs || diff_tree_init(&dm->tree, dm->nruns, DIFF_ROOT_NAME)) {
		diff_model_free(dm);
		return -1;
	}
	return 0;
}

static void set_free(struct diff_name_idx **set, int own_keys)
{
	struct diff_name_idx *e, *tmp;

	HASH_ITER (hh, *set, e, tmp) {
		HASH_DEL(*set, e);
		if (own_keys)
			free((char *)e->key);
		free(e);
	}
}

void diff_model_free(struct diff_model *dm)
{
	for (uint32_t i = 0; i < dm->nnames; i++) {
		struct diff_name *n = &dm->names[i];

		free(n->key);
		free(n->display);
		free(n->match);
		free(n->class_sig);
		free(n->method);
		free(n->sig);
	}
	for (unsigned r = 0; r < dm->added; r++) {
		free(dm->runs[r].path);
		free(dm->runs[r].jvm);
		free(dm->runs[r].mode);
		free(dm->runs[r].calib);
	}
	set_free(&dm->idx, 0);
	set_free(&dm->norm_seen, 1);
	free(dm->names);
	free(dm->runs);
	free(dm->flat);
	free(dm->flat_seen);
	diff_tree_free(&dm->tree);
	memset(dm, 0, sizeof(*dm));
}

int diff_model_set_add(struct diff_name_idx **set, const char *key)
{
	struct diff_name_idx *e;

	HASH_FIND_STR(*set, key, e);
	if (e)
		return 0;
	e = calloc(1, sizeof(*e));
	if (!e || !(e->key = strdup(key))) {
		free(e);
		return -1;
	}
	HASH_ADD_KEYPTR(hh, *set, e->key, strlen(e->key), e);
	return 1;
}

/* Room for the flat figures of need names. */
static int flat_reserve(struct diff_model *dm, size_t need)
{
	size_t cap = dm->flat_cap, fcap, scap;
	struct diff_fig *flat;
	uint8_t *seen;

	if (need <= dm->flat_cap)
		return 0;
	while (cap < need)
		cap = cap ? cap * 2 : 256;
	fcap = dm->flat_cap * dm->nruns;
	scap = fcap;
	flat = dm->flat;
	seen = dm->flat_seen;
	if (grow_array(&flat, &fcap, cap * dm->nruns, sizeof(*flat)))
		return -1;
	dm->flat = flat;
	if (grow_array(&seen, &scap, cap * dm->nruns, sizeof(*seen)))
		return -1;
	dm->flat_seen = seen;
	memset(dm->flat + dm->flat_cap * dm->nruns, 0,
	       (cap - dm->flat_cap) * dm->nruns * sizeof(*dm->flat));
	memset(dm->flat_seen + dm->flat_cap * dm->nruns, 0, (cap - dm->flat_cap) * dm->nruns);
	dm->flat_cap = cap;
	return 0;
}

static char *dup_or_null(const char *s, int *oom)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*oom = 1;
	return d;
}

uint32_t diff_model_intern(struct diff_model *dm, enum diff_name_kind kind, const char *key,
			   const char *display, const char *class_sig, const char *method,
			   const char *sig)
{
	struct diff_name_idx *e;
	struct diff_name *n;
	int oom = 0;

	HASH_FIND_STR(dm->idx, key, e);
	if (e)
		return e->id;
	if (dm->nnames == DIFF_NONE - 1 || grow(&dm->names, &dm->names_cap, dm->nnames + 1) ||
	    flat_reserve(dm, (size_t)dm->nnames + 1) || !(e = calloc(1, sizeof(*e))))
		return DIFF_NONE;
	n = &dm->names[dm->nnames];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->key = dup_or_null(key, &oom);
	n->display = dup_or_null(display, &oom);
	n->class_sig = dup_or_null(class_sig, &oom);
	n->method = dup_or_null(method, &oom);
	n->sig = dup_or_null(sig, &oom);
	if (oom) {
		free(n->key);
		free(n->display);
		free(n->class_sig);
		free(n->method);
		free(n->sig);
		free(e);
		return DIFF_NONE;
	}
	e->key = n->key;
	e->id = dm->nnames++;
	HASH_ADD_KEYPTR(hh, dm->idx, e->key, strlen(e->key), e);
	return e->id;
}

const char *diff_model_name(const struct diff_model *dm, uint32_t name)
{
	if (name >= dm->nnames || !dm->names[name].display)
		return "<unknown method>";
	return dm->names[name].display;
}

/* A method's display and match names: package.Class.method with the
 * overload suffix (or the descriptor with --sig), and without. */
static int method_names(struct diff_name *n, const char *suffix)
{
	size_t len = names_method(n->class_sig, n->method, suffix, NULL, 0) + 1;
	size_t mlen = names_method(n->class_sig, n->method, NULL, NULL, 0) + 1;

	n->display = malloc(len);
	n->match = malloc(mlen);
	if (!n->display || !n->match)
		return -1;
	names_method(n->class_sig, n->method, suffix, n->display, len);
	names_method(n->class_sig, n->method, NULL, n->match, mlen);
	return 0;
}

/* Display names of the methods: overloads (methods of one normalised
 * class and name) told apart as jcal-post tells them apart
 * (overloads.h), over the names of every run. */
static int display_names(struct diff_model *dm)
{
	struct model_method *all = calloc(dm->nnames ? dm->nnames : 1, sizeof(*all));
	struct model_method *table = NULL, *mm, *tmp;
	int err = 0;

	if (!all)
		return -1;
	for (uint32_t i = 0; i < dm->nnames; i++) {
		if (dm->names[i].kind != DIFF_NAME_METHOD)
			continue;
		mm = &all[i];
		mm->id = i;
		mm->defined = 1;
		mm->class_sig = dm->names[i].class_sig;
		mm->name = dm->names[i].method;
		mm->sig = dm->names[i].sig;
		HASH_ADD(hh, table, id, sizeof(mm->id), mm);
	}
	if (!dm->sig && overloads_mark(table))
		err = -1;
	HASH_ITER (hh, table, mm, tmp) {
		struct diff_name *n = &dm->names[mm->id];

		if (!err && method_names(n, dm->sig ? n->sig : mm->overload))
			err = -1;
		free(mm->overload);
		HASH_DEL(table, mm);
	}
	free(all);
	return err;
}

int diff_model_finish(struct diff_model *dm)
{
	diff_tree_cum(&dm->tree);
	if (display_names(dm))
		return -1;
	dm->finished = 1;
	return 0;
}

void diff_model_side(const struct diff_model *dm, const struct diff_fig *figs, const uint8_t *seen,
		     enum diff_side side, struct diff_side_fig *out)
{
	unsigned first = side == DIFF_BASE ? 0 : dm->nbase;
	unsigned n = side == DIFF_BASE ? dm->nbase : dm->nnew;
	uint64_t calls[DIFF_MAX_RUNS], base[DIFF_MAX_RUNS], cum[DIFF_MAX_RUNS];

	memset(out, 0, sizeof(*out));
	out->runs = n;
	for (unsigned i = 0; i < n; i++) {
		const struct diff_run *r = &dm->runs[first + i];

		calls[i] = figs[first + i].calls;
		base[i] = model_ticks_value(r->tsc_hz, figs[first + i].base);
		cum[i] = model_ticks_value(r->tsc_hz, figs[first + i].cum);
		out->present += seen[first + i] != 0;
	}
	out->calls = diff_stats_median(calls, n);
	out->calls_min = n ? calls[0] : 0;
	out->calls_max = n ? calls[n - 1] : 0;
	out->base = diff_stats_median(base, n);
	out->cum = diff_stats_median(cum, n);
}

/* The sorted cum of one side's runs into v (room for its runs). */
static size_t side_cum(const struct diff_model *dm, const struct diff_fig *figs,
		       enum diff_side side, uint64_t *v)
{
	unsigned first = side == DIFF_BASE ? 0 : dm->nbase;
	unsigned n = side == DIFF_BASE ? dm->nbase : dm->nnew;

	for (unsigned i = 0; i < n; i++)
		v[i] = model_ticks_value(dm->runs[first + i].tsc_hz, figs[first + i].cum);
	diff_stats_median(v, n); /* sorts */
	return n;
}

void diff_model_compare(const struct diff_model *dm, const struct diff_fig *figs,
			const uint8_t *seen, struct diff_cmp *out)
{
	uint64_t cb[DIFF_MAX_RUNS], cn[DIFF_MAX_RUNS];
	size_t nb, nn;
	double sb, sn;

	memset(out, 0, sizeof(*out));
	diff_model_side(dm, figs, seen, DIFF_BASE, &out->base);
	diff_model_side(dm, figs, seen, DIFF_NEW, &out->new_);
	nb = side_cum(dm, figs, DIFF_BASE, cb);
	nn = side_cum(dm, figs, DIFF_NEW, cn);
	sb = diff_stats_spread(cb, nb);
	sn = diff_stats_spread(cn, nn);
	out->cost_spread = sb > sn ? sb : sn;
	out->calls_spread = out->base.calls_max - out->base.calls_min;
	if (out->new_.calls_max - out->new_.calls_min > out->calls_spread)
		out->calls_spread = out->new_.calls_max - out->new_.calls_min;
	if (dm->nbase > 1 || dm->nnew > 1) /* a side of one run is never beyond */
		out->cost = diff_stats_beyond(cb, nb, cn, nn) ? DIFF_COST_BEYOND : DIFF_COST_WITHIN;
	if (!out->base.present && out->new_.present)
		out->status = DIFF_ADDED;
	else if (out->base.present && !out->new_.present)
		out->status = DIFF_REMOVED;
	else if (out->base.calls != out->new_.calls || out->cost == DIFF_COST_BEYOND)
		out->status = DIFF_CHANGED;
	else
		out->status = DIFF_SAME;
}

int diff_model_merged(const struct diff_model *dm, struct diff_tree *out)
{
	const struct diff_tree *t = &dm->tree;
	uint32_t *map = malloc((t->nnodes ? t->nnodes : 1) * sizeof(*map));

	if (!map || diff_tree_init(out, t->nruns, DIFF_ROOT_NAME)) {
		free(map);
		return -1;
	}
	for (uint32_t n = 0; n < t->nnodes; n++) {
		const struct diff_node *nd = &t->nodes[n];
		const struct diff_fig *f = diff_tree_figs(t, n);
		const uint8_t *s = diff_tree_seen(t, n);

		/* the root and the thread groups are the merged root */
		if (nd->level <= 1)
			map[n] = 0;
		else if (diff_tree_get(out, map[nd->parent], nd->name, &map[n]))
			goto fail;
		for (unsigned r = 0; r < t->nruns; r++)
			if (s[r])
				diff_tree_add(out, map[n], r, f[r].calls, f[r].base);
	}
	diff_tree_cum(out);
	free(map);
	return 0;
fail:
	free(map);
	diff_tree_free(out);
	return -1;
}
