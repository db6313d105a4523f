/*
 * default_cut.c - the cuts applied by default on a large trace (see
 * default_cut.h): which --min-pct or --min-duration keeps a report within
 * its bound, estimated from the trees, and the note that says so.
 */
#include "postproc/default_cut.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/satsum.h"
#include "postproc/shaping.h"

const double default_cut_pct_ladder[DEFAULT_CUT_NPCT] = {
    0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1,
    0.2,    0.5,    1,	    2,	   5,	  10,	 20,   50,   100};
#define NPCT DEFAULT_CUT_NPCT

enum export_kind { EX_NONE, EX_COLLAPSED, EX_SPEEDSCOPE, EX_PPROF, EX_HTML };

static enum export_kind export_of(const char *kind)
{
	if (!strcmp(kind, "collapsed"))
		return EX_COLLAPSED;
	if (!strcmp(kind, "speedscope"))
		return EX_SPEEDSCOPE;
	if (!strcmp(kind, "pprof"))
		return EX_PPROF;
	if (!strcmp(kind, "html"))
		return EX_HTML;
	return EX_NONE;
}

static unsigned digits(uint64_t v)
{
	unsigned d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/* Bytes the export writes for each context of t (about: every value as
 * wide as the context's cum, which folding may add to its base). */
static int context_costs(const struct model *m, const struct model_thread *th, enum export_kind ex,
			 unsigned metric, int merged, uint64_t *cost)
{
	const struct calltree *t = &th->tree;
	uint64_t *plen = NULL;
	unsigned fd = digits(HASH_COUNT(m->methods) + 2);

	if (ex == EX_COLLAPSED && !(plen = malloc((size_t)t->nnodes * sizeof(*plen))))
		return -1;
	for (uint32_t i = 0; i < t->nnodes; i++) {
		uint32_t n = t->order[i];
		const struct calltree_node *nd = &t->nodes[n];
		const struct calltree_fig *ndf = calltree_fig(t, n, 0);
		uint64_t v = model_value(m, metric, ndf[metric].cum);

		switch (ex) {
		case EX_COLLAPSED:
			/* "thread;a;b;c N\n": the path's bytes from the parent's */
			plen[n] = n == CALLTREE_ROOT
				      ? 0
				      : plen[nd->parent] + (nd->parent != CALLTREE_ROOT) +
					    strlen(model_method_name(m, nd->method));
			cost[n] = (merged ? 0 : strlen(th->name) + 1) + plen[n] + 2 + digits(v);
			break;
		case EX_SPEEDSCOPE:
			/* a stack of frame indices and a weight */
			cost[n] = (uint64_t)nd->level * (fd + 1) + 4 + digits(v);
			break;
		case EX_HTML:
			/* [name, cum, base, calls, children...] */
			cost[n] = 6 + fd + 2 * (uint64_t)digits(v) + digits(nd->calls);
			break;
		default:
			/* gzipped samples: twice the 8 bytes a context took on checkstyle */
			cost[n] = 16;
			break;
		}
	}
	free(plen);
	return 0;
}

/* est[k]: the bytes kept under default_cut_pct_ladder[k - 1] (est[0]: no cut), and
 * kept[k] the contexts, added over the threads. */
static int estimate(const struct model *m, const struct model_thread *th, enum export_kind ex,
		    unsigned metric, int merged, uint64_t *est, uint64_t *kept)
{
	const struct calltree *t = &th->tree;
	uint64_t *cost = malloc(((size_t)t->nnodes + 1) * sizeof(*cost));
	uint64_t th_of[NPCT];

	if (!cost || context_costs(m, th, ex, metric, merged, cost)) {
		free(cost);
		return -1;
	}
	for (size_t k = 0; k < NPCT; k++)
		th_of[k] = shape_pct_threshold(t, metric, default_cut_pct_ladder[k]);
	for (uint32_t n = 0; n < t->nnodes; n++) {
		uint64_t c = calltree_fig(t, n, metric)->cum;

		/* estimates: they saturate without a warning (nothing shows them) */
		est[0] = satsum_add(est[0], cost[n], 0);
		kept[0]++;
		for (size_t k = 0; k < NPCT; k++) {
			if (n != CALLTREE_ROOT && c < th_of[k])
				break; /* the thresholds only grow */
			est[k + 1] = satsum_add(est[k + 1], cost[n], 0);
			kept[k + 1]++;
		}
	}
	free(cost);
	return 0;
}

/* The threads of m that sel selects, in m's order; *n of them. */
static struct model_thread **selected(const struct model *m, const struct threadsel *sel, size_t *n)
{
	struct model_thread **l = malloc((m->nthreads ? m->nthreads : 1) * sizeof(*l));

	*n = 0;
	if (!l)
		return NULL;
	for (size_t i = 0; i < m->nthreads; i++) {
		struct model_thread *t = m->thread_list[i];

		if (model_thread_selected(sel, t))
			l[(*n)++] = t;
	}
	return l;
}

/* The text tree: threads of more than DEFAULT_CUT_TREE_CONTEXTS. */
static int cut_tree(struct model_thread **list, size_t n, unsigned metric, struct default_cut *dc)
{
	struct shape_info info;

	memset(&info, 0, sizeof(info));
	for (size_t i = 0; i < n; i++) {
		struct calltree *t = &list[i]->tree;

		if (t->nnodes <= DEFAULT_CUT_TREE_CONTEXTS)
			continue;
		dc->before += t->nnodes;
		if (shape_min_pct(t, metric, DEFAULT_CUT_TREE_PCT, &info))
			return -1;
		dc->after += list[i]->tree.nnodes;
		dc->cut++;
		dc->active = 1;
		dc->pct = DEFAULT_CUT_TREE_PCT;
	}
	return 0;
}

/* The context exports: the smallest ladder step whose estimate fits. */
static int cut_export(const struct model *m, struct model_thread **list, size_t n,
		      enum export_kind ex, unsigned metric, int merged, struct default_cut *dc)
{
	uint64_t est[NPCT + 1] = {0}, kept[NPCT + 1] = {0};
	struct shape_info info;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (estimate(m, list[i], ex, metric, merged, est, kept))
			return -1;
	while (k < NPCT && est[k] > DEFAULT_CUT_BYTES)
		k++;
	if (!k)
		return 0;
	memset(&info, 0, sizeof(info));
	dc->active = 1;
	dc->pct = default_cut_pct_ladder[k - 1];
	dc->before = kept[0];
	dc->after = kept[k];
	dc->cut = n;
	for (size_t i = 0; i < n; i++)
		if (shape_min_pct(&list[i]->tree, metric, dc->pct, &info))
			return -1;
	return 0;
}

int default_cut_trees(struct model *m, const char *kind, enum report_format fmt, unsigned metric,
		      const struct threadsel *sel, int merged, struct default_cut *dc)
{
	enum export_kind ex = export_of(kind);
	struct model_thread **list;
	size_t n;
	int err = 0;

	memset(dc, 0, sizeof(*dc));
	dc->kind = kind;
	if (!(ex != EX_NONE || (!strcmp(kind, "tree") && fmt == REPORT_TEXT)))
		return 0;
	list = selected(m, sel, &n);
	if (!list)
		return -1;
	dc->threads = n;
	err = ex == EX_NONE ? cut_tree(list, n, metric, dc)
			    : cut_export(m, list, n, ex, metric, merged, dc);
	free(list);
	return err;
}

/* The spans chrome writes at most with --min-duration d: per context, its
 * calls, but no more than its raw cum holds spans of d (the calls of one
 * context never overlap in time). */
static uint64_t spans_at_most(const struct model *m, struct model_thread *const *list, size_t n,
			      unsigned metric, uint64_t d)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++) {
		const struct calltree *t = &list[i]->tree;

		for (uint32_t k = 1; k < t->nnodes; k++) {
			const struct calltree_node *nd = &t->nodes[k];
			const struct calltree_fig *ndf = calltree_fig(t, k, 0);
			uint64_t fit =
			    d ? model_value(m, metric, ndf[metric].raw_cum) / d : UINT64_MAX;

			s = satsum_add(s, nd->calls < fit ? nd->calls : fit, 0);
		}
	}
	return s;
}

uint64_t default_cut_spans(const struct model *m, unsigned metric, const struct threadsel *sel,
			   struct default_cut *dc)
{
	struct model_thread **list;
	uint64_t d = 0, calls, spans;
	size_t n;

	memset(dc, 0, sizeof(*dc));
	dc->kind = "chrome";
	dc->unit = !strcmp(m->metric[metric].unit, "ns") ? " ns" : "";
	list = selected(m, sel, &n);
	if (!list)
		return 0;
	calls = spans = spans_at_most(m, list, n, metric, 0);
	/* 1, 2, 5, 10, 20, 50 ... until the bound fits */
	for (uint64_t decade = 1; spans > DEFAULT_CUT_SPANS && decade <= UINT64_MAX / 10;
	     decade *= 10)
		for (unsigned s = 0; s < 3 && spans > DEFAULT_CUT_SPANS; s++) {
			d = decade * (s == 0 ? 1 : s == 1 ? 2 : 5);
			spans = spans_at_most(m, list, n, metric, d);
		}
	free(list);
	dc->threads = n;
	if (!d)
		return 0;
	dc->active = 1;
	dc->min_duration = d;
	dc->before = calls;
	dc->after = spans;
	return d;
}

void default_cut_note(const struct default_cut *dc, char *buf, size_t len)
{
	if (!dc->active) {
		snprintf(buf, len, "%s: nothing cut", dc->kind ? dc->kind : "report");
	} else if (dc->min_duration) {
		snprintf(buf, len,
			 "chrome: spans shorter than --min-duration %" PRIu64
			 "%s left out to stay near %u spans (%" PRIu64 " calls, at most %" PRIu64
			 " spans written); --all or --min-duration 0 writes every span",
			 dc->min_duration, dc->unit ? dc->unit : "", DEFAULT_CUT_SPANS, dc->before,
			 dc->after);
	} else if (!strcmp(dc->kind, "tree")) {
		snprintf(buf, len,
			 "tree: %zu of %zu threads had more than %u contexts: their contexts "
			 "under --min-pct %g of the thread's cum are folded into their callers "
			 "(%" PRIu64 " -> %" PRIu64 " contexts); --all or --min-pct 0 shows every "
			 "context",
			 dc->cut, dc->threads, DEFAULT_CUT_TREE_CONTEXTS, dc->pct, dc->before,
			 dc->after);
	} else {
		snprintf(buf, len,
			 "%s: contexts under --min-pct %g of their thread's cum folded into their "
			 "callers to stay near %u MB (%" PRIu64 " -> %" PRIu64
			 " contexts); --all or --min-pct 0 writes every context",
			 dc->kind, dc->pct, DEFAULT_CUT_BYTES / (1024 * 1024), dc->before,
			 dc->after);
	}
}
