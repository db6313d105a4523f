/*
 * merge.c - jcal-post FILE...: several inputs, one profile (see merge.h):
 * each input loaded with input.c and checked, its description, the meta
 * records every input shares, its methods and threads added to the
 * profile, the profile finished.
 */
#include "postproc/merge.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/grow.h"
#include "common/u64map.h"
#include "postproc/merge_throttled.h"
#include "postproc/msg.h"
#include "postproc/report.h"

/* Notes printed while the inputs load. */
#define MERGE_NOTES 4

struct merge {
	struct cli c;		    /* per input: folded as read when the profile is and
				     * no --thread needs the profile's names */
	struct model *m;	    /* the profile */
	struct input in;	    /* the input being added */
	size_t i;		    /* its index */
	struct u64map ids;	    /* its method ids -> the profile's */
	uint32_t offset;	    /* its serials + offset = the profile's */
	uint64_t next_serial;	    /* past the profile's largest serial */
	struct model common;	    /* the first input's meta records, */
	unsigned char *same;	    /* ...each still shared by every input */
	struct threadsel sel;	    /* --thread, on the profile's threads */
	int fold, fold_inputs;	    /* the profile folded; each input folded as read */
	size_t ncalibrated, nsnap;  /* inputs calibrated; tree snapshots */
	struct merge_throttled thr; /* mode=bci, throttle=: the inputs' throttled methods */
};

/* "a+b": the metrics of m. */
static void metric_list(const struct model *m, char *buf, size_t len)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (unsigned k = 0; k < m->nmetrics && pos < len; k++)
		pos +=
		    (size_t)snprintf(buf + pos, len - pos, "%s%s", k ? "+" : "", m->metric[k].name);
}

/* The input's metrics are the first's (TSC figures become ns in both).
 * Returns 0, or -1 after the one-line error naming both inputs. */
static int check_metrics(const struct merge *mg, const struct model *first, const char *path0)
{
	const struct model *m = &mg->in.m;
	char a[256], b[256];
	int same = m->nmetrics == first->nmetrics;

	for (unsigned k = 0; same && k < m->nmetrics; k++)
		same = !strcmp(m->metric[k].name, first->metric[k].name);
	if (same)
		return 0;
	metric_list(first, a, sizeof(a));
	metric_list(m, b, sizeof(b));
	msg("error",
	    "%s records %s, %s records %s: figures of different metrics cannot be added (merge "
	    "recordings made with one metric= setting)",
	    path0, a, mg->c.inputs[mg->i], b);
	return -1;
}

/* Meta records a merged profile does not take from its inputs even when
 * they agree: method ids of one JVM, one file's snapshot, the TSC
 * frequency (figures are ns), labels (per input), one recording's class
 * work. */
static int meta_own(const char *key)
{
	return !strncmp(key, "throttle", 8) || !strncmp(key, "snapshot", 8) ||
	       !strncmp(key, "agent_work.", 11) || !strcmp(key, "tsc.hz") ||
	       !strncmp(key, "label.", 6);
}

/* The first input's meta records, then which of them every input shares. */
static int meta_track(struct merge *mg)
{
	const struct model *m = &mg->in.m;

	if (!mg->i) {
		struct trace_visitor v;

		model_visitor(&mg->common, &v);
		for (size_t k = 0; k < m->nmeta; k++)
			if (!meta_own(m->meta[k].key) &&
			    v.meta(v.ctx, m->meta[k].key, m->meta[k].value))
				return -1;
		mg->same = malloc(mg->common.nmeta + 1);
		if (!mg->same)
			return -1;
		memset(mg->same, 1, mg->common.nmeta + 1);
		return 0;
	}
	for (size_t k = 0; k < mg->common.nmeta; k++) {
		const char *v = model_meta(m, mg->common.meta[k].key);

		if (!v || strcmp(v, mg->common.meta[k].value))
			mg->same[k] = 0;
	}
	return 0;
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

/* The input's labels: its meta records label.KEY. */
static int describe_labels(struct model_input *d, const struct model *m)
{
	for (size_t k = 0; k < m->nmeta; k++) {
		struct model_label *l;

		if (strncmp(m->meta[k].key, "label.", 6) || !m->meta[k].key[6])
			continue;
		l = realloc(d->labels, (d->nlabels + 1) * sizeof(*l));
		if (!l)
			return -1;
		d->labels = l;
		l = &d->labels[d->nlabels++];
		l->key = strdup(m->meta[k].key + 6);
		l->value = strdup(m->meta[k].value);
		if (!l->key || !l->value)
			return -1;
	}
	return 0;
}

/* What the summary says of the input and the pprof export labels it with. */
static int describe(struct merge *mg)
{
	const struct input *in = &mg->in;
	const struct model *m = &in->m;
	struct model_input *d = &mg->m->inputs[mg->i];
	const char *host = model_meta(m, "host.name"), *pid = model_meta(m, "pid");
	const char *jn = model_meta(m, "jvm.name"), *jv = model_meta(m, "jvm.version");
	char buf[512];
	int n;

	d->path = strdup(mg->c.inputs[mg->i]);
	d->host = dup_or_empty(host);
	d->pid = dup_or_empty(pid);
	snprintf(buf, sizeof(buf), "%s%s%s", jn ? jn : "", jn && jv ? " " : "", jv ? jv : "");
	d->jvm = strdup(buf);
	metric_list(m, buf, sizeof(buf));
	d->metrics = strdup(buf);
	d->calib = in->calib_desc ? strdup(in->calib_desc) : NULL;
	if (host || pid)
		n = asprintf(&d->tag, "%zu %s:%s", mg->i + 1, host ? host : "?", pid ? pid : "?");
	else
		n = asprintf(&d->tag, "%zu", mg->i + 1);
	if (n < 0)
		d->tag = NULL;
	d->snapshot = m->snapshot;
	d->calibrated = in->calibrated;
	d->events = input_events(in);
	for (size_t k = 0; k < m->nthreads; k++)
		d->threads += model_thread_count(m->thread_list[k]);
	d->threads += m->fold_elided;
	mg->ncalibrated += in->calibrated != 0;
	mg->nsnap += m->snapshot != 0;
	if (!d->path || !d->host || !d->pid || !d->jvm || !d->metrics || !d->tag ||
	    (in->calib_desc && !d->calib))
		return -1;
	return describe_labels(d, m);
}

/* The profile's method ids of the input's. */
static int map_methods(struct merge *mg)
{
	struct model_method *mm, *tmp;

	u64map_free(&mg->ids);
	if (u64map_init(&mg->ids, HASH_COUNT(mg->in.m.methods) + 1))
		return -1;
	HASH_ITER (hh, mg->in.m.methods, mm, tmp) {
		uint32_t id;

		if (model_method_import(mg->m, mm, &id) || u64map_put(&mg->ids, mm->id, id))
			return -1;
	}
	return 0;
}

static uint32_t map_id(void *ctx, uint32_t method)
{
	const struct merge *mg = ctx;
	const uint32_t *v = u64map_find(&mg->ids, method);

	/* model_names gave every id of the trees a method record */
	return v ? *v : method;
}

/* A TSC metric's figures as ns, in the input's trees (freed once added). */
static void tsc_to_ns(struct model *m)
{
	for (unsigned k = 0; k < m->nmetrics; k++) {
		double hz = m->metric[k].tsc_hz;

		if (hz <= 0)
			continue;
		for (size_t i = 0; i < m->nthreads; i++) {
			struct model_thread *t = m->thread_list[i];

			for (uint32_t n = 0; n < t->tree.nnodes && k < t->tree.nmetrics; n++) {
				struct calltree_fig *f = calltree_fig(&t->tree, n, k);

				f->base = model_ticks_value(hz, f->base);
				f->raw_base = model_ticks_value(hz, f->raw_base);
			}
			if (k < t->nstart_metric)
				t->start_metric[k] = model_ticks_value(hz, t->start_metric[k]);
			if (k < t->nend_metric)
				t->end_metric[k] = model_ticks_value(hz, t->end_metric[k]);
		}
	}
}

/* A snapshot's calls kept by slow= as the profile's: its threads' and
 * methods' numbers, TSC figures in ns; its slow= counted in the profile's.
 * Returns 0 or -1 (no memory). */
static int add_slow(struct merge *mg)
{
	const struct model *m = &mg->in.m;
	struct model *p = mg->m;

	p->snap_inputs++;
	if (!m->slow_inputs)
		return 0;
	p->slow_ns = !p->slow_inputs++ || m->slow_ns < p->slow_ns ? m->slow_ns : p->slow_ns;
	p->slow_max += m->slow_max;
	p->slow_over += m->slow_over;
	for (size_t i = 0; i < m->nslow; i++) {
		struct trace_slow c = m->slow[i];
		double hz = c.metric < m->nmetrics ? m->metric[c.metric].tsc_hz : 0;

		c.thread += mg->offset;
		for (uint32_t k = 0; k < c.depth; k++)
			c.path[k] = map_id(mg, model_event_method(m, c.path[k]));
		for (unsigned k = 0; k < c.ncallees; k++) {
			c.callee[k].method = map_id(mg, model_event_method(m, c.callee[k].method));
			if (hz > 0) {
				c.callee[k].value = model_ticks_value(hz, c.callee[k].value);
				c.callee[k].raw = model_ticks_value(hz, c.callee[k].raw);
			}
		}
		if (hz > 0) {
			c.value = model_ticks_value(hz, c.value);
			c.raw = model_ticks_value(hz, c.raw);
			c.self = model_ticks_value(hz, c.self);
			c.raw_self = model_ticks_value(hz, c.raw_self);
		}
		if (grow(&p->slow, &p->slow_cap, p->nslow + 1))
			return -1;
		p->slow[p->nslow++] = c;
	}
	return 0;
}

/* Longest first; of equal ones, the earlier input's first (its order
 * kept: the thread serials rise with the inputs). */
static int slow_longer(const void *a, const void *b)
{
	const struct trace_slow *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->end_ns < y->end_ns ? -1 : x->end_ns > y->end_ns;
}

/* The profile's record of thread t of the input: numbered after the
 * earlier inputs', named with its input; its tree not copied (tree zeroed:
 * the caller copies or folds t's). */
static struct model_thread *thread_of(struct merge *mg, const struct model_thread *t)
{
	struct model_thread *n = malloc(sizeof(*n));

	if (!n)
		return NULL;
	*n = *t;
	memset(&n->tree, 0, sizeof(n->tree));
	memset(&n->hh, 0, sizeof(n->hh));
	n->snap_map = NULL;
	n->serial = t->serial + mg->offset;
	n->own_serial = t->serial;
	n->input = (uint32_t)mg->i;
	n->plain = strdup(t->name);
	if (asprintf(&n->name, "%s [%s]", t->name, mg->m->inputs[mg->i].tag) < 0)
		n->name = NULL;
	if (!n->plain || !n->name) {
		n->tree.nodes = NULL;
		model_thread_free(n);
		return NULL;
	}
	return n;
}

/* n as a shell of t (cli.shells): a tree of its root's calls and
 * figures, t's counts, its contexts counted (and those past the summary's
 * depth limit). Returns 0 or -1 (no memory). */
static int shell_of(const struct merge *mg, const struct model_thread *t, struct model_thread *n)
{
	const struct calltree *src = &t->tree;
	const uint32_t limit = mg->c.sh.max_depth ? mg->c.sh.max_depth : REPORT_MAX_DEPTH_DEFAULT;

	n->shell = 1;
	if (calltree_init(&n->tree, src->nmetrics ? src->nmetrics : 1, NULL) ||
	    calltree_finish(&n->tree)) {
		calltree_free(&n->tree);
		return -1;
	}
	n->shell_contexts = src->nnodes ? src->nnodes - 1 : 0;
	if (src->max_level > limit)
		for (uint32_t k = 0; k < src->nnodes; k++)
			n->shell_deep += src->nodes[k].level > limit;
	n->tree.stats = src->stats;
	n->tree.max_level = src->max_level;
	if (!src->nnodes)
		return 0;
	n->tree.nodes[CALLTREE_ROOT].calls = src->nodes[CALLTREE_ROOT].calls;
	for (unsigned k = 0; k < src->nmetrics; k++)
		*calltree_fig(&n->tree, CALLTREE_ROOT, k) = *calltree_fig(src, CALLTREE_ROOT, k);
	return 0;
}

/* One thread of the input as a thread of the profile (a copy of its tree,
 * or its shell), or folded into the profile's group. Returns 0 or -1 (no
 * memory). */
static int add_thread(struct merge *mg, const struct model_thread *t)
{
	struct model_thread *n;
	struct tree_group g;

	if (mg->fold_inputs) /* the input's one thread: its group */
		return model_fold_add(mg->m, t, (uint32_t)mg->i, mg->in.m.fold_elided, map_id, mg);
	if (!(n = thread_of(mg, t)))
		return -1;
	if (mg->fold) {
		n->tree = t->tree; /* borrowed while it is added */
		int err = model_fold_add(mg->m, n, n->serial, 0, map_id, mg);

		memset(&n->tree, 0, sizeof(n->tree));
		model_thread_free(n);
		return err;
	}
	if (mg->c.shells) {
		if (shell_of(mg, t, n)) {
			model_thread_free(n);
			return -1;
		}
	} else if (tree_group_init(&g, t->tree.nmetrics) ||
		   tree_group_add(&g, &t->tree, 0, 0, map_id, mg) || tree_group_finish(&g)) {
		tree_group_free(&g);
		model_thread_free(n);
		return -1;
	} else {
		tree_group_take(&g, &n->tree);
	}
	HASH_ADD(hh, mg->m->threads, serial, sizeof(n->serial), n);
	mg->m->nthreads++;
	return 0;
}

/* Numbers the input's threads after the earlier inputs': its first
 * thread comes next. Returns 0, or -1 after the message when the numbers
 * run out. */
static int number_threads(struct merge *mg)
{
	uint32_t min, max;
	int zero;

	if (!model_serials(&mg->in.m, &min, &max, &zero))
		return 0;
	/* the first input keeps its numbers */
	mg->offset = mg->i ? (uint32_t)(mg->next_serial - min) : 0;
	if (mg->i && (uint64_t)max - min + mg->next_serial >= UINT32_MAX) {
		msg("error", "%s: thread serials past 2^32 - 1 in the merged profile",
		    mg->c.inputs[mg->i]);
		return -1;
	}
	mg->next_serial = (uint64_t)(uint32_t)(max + mg->offset) + 1;
	if (mg->fold_inputs)
		model_fold_serials(mg->m, min + mg->offset, max + mg->offset, zero && !mg->i);
	return 0;
}

/* Loads input i and adds it. Returns 0 or 1 after the message. */
static int add_input(struct merge *mg)
{
	const char *path = mg->c.inputs[mg->i];
	struct model *m = &mg->in.m;
	struct cli c = mg->c;
	struct stat st;

	/* --calib DIR is where each trace's table is found; a snapshot was
	 * compensated in its agent (a FILE is checked against it still) */
	if (c.calib && !stat(c.calib, &st) && S_ISDIR(st.st_mode) && model_peek_snapshot(path) == 1)
		c.calib = NULL;
	if (input_open(&mg->in, &c, path))
		return 1;
	if (mg->i && check_metrics(mg, &mg->common, mg->c.inputs[0]))
		return 1;
	if (number_threads(mg))
		return 1;
	if (!mg->i) {
		/* the first input's metrics are the profile's (TSC shown as ns) */
		mg->m->nmetrics = m->nmetrics;
		memcpy(mg->m->metric, m->metric, sizeof(m->metric));
		mg->common.nmetrics = m->nmetrics;
		memcpy(mg->common.metric, m->metric, sizeof(m->metric));
		for (unsigned k = 0; k < m->nmetrics; k++) {
			mg->m->metric[k].why[0] = '\0';
			if (mg->m->metric[k].tsc_hz > 0) {
				mg->m->metric[k].tsc_hz = 0;
				snprintf(mg->m->metric[k].unit, sizeof(mg->m->metric[k].unit),
					 "ns");
			}
		}
	}
	if (meta_track(mg) || describe(mg) || map_methods(mg) ||
	    merge_throttled_add(&mg->thr, m, map_id, mg))
		goto oom;
	if (m->snapshot && add_slow(mg))
		goto oom;
	tsc_to_ns(m);
	for (size_t k = 0; k < m->nthreads; k++)
		if (add_thread(mg, m->thread_list[k]))
			goto oom;
	mg->m->has_end = (mg->i ? mg->m->has_end : 1) && m->has_end;
	mg->m->end.lost_events += m->has_end ? m->end.lost_events : 0;
	mg->m->compiled_loads += m->compiled_loads;
	mg->m->compiled_unloads += m->compiled_unloads;
	input_free(&mg->in);
	return 0;
oom:
	msg("error", "%s: out of memory while merging it", path);
	return 1;
}

static int by_serial(const void *a, const void *b)
{
	const struct model_thread *x = *(const struct model_thread *const *)a;
	const struct model_thread *y = *(const struct model_thread *const *)b;

	return x->serial < y->serial ? -1 : x->serial > y->serial;
}

/* The profile's thread list (or its group), its shared meta records, its
 * method names. Returns 0 or -1 (no memory). */
static int finish(struct merge *mg)
{
	struct model *m = mg->m;
	struct model_thread *t, *tmp;
	struct trace_visitor v;
	size_t i = 0;

	model_visitor(m, &v);
	for (size_t k = 0; k < mg->common.nmeta; k++)
		if (mg->same[k] && v.meta(v.ctx, mg->common.meta[k].key, mg->common.meta[k].value))
			return -1;
	if (merge_throttled_write(&mg->thr, &v))
		return -1;
	if (m->nslow)
		qsort(m->slow, m->nslow, sizeof(*m->slow), slow_longer);
	if (mg->fold) {
		if (model_fold_done(m))
			return -1;
		m->thread_list[0]->input = m->ninputs == 1 ? 0 : MODEL_INPUT_MANY;
	} else {
		m->thread_list = malloc((m->nthreads ? m->nthreads : 1) * sizeof(*m->thread_list));
		if (!m->thread_list)
			return -1;
		HASH_ITER (hh, m->threads, t, tmp)
			m->thread_list[i++] = t;
		qsort(m->thread_list, m->nthreads, sizeof(*m->thread_list), by_serial);
	}
	m->nmethods_defined = 0;
	struct model_method *mm, *mtmp;
	HASH_ITER (hh, m->methods, mm, mtmp)
		m->nmethods_defined += mm->defined != 0;
	return model_names(m, mg->c.sig);
}

/* What the reports say of the profile's calibration. */
static void describe_calib(struct merge *mg, struct input *out)
{
	size_t n = mg->m->ninputs;

	out->calibrated = mg->ncalibrated > 0;
	out->calib = NULL;
	out->calib_desc = NULL;
	if (!mg->ncalibrated)
		return;
	snprintf(out->desc, sizeof(out->desc),
		 "each input with its own table (%zu of %zu calibrated; --report summary lists "
		 "them)",
		 mg->ncalibrated, n);
	out->calib_desc = out->desc;
	if (mg->ncalibrated < n)
		msg("warning",
		    "%zu of the %zu inputs have raw figures (no calibration table applied): the "
		    "merged figures add calibrated and raw ones (--report summary says which; "
		    "--raw shows every input raw)",
		    n - mg->ncalibrated, n);
}

int merge_open(struct input *out, const struct cli *c)
{
	static struct merge mg; /* large: the input's buffers */
	unsigned dropped;
	int rc = 1;

	memset(out, 0, sizeof(*out));
	memset(&mg, 0, sizeof(mg));
	if (c->ninputs > MERGE_MAX_INPUTS) {
		msg("error", "%zu inputs: at most %d are merged", c->ninputs, MERGE_MAX_INPUTS);
		return 1;
	}
	out->c = *c;
	mg.c = *c;
	mg.m = &out->m;
	mg.sel.pats = c->threads;
	mg.sel.npats = c->nthreads;
	mg.fold = c->fold;
	/* the profile's names and numbers are not known while an input is read */
	mg.fold_inputs = c->fold && !c->nthreads;
	mg.c.fold = mg.fold_inputs;
	model_init(&out->m, NULL);
	model_init(&mg.common, NULL);
	out->have_model = 1;
	out->m.inputs = calloc(c->ninputs, sizeof(*out->m.inputs));
	if (!out->m.inputs ||
	    (mg.fold && model_fold(&out->m, &mg.sel, c->sh.so.merge ? MODEL_FOLD_STATS : 0))) {
		msg("error", "out of memory");
		goto out;
	}
	out->m.ninputs = c->ninputs;
	/* the notes of many inputs' loads: the first few */
	msg_notes_cap(MERGE_NOTES);
	for (mg.i = 0; mg.i < c->ninputs; mg.i++)
		if (add_input(&mg))
			goto out;
	dropped = msg_notes_dropped();
	msg_notes_cap(0);
	if (dropped)
		msg("note",
		    "%u more notes of the inputs' loads left out (--report summary says how each "
		    "input was calibrated)",
		    dropped);
	if (finish(&mg)) {
		msg("error", "out of memory while merging the inputs");
		goto out;
	}
	describe_calib(&mg, out);
	rc = 0;
out:
	input_free(&mg.in);
	u64map_free(&mg.ids);
	merge_throttled_free(&mg.thr);
	model_free(&mg.common);
	free(mg.same);
	return rc;
}
