/*
 * model.c - loads a trace into threads, methods and trees (see model.h).
 */
#include "postproc/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/lathist.h"
#include "postproc/model_internal.h"
#include "postproc/names.h"
#include "postproc/overloads.h"
#include "common/satsum.h"
#include "common/tree_snapshot.h"
#include "postproc/tree_workers.h"

#define ROOT_NAME "<thread root>"
#define FOLDED_NAME "<deeper frames folded>"
#define COLD_NAME "<cold contexts>"

void model_init(struct model *m, const struct calltree_comp *comp)
{
	memset(m, 0, sizeof(*m));
	if (comp && comp->fn) {
		m->comp = *comp;
		m->has_comp = 1;
	}
}

static void method_free(struct model_method *mm)
{
	free(mm->class_sig);
	free(mm->name);
	free(mm->sig);
	free(mm->display);
	free(mm->overload);
	free(mm);
}

void model_thread_free(struct model_thread *t)
{
	calltree_free(&t->tree);
	free(t->snap_map);
	free(t->name);
	free(t->plain);
	free(t->pool_serials);
	free(t);
}

static void inputs_free(struct model *m)
{
	for (size_t i = 0; i < m->ninputs; i++) {
		struct model_input *in = &m->inputs[i];

		free(in->path);
		free(in->host);
		free(in->pid);
		free(in->jvm);
		free(in->metrics);
		free(in->calib);
		free(in->tag);
		for (size_t k = 0; k < in->nlabels; k++) {
			free(in->labels[k].key);
			free(in->labels[k].value);
		}
		free(in->labels);
	}
	free(m->inputs);
}

void model_free(struct model *m)
{
	struct model_method *mm, *mtmp;
	struct model_thread *t, *ttmp;
	struct model_meta_idx *mi, *mitmp;

	tree_workers_finish(m->workers);
	HASH_ITER (hh, m->meta_idx, mi, mitmp) {
		HASH_DEL(m->meta_idx, mi);
		free(mi);
	}
	for (size_t i = 0; i < m->nmeta; i++) {
		free(m->meta[i].key);
		free(m->meta[i].value);
	}
	free(m->meta);
	free(m->slow);
	HASH_ITER (hh, m->methods, mm, mtmp) {
		HASH_DEL(m->methods, mm);
		method_free(mm);
	}
	struct model_sig_idx *si, *sitmp;
	HASH_ITER (hh, m->sig_idx, si, sitmp) {
		HASH_DEL(m->sig_idx, si);
		free(si->key);
		free(si);
	}
	HASH_ITER (hh, m->threads, t, ttmp) {
		HASH_DEL(m->threads, t);
		model_thread_free(t);
	}
	free(m->thread_list);
	for (size_t i = 0; i < m->npools; i++)
		model_thread_free(m->pools[i]);
	free(m->pools);
	model_fold_free(m);
	inputs_free(m);
	waits_free(&m->waits);
	memset(m, 0, sizeof(*m));
}

static int oom(struct model *m)
{
	if (!model_fold_broken(m)) /* m->err says which thread came back */
		snprintf(m->err, sizeof(m->err), "out of memory");
	return -1;
}

/* Replaces *dst with a copy of src (NULL stays NULL). */
static int set_str(char **dst, const char *src)
{
	char *s = NULL;

	if (src && !(s = strdup(src)))
		return -1;
	free(*dst);
	*dst = s;
	return 0;
}

static struct model_meta *meta_find(const struct model *m, const char *key)
{
	struct model_meta_idx *mi;

	HASH_FIND_STR(m->meta_idx, key, mi);
	return mi ? &m->meta[mi->i] : NULL;
}

static int on_meta(void *ctx, const char *key, const char *value)
{
	struct model *m = ctx;
	struct model_meta *mm = meta_find(m, key);
	struct model_meta_idx *mi;

	if (mm)
		return set_str(&mm->value, value ? value : "") ? oom(m) : 0;
	if (grow(&m->meta, &m->meta_cap, m->nmeta + 1))
		return oom(m);
	m->meta[m->nmeta].key = strdup(key);
	m->meta[m->nmeta].value = strdup(value ? value : "");
	mi = calloc(1, sizeof(*mi));
	if (!m->meta[m->nmeta].key || !m->meta[m->nmeta].value || !mi) {
		free(m->meta[m->nmeta].key);
		free(m->meta[m->nmeta].value);
		free(mi);
		return oom(m);
	}
	/* the key string stays where it is when the array grows */
	mi->key = m->meta[m->nmeta].key;
	mi->i = m->nmeta;
	HASH_ADD_KEYPTR(hh, m->meta_idx, mi->key, strlen(mi->key), mi);
	m->nmeta++;
	return 0;
}

static struct model_method *method_get(struct model *m, uint32_t id)
{
	struct model_method *mm;

	HASH_FIND(hh, m->methods, &id, sizeof(id), mm);
	if (mm)
		return mm;
	mm = calloc(1, sizeof(*mm));
	if (!mm)
		return NULL;
	mm->id = id;
	HASH_ADD(hh, m->methods, id, sizeof(mm->id), mm);
	return mm;
}

/* Indexes a newly defined method by class, name and signature; a method
 * already there under another id makes this one an alias of it, as
 * mode=bci does when it gives the copies of one method a single id. */
static int index_signature(struct model *m, struct model_method *mm)
{
	const char *c = mm->class_sig ? mm->class_sig : "", *n = mm->name ? mm->name : "",
		   *s = mm->sig ? mm->sig : "";
	size_t len = strlen(c) + strlen(n) + strlen(s) + 3;
	struct model_sig_idx *si;
	char *key = malloc(len);

	if (!key)
		return -1;
	snprintf(key, len, "%s\1%s\1%s", c, n, s);
	HASH_FIND_STR(m->sig_idx, key, si);
	if (si) {
		free(key);
		if (si->id != mm->id) {
			mm->aliased = 1;
			mm->canon = si->id;
			m->nmethods_merged++;
		}
		return 0;
	}
	si = malloc(sizeof(*si));
	if (!si) {
		free(key);
		return -1;
	}
	si->key = key;
	si->id = mm->id;
	HASH_ADD_KEYPTR(hh, m->sig_idx, si->key, strlen(si->key), si);
	return 0;
}

uint32_t model_event_method(const struct model *m, uint32_t id)
{
	struct model_method *mm;

	if (!m->nmethods_merged)
		return id;
	HASH_FIND(hh, m->methods, &id, sizeof(id), mm);
	return mm && mm->aliased ? mm->canon : id;
}

static int on_method(void *ctx, const struct trace_method *tm)
{
	struct model *m = ctx;
	struct model_method *mm = method_get(m, tm->id);

	if (!mm)
		return oom(m);
	if (set_str(&mm->class_sig, tm->class_sig) || set_str(&mm->name, tm->name) ||
	    set_str(&mm->sig, tm->sig))
		return oom(m);
	if (!mm->defined) {
		m->nmethods_defined++;
		if (index_signature(m, mm))
			return oom(m);
	}
	mm->defined = 1;
	mm->modifiers = tm->modifiers;
	return 0;
}

static struct model_thread *thread_get(struct model *m, uint32_t serial)
{
	struct model_thread *t = m->last_thread;
	char name[32];

	if (t && t->serial == serial)
		return t;
	HASH_FIND(hh, m->threads, &serial, sizeof(serial), t);
	if (!t && m->fold && model_fold_seen(m, serial)) {
		snprintf(m->err, sizeof(m->err),
			 "thread #%u: records after its THREAD_END (read again without folding)",
			 serial);
		return NULL;
	}
	if (!t) {
		model_fold_note(m, serial);
		t = calloc(1, sizeof(*t));
		snprintf(name, sizeof(name), "thread-#%u", serial);
		if (!t || !(t->name = strdup(name))) {
			free(t);
			return NULL;
		}
		t->serial = serial;
		HASH_ADD(hh, m->threads, serial, sizeof(t->serial), t);
		m->nthreads++;
	}
	m->last_thread = t;
	return t;
}

static int on_thread_start(void *ctx, const struct trace_thread *tt)
{
	struct model *m = ctx;
	struct model_thread *t = thread_get(m, tt->serial);

	if (!t)
		return oom(m);
	t->java_tid = tt->java_tid;
	t->os_tid = tt->os_tid;
	t->flags = tt->flags;
	t->start_ns = tt->time_ns;
	t->started = 1;
	t->nstart_metric = tt->nmetrics;
	memcpy(t->start_metric, tt->metric, sizeof(t->start_metric));
	if (tt->name && set_str(&t->name, tt->name))
		return oom(m);
	return 0;
}

static int on_thread_name(void *ctx, const struct trace_thread *tt)
{
	struct model *m = ctx;
	struct model_thread *t = thread_get(m, tt->serial);

	if (!t)
		return oom(m);
	if (tt->name && set_str(&t->name, tt->name))
		return oom(m);
	if (tt->java_tid)
		t->java_tid = tt->java_tid;
	return 0;
}

static int tree_error(struct model *m, uint32_t serial, int err);

static int on_thread_end(void *ctx, const struct trace_thread *tt)
{
	struct model *m = ctx;
	struct model_thread *t = thread_get(m, tt->serial);

	if (!t)
		return oom(m);
	t->ended = 1;
	t->end_ns = tt->time_ns;
	t->end_events = tt->events;
	t->nend_metric = tt->nmetrics;
	memcpy(t->end_metric, tt->metric, sizeof(t->end_metric));
	/* its tree keeps its contexts only: a program that starts a thread per
	 * task has many threads of a few contexts each */
	if (t->snap_map)
		return 0;
	if (m->workers && t->has_tree &&
	    tree_error(m, t->serial, tree_workers_rest(m->workers, t->serial, &t->tree)))
		return -1;
	/* or no thread at all: folded into the others' tree (model_fold) */
	if (m->fold && m->fold->while_reading) {
		/* the fold frees t: its serial is read first */
		uint32_t serial = t->serial;
		int rc = model_fold_ended(m, t);

		return tree_error(m, serial, rc);
	}
	if (t->has_tree && !m->workers)
		calltree_rest(&t->tree);
	return 0;
}

static int on_compiled(void *ctx, const struct trace_compiled *c)
{
	struct model *m = ctx;

	if (c->load)
		m->compiled_loads++;
	else
		m->compiled_unloads++;
	return 0;
}

static int on_monitor(void *ctx, const struct trace_monitor *mon)
{
	struct model *m = ctx;

	if (waits_add(&m->waits, mon)) {
		snprintf(m->err, sizeof(m->err), "out of memory");
		return -1;
	}
	return 0;
}

/* The tree of a thread's first event, for nmetrics metrics (1 if 0).
 * Returns 0 or -1 (out of memory). */
static int tree_setup(struct model *m, struct model_thread *t, unsigned nmetrics)
{
	unsigned n = nmetrics ? nmetrics : 1;

	if (n > JCAL_MAX_METRICS)
		n = JCAL_MAX_METRICS;
	if (calltree_init(&t->tree, n, m->has_comp ? &m->comp : NULL))
		return -1;
	t->tree.continued = (t->flags & TRACE_THREAD_CONTINUED) != 0;
	t->has_tree = 1;
	if (n > m->nmetrics)
		m->nmetrics = n;
	return 0;
}

/* What calltree_events() (in place or in a worker) said: 0 or -1 with
 * m->err. */
static int tree_error(struct model *m, uint32_t serial, int err)
{
	if (!err)
		return 0;
	if (err == -ENOMEM)
		return oom(m);
	if (err == -EBADMSG) {
		/* a worker's chunk with a malformed event: stop, model_redo */
		m->redo = 1;
		snprintf(m->err, sizeof(m->err), "thread #%u: a malformed events chunk", serial);
		return -1;
	}
	snprintf(m->err, sizeof(m->err), "thread #%u: invalid event", serial);
	return -1;
}

/* Events in bulk: to the thread's tree, built here or by a worker. */
static int on_events(void *ctx, const struct trace_event_batch *b)
{
	struct model *m = ctx;
	struct model_thread *t = thread_get(m, b->thread);
	uint32_t ids[TRACE_EVENT_BATCH];
	uint64_t fit[TRACE_EVENT_BATCH * JCAL_MAX_METRICS];
	const uint32_t *method = b->method;
	const uint64_t *metric = b->metric;
	unsigned nm;

	if (!t)
		return oom(m);
	if (m->snapshot || t->snap_map) {
		snprintf(m->err, sizeof(m->err),
			 "thread #%u: events in a tree snapshot (a file holds either)", b->thread);
		return -1;
	}
	if (!t->has_tree && tree_setup(m, t, b->nmetrics))
		return oom(m);
	nm = t->tree.nmetrics;
	if (b->nmetrics != nm) {
		/* a chunk with another number of metrics than the thread's first:
		 * missing ones are 0, extra ones dropped */
		memset(fit, 0, b->n * nm * sizeof(fit[0]));
		for (size_t k = 0; k < b->n; k++)
			memcpy(&fit[k * nm], &b->metric[k * b->nmetrics],
			       (b->nmetrics < nm ? b->nmetrics : nm) * sizeof(fit[0]));
		metric = fit;
	}
	if (m->nmethods_merged) {
		for (size_t k = 0; k < b->n; k++)
			ids[k] = model_event_method(m, b->method[k]);
		method = ids;
	}
	if (m->workers)
		return tree_error(m, b->thread,
				  tree_workers_add(m->workers, t->serial, &t->tree, method,
						   b->transition, b->type, metric, b->n));
	return tree_error(m, b->thread,
			  calltree_events(&t->tree, method, b->transition, b->type, metric, b->n));
}

/* Events straight from their chunk's bytes into the thread's tree, when it
 * has one metric, as the chunk does: what on_events does, without
 * decoding into a batch first; built here, or the chunk handed undecoded
 * to a worker (model_jobs with chunks). Any other chunk is left to
 * on_events. */
static int on_events_raw(void *ctx, uint32_t thread, struct event_run *r)
{
	struct model *m = ctx;
	struct model_thread *t;

	if (r->nmetrics != 1 || (m->workers && !m->chunk_jobs) || m->nmethods_merged)
		return 0;
	t = thread_get(m, thread);
	if (!t)
		return oom(m);
	if (m->snapshot || t->snap_map)
		return 0; /* on_events says what is wrong */
	if (!t->has_tree && tree_setup(m, t, 1))
		return oom(m);
	if (t->tree.nmetrics != 1)
		return 0;
	if (m->workers) {
		int err = tree_workers_add_chunk(m->workers, t->serial, &t->tree, r->p,
						 (size_t)(r->end - r->p));

		if (!err) {
			r->p = r->end;
			r->later = 1;
			m->chunks_later = 1;
		}
		return tree_error(m, thread, err);
	}
	return tree_error(m, thread, calltree_decode(&t->tree, r));
}

/* One event, for readers that hand them one by one: a batch of one. */
static int on_event(void *ctx, const struct trace_event *e)
{
	const struct trace_event_batch b = {
	    .thread = e->thread,
	    .nmetrics = e->nmetrics,
	    .n = 1,
	    .method = &e->method,
	    .transition = &e->transition,
	    .type = &e->type,
	    .metric = e->metric,
	};

	return on_events(ctx, &b);
}

int model_jobs(struct model *m, unsigned jobs, int chunks)
{
	if (!jobs || m->workers)
		return 0;
	m->workers = tree_workers_start(jobs);
	m->chunk_jobs = chunks && m->workers;
	return m->workers ? 0 : -1;
}

/* Waits for the trees being built by model_jobs' threads and stops them:
 * 0, or -1 with m->err when a batch failed. */
static int model_trees_done(struct model *m)
{
	int err = m->workers ? tree_workers_finish(m->workers) : m->trees_err;

	m->workers = NULL;
	m->trees_err = 0;
	return tree_error(m, 0, err);
}

int model_redo(struct model *m)
{
	struct model_thread *t, *tmp;
	uint64_t events = 0;

	if (!m->chunks_later)
		return 0;
	m->trees_err = tree_workers_finish(m->workers);
	m->workers = NULL;
	if (m->trees_err == -EBADMSG)
		m->redo = 1;
	if (m->redo || !m->has_end)
		return m->redo;
	/* END counts the method events before it: the reader left that check
	 * to the chunks' decoders */
	HASH_ITER (hh, m->threads, t, tmp)
		if (t->has_tree)
			events = satsum_add(events, t->tree.stats.events, SATSUM_EVENTS);
	if (m->fold)
		events = satsum_add(events, m->fold->events, SATSUM_EVENTS);
	m->redo = events != m->end.events;
	return m->redo;
}

/* The nodes of a snapshot's thread there is room for before its first. */
#define SNAP_FIRST 1024u

/* A tree snapshot's thread: its tree comes node by node (on_tree_node). */
static int on_tree_thread(void *ctx, const struct trace_tree_thread *tt)
{
	struct model *m = ctx;
	struct model_thread *t = thread_get(m, tt->serial);

	if (!t)
		return oom(m);
	if (t->has_tree) {
		snprintf(m->err, sizeof(m->err), "thread #%u: %s", tt->serial,
			 t->snap_map ? "a second tree in the snapshot"
				     : "a tree after events (a file holds either)");
		return -1;
	}
	/* room for the nodes as they come: the count is the record's word,
	 * what the file holds may be less (a stream's size is not known) */
	t->snap_cap = 0;
	if (calltree_init(&t->tree, tt->nmetrics, NULL) ||
	    grow(&t->snap_map, &t->snap_cap, tt->nodes < SNAP_FIRST ? tt->nodes : SNAP_FIRST))
		return oom(m);
	tree_snapshot_stats_back(tt->stat, &t->tree.stats);
	t->has_tree = 1;
	t->snap_flags = tt->flags;
	t->snap_nodes = tt->nodes;
	t->snap_next = 0;
	m->snapshot = 1;
	if (tt->nmetrics > m->nmetrics)
		m->nmetrics = tt->nmetrics;
	return 0;
}

/* One node of a snapshot's tree, after its parent. Copies of one method
 * (model.h, aliased) merge as they do in a tree built from events. */
static int on_tree_node(void *ctx, const struct trace_tree_node *tn)
{
	struct model *m = ctx;
	struct model_thread *t = thread_get(m, tn->serial);
	struct calltree_node *n;
	struct calltree_fig *f;
	uint32_t idx = CALLTREE_ROOT;

	if (!t)
		return oom(m);
	if (!t->snap_map || tn->index != t->snap_next || tn->index >= t->snap_nodes ||
	    tn->nmetrics != t->tree.nmetrics) {
		snprintf(m->err, sizeof(m->err),
			 "thread #%u: tree node %u out of place (expected node %u of %u, %u "
			 "metrics)",
			 tn->serial, tn->index, t->snap_next, t->snap_nodes, t->tree.nmetrics);
		return -1;
	}
	if (grow(&t->snap_map, &t->snap_cap, (size_t)t->snap_next + 1) ||
	    (tn->index && calltree_child(&t->tree, t->snap_map[tn->parent],
					 model_event_method(m, tn->method), &idx)))
		return oom(m);
	t->snap_map[t->snap_next++] = idx;
	n = &t->tree.nodes[idx];
	f = calltree_fig(&t->tree, idx, 0);
	/* copies of one method merge into one node: their sums saturate */
	if (tn->index)
		satsum_addto(&n->calls, tn->calls, SATSUM_CALLS);
	else
		n->calls = tn->calls;
	for (unsigned i = 0; i < tn->nmetrics; i++) {
		satsum_addto(&f[i].raw_base, tn->raw[i], SATSUM_RAW_BASE);
		satsum_addto(&f[i].base, m->snapshot_raw ? tn->raw[i] : tn->comp[i], SATSUM_BASE);
	}
	return 0;
}

/* A snapshot's histogram of a node's calls (after the node), kept when
 * the model wants them; copies of one method add up as their calls do. */
static int on_tree_hist(void *ctx, uint32_t serial, uint32_t node, const struct lathist *h)
{
	struct model *m = ctx;
	struct model_thread *t;

	if (!m->want_hists)
		return 0;
	t = thread_get(m, serial);
	if (!t)
		return oom(m);
	if (!t->snap_map || node >= t->snap_next) {
		snprintf(m->err, sizeof(m->err),
			 "thread #%u: a histogram of tree node %u, which it does not have (yet)",
			 serial, node);
		return -1;
	}
	if ((!t->tree.hist && calltree_keep_hists(&t->tree)) ||
	    lathist_merge(&t->tree.hist[t->snap_map[node]], h))
		return oom(m);
	return 0;
}

/* A call kept by slow= (format 3.2), in the file's order. */
static int on_tree_slow(void *ctx, const struct trace_slow *c)
{
	struct model *m = ctx;

	if (grow(&m->slow, &m->slow_cap, m->nslow + 1))
		return oom(m);
	m->slow[m->nslow++] = *c;
	return 0;
}

const struct model_thread *model_thread_find(const struct model *m, uint32_t serial)
{
	struct model_thread *t;

	HASH_FIND(hh, m->threads, &serial, sizeof(serial), t);
	return t;
}

int model_peek_snapshot(const char *path)
{
	unsigned char h[12];
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(h, 1, sizeof(h), f) : 0;

	if (f)
		fclose(f);
	return n == sizeof(h) && !memcmp(h, TRACE_MAGIC, TRACE_MAGIC_LEN) &&
	       (h[8] | h[9] << 8) == TRACE_SNAPSHOT_VERSION_MAJOR;
}

int model_snapshot_compensated(const struct model *m)
{
	if (!m->snapshot || m->snapshot_raw)
		return 0;
	for (size_t i = 0; i < m->nthreads; i++)
		if (m->thread_list && m->thread_list[i]->snap_flags & TRACE_TREE_COMPENSATED)
			return 1;
	return 0;
}

static int on_end(void *ctx, const struct trace_end *e)
{
	struct model *m = ctx;

	m->has_end = 1;
	m->end = *e;
	return 0;
}

void model_visitor(struct model *m, struct trace_visitor *v)
{
	memset(v, 0, sizeof(*v));
	v->ctx = m;
	v->meta = on_meta;
	v->method = on_method;
	v->thread_start = on_thread_start;
	v->thread_name = on_thread_name;
	v->thread_end = on_thread_end;
	v->compiled = on_compiled;
	v->monitor = on_monitor;
	v->event = on_event;
	v->events = on_events;
	v->events_raw = on_events_raw;
	v->end = on_end;
	v->tree_thread = on_tree_thread;
	v->tree_node = on_tree_node;
	v->tree_hist = on_tree_hist;
	v->tree_slow = on_tree_slow;
}

enum trace_status model_load(struct model *m, const char *path, struct trace_result *res)
{
	struct trace_visitor v;

	model_visitor(m, &v);
	return trace_read_file(path, &v, res);
}

const char *model_meta(const struct model *m, const char *key)
{
	const struct model_meta *mm = meta_find(m, key);

	return mm ? mm->value : NULL;
}

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

/* Metric names and units from "metrics" ("a+b") and "metric.N.*". A tsc
 * metric is shown in ns through tsc.hz, which must be a frequency between
 * MODEL_TSC_HZ_MIN and MODEL_TSC_HZ_MAX: a value outside would turn every
 * figure into 0 or overflow it. Returns 0, or -1 with m->err set. */
static int derive_metrics(struct model *m)
{
	const char *list = model_meta(m, "metrics"), *hz = model_meta(m, "tsc.hz");
	unsigned n = 0;
	char key[64];

	if (list && *list) {
		const char *p = list;

		while (n < JCAL_MAX_METRICS) {
			size_t len = strcspn(p, "+");

			snprintf(m->metric[n].name, sizeof(m->metric[n].name), "%.*s", (int)len, p);
			n++;
			if (!p[len])
				break;
			p += len + 1;
		}
	}
	for (unsigned i = 0; i < JCAL_MAX_METRICS; i++) {
		const char *v;

		snprintf(key, sizeof(key), "metric.%u.name", i);
		if ((v = model_meta(m, key))) {
			copy(m->metric[i].name, sizeof(m->metric[i].name), v);
			if (i + 1 > n)
				n = i + 1;
		}
		snprintf(key, sizeof(key), "metric.%u.unit", i);
		if ((v = model_meta(m, key)))
			copy(m->metric[i].unit, sizeof(m->metric[i].unit), v);
		snprintf(key, sizeof(key), "metric.%u.why", i);
		if ((v = model_meta(m, key)))
			copy(m->metric[i].why, sizeof(m->metric[i].why), v);
	}
	if (n > m->nmetrics)
		m->nmetrics = n;
	if (!m->nmetrics)
		m->nmetrics = 1;
	for (unsigned i = 0; i < m->nmetrics; i++) {
		struct model_metric *mt = &m->metric[i];

		if (!mt->name[0])
			snprintf(mt->name, sizeof(mt->name), "metric%u", i);
		if (!strcmp(mt->name, "tsc") && hz) {
			char *end;
			double v = strtod(hz, &end);

			if (end == hz || *end ||
			    !(v >= MODEL_TSC_HZ_MIN && v <= MODEL_TSC_HZ_MAX)) {
				snprintf(
				    m->err, sizeof(m->err),
				    "meta record tsc.hz '%.64s' is not a TSC frequency in Hz "
				    "between 1e6 and 1e11: the tsc figures cannot be converted "
				    "to ns",
				    hz);
				return -1;
			}
			mt->tsc_hz = v;
			copy(mt->unit, sizeof(mt->unit), "ns");
		}
		if (!mt->unit[0] && !strcmp(mt->name, "cputime"))
			copy(mt->unit, sizeof(mt->unit), "ns");
	}
	return 0;
}

static int by_serial(const void *a, const void *b)
{
	const struct model_thread *x = *(const struct model_thread *const *)a;
	const struct model_thread *y = *(const struct model_thread *const *)b;

	return x->serial < y->serial ? -1 : x->serial > y->serial;
}

/* A snapshot's slow= from its meta records (model.h). */
static void model_slow_meta(struct model *m)
{
	const char *ns = model_meta(m, "snapshot.slow.ns"), *max, *over;

	if (!m->snapshot || !ns)
		return;
	max = model_meta(m, "snapshot.slow.max");
	over = model_meta(m, "snapshot.slow.over");
	m->slow_inputs = 1;
	m->slow_ns = strtoull(ns, NULL, 10);
	m->slow_max = max ? strtoull(max, NULL, 10) : 0;
	m->slow_over = over ? strtoull(over, NULL, 10) : 0;
}

int model_finish(struct model *m)
{
	struct model_thread *t, *tmp;
	size_t i = 0;

	if (model_trees_done(m))
		return -1;
	m->thread_list = malloc((m->nthreads ? m->nthreads : 1) * sizeof(*m->thread_list));
	if (!m->thread_list)
		return oom(m);
	model_slow_meta(m);
	/* A snapshot whose agent merged ended threads into "<ended threads>"
	 * still defines them: they have no tree of their own and are not
	 * listed (the merged tree holds their calls). */
	const char *merged = m->snapshot ? model_meta(m, "snapshot.ended_merged") : NULL;
	int drop_treeless = merged && strcmp(merged, "0") != 0;

	HASH_ITER (hh, m->threads, t, tmp) {
		if (drop_treeless && !t->has_tree)
			continue;
		if (!t->has_tree) {
			/* a thread without events still gets its (empty) tree */
			if (calltree_init(&t->tree, m->nmetrics ? m->nmetrics : 1, NULL))
				return oom(m);
			t->has_tree = 1;
		}
		if (t->snap_map && t->snap_next != t->snap_nodes) {
			snprintf(m->err, sizeof(m->err),
				 "thread #%u: the snapshot has %u of its %u tree nodes", t->serial,
				 t->snap_next, t->snap_nodes);
			return -1;
		}
		free(t->snap_map);
		t->snap_map = NULL;
		if (calltree_finish(&t->tree))
			return oom(m);
		m->thread_list[i++] = t;
	}
	m->nthreads = i;
	qsort(m->thread_list, m->nthreads, sizeof(*m->thread_list), by_serial);
	if (m->fold && model_fold_finish(m, m->thread_list, m->nthreads))
		return -1;
	if (derive_metrics(m))
		return -1;
	/* every tree has every metric the reports may ask for: a tree of
	 * fewer (a thread whose events carried fewer, or a trace whose meta
	 * names more than its events carry) gets the others as 0, rather
	 * than a report reading another context's figures for them */
	for (i = 0; i < m->nthreads; i++)
		if (tree_group_widen(&m->thread_list[i]->tree, m->nmetrics))
			return oom(m);
	return 0;
}

static int set_display(struct model_method *mm, int with_sig)
{
	/* without --sig, an overload's parameter list tells it apart */
	const char *sig = with_sig ? mm->sig : mm->overload;
	char buf[512];
	size_t n;

	if (!mm->defined)
		n = (size_t)snprintf(buf, sizeof(buf), "<unknown method #%u>", mm->id);
	else
		n = names_method(mm->class_sig, mm->name, sig, buf, sizeof(buf));
	free(mm->display);
	if (n < sizeof(buf)) {
		mm->display = strdup(buf);
	} else {
		mm->display = malloc(n + 1);
		if (mm->display)
			names_method(mm->class_sig, mm->name, sig, mm->display, n + 1);
	}
	return mm->display ? 0 : -1;
}

int model_names(struct model *m, int with_sig)
{
	struct model_method *mm, *tmp;

	for (size_t i = 0; i < m->nthreads; i++) {
		const struct calltree *t = &m->thread_list[i]->tree;

		for (uint32_t n = 1; n < t->nnodes; n++)
			if (!method_get(m, t->nodes[n].method))
				return oom(m);
	}
	if (!with_sig && overloads_mark(m->methods))
		return oom(m);
	HASH_ITER (hh, m->methods, mm, tmp)
		if (set_display(mm, with_sig))
			return oom(m);
	return 0;
}

const char *model_method_name(const struct model *m, uint32_t id)
{
	struct model_method *mm;

	if (id == CALLTREE_ROOT_METHOD)
		return ROOT_NAME;
	if (id == CALLTREE_FOLDED_METHOD)
		return FOLDED_NAME;
	if (id == CALLTREE_COLD_METHOD)
		return COLD_NAME;
	HASH_FIND(hh, m->methods, &id, sizeof(id), mm);
	return mm && mm->display ? mm->display : "<unknown method>";
}

int model_metric_index(const struct model *m, const char *name)
{
	for (unsigned i = 0; i < m->nmetrics; i++)
		if (!strcmp(m->metric[i].name, name))
			return (int)i;
	return -1;
}

uint64_t model_value(const struct model *m, unsigned metric, uint64_t v)
{
	return model_ticks_value(metric < JCAL_MAX_METRICS ? m->metric[metric].tsc_hz : 0, v);
}

uint64_t model_ticks_value(double hz, uint64_t v)
{
	long double ns;

	if (hz <= 0)
		return v;
	ns = (long double)v * 1e9L / (long double)hz + 0.5L;
	/* below 1 GHz a tick is more than 1 ns: the largest counts saturate */
	if (ns >= 18446744073709551615.0L) {
		satsum_note(SATSUM_NS);
		return UINT64_MAX;
	}
	return (uint64_t)ns;
}

const char *model_thread_kind(const struct model_thread *t)
{
	if (t->flags & TRACE_THREAD_VIRTUAL)
		return "virtual";
	if (t->flags & TRACE_THREAD_DAEMON)
		return "daemon";
	return "platform";
}

/* The name and serial of the i-th thread by serial (of those folded, for
 * a folded model). */
static void name_at(const struct model *m, size_t i, const char **name, uint32_t *serial)
{
	if (m->folded) {
		*name = m->fold->names[i].name;
		*serial = m->fold->names[i].serial;
	} else {
		*name = m->thread_list[i]->name;
		*serial = m->thread_list[i]->serial;
	}
}

/* The first few thread names, for "no thread matches" messages. */
void model_thread_names(const struct model *m, char *buf, size_t len)
{
	size_t pos = 0, total = m->folded ? m->fold->total : m->nthreads;
	size_t known = m->folded ? m->fold->nnames : m->nthreads;

	buf[0] = '\0';
	for (size_t i = 0; i < known && pos < len; i++) {
		const char *name;
		uint32_t serial;

		name_at(m, i, &name, &serial);
		int n = snprintf(buf + pos, len - pos, "%s%s#%u", i ? ", " : "", name, serial);

		if (n < 0)
			break;
		pos += (size_t)n;
		if (i == 7 && total > 8) {
			snprintf(buf + (pos < len ? pos : len - 1),
				 len - (pos < len ? pos : len - 1), ", ... (%zu in all)", total);
			break;
		}
	}
}

int model_thread_selected(const struct threadsel *sel, const struct model_thread *t)
{
	return threadsel_match(sel, t->serial, t->name, t->flags) ||
	       (t->plain && threadsel_match(sel, t->serial, t->plain, t->flags));
}

size_t model_thread_count(const struct model_thread *t)
{
	return t->group ? t->nfolded : 1;
}

int model_method_lookup(const struct model *m, const struct model_method *src, uint32_t *id)
{
	struct model_sig_idx *si;
	char *key;

	if (!src->defined)
		return 1;
	if (asprintf(&key, "%s\1%s\1%s", src->class_sig ? src->class_sig : "",
		     src->name ? src->name : "", src->sig ? src->sig : "") < 0)
		return -1;
	HASH_FIND_STR(m->sig_idx, key, si);
	free(key);
	if (!si)
		return 1;
	*id = si->id;
	return 0;
}

int model_method_import(struct model *m, const struct model_method *src, uint32_t *id)
{
	struct trace_method tm;
	int found = model_method_lookup(m, src, id);

	if (found <= 0)
		return found; /* found, or no memory */
	/* ids from 1, below the pseudo-frames' */
	if (m->next_method >= CALLTREE_COLD_METHOD)
		return -1;
	*id = ++m->next_method;
	if (!src->defined)
		return method_get(m, *id) ? 0 : -1;
	tm = (struct trace_method){.id = *id,
				   .modifiers = src->modifiers,
				   .class_sig = src->class_sig,
				   .name = src->name,
				   .sig = src->sig};
	return on_method(m, &tm);
}
