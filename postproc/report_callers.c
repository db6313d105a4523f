/*
 * report_callers.c - the bottom-up report: per method (sorted by base, as
 * the flat profile), every calling context that leads to it, with its
 * calls, base and the share of the method's base it contributes. Equal
 * paths in several threads add up. Text (paths callee first), CSV and JSON
 * (paths root first, ';'-joined as in the tree report).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "postproc/flat.h"
#include "common/grow.h"
#include "postproc/output.h"
#include "postproc/report.h"
#include "postproc/report_util.h"
#include "common/satsum.h"
#include "common/u64map.h"

struct rec {
	uint32_t rank; /* the method's row in the flat order */
	uint32_t tree;
	uint32_t node;
	uint64_t calls, base, raw_base;
};

struct ctx {
	const struct model *m;
	const struct calltree **trees;
};

/* Compares two paths leaf first, by method name. */
static int path_cmp(const struct ctx *c, const struct rec *x, const struct rec *y)
{
	const struct calltree *tx = c->trees[x->tree], *ty = c->trees[y->tree];
	uint32_t a = x->node, b = y->node;

	while (a != CALLTREE_ROOT && b != CALLTREE_ROOT) {
		uint32_t ma = tx->nodes[a].method, mb = ty->nodes[b].method;

		if (ma != mb) {
			int d = strcmp(model_method_name(c->m, ma), model_method_name(c->m, mb));

			return d ? d : ma < mb ? -1 : 1;
		}
		a = tx->nodes[a].parent;
		b = ty->nodes[b].parent;
	}
	return (a != CALLTREE_ROOT) - (b != CALLTREE_ROOT);
}

static int by_base(const void *pa, const void *pb, void *c)
{
	const struct rec *x = pa, *y = pb;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->base != y->base)
		return x->base > y->base ? -1 : 1;
	return path_cmp(c, x, y);
}

enum path_style { PATH_TEXT, PATH_CSV, PATH_JSON };

/* Writes the call path of node: as text leaf first joined by " <- "; in CSV
 * and JSON root first joined by ';', as one field or one string. */
static void put_path(const struct model *m, const struct calltree *t, uint32_t node,
		     enum path_style style, FILE *f)
{
	uint32_t depth = 0, *path;
	char *s = NULL;
	size_t len = 0;
	FILE *mem;

	if (style == PATH_TEXT) {
		for (uint32_t n = node; n != CALLTREE_ROOT; n = t->nodes[n].parent) {
			fputs(n != node ? " <- " : "", f);
			text_escape(f, model_method_name(m, t->nodes[n].method));
		}
		return;
	}
	for (uint32_t n = node; n != CALLTREE_ROOT; n = t->nodes[n].parent)
		depth++;
	path = malloc((depth ? depth : 1) * sizeof(*path));
	if (!path)
		return;
	depth = 0;
	for (uint32_t n = node; n != CALLTREE_ROOT; n = t->nodes[n].parent)
		path[depth++] = n;
	mem = open_memstream(&s, &len);
	if (mem) {
		for (uint32_t i = depth; i-- > 0;)
			fprintf(mem, "%s%s", i + 1 < depth ? ";" : "",
				model_method_name(m, t->nodes[path[i]].method));
		fclose(mem);
		if (style == PATH_CSV)
			csv_field(f, s);
		else
			json_string(f, s);
		free(s);
	}
	free(path);
}

static void text_method(const struct model *m, const struct report_opts *o, struct ctx *c,
			const struct flat_row *row, const struct rec *r, size_t n, uint64_t total)
{
	unsigned mi = o->metric, wc = 5, wb = 4;

	for (size_t i = 0; i < n; i++) {
		wc = report_width(wc, r[i].calls);
		wb = report_width(wb, model_value(m, mi, r[i].base));
	}
	fputc('\n', o->out);
	text_escape(o->out, row->name);
	fprintf(o->out, "  calls %" PRIu64 "  base %" PRIu64 " (%.2f%% of total)\n", row->calls,
		model_value(m, mi, row->base), report_pct(row->base, total));
	fprintf(o->out, "  %7s %*s %*s  Path (callee first)\n", "Share", wc, "Calls", wb, "Base");
	for (size_t i = 0; i < n; i++) {
		fprintf(o->out, "  %6.2f%% %*" PRIu64 " %*" PRIu64 "  ",
			report_pct(r[i].base, row->base), wc, r[i].calls, wb,
			model_value(m, mi, r[i].base));
		put_path(m, c->trees[r[i].tree], r[i].node, PATH_TEXT, o->out);
		fputc('\n', o->out);
	}
}

static void csv_method(const struct model *m, const struct report_opts *o, struct ctx *c,
		       const struct flat_row *row, const struct rec *r, size_t n)
{
	unsigned mi = o->metric;

	for (size_t i = 0; i < n; i++) {
		csv_field(o->out, row->name);
		fputc(',', o->out);
		put_path(m, c->trees[r[i].tree], r[i].node, PATH_CSV, o->out);
		fprintf(o->out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.2f\n", r[i].calls,
			model_value(m, mi, r[i].base), model_value(m, mi, r[i].raw_base),
			report_pct(r[i].base, row->base));
	}
}

static void json_method(const struct model *m, const struct report_opts *o, struct ctx *c,
			const struct flat_row *row, const struct rec *r, size_t n, int first)
{
	unsigned mi = o->metric;

	fputs(first ? "\n{\"method\":" : ",\n{\"method\":", o->out);
	json_string(o->out, row->name);
	fprintf(o->out,
		",\"calls\":%" PRIu64 ",\"base\":%" PRIu64 ",\"raw_base\":%" PRIu64 ",\"paths\":[",
		row->calls, model_value(m, mi, row->base), model_value(m, mi, row->raw_base));
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",{\"path\":" : "{\"path\":", o->out);
		put_path(m, c->trees[r[i].tree], r[i].node, PATH_JSON, o->out);
		fprintf(o->out,
			",\"calls\":%" PRIu64 ",\"base\":%" PRIu64 ",\"raw_base\":%" PRIu64
			",\"share\":%.4f}",
			r[i].calls, model_value(m, mi, r[i].base),
			model_value(m, mi, r[i].raw_base),
			row->base ? (double)r[i].base / (double)row->base : 0.0);
	}
	fputs("]}", o->out);
}

/* Collects one record per non-root node, merged by equal paths, grouped by
 * method in flat order and sorted by base within each method. */
static int collect(const struct calltree **trees, size_t nt, unsigned mi,
		   const struct flat_row *rows, size_t nrows, struct rec **out, size_t *nout)
{
	struct u64map rank;
	struct rec *r;
	size_t n = 0, k = 0;

	for (size_t i = 0; i < nt; i++)
		n += trees[i]->nnodes - 1;
	r = malloc((n ? n : 1) * sizeof(*r));
	if (!r || u64map_init(&rank, nrows + 1)) {
		free(r);
		return -1;
	}
	for (size_t i = 0; i < nrows; i++)
		if (u64map_put(&rank, rows[i].method, (uint32_t)i)) {
			u64map_free(&rank);
			free(r);
			return -1;
		}
	for (size_t ti = 0; ti < nt; ti++)
		for (uint32_t i = 1; i < trees[ti]->nnodes; i++) {
			const struct calltree_node *nd = &trees[ti]->nodes[i];
			const struct calltree_fig *ndf = calltree_fig(trees[ti], i, 0);
			struct rec *x = &r[k++];

			x->rank = *u64map_find(&rank, nd->method);
			x->tree = (uint32_t)ti;
			x->node = i;
			x->calls = nd->calls;
			x->base = ndf[mi].base;
			x->raw_base = ndf[mi].raw_base;
		}
	u64map_free(&rank);
	*out = r;
	*nout = k;
	return 0;
}

/*
 * Merges the records of equal paths (from different threads) into the first
 * one, in linear time: each path gets an id, interned by (id of the
 * caller's path, method) over all trees. Returns 0 or -1.
 */
static int merge_paths(const struct calltree **trees, size_t nt, struct rec *r, size_t *nr)
{
	struct u64map ids, first; /* (parent path id, method) -> path id; id -> record */
	uint32_t *pid = NULL, next = 1;
	size_t cap = 0;
	size_t k = 0, base = 0;
	int err = -1;

	if (u64map_init(&ids, *nr + 1))
		return -1;
	if (u64map_init(&first, *nr + 1)) {
		u64map_free(&ids);
		return -1;
	}
	for (size_t ti = 0; ti < nt; ti++) {
		const struct calltree *t = trees[ti];

		if (grow(&pid, &cap, t->nnodes))
			goto out;
		pid[CALLTREE_ROOT] = 0; /* every thread root: path id 0 */
		/* parents come before their children in the pre-order */
		for (uint32_t i = 1; i < t->nnodes; i++) {
			uint32_t n = t->order[i];
			uint64_t key =
			    ((uint64_t)pid[t->nodes[n].parent] << 32) | t->nodes[n].method;
			uint32_t *v = u64map_find(&ids, key);

			if (!v) {
				if (u64map_put(&ids, key, next))
					goto out;
				pid[n] = next++;
			} else {
				pid[n] = *v;
			}
		}
		/* the records of this tree: nodes 1..nnodes-1 in index order */
		for (uint32_t i = 1; i < t->nnodes; i++) {
			struct rec *x = &r[base + i - 1];
			uint32_t *v = u64map_find(&first, pid[i]);

			if (v) {
				satsum_addto(&r[*v].calls, x->calls, SATSUM_CALLS);
				satsum_addto(&r[*v].base, x->base, SATSUM_BASE);
				satsum_addto(&r[*v].raw_base, x->raw_base, SATSUM_RAW_BASE);
			} else {
				if (u64map_put(&first, pid[i], (uint32_t)k))
					goto out;
				r[k++] = *x;
			}
		}
		base += t->nnodes - 1;
	}
	*nr = k;
	err = 0;
out:
	u64map_free(&ids);
	u64map_free(&first);
	free(pid);
	return err;
}

int report_callers(const struct model *m, const struct report_opts *o)
{
	const struct model_thread **list;
	const struct calltree **trees = NULL;
	struct report_view *views = NULL;
	struct flat_row *rows = NULL;
	struct rec *r = NULL;
	size_t nt, nrows = 0, nr = 0, shown, nthreads;
	uint64_t total = 0;
	unsigned mi = o->metric;
	struct ctx c = {m, NULL};
	char label[128];
	int err = -1;

	if (report_threads(m, o, &list, &nt))
		return -1;
	trees = malloc((nt ? nt : 1) * sizeof(*trees));
	views = calloc(nt ? nt : 1, sizeof(*views));
	if (!trees || !views)
		goto out;
	for (size_t i = 0; i < nt; i++) {
		if (report_view_get(&views[i], list[i], o))
			goto out;
		trees[i] = views[i].t;
		satsum_addto(&total, calltree_fig(trees[i], CALLTREE_ROOT, mi)->cum, SATSUM_CUM);
	}
	c.trees = trees;
	if (flat_build(trees, nt, mi, FLAT_BY_BASE, (flat_name_fn)model_method_name, (void *)m,
		       &rows, &nrows) ||
	    collect(trees, nt, mi, rows, nrows, &r, &nr))
		goto out;
	if (merge_paths(trees, nt, r, &nr))
		goto out;
	if (nr)
		qsort_r(r, nr, sizeof(*r), by_base, &c);
	shown = o->top && o->top < nrows ? o->top : nrows;
	nthreads = report_thread_count(list, nt);
	switch (o->format) {
	case REPORT_TEXT:
		report_metric_label(m, mi, label, sizeof(label));
		fputs("Callers (bottom-up): per method, the calling contexts that lead to it\n"
		      "and the share of its base each contributes.\n"
		      "Metric ",
		      o->out);
		text_escapef(o->out, "%s  %zu thread%s  total %" PRIu64, label, nthreads,
			     nthreads == 1 ? "" : "s", model_value(m, mi, total));
		fputc('\n', o->out);
		report_shape_note(o, nthreads);
		for (size_t i = 0; i < nt; i++)
			report_view_note(o, &views[i]);
		if (!nrows)
			fputs("No method recorded an event.\n", o->out);
		break;
	case REPORT_CSV:
		fputs("method,path,calls,base,raw_base,share_pct\n", o->out);
		break;
	case REPORT_JSON:
		fputs("{\"metric\":{\"name\":", o->out);
		json_string(o->out, m->metric[mi].name);
		fputs(",\"unit\":", o->out);
		json_string(o->out, m->metric[mi].unit);
		fprintf(o->out, "},\"calibrated\":%s,\"methods\":[",
			o->calibrated ? "true" : "false");
		break;
	}
	for (size_t i = 0, k = 0; i < shown; i++) {
		size_t start = k;

		while (k < nr && r[k].rank == i)
			k++;
		switch (o->format) {
		case REPORT_TEXT:
			text_method(m, o, &c, &rows[i], r + start, k - start, total);
			break;
		case REPORT_CSV:
			csv_method(m, o, &c, &rows[i], r + start, k - start);
			break;
		case REPORT_JSON:
			json_method(m, o, &c, &rows[i], r + start, k - start, i == 0);
			break;
		}
	}
	if (o->format == REPORT_JSON)
		fputs("\n]}\n", o->out);
	else if (o->format == REPORT_TEXT && shown < nrows)
		fprintf(o->out, "\n(%zu more method%s; --top %zu)\n", nrows - shown,
			nrows - shown == 1 ? "" : "s", o->top);
	err = 0;
out:
	for (size_t i = 0; views && i < nt; i++)
		report_view_free(&views[i]);
	free(views);
	free(r);
	free(rows);
	free(trees);
	free(list);
	return err;
}
