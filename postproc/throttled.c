/*
 * throttled.c - the throttled methods of a mode=bci trace (throttled.h):
 * reads the throttle.method.ID meta records, adds their counted calls (and
 * in a calibrated report their estimated time) to the flat report's rows,
 * and writes the summary's section about them in text, CSV and JSON.
 */
#include "common/satsum.h"
#include "common/u64map.h"
#include "postproc/throttled.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "postproc/output.h"
#include "postproc/report.h"

static int by_time(const void *a, const void *b)
{
	const struct throttle_fact *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->method < y->method ? -1 : x->method > y->method;
}

int throttled_list(const struct model *m, struct throttle_fact **out, size_t *n, size_t *bad)
{
	struct throttle_fact *v = NULL;
	size_t k = 0;

	*out = NULL;
	*n = *bad = 0;
	for (size_t i = 0; i < m->nmeta; i++) {
		struct throttle_fact f;
		int rc = throttle_fact_parse(m->meta[i].key, m->meta[i].value, &f);

		if (rc > 0)
			continue;
		if (rc < 0) {
			(*bad)++;
			continue;
		}
		if (!v && !(v = malloc(m->nmeta * sizeof(*v))))
			return -1;
		v[k++] = f;
	}
	if (k)
		qsort(v, k, sizeof(*v), by_time);
	*out = v;
	*n = k;
	return 0;
}

/* The throttle.method.ID record of method (its key in key), or NULL: none,
 * or a trace recorded without throttle=. */
static const char *record_of(const struct model *m, uint32_t method, char *key, size_t len)
{
	if (!throttled_rule(m))
		return NULL;
	snprintf(key, len, THROTTLE_META_PREFIX "%" PRIu32, method);
	return model_meta(m, key);
}

int throttled_is(const struct model *m, uint32_t method)
{
	char key[64];

	return record_of(m, method, key, sizeof(key)) != NULL;
}

/* Seconds from the recording's start (meta start.time_ns) to t; -1 unknown. */
static double since_start(const struct model *m, uint64_t t)
{
	const char *s = model_meta(m, "start.time_ns");
	char *end;
	unsigned long long v = s ? strtoull(s, &end, 10) : 0;

	if (!s || *end || !v)
		return -1;
	if (t < v)
		return -2; /* before this recording began (an earlier one of the JVM) */
	return (double)(t - v) / 1e9;
}

/* The average per completed call at the decision, in the unit reports
 * show (metric 0, which the agent's rule used). */
static uint64_t avg_of(const struct model *m, const struct throttle_fact *f)
{
	return f->timed ? model_value(m, 0, f->sum / f->timed) : 0;
}

static int by_id(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* The tree node id an event of method id counts for (model.h, aliased). */
static uint32_t node_method(const struct model *m, uint32_t id)
{
	struct model_method *mm;

	HASH_FIND(hh, m->methods, &id, sizeof(id), mm);
	return mm && mm->aliased ? mm->canon : id;
}

int throttled_counted(const struct model *m, uint32_t method, uint64_t *counted)
{
	struct throttle_fact f;
	char key[64];
	const char *v = record_of(m, method, key, sizeof(key));

	if (!v || throttle_fact_parse(key, v, &f) || !f.has_counted)
		return 0;
	*counted = f.counted;
	return 1;
}

/* Index of method's row in rows[0..n) through idx (method -> row), or n. */
static size_t row_of(const struct u64map *idx, size_t n, uint32_t method)
{
	const uint32_t *v = u64map_find(idx, method);

	return v ? *v : n;
}

/* v * num / den without overflow (den > 0, num <= den). */
static uint64_t share(uint64_t v, uint64_t num, uint64_t den)
{
	return (uint64_t)((unsigned __int128)v * num / den);
}

/* x - y, or 0 when y is larger. */
static uint64_t less(uint64_t x, uint64_t y)
{
	return x > y ? x - y : 0;
}

/* Row i's counted calls c: their time estimated at its recorded base per
 * call, moved out of its callers' rows (throttled.h). Returns 0 or -1. */
static int estimate(const struct model *m, const struct u64map *idx, struct flat_row *rows,
		    size_t n, size_t i, uint64_t c)
{
	uint32_t method = rows[i].method;
	uint64_t calls = rows[i].calls, total = 0;
	uint64_t *from = calloc(n ? n : 1, sizeof(*from)); /* calls of it made by row j */

	if (!from)
		return -1;
	for (size_t t = 0; t < m->nthreads; t++) {
		const struct calltree *tr = &m->thread_list[t]->tree;

		for (uint32_t k = 1; k < tr->nnodes; k++) {
			const struct calltree_node *nd = &tr->nodes[k];
			size_t j;

			if (nd->method != method)
				continue;
			satsum_addto(&total, nd->calls, SATSUM_CALLS);
			if (nd->parent == CALLTREE_NONE ||
			    tr->nodes[nd->parent].parent == CALLTREE_NONE)
				continue; /* from the thread's root: stays there */
			j = row_of(idx, n, tr->nodes[nd->parent].method);
			if (j < n && j != i)
				satsum_addto(&from[j], nd->calls, SATSUM_CALLS);
		}
	}
	if (calls && total) {
		uint64_t est = rows[i].base / calls * c, raw = rows[i].raw_base / calls * c;

		if (est / c != rows[i].base / calls || raw / c != rows[i].raw_base / calls)
			est = raw = UINT64_MAX; /* past 64 bits: saturated */
		for (size_t j = 0; j < n; j++)
			if (from[j]) {
				uint64_t num = from[j] < total ? from[j] : total;
				rows[j].base = less(rows[j].base, share(est, num, total));
				rows[j].raw_base = less(rows[j].raw_base, share(raw, num, total));
			}
		rows[i].estimated = est;
		satsum_addto(&rows[i].base, est, SATSUM_BASE);
		satsum_addto(&rows[i].cum, est, SATSUM_CUM);
		satsum_addto(&rows[i].raw_base, raw, SATSUM_RAW_BASE);
		satsum_addto(&rows[i].raw_cum, raw, SATSUM_RAW_CUM);
	}
	free(from);
	return 0;
}

/* A row, calls only, for each throttled method counted but not recorded
 * (no row in idx yet; each one added to it). Returns 0 or -1. */
static int add_counted_rows(const struct model *m, struct u64map *idx, flat_name_fn name,
			    void *name_ctx, struct flat_row **rows, size_t *n)
{
	struct throttle_fact *v;
	size_t nv, bad;
	int rc = 0;

	if (throttled_list(m, &v, &nv, &bad))
		return -1;
	for (size_t k = 0; k < nv && !rc; k++) {
		uint32_t id = node_method(m, v[k].method);
		struct flat_row *g;

		if (!v[k].has_counted || !v[k].counted || row_of(idx, *n, id) < *n)
			continue;
		if (!(g = realloc(*rows, (*n + 1) * sizeof(*g))) ||
		    u64map_put(idx, id, (uint32_t)*n)) {
			if (g)
				*rows = g;
			rc = -1;
			break;
		}
		*rows = g;
		memset(&g[*n], 0, sizeof(g[*n]));
		g[*n].method = id;
		g[*n].name = name(name_ctx, id);
		g[*n].calls = v[k].counted;
		(*n)++;
	}
	free(v);
	return rc;
}

int throttled_flat_calls(const struct model *m, int add_rows, int times, flat_name_fn name,
			 void *name_ctx, struct flat_row **rows, size_t *n, enum flat_sort sort)
{
	struct u64map idx; /* method -> its row */
	int rc = 0;

	if (u64map_init(&idx, *n + 1))
		return -1;
	for (size_t i = 0; i < *n && !rc; i++)
		rc = u64map_put(&idx, (*rows)[i].method, (uint32_t)i);
	for (size_t i = 0; i < *n && !rc; i++) {
		uint64_t c;

		if (!throttled_counted(m, (*rows)[i].method, &c) || !c)
			continue;
		if (add_rows && times && estimate(m, &idx, *rows, *n, i, c))
			rc = -1;
		else
			satsum_addto(&(*rows)[i].calls, c, SATSUM_CALLS);
	}
	if (!rc && add_rows)
		rc = add_counted_rows(m, &idx, name, name_ctx, rows, n);
	u64map_free(&idx);
	if (!rc)
		flat_sort_rows(*rows, *n, sort);
	return rc;
}

/* Whether some thread of m kept only its counts (a summary of several
 * inputs): the recorded entries are then not known. */
static int shells(const struct model *m)
{
	for (size_t t = 0; t < m->nthreads; t++)
		if (m->thread_list[t]->shell)
			return 1;
	return 0;
}

/* rec[i]: the entries of v[i]'s method in the trace (every thread's tree),
 * in one pass over the nodes. Returns 0 or -1 (no memory). */
static int recorded_calls(const struct model *m, const struct throttle_fact *v, size_t n,
			  uint64_t *rec)
{
	uint32_t *ids = malloc((n ? n : 1) * sizeof(*ids));

	if (!ids)
		return -1;
	for (size_t i = 0; i < n; i++)
		ids[i] = node_method(m, v[i].method);
	qsort(ids, n, sizeof(*ids), by_id);
	uint64_t *by = calloc(n ? n : 1, sizeof(*by));
	if (!by) {
		free(ids);
		return -1;
	}
	for (size_t t = 0; t < m->nthreads; t++) {
		const struct calltree *tr = &m->thread_list[t]->tree;

		for (uint32_t k = 1; k < tr->nnodes; k++) {
			const uint32_t *hit =
			    bsearch(&tr->nodes[k].method, ids, n, sizeof(*ids), by_id);
			if (hit)
				satsum_addto(&by[hit - ids], tr->nodes[k].calls, SATSUM_CALLS);
		}
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t id = node_method(m, v[i].method);
		const uint32_t *hit = bsearch(&id, ids, n, sizeof(*ids), by_id);
		rec[i] = hit ? by[hit - ids] : 0;
	}
	free(by);
	free(ids);
	return 0;
}

/* Tiny methods by their counted calls, most first, then by id. */
static int by_counted(const void *a, const void *b)
{
	const struct throttle_fact *x = a, *y = b;

	if (x->counted != y->counted)
		return x->counted > y->counted ? -1 : 1;
	return x->method < y->method ? -1 : x->method > y->method;
}

/* What a summary lists: the methods the rule throttled (by time), then the
 * tiny methods counted in the recording, then the inlined ones (inlined=count)
 * counted in it (each by counted calls); the others only count in ntiny and
 * ninlined. */
struct tlist {
	struct throttle_fact *v;
	uint64_t *rec; /* each one's recorded entries */
	size_t n, nrule, bad;
	size_t ntiny;		/* tiny methods in all */
	size_t tiny_end;	/* v[nrule..tiny_end) are the tiny ones listed */
	uint64_t tiny_calls;	/* their counted calls */
	size_t ninlined;	/* inlined methods in all */
	uint64_t inlined_calls; /* the listed inlined ones' counted calls (v[tiny_end..n)) */
};

/* Appends the facts of all[0..n) with the reason (tiny or not: inlined)
 * that were counted in the recording to t->v, counting them. */
static void list_from_start(struct tlist *t, const struct throttle_fact *all, size_t n, int tiny)
{
	size_t first = t->n;

	for (size_t i = 0; i < n; i++) {
		if (tiny ? !all[i].tiny : !all[i].inlined)
			continue;
		if (tiny)
			t->ntiny++;
		else
			t->ninlined++;
		if (all[i].has_counted && all[i].counted) {
			t->v[t->n++] = all[i];
			satsum_addto(tiny ? &t->tiny_calls : &t->inlined_calls, all[i].counted,
				     SATSUM_CALLS);
		}
	}
	qsort(t->v + first, t->n - first, sizeof(*t->v), by_counted);
}

static void tlist_free(struct tlist *t)
{
	free(t->rec);
	free(t->v);
}

/* The list for a summary: 1 with it, 0 for a trace without throttle= or
 * tiny=count, -1 out of memory. */
static int summary_list(const struct model *m, struct tlist *t)
{
	struct throttle_fact *all;
	size_t n;

	memset(t, 0, sizeof(*t));
	if (!throttled_rule(m))
		return 0;
	if (throttled_list(m, &all, &n, &t->bad))
		return -1;
	t->v = malloc((n ? n : 1) * sizeof(*t->v));
	t->rec = malloc((n ? n : 1) * sizeof(*t->rec));
	if (!t->v || !t->rec) {
		free(all);
		tlist_free(t);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!all[i].tiny && !all[i].inlined)
			t->v[t->n++] = all[i];
	t->nrule = t->n;
	list_from_start(t, all, n, 1);
	t->tiny_end = t->n;
	list_from_start(t, all, n, 0);
	free(all);
	if (recorded_calls(m, t->v, t->n, t->rec)) {
		tlist_free(t);
		return -1;
	}
	return 1;
}

/* The tiny methods listed in the text summary at most (the CSV and JSON
 * summaries list every one called in the recording). */
#define TINY_TEXT_MAX 20

/* The "throttled:" part of the text summary: the methods the rule
 * throttled. */
static void rule_text(const struct model *m, const struct report_opts *o, const struct tlist *t)
{
	fputs("  throttled:             ", o->out);
	fprintf(o->out, "%zu method%s (throttle=", t->nrule, t->nrule == 1 ? "" : "s");
	text_escape(o->out, throttled_rule(m));
	fputs("): probes removed while the program ran; their later calls are their callers' "
	      "time; calls counted since the agent loaded, inside regions or not, those of "
	      "them recorded here, and those counted here after the probes went (by the one "
	      "probe kept, which counts: the flat report adds them)",
	      o->out);
	if (t->bad)
		fprintf(o->out, "; %zu unreadable record%s", t->bad, t->bad == 1 ? "" : "s");
	fputc('\n', o->out);
	for (size_t i = 0; i < t->nrule; i++) {
		const struct throttle_fact *f = &t->v[i];
		double s = since_start(m, f->time_ns);

		if (s >= 0)
			fprintf(o->out, "    at %9.3f s", s);
		else if (s == -2)
			fputs("    before the start", o->out);
		else
			fputs("    at         ? s", o->out);
		if (shells(m)) /* a summary of several inputs keeps no trees */
			fprintf(o->out, "  after %" PRIu64 " calls", throttled_calls(f));
		else
			fprintf(o->out, "  after %" PRIu64 " calls, %" PRIu64 " recorded",
				throttled_calls(f), t->rec[i]);
		if (f->has_counted)
			fprintf(o->out, ", %" PRIu64 " counted after", f->counted);
		fprintf(o->out, " (%savg %" PRIu64 " %s)  ", throttled_self(m) ? "own time " : "",
			avg_of(m, f), m->metric[0].unit[0] ? m->metric[0].unit : "raw");
		text_escape(o->out, model_method_name(m, f->method));
		fputc('\n', o->out);
	}
}

/* The lines of the methods v[0..n) that only counted from the start: at
 * most TINY_TEXT_MAX. */
static void from_start_lines(const struct model *m, const struct report_opts *o,
			     const struct throttle_fact *v, size_t n)
{
	for (size_t i = 0; i < n && i < TINY_TEXT_MAX; i++) {
		fprintf(o->out, "    from the start  %" PRIu64 " counted  ", v[i].counted);
		text_escape(o->out, model_method_name(m, v[i].method));
		fputc('\n', o->out);
	}
	if (n > TINY_TEXT_MAX)
		fprintf(o->out,
			"    and %zu more counted here (--format csv or json lists them all; the "
			"flat report gives each one's calls)\n",
			n - TINY_TEXT_MAX);
}

/* The "tiny:" part of the text summary (tiny=count). */
static void tiny_text(const struct model *m, const struct report_opts *o, const struct tlist *t)
{
	const char *max = model_meta(m, THROTTLE_META_TINY);
	size_t called = t->tiny_end - t->nrule;

	fprintf(o->out,
		"  tiny:                  %zu method%s (tiny=count: no call, no loop, at most ",
		t->ntiny, t->ntiny == 1 ? "" : "s");
	text_escape(o->out, max ? max : "?");
	fprintf(o->out,
		" bytes of bytecode): only a probe that counts their calls from the start, "
		"their time their callers'; %zu of them counted here, %" PRIu64
		" calls counted (the flat report adds them)\n",
		called, t->tiny_calls);
	from_start_lines(m, o, t->v + t->nrule, called);
}

/* The "inlined:" part of the text summary (inlined=count). */
static void inlined_text(const struct model *m, const struct report_opts *o, const struct tlist *t)
{
	size_t called = t->n - t->tiny_end;

	fprintf(o->out,
		"  inlined:               %zu method%s (inlined=count: the JIT had inlined them "
		"into compiled code when the recording started, and they have no loop): only a "
		"probe that counts their calls from then on, their time their callers'; %zu of "
		"them counted here, %" PRIu64 " calls counted (the flat report adds them)\n",
		t->ninlined, t->ninlined == 1 ? "" : "s", called, t->inlined_calls);
	from_start_lines(m, o, t->v + t->tiny_end, called);
}

int throttled_summary_text(const struct model *m, const struct report_opts *o)
{
	struct tlist t;
	int have = summary_list(m, &t);

	if (have <= 0)
		return have;
	/* tiny=count or inlined=count alone writes throttle=off: no "throttled:"
	 * without one */
	if (t.nrule || t.bad || strcmp(throttled_rule(m), "off"))
		rule_text(m, o, &t);
	if (t.ntiny || model_meta(m, THROTTLE_META_TINY))
		tiny_text(m, o, &t);
	if (t.ninlined || model_meta(m, THROTTLE_META_INLINED))
		inlined_text(m, o, &t);
	tlist_free(&t);
	return 0;
}

int throttled_summary_csv(const struct model *m, const struct report_opts *o)
{
	struct tlist t;
	int have = summary_list(m, &t);

	if (have <= 0)
		return have;
	fprintf(o->out, "throttled,%zu\nthrottled.time,%s\n", t.nrule,
		throttled_self(m) ? "self" : "cum");
	if (t.ntiny || model_meta(m, THROTTLE_META_TINY))
		fprintf(o->out, "throttled.tiny,%zu\nthrottled.tiny_called,%zu\n", t.ntiny,
			t.tiny_end - t.nrule);
	if (t.ninlined || model_meta(m, THROTTLE_META_INLINED))
		fprintf(o->out, "throttled.inlined,%zu\nthrottled.inlined_called,%zu\n", t.ninlined,
			t.n - t.tiny_end);
	for (size_t i = 0; i < t.n; i++) {
		const struct throttle_fact *f = &t.v[i];

		fprintf(o->out, "throttled.%zu.method,", i);
		csv_field(o->out, model_method_name(m, f->method));
		fprintf(o->out,
			"\nthrottled.%zu.time_ns,%" PRIu64 "\nthrottled.%zu.calls,%" PRIu64
			"\nthrottled.%zu.calls_at_throttling,%" PRIu64 "\n",
			i, f->time_ns, i, throttled_calls(f), i, f->calls);
		if (!shells(m)) /* a summary of several inputs keeps no trees */
			fprintf(o->out, "throttled.%zu.recorded_calls,%" PRIu64 "\n", i, t.rec[i]);
		fprintf(o->out, "throttled.%zu.avg,%" PRIu64 "\n", i, avg_of(m, f));
		if (f->has_counted)
			fprintf(o->out, "throttled.%zu.counted_calls,%" PRIu64 "\n", i, f->counted);
		if (throttle_fact_reason(f))
			fprintf(o->out, "throttled.%zu.reason,%s\n", i, throttle_fact_reason(f));
	}
	tlist_free(&t);
	return 0;
}

int throttled_summary_json(const struct model *m, const struct report_opts *o)
{
	struct tlist t;
	int have = summary_list(m, &t);

	if (have <= 0)
		return have;
	fputs(",\n\"throttle\":{\"rule\":", o->out);
	json_string(o->out, throttled_rule(m));
	fprintf(o->out, ",\"time\":\"%s\",\"unreadable\":%zu", throttled_self(m) ? "self" : "cum",
		t.bad);
	if (t.ntiny || model_meta(m, THROTTLE_META_TINY))
		fprintf(o->out, ",\"tiny\":%zu,\"tiny_called\":%zu", t.ntiny, t.tiny_end - t.nrule);
	if (t.ninlined || model_meta(m, THROTTLE_META_INLINED))
		fprintf(o->out, ",\"inlined\":%zu,\"inlined_called\":%zu", t.ninlined,
			t.n - t.tiny_end);
	fputs(",\"methods\":[", o->out);
	for (size_t i = 0; i < t.n; i++) {
		const struct throttle_fact *f = &t.v[i];
		double s = since_start(m, f->time_ns);

		fputs(i ? ",\n{\"method\":" : "\n{\"method\":", o->out);
		json_string(o->out, model_method_name(m, f->method));
		fprintf(o->out,
			",\"id\":%" PRIu32 ",\"time_ns\":%" PRIu64
			",\"seconds\":%.6f,\"calls\":%" PRIu64 ",\"calls_at_throttling\":%" PRIu64
			",\"recorded_calls\":%" PRIu64 ",\"avg\":%" PRIu64,
			f->method, f->time_ns, s >= 0 ? s : 0.0, throttled_calls(f), f->calls,
			t.rec[i], avg_of(m, f));
		if (throttle_fact_reason(f))
			fprintf(o->out, ",\"reason\":\"%s\"", throttle_fact_reason(f));
		if (f->has_counted)
			fprintf(o->out, ",\"counted_calls\":%" PRIu64, f->counted);
		fputc('}', o->out);
	}
	fputs("]}", o->out);
	tlist_free(&t);
	return 0;
}
