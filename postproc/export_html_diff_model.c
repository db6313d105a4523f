/*
 * export_html_diff_model.c - jcal-post diff --report html: the
 * differential flame graph (export_html_diff.h) of a finished diff model.
 * Its contexts are the model's tree: the root (all threads), one frame per
 * thread group, and their calling contexts, each with its side's calls and
 * self cost (medians with several runs a side; a thread group's self is
 * its threads' time outside any frame, and it counts no calls), which
 * sides have it and, with sets, whether its cost changed beyond the runs'
 * spread. The page's title and notes are the text reports' header (the
 * inputs, what was normalised, what --max-depth folded). A page that would
 * pass the flame graphs' bound is cut (--min-pct P chooses, --all lifts);
 * the note says so (docs/jcal-post.md, "Differential flame graph").
 */
#include <stdlib.h>
#include <string.h>

#include "postproc/default_cut.h"
#include "postproc/diff_report.h"
#include "postproc/export_html_diff.h"

/* The contexts of the model's tree, in its order (callers first). */
static struct html_diff_ctx *contexts(const struct diff_model *dm)
{
	const struct diff_tree *t = &dm->tree;
	struct html_diff_ctx *ctx = calloc(t->nnodes ? t->nnodes : 1, sizeof(*ctx));

	if (!ctx)
		return NULL;
	for (uint32_t i = 0; i < t->nnodes; i++) {
		const struct diff_node *n = &t->nodes[i];
		struct diff_cmp c;

		diff_model_compare(dm, diff_tree_figs(t, i), diff_tree_seen(t, i), &c);
		ctx[i].parent = i ? n->parent : HTML_DIFF_NONE;
		ctx[i].name = i ? diff_model_name(dm, n->name) : "all threads";
		ctx[i].calls[0] = n->level >= 2 ? c.base.calls : 0;
		ctx[i].calls[1] = n->level >= 2 ? c.new_.calls : 0;
		ctx[i].self[0] = c.base.base;
		ctx[i].self[1] = c.new_.base;
		ctx[i].flags = (c.base.present ? HTML_DIFF_IN_BASE : 0) |
			       (c.new_.present ? HTML_DIFF_IN_NEW : 0) |
			       (c.cost == DIFF_COST_BEYOND   ? HTML_DIFF_COST_BEYOND
				: c.cost == DIFF_COST_WITHIN ? HTML_DIFF_COST_WITHIN
							     : 0);
	}
	return ctx;
}

/* The text reports' header, its lines split in place: the first is the
 * title, the others the notes (without their indent), room left for one
 * more. *text is malloc'ed, as is *lines. Returns the lines, or -1. */
static long head_lines(const struct diff_model *dm, char **text, const char ***lines)
{
	struct diff_report_opts o = {0};
	size_t len = 0, n = 0;
	char *p;

	*lines = NULL;
	o.out = open_memstream(text, &len);
	if (!o.out)
		return -1;
	diff_report_text_head(dm, &o, "differential flame graph");
	if (fclose(o.out))
		return -1;
	*lines = malloc((len + 2) * sizeof(**lines));
	if (!*lines)
		return -1;
	for (p = *text; *p;) {
		char *end = strchr(p, '\n');

		if (end)
			*end = '\0';
		while (n && *p == ' ')
			p++;
		(*lines)[n++] = p;
		if (!end)
			break;
		p = end + 1;
	}
	return (long)n;
}

/* The default cut, or --min-pct's; what it folded in note ("" for
 * nothing). */
static int cut(struct html_diff_ctx *ctx, size_t *n, const struct diff_report_opts *o, char *note,
	       size_t len)
{
	struct html_diff_cut c = {0};
	double pct = o->min_pct_set ? o->min_pct : o->all ? 0 : -1;

	note[0] = '\0';
	if (pct < 0 && (pct = html_diff_default_pct(ctx, *n, DEFAULT_CUT_BYTES)) < 0)
		return -1;
	if (pct <= 0)
		return 0;
	if (html_diff_fold(ctx, n, pct, &c))
		return -1;
	if (!c.pct)
		return 0;
	if (o->min_pct_set)
		snprintf(note, len,
			 "%zu contexts under --min-pct %g of both runs' calls and cost folded into "
			 "one \"%s\" frame per caller (%zu -> %zu contexts)",
			 c.folded, c.pct, HTML_DIFF_FOLDED_NAME, c.before, c.after);
	else
		snprintf(
		    note, len,
		    "html: %zu contexts under --min-pct %g of both runs' calls and cost folded "
		    "into one \"%s\" frame per caller to stay near %u MB (%zu -> %zu "
		    "contexts); --all or --min-pct 0 writes every context",
		    c.folded, c.pct, HTML_DIFF_FOLDED_NAME, DEFAULT_CUT_BYTES / (1024 * 1024),
		    c.before, c.after);
	return 0;
}

int diff_export_html(const struct diff_model *dm, const struct diff_report_opts *o)
{
	struct html_diff_ctx *ctx = contexts(dm);
	struct html_diff_page pg = {0};
	size_t n = dm->tree.nnodes;
	const char **lines = NULL;
	char *text = NULL, note[REPORT_ERR_LEN];
	long nl;
	int err = -1;

	if (!ctx || cut(ctx, &n, o, note, sizeof(note)) || (nl = head_lines(dm, &text, &lines)) < 1)
		goto out;
	if (note[0]) {
		lines[nl++] = note;
		if (o->note && !o->min_pct_set) /* the default cut: say so on stderr */
			memcpy(o->note, note, sizeof(note));
	}
	pg.title = lines[0];
	pg.metric = dm->metric;
	pg.unit = dm->unit;
	pg.calls = o->value == DIFF_VALUE_CALLS;
	pg.notes = lines + 1;
	pg.nnotes = (size_t)nl - 1;
	err = html_diff_write(o->out, &pg, ctx, n);
out:
	free(ctx);
	free(text);
	free(lines);
	return err;
}
