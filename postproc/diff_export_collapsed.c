/*
 * diff_export_collapsed.c - jcal-post diff's folded export, the format of
 * FlameGraph's difffolded.pl: one line per calling context that either
 * side has a value for, "thread;frame;frame VALUE_BASE VALUE_NEW", the
 * thread group's name first (all groups in one file, as the collapsed
 * export of one input puts the thread first). The value is the context's
 * base (self cost, the metric's unit) or with --value calls its calls;
 * medians with sets. A thread's own time outside any frame is not a
 * method's self cost and has no line, so each column sums to the flat
 * report's total of that value. --top N: the N lines of largest change.
 * Names are escaped as in the other folded stacks (output.h).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "postproc/diff_report.h"
#include "postproc/output.h"

/* The values of node of both sides (0 for the root and the groups). */
static void values(const struct diff_model *dm, uint32_t node, enum diff_value what, uint64_t v[2])
{
	const struct diff_tree *t = &dm->tree;
	struct diff_side_fig s;

	v[0] = v[1] = 0;
	if (t->nodes[node].level < 2)
		return;
	for (int side = 0; side < 2; side++) {
		diff_model_side(dm, diff_tree_figs(t, node), diff_tree_seen(t, node),
				(enum diff_side)side, &s);
		v[side] = what == DIFF_VALUE_CALLS ? s.calls : s.base;
	}
}

static void put_stack(const struct diff_model *dm, FILE *f, uint32_t node, uint32_t *buf)
{
	const struct diff_tree *t = &dm->tree;
	uint32_t d = 0;

	for (uint32_t n = node; t->nodes[n].level >= 1; n = t->nodes[n].parent)
		buf[d++] = n;
	for (uint32_t i = d; i-- > 0;) {
		text_escape_folded(f, diff_model_name(dm, t->nodes[buf[i]].name));
		if (i)
			fputc(';', f);
	}
}

static uint64_t change(const uint64_t v[2])
{
	return v[0] > v[1] ? v[0] - v[1] : v[1] - v[0];
}

static int by_change(const void *pa, const void *pb, void *arg)
{
	const uint64_t *chg = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	if (chg[a] != chg[b])
		return chg[a] > chg[b] ? -1 : 1;
	return (a > b) - (a < b);
}

/* --top N: marks the N nodes of largest change (of those with a line). */
static uint8_t *top_lines(const struct diff_model *dm, enum diff_value what, size_t top)
{
	const struct diff_tree *t = &dm->tree;
	uint64_t *chg = malloc((size_t)t->nnodes * sizeof(*chg));
	uint32_t *ids = malloc((size_t)t->nnodes * sizeof(*ids)), n = 0;
	uint8_t *keep = calloc(t->nnodes, 1);

	if (!chg || !ids || !keep) {
		free(keep);
		keep = NULL;
		goto out;
	}
	for (uint32_t i = 0; i < t->nnodes; i++) {
		uint64_t v[2];

		values(dm, i, what, v);
		chg[i] = change(v);
		if (v[0] || v[1])
			ids[n++] = i;
	}
	qsort_r(ids, n, sizeof(*ids), by_change, chg);
	for (uint32_t i = 0; i < n && i < top; i++)
		keep[ids[i]] = 1;
out:
	free(chg);
	free(ids);
	return keep;
}

int diff_export_collapsed(const struct diff_model *dm, const struct diff_report_opts *o)
{
	const struct diff_tree *t = &dm->tree;
	uint32_t max_level = 0, *buf;
	uint8_t *keep = NULL;

	for (uint32_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].level > max_level)
			max_level = t->nodes[i].level;
	buf = malloc(((size_t)max_level + 1) * sizeof(*buf));
	if (!buf || (o->top && !(keep = top_lines(dm, o->value, o->top)))) {
		free(buf);
		return -1;
	}
	/* nodes in creation order: a context's first run met it first */
	for (uint32_t i = 0; i < t->nnodes; i++) {
		uint64_t v[2];

		values(dm, i, o->value, v);
		if ((!v[0] && !v[1]) || (keep && !keep[i]))
			continue;
		put_stack(dm, o->out, i, buf);
		fprintf(o->out, " %" PRIu64 " %" PRIu64 "\n", v[0], v[1]);
	}
	free(buf);
	free(keep);
	return 0;
}
