/*
 * model_fold.c - model_fold() (model.h): the threads of a report that shows
 * none apart folded into one tree as they end, so that a trace of many
 * threads needs memory for its calling contexts, not for its threads
 * (docs/performance.md, 4b). Owns the group, the serials already folded
 * (to catch a file whose thread comes back after its THREAD_END), the
 * threads waiting for the tree workers, and the group's place as the
 * model's one thread once the file is read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/satsum.h"
#include "postproc/model_internal.h"
#include "postproc/tree_workers.h"

/* Ended threads held until the tree workers have built them: one wait
 * for the workers per this many. */
#define FOLD_BATCH 256

int model_fold(struct model *m, const struct threadsel *sel, unsigned flags)
{
	struct model_fold *f = calloc(1, sizeof(*f));

	if (!f || tree_group_init(&f->g, 1)) {
		free(f);
		return -1;
	}
	f->sel = sel;
	f->while_reading = (flags & MODEL_FOLD_WHILE_READING) != 0;
	f->g.no_stats = !(flags & MODEL_FOLD_STATS);
	m->fold = f;
	return 0;
}

int model_fold_broken(const struct model *m)
{
	return m->fold && m->fold->broken;
}

void model_fold_free(struct model *m)
{
	struct model_fold *f = m->fold;

	if (!f)
		return;
	tree_group_free(&f->g);
	free(f->runs);
	free(f->pending);
	for (size_t i = 0; i < f->nnames; i++)
		free(f->names[i].name);
	free(f);
	m->fold = NULL;
}

/* The first run whose lo is above s. */
static size_t run_after(const struct model_fold *f, uint32_t s)
{
	size_t lo = 0, hi = f->nruns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->runs[mid].lo <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int model_fold_seen(struct model *m, uint32_t serial)
{
	struct model_fold *f = m->fold;
	size_t i = f ? run_after(f, serial) : 0;

	if (!f || !i || f->runs[i - 1].hi < serial)
		return 0;
	f->broken = 1;
	return 1;
}

/* Adds serial to the runs (not in them yet). Returns 0 or -1. */
static int run_add(struct model_fold *f, uint32_t s)
{
	size_t i = run_after(f, s);
	int joins_prev = i && f->runs[i - 1].hi + 1 == s;
	int joins_next = i < f->nruns && s + 1 == f->runs[i].lo;

	if (joins_prev && joins_next) {
		f->runs[i - 1].hi = f->runs[i].hi;
		memmove(&f->runs[i], &f->runs[i + 1], (f->nruns - i - 1) * sizeof(*f->runs));
		f->nruns--;
	} else if (joins_prev) {
		f->runs[i - 1].hi = s;
	} else if (joins_next) {
		f->runs[i].lo = s;
	} else {
		if (f->nruns == f->runs_cap) {
			size_t cap = f->runs_cap ? 2 * f->runs_cap : 64;
			struct model_fold_run *r = realloc(f->runs, cap * sizeof(*r));

			if (!r)
				return -1;
			f->runs = r;
			f->runs_cap = cap;
		}
		memmove(&f->runs[i + 1], &f->runs[i], (f->nruns - i) * sizeof(*f->runs));
		f->runs[i] = (struct model_fold_run){s, s};
		f->nruns++;
	}
	return 0;
}

void model_fold_note(struct model *m, uint32_t serial)
{
	if (m->fold && !serial)
		m->fold->zero = 1;
}

/* Keeps t's name if it is among the first MODEL_FOLD_NAMES serials. */
static int note_name(struct model_fold *f, const struct model_thread *t)
{
	size_t i = f->nnames;
	char *name;

	f->total++;
	while (i && f->names[i - 1].serial > t->serial)
		i--;
	if (i >= MODEL_FOLD_NAMES)
		return 0;
	if (!(name = strdup(t->name)))
		return -1;
	if (f->nnames == MODEL_FOLD_NAMES)
		free(f->names[--f->nnames].name);
	memmove(&f->names[i + 1], &f->names[i], (f->nnames - i) * sizeof(f->names[0]));
	f->names[i].serial = t->serial;
	f->names[i].name = name;
	f->nnames++;
	return 0;
}

/* Folds t (its tree finished) into the group as source who, or counts it
 * out; its record stays. A group brings the threads it holds, selected
 * already. Returns 0 or -1 (no memory). */
static int fold_tree(struct model_fold *f, const struct model_thread *t, uint32_t who,
		     tree_group_method_fn map, void *ctx)
{
	f->events = satsum_add(f->events, t->tree.stats.events, 0);
	if (t->group) {
		f->nsel += t->nfolded;
	} else {
		if (note_name(f, t))
			return -1;
		if (!f->any_listed || t->serial > f->max_serial)
			f->max_serial = t->serial;
		if (!f->any_listed || t->serial < f->min_serial)
			f->min_serial = t->serial;
		f->any_listed = 1;
		if (!model_thread_selected(f->sel, t)) {
			f->nelided++;
			return 0;
		}
		f->nsel++;
	}
	f->snap_flags |= t->snap_flags;
	/* a group's indices are the order its own threads made */
	return tree_group_add(&f->g, &t->tree, who, t->group ? TREE_GROUP_BY_INDEX : 0, map, ctx);
}

/* Folds an ended thread and lets its record go. Returns 0 or -ENOMEM. */
static int fold_ended(struct model *m, struct model_thread *t)
{
	struct model_fold *f = m->fold;

	if (!t->has_tree) {
		if (calltree_init(&t->tree, m->nmetrics ? m->nmetrics : 1, NULL))
			return -ENOMEM;
		t->has_tree = 1;
	}
	if (calltree_finish(&t->tree) || fold_tree(f, t, t->serial, NULL, NULL) ||
	    run_add(f, t->serial))
		return -ENOMEM;
	if (m->last_thread == t)
		m->last_thread = NULL;
	HASH_DEL(m->threads, t);
	m->nthreads--;
	model_thread_free(t);
	return 0;
}

/* Waits for the workers, then folds every thread that waited for them. */
static int fold_pending(struct model *m)
{
	struct model_fold *f = m->fold;
	int err = m->workers ? tree_workers_sync(m->workers) : 0;

	for (size_t i = 0; i < f->npending && !err; i++)
		err = fold_ended(m, f->pending[i]);
	f->npending = 0;
	return err;
}

int model_fold_ended(struct model *m, struct model_thread *t)
{
	struct model_fold *f = m->fold;

	if (!m->workers || !t->has_tree)
		return fold_ended(m, t);
	if (f->npending == f->pending_cap) {
		size_t cap = f->pending_cap ? 2 * f->pending_cap : FOLD_BATCH;
		struct model_thread **p = realloc(f->pending, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		f->pending = p;
		f->pending_cap = cap;
	}
	f->pending[f->npending++] = t;
	return f->npending >= FOLD_BATCH ? fold_pending(m) : 0;
}

/* The group as the model's one thread, numbered and named as
 * --merge-threads numbers and names its merged thread (shaping.c). */
static int group_thread(struct model *m, struct model_thread **out)
{
	struct model_fold *f = m->fold;
	struct model_thread *t = calloc(1, sizeof(*t));
	char name[64];

	if (!t)
		return -1;
	snprintf(name, sizeof(name), "%zu thread%s merged", f->nsel, f->nsel == 1 ? "" : "s");
	t->serial = f->zero ? f->max_serial + 1 : 0;
	t->name = strdup(name);
	if (!t->name || tree_group_finish(&f->g)) {
		model_thread_free(t);
		return -1;
	}
	tree_group_take(&f->g, &t->tree);
	t->has_tree = 1;
	t->group = 1;
	t->nfolded = f->nsel;
	t->snap_flags = f->snap_flags;
	HASH_ADD(hh, m->threads, serial, sizeof(t->serial), t);
	*out = t;
	return 0;
}

int model_fold_finish(struct model *m, struct model_thread **list, size_t n)
{
	struct model_fold *f = m->fold;
	struct model_thread *g;

	/* what waited for the workers is in list (they are done) */
	f->npending = 0;
	for (size_t i = 0; i < n; i++) {
		if (fold_tree(f, list[i], list[i]->serial, NULL, NULL))
			goto oom;
		/* its tree is in the group: the record keeps its place only */
		HASH_DEL(m->threads, list[i]);
		model_thread_free(list[i]);
	}
	m->nthreads = 0;
	if (group_thread(m, &g))
		goto oom;
	m->thread_list[0] = g;
	m->nthreads = 1;
	m->folded = 1;
	m->fold_elided = f->nelided;
	return 0;
oom:
	snprintf(m->err, sizeof(m->err), "out of memory");
	return -1;
}

int model_fold_add(struct model *m, const struct model_thread *t, uint32_t who, size_t elided,
		   tree_group_method_fn map, void *ctx)
{
	m->fold->nelided += elided;
	return fold_tree(m->fold, t, who, map, ctx);
}

void model_fold_serials(struct model *m, uint32_t min, uint32_t max, int zero)
{
	struct model_fold *f = m->fold;

	if (!f->any_listed || max > f->max_serial)
		f->max_serial = max;
	if (!f->any_listed || min < f->min_serial)
		f->min_serial = min;
	f->any_listed = 1;
	f->zero |= zero;
}

int model_fold_done(struct model *m)
{
	free(m->thread_list);
	m->thread_list = malloc(sizeof(*m->thread_list));
	if (!m->thread_list) {
		snprintf(m->err, sizeof(m->err), "out of memory");
		return -1;
	}
	return model_fold_finish(m, NULL, 0);
}

int model_serials(const struct model *m, uint32_t *min, uint32_t *max, int *zero)
{
	if (m->folded) {
		*min = m->fold->min_serial;
		*max = m->fold->max_serial;
		*zero = m->fold->zero;
		return m->fold->any_listed;
	}
	*min = m->nthreads ? m->thread_list[0]->serial : 0;
	*max = m->nthreads ? m->thread_list[m->nthreads - 1]->serial : 0;
	*zero = m->nthreads && !m->thread_list[0]->serial;
	return m->nthreads > 0;
}
