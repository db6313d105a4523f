/*
 * diff_report_callers.c - jcal-post diff's callers report
 * (docs/jcal-post.md, "Comparing two runs"): per method, in the order of
 * the flat report (--top N: the first N), its calls in both runs, then
 * every caller and every callee with the calls of that arc in both runs,
 * the delta and the status, each list by the size of the change. An arc
 * is a caller's call of a callee, summed over every context and thread
 * group; a thread's outermost frames are called by "<thread root>". The
 * calls of a method's callers add up to its own calls.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "postproc/diff_report.h"
#include "postproc/output.h"

struct arc {
	uint32_t caller, callee;
};

struct arcs {
	const struct diff_model *dm;
	struct arc *arc;
	struct diff_fig *figs; /* nruns per arc: calls */
	uint8_t *seen;	       /* nruns per arc */
	struct diff_cmp *cmp;  /* per arc */
	uint32_t n;
	size_t cap;
	uint32_t *by_callee, *by_caller; /* arcs sorted by the method, then by change */
	uint32_t *first_in, *first_out;	 /* per name: its first arc in by_callee/by_caller */
};

static void arcs_free(struct arcs *a)
{
	free(a->arc);
	free(a->figs);
	free(a->seen);
	free(a->cmp);
	free(a->by_callee);
	free(a->by_caller);
	free(a->first_in);
	free(a->first_out);
}

/* The arc of key, added when new. */
static int arc_get(struct arcs *a, struct u64map *idx, uint32_t caller, uint32_t callee,
		   uint32_t *out)
{
	uint64_t key = (uint64_t)caller << 32 | callee;
	uint32_t *v = u64map_find(idx, key);
	size_t runs = a->dm->nruns, fcap, scap;
	struct diff_fig *figs = a->figs;
	uint8_t *seen = a->seen;

	if (v) {
		*out = *v;
		return 0;
	}
	fcap = scap = a->cap * runs;
	if (grow(&a->arc, &a->cap, (size_t)a->n + 1) ||
	    grow_array(&figs, &fcap, a->cap * runs, sizeof(*figs)) ||
	    (a->figs = figs, grow_array(&seen, &scap, a->cap * runs, sizeof(*seen))) ||
	    (a->seen = seen, u64map_put(idx, key, a->n)))
		return -1;
	a->arc[a->n].caller = caller;
	a->arc[a->n].callee = callee;
	memset(&a->figs[(size_t)a->n * runs], 0, runs * sizeof(*a->figs));
	memset(&a->seen[(size_t)a->n * runs], 0, runs);
	*out = a->n++;
	return 0;
}

/* Every context of the tree as the arc from its caller. */
static int collect(struct arcs *a)
{
	const struct diff_tree *t = &a->dm->tree;
	size_t runs = a->dm->nruns;
	struct u64map idx;
	int err = 0;

	if (u64map_init(&idx, 1024))
		return -1;
	for (uint32_t n = 0; n < t->nnodes && !err; n++) {
		const struct diff_node *nd = &t->nodes[n];
		uint32_t k;

		if (nd->level < 2)
			continue;
		err = arc_get(a, &idx, nd->level == 2 ? DIFF_ROOT_NAME : t->nodes[nd->parent].name,
			      nd->name, &k);
		for (size_t r = 0; r < runs && !err; r++) {
			a->figs[k * runs + r].calls += diff_tree_figs(t, n)[r].calls;
			a->seen[k * runs + r] |= diff_tree_seen(t, n)[r];
		}
	}
	u64map_free(&idx);
	return err;
}

struct arc_sort {
	const struct arcs *a;
	int by_caller;
};

static int arc_cmp(const void *pa, const void *pb, void *arg)
{
	const struct arc_sort *s = arg;
	uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
	const struct arc *ax = &s->a->arc[x], *ay = &s->a->arc[y];
	uint32_t kx = s->by_caller ? ax->caller : ax->callee,
		 ky = s->by_caller ? ay->caller : ay->callee;
	uint32_t ox = s->by_caller ? ax->callee : ax->caller,
		 oy = s->by_caller ? ay->callee : ay->caller;
	int c;

	if (kx != ky)
		return kx < ky ? -1 : 1;
	c = diff_report_by_change(&s->a->cmp[x], &s->a->cmp[y]);
	if (c)
		return c;
	if (s->a->cmp[x].new_.calls != s->a->cmp[y].new_.calls)
		return s->a->cmp[x].new_.calls > s->a->cmp[y].new_.calls ? -1 : 1;
	c = strcmp(diff_model_name(s->a->dm, ox), diff_model_name(s->a->dm, oy));
	return c ? c : (x > y) - (x < y);
}

/* by_callee / by_caller and the first arc of each name in them. */
static int index_arcs(struct arcs *a)
{
	size_t nn = a->dm->nnames + 1;
	struct arc_sort s = {a, 0};

	a->cmp = malloc((a->n ? a->n : 1) * sizeof(*a->cmp));
	a->by_callee = malloc((a->n ? a->n : 1) * sizeof(*a->by_callee));
	a->by_caller = malloc((a->n ? a->n : 1) * sizeof(*a->by_caller));
	a->first_in = malloc(nn * sizeof(*a->first_in));
	a->first_out = malloc(nn * sizeof(*a->first_out));
	if (!a->cmp || !a->by_callee || !a->by_caller || !a->first_in || !a->first_out)
		return -1;
	for (uint32_t i = 0; i < a->n; i++) {
		diff_model_compare(a->dm, &a->figs[(size_t)i * a->dm->nruns],
				   &a->seen[(size_t)i * a->dm->nruns], &a->cmp[i]);
		a->by_callee[i] = a->by_caller[i] = i;
	}
	qsort_r(a->by_callee, a->n, sizeof(uint32_t), arc_cmp, &s);
	s.by_caller = 1;
	qsort_r(a->by_caller, a->n, sizeof(uint32_t), arc_cmp, &s);
	for (size_t i = 0; i < nn; i++)
		a->first_in[i] = a->first_out[i] = a->n;
	for (uint32_t i = a->n; i-- > 0;) {
		a->first_in[a->arc[a->by_callee[i]].callee] = i;
		a->first_out[a->arc[a->by_caller[i]].caller] = i;
	}
	return 0;
}

enum relation { REL_CALLER, REL_CALLEE };

/* The arcs of a relation of method m: *list from index *first on while
 * the method matches. */
static uint32_t rel_first(const struct arcs *a, uint32_t m, enum relation r)
{
	return r == REL_CALLER ? a->first_in[m] : a->first_out[m];
}

static int rel_has(const struct arcs *a, uint32_t m, enum relation r, uint32_t i)
{
	if (i >= a->n)
		return 0;
	return r == REL_CALLER ? a->arc[a->by_callee[i]].callee == m
			       : a->arc[a->by_caller[i]].caller == m;
}

static uint32_t rel_arc(const struct arcs *a, enum relation r, uint32_t i)
{
	return r == REL_CALLER ? a->by_callee[i] : a->by_caller[i];
}

static uint32_t rel_other(const struct arcs *a, enum relation r, uint32_t k)
{
	return r == REL_CALLER ? a->arc[k].caller : a->arc[k].callee;
}

static void text_calls(FILE *f, const struct diff_cmp *c, const int w[3])
{
	char pct[32], delta[32];

	diff_stats_pct(pct, sizeof(pct), c->base.calls, c->new_.calls);
	diff_report_delta_str(delta, sizeof(delta), c->base.calls, c->new_.calls, 1);
	fprintf(f, "  %*" PRIu64 " %*" PRIu64 " %*s %8s  %c ", w[0], c->base.calls, w[1],
		c->new_.calls, w[2], delta, pct, diff_report_mark(c->status));
}

/* Widens w to the calls of c. */
static void fit(int w[3], const struct diff_cmp *c)
{
	char delta[32];

	w[0] = (int)report_width((unsigned)w[0], c->base.calls);
	w[1] = (int)report_width((unsigned)w[1], c->new_.calls);
	diff_report_delta_str(delta, sizeof(delta), c->base.calls, c->new_.calls, 1);
	if ((int)strlen(delta) > w[2])
		w[2] = (int)strlen(delta);
}

static void text(const struct arcs *a, const struct diff_report_opts *o, const uint32_t *order,
		 size_t shown)
{
	static const char *const label[2] = {"callers", "callees"};
	int w[3] = {9, 8, 10};
	struct diff_cmp c;

	diff_report_text_head(a->dm, o, "callers and callees");
	fputs("  calls of each method, then of each arc from its callers and to its callees\n"
	      "  marks: + added, - removed, * changed\n",
	      o->out);
	for (uint32_t i = 0; i < a->n; i++)
		fit(w, &a->cmp[i]);
	for (size_t i = 0; i < shown; i++) {
		diff_report_method(a->dm, order[i], &c);
		fit(w, &c);
	}
	for (size_t i = 0; i < shown; i++) {
		uint32_t m = order[i];

		diff_report_method(a->dm, m, &c);
		fprintf(o->out, "\n  %*s %*s %*s %8s\n", w[0], "CallsBase", w[1], "CallsNew", w[2],
			"CallsDelta", "Calls%");
		text_calls(o->out, &c, w);
		text_escape(o->out, diff_model_name(a->dm, m));
		fputc('\n', o->out);
		for (int r = 0; r < 2; r++) {
			uint32_t k = rel_first(a, m, (enum relation)r);

			if (rel_has(a, m, (enum relation)r, k))
				fprintf(o->out, "  %s:\n", label[r]);
			for (; rel_has(a, m, (enum relation)r, k); k++) {
				uint32_t arc = rel_arc(a, (enum relation)r, k);

				text_calls(o->out, &a->cmp[arc], w);
				fputs("    ", o->out);
				text_escape(
				    o->out,
				    diff_model_name(a->dm, rel_other(a, (enum relation)r, arc)));
				fputc('\n', o->out);
			}
		}
	}
}

static void calls_csv(FILE *f, const struct diff_cmp *c)
{
	fprintf(f, ",%" PRIu64 ",%" PRIu64 ",", c->base.calls, c->new_.calls);
	diff_report_delta(f, c->base.calls, c->new_.calls, 0);
	fprintf(f, ",%s\n", diff_report_status(c->status));
}

static void calls_json(FILE *f, const struct diff_cmp *c)
{
	fprintf(f, ",\"calls_base\":%" PRIu64 ",\"calls_new\":%" PRIu64 ",\"calls_delta\":",
		c->base.calls, c->new_.calls);
	diff_report_delta(f, c->base.calls, c->new_.calls, 0);
	fprintf(f, ",\"status\":\"%s\"", diff_report_status(c->status));
}

static void data(const struct arcs *a, const struct diff_report_opts *o, const uint32_t *order,
		 size_t shown)
{
	static const char *const rel[2] = {"caller", "callee"};
	int json = o->format == REPORT_JSON;

	if (json) {
		diff_report_json_head(a->dm, o);
		fputs(",\n\"methods\":[", o->out);
	} else {
		fputs("method,relation,other,calls_base,calls_new,calls_delta,status\n", o->out);
	}
	for (size_t i = 0; i < shown; i++) {
		uint32_t m = order[i];
		struct diff_cmp c;

		diff_report_method(a->dm, m, &c);
		if (json) {
			fputs(i ? ",\n{\"method\":" : "\n{\"method\":", o->out);
			json_string(o->out, diff_model_name(a->dm, m));
			calls_json(o->out, &c);
		} else {
			csv_field(o->out, diff_model_name(a->dm, m));
			fputs(",self,", o->out);
			calls_csv(o->out, &c);
		}
		for (int r = 0; r < 2; r++) {
			uint32_t k = rel_first(a, m, (enum relation)r);

			if (json)
				fprintf(o->out, ",\"%ss\":[", rel[r]);
			for (uint32_t j = k; rel_has(a, m, (enum relation)r, j); j++) {
				uint32_t arc = rel_arc(a, (enum relation)r, j);
				const char *other =
				    diff_model_name(a->dm, rel_other(a, (enum relation)r, arc));

				if (json) {
					fputs(j > k ? ",{\"method\":" : "{\"method\":", o->out);
					json_string(o->out, other);
					calls_json(o->out, &a->cmp[arc]);
					fputc('}', o->out);
					continue;
				}
				csv_field(o->out, diff_model_name(a->dm, m));
				fprintf(o->out, ",%s,", rel[r]);
				csv_field(o->out, other);
				calls_csv(o->out, &a->cmp[arc]);
			}
			if (json)
				fputc(']', o->out);
		}
		if (json)
			fputc('}', o->out);
	}
	if (json)
		fputs("\n]}\n", o->out);
}

int diff_report_callers(const struct diff_model *dm, const struct diff_report_opts *o)
{
	struct arcs a;
	uint32_t *order = NULL;
	size_t n, shown;
	int err;

	memset(&a, 0, sizeof(a));
	a.dm = dm;
	err = collect(&a) || index_arcs(&a) || diff_report_methods(dm, &order, &n) ? -1 : 0;
	if (!err) {
		shown = o->top && o->top < n ? o->top : n;
		if (o->format == REPORT_TEXT)
			text(&a, o, order, shown);
		else
			data(&a, o, order, shown);
	}
	free(order);
	arcs_free(&a);
	return err;
}
