/*
 * diff_report_tree.c - jcal-post diff's tree report (docs/jcal-post.md,
 * "Comparing two runs"): per thread group (threads matched by their
 * normalised names), every calling context with both sides' calls, base
 * and cum, the deltas and the status, depth first, each context's children
 * by the larger of their two cums; --top N: the N contexts of largest
 * change with their callers. A group's root row counts the threads merged
 * into it as its calls, and holds their time outside any frame as base.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "postproc/diff_report.h"
#include "postproc/output.h"

struct walk {
	const struct diff_model *dm;
	const struct diff_tree *t;
	uint64_t *key;	 /* per node: the larger of its two cums */
	uint8_t *shown;	 /* per node, with --top: shown; NULL all */
	uint32_t *order; /* the nodes to print, depth first */
	uint32_t norder;
	char *path; /* a context's path, ';'-joined */
	size_t path_cap;
};

static void compare(const struct diff_model *dm, uint32_t node, struct diff_cmp *c)
{
	diff_model_compare(dm, diff_tree_figs(&dm->tree, node), diff_tree_seen(&dm->tree, node), c);
}

static int by_key(const void *pa, const void *pb, void *arg)
{
	const struct walk *w = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	int c;

	if (w->key[a] != w->key[b])
		return w->key[a] > w->key[b] ? -1 : 1;
	c = strcmp(diff_model_name(w->dm, w->t->nodes[a].name),
		   diff_model_name(w->dm, w->t->nodes[b].name));
	return c ? c : (a > b) - (a < b);
}

/* Appends the subtree of top (a thread group), depth first, children by
 * key, to w->order; only shown nodes with --top. Returns 0 or -1. */
static int walk_group(struct walk *w, uint32_t top)
{
	const struct diff_tree *t = w->t;
	uint32_t *stack = malloc((size_t)t->nnodes * sizeof(*stack)), sp = 0;

	if (!stack)
		return -1;
	stack[sp++] = top;
	while (sp) {
		uint32_t n = stack[--sp], first = sp;

		w->order[w->norder++] = n;
		for (uint32_t k = t->nodes[n].first_child; k != DIFF_NONE;
		     k = t->nodes[k].next_sibling)
			if (!w->shown || w->shown[k])
				stack[sp++] = k;
		/* sorted largest first, pushed so that the first pops first */
		qsort_r(stack + first, sp - first, sizeof(*stack), by_key, w);
		for (uint32_t i = first, j = sp; i + 1 < j; i++, j--) {
			uint32_t x = stack[i];

			stack[i] = stack[j - 1];
			stack[j - 1] = x;
		}
	}
	free(stack);
	return 0;
}

static int by_change(const void *pa, const void *pb, void *arg)
{
	const struct diff_cmp *c = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	int r = diff_report_by_change(&c[a], &c[b]);

	return r ? r : (a > b) - (a < b);
}

/* --top N: the N contexts of largest change and their callers. */
static int mark_top(struct walk *w, size_t top)
{
	const struct diff_tree *t = w->t;
	struct diff_cmp *c = malloc((size_t)t->nnodes * sizeof(*c));
	uint32_t *ids = malloc((size_t)t->nnodes * sizeof(*ids)), n = 0;

	w->shown = calloc(t->nnodes, 1);
	if (!c || !ids || !w->shown) {
		free(c);
		free(ids);
		return -1;
	}
	for (uint32_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].level >= 2) {
			compare(w->dm, i, &c[i]);
			ids[n++] = i;
		}
	qsort_r(ids, n, sizeof(*ids), by_change, c);
	for (uint32_t i = 0; i < n && i < top; i++)
		for (uint32_t k = ids[i]; k != DIFF_NONE && !w->shown[k]; k = t->nodes[k].parent)
			w->shown[k] = 1;
	free(c);
	free(ids);
	return 0;
}

static int by_group_name(const void *pa, const void *pb, void *arg)
{
	const struct walk *w = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return strcmp(diff_model_name(w->dm, w->t->nodes[a].name),
		      diff_model_name(w->dm, w->t->nodes[b].name));
}

/* w->order: every thread group by name, each depth first. */
static int walk_all(struct walk *w, size_t top)
{
	const struct diff_tree *t = w->t;
	uint32_t *groups = malloc((size_t)t->nnodes * sizeof(*groups)), ng = 0;

	w->key = malloc((size_t)t->nnodes * sizeof(*w->key));
	w->order = malloc((size_t)t->nnodes * sizeof(*w->order));
	if (!groups || !w->key || !w->order || (top && mark_top(w, top))) {
		free(groups);
		return -1;
	}
	for (uint32_t i = 0; i < t->nnodes; i++) {
		struct diff_side_fig b, n;

		diff_model_side(w->dm, diff_tree_figs(t, i), diff_tree_seen(t, i), DIFF_BASE, &b);
		diff_model_side(w->dm, diff_tree_figs(t, i), diff_tree_seen(t, i), DIFF_NEW, &n);
		w->key[i] = b.cum > n.cum ? b.cum : n.cum;
	}
	for (uint32_t k = t->nodes[0].first_child; k != DIFF_NONE; k = t->nodes[k].next_sibling)
		if (!w->shown || w->shown[k])
			groups[ng++] = k;
	qsort_r(groups, ng, sizeof(*groups), by_group_name, w);
	for (uint32_t i = 0; i < ng; i++)
		if (walk_group(w, groups[i])) {
			free(groups);
			return -1;
		}
	free(groups);
	return 0;
}

/* w->path: the names from a thread's outermost frame down to node. */
static int path_of(struct walk *w, uint32_t node)
{
	const struct diff_tree *t = w->t;
	size_t len = 0, pos;

	for (uint32_t k = node; t->nodes[k].level >= 2; k = t->nodes[k].parent)
		len += strlen(diff_model_name(w->dm, t->nodes[k].name)) + 1;
	if (grow(&w->path, &w->path_cap, len + 1))
		return -1;
	pos = len ? len - 1 : 0;
	w->path[pos] = '\0';
	for (uint32_t k = node; t->nodes[k].level >= 2; k = t->nodes[k].parent) {
		const char *s = diff_model_name(w->dm, t->nodes[k].name);
		size_t n = strlen(s);

		pos -= n;
		memcpy(w->path + pos, s, n);
		if (pos)
			w->path[--pos] = ';';
	}
	return 0;
}

static void text(const struct walk *w, const struct diff_report_opts *o)
{
	struct diff_cols cols;
	struct diff_cmp c;

	diff_report_text_head(w->dm, o, "calling-context tree");
	fputs("  per context both runs' figures; a thread's root row: its own time as base, the "
	      "threads the group merged as calls\n",
	      o->out);
	fputs("  marks: + added, - removed, * changed\n", o->out);
	if (!w->norder)
		fputs("No thread recorded an event.\n", o->out);
	diff_report_cols_init(w->dm, &cols);
	for (uint32_t i = 0; i < w->norder; i++) {
		compare(w->dm, w->order[i], &c);
		diff_report_cols_fit(&cols, &c);
	}
	for (uint32_t i = 0; i < w->norder; i++) {
		uint32_t n = w->order[i], level = w->t->nodes[n].level - 1;

		compare(w->dm, n, &c);
		if (!level) {
			fputs("\nThread \"", o->out);
			text_escape(o->out, diff_model_name(w->dm, w->t->nodes[n].name));
			fprintf(o->out, "\"  threads %" PRIu64 " -> %" PRIu64 "\n", c.base.calls,
				c.new_.calls);
			diff_report_cols_head(o->out, &cols);
			fputs("Name\n", o->out);
		}
		diff_report_cols_row(o->out, &cols, &c);
		fprintf(o->out, "%*s", (int)(2 * level), "");
		text_escape(o->out,
			    diff_model_name(w->dm, level ? w->t->nodes[n].name : DIFF_ROOT_NAME));
		fputc('\n', o->out);
	}
}

static int rows(struct walk *w, const struct diff_report_opts *o)
{
	int sets = diff_report_sets(w->dm), json = o->format == REPORT_JSON;
	uint32_t group = DIFF_NONE;

	for (uint32_t i = 0; i < w->norder; i++) {
		uint32_t n = w->order[i];
		struct diff_cmp c;

		compare(w->dm, n, &c);
		if (w->t->nodes[n].level == 1)
			group = n;
		if (path_of(w, n))
			return -1;
		if (json) {
			if (group == n) {
				fputs(i ? "\n]},\n{\"thread\":" : "\n{\"thread\":", o->out);
				json_string(o->out, diff_model_name(w->dm, w->t->nodes[n].name));
				fputs(",\"contexts\":[", o->out);
			}
			fprintf(o->out,
				"%s\n{\"level\":%" PRIu32 ",\"path\":", group == n ? "" : ",",
				w->t->nodes[n].level - 1);
			json_string(o->out, w->path);
			diff_report_json_figs(o->out, w->dm, &c);
			fputc('}', o->out);
			continue;
		}
		csv_field(o->out, diff_model_name(w->dm, w->t->nodes[group].name));
		fprintf(o->out, ",%" PRIu32 ",", w->t->nodes[n].level - 1);
		csv_field(o->out, w->path);
		diff_report_csv_figs(o->out, &c);
		if (sets)
			diff_report_csv_sets(o->out, &c);
		fputc('\n', o->out);
	}
	return 0;
}

int diff_report_tree(const struct diff_model *dm, const struct diff_report_opts *o)
{
	struct walk w = {dm, &dm->tree, NULL, NULL, NULL, 0, NULL, 0};
	int err = walk_all(&w, o->top);

	if (!err && o->format == REPORT_TEXT) {
		text(&w, o);
	} else if (!err && o->format == REPORT_CSV) {
		fputs("thread,level,path,calls_base,calls_new,calls_delta,base_base,base_new,"
		      "base_delta,cum_base,cum_new,cum_delta,status",
		      o->out);
		fputs(diff_report_sets(dm) ? ",calls_spread,cost_spread,cost_change\n" : "\n",
		      o->out);
		err = rows(&w, o);
	} else if (!err) {
		diff_report_json_head(dm, o);
		fputs(",\n\"threads\":[", o->out);
		err = rows(&w, o);
		fputs(w.norder ? "\n]}\n]}\n" : "]}\n", o->out);
	}
	free(w.key);
	free(w.shown);
	free(w.order);
	free(w.path);
	return err;
}
