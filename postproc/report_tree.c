/*
 * report_tree.c - the per-thread call tree report (docs/jcal-post.md, tree):
 * text with Lvl, RL, Calls, Base, Cum and an indented name; CSV with one row
 * per calling context and its path; JSON with nested nodes per thread.
 * Children are listed in the order o->order asks (tree_order.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "postproc/output.h"
#include "postproc/pools.h"
#include "postproc/report.h"
#include "postproc/throttled.h"
#include "postproc/report_util.h"

static const char *method_name(const void *m, uint32_t method)
{
	return model_method_name(m, method);
}

static void thread_header(const struct model *m, const struct report_opts *o,
			  const struct model_thread *t)
{
	const struct calltree_stats *s = &t->tree.stats;
	char label[128];

	report_metric_label(m, o->metric, label, sizeof(label));
	fputs("Thread \"", o->out);
	text_escape(o->out, t->name);
	fprintf(o->out, "\" #%" PRIu32, t->serial);
	if (t->pool_serials) {
		char serials[256];

		pools_serials(t, serials, sizeof(serials));
		fprintf(o->out, "  threads %s  %s", serials, model_thread_kind(t));
	} else if (t->started)
		fprintf(o->out, "  java tid %" PRIu64 "  os tid %" PRIu32 "  %s", t->java_tid,
			t->os_tid, model_thread_kind(t));
	else
		fprintf(o->out, "  (no thread record)");
	fputs("  metric ", o->out);
	text_escape(o->out, label);
	fprintf(o->out, "  %" PRIu64 " events\n", s->events);
	if (s->unmatched_exits || s->mismatched_exits || s->open_frames)
		fprintf(o->out,
			"  note: %" PRIu64 " unmatched exits (inserted above the root), %" PRIu64
			" mismatched exits (%" PRIu64 " frames unwound), %" PRIu64
			" open frames closed at the last event\n",
			s->unmatched_exits, s->mismatched_exits, s->frames_unwound, s->open_frames);
}

static void text_thread(const struct model *m, const struct report_opts *o,
			const struct model_thread *t, const struct report_view *v,
			const uint32_t *order)
{
	const struct calltree *tr = v->t;
	unsigned mi = o->metric;
	unsigned wl = 3, wr = 2, wc = 5, wb = 4, wu = 3, wrb = 7, wrc = 6;

	for (uint32_t i = 0; i < tr->nnodes; i++) {
		const struct calltree_node *n = &tr->nodes[i];
		const struct calltree_fig *nf = calltree_fig(tr, i, 0);

		wl = report_width(wl, n->level);
		wr = report_width(wr, n->rl);
		wc = report_width(wc, n->calls);
		wb = report_width(wb, model_value(m, mi, nf[mi].base));
		wu = report_width(wu, model_value(m, mi, nf[mi].cum));
		wrb = report_width(wrb, model_value(m, mi, nf[mi].raw_base));
		wrc = report_width(wrc, model_value(m, mi, nf[mi].raw_cum));
	}
	thread_header(m, o, t);
	report_view_note(o, v);
	fprintf(o->out, "%*s %*s %*s %*s %*s", wl, "Lvl", wr, "RL", wc, "Calls", wb, "Base", wu,
		"Cum");
	if (o->calibrated)
		fprintf(o->out, " %*s %*s", wrb, "RawBase", wrc, "RawCum");
	fprintf(o->out, "  Name\n");
	for (uint32_t i = 0; i < tr->nnodes; i++) {
		const struct calltree_node *n = &tr->nodes[order[i]];
		const struct calltree_fig *nf = calltree_fig(tr, order[i], 0);

		fprintf(o->out, "%*" PRIu32 " %*" PRIu32 " %*" PRIu64 " %*" PRIu64 " %*" PRIu64, wl,
			n->level, wr, n->rl, wc, n->calls, wb, model_value(m, mi, nf[mi].base), wu,
			model_value(m, mi, nf[mi].cum));
		if (o->calibrated)
			fprintf(o->out, " %*" PRIu64 " %*" PRIu64, wrb,
				model_value(m, mi, nf[mi].raw_base), wrc,
				model_value(m, mi, nf[mi].raw_cum));
		fprintf(o->out, "  %*s", (int)(2 * n->level), "");
		text_escape(o->out, model_method_name(m, n->method));
		if (throttled_is(m, n->method)) /* mode=bci, throttle= */
			fputs(THROTTLED_MARK, o->out);
		fputc('\n', o->out);
	}
}

/* Growing buffer for ";"-joined paths, with the end offset of each level. */
struct pathbuf {
	char *s;
	size_t len, cap;
	size_t *end; /* end[level] */
};

static int path_set(struct pathbuf *p, uint32_t level, const char *name)
{
	size_t start = level > 1 ? p->end[level - 1] + 1 : 0;
	size_t nl = strlen(name), need = start + nl + 1;

	if (grow(&p->s, &p->cap, need))
		return -1;
	if (level > 1)
		p->s[start - 1] = ';';
	memcpy(p->s + start, name, nl + 1);
	p->end[level] = start + nl;
	return 0;
}

static int csv_thread(const struct model *m, const struct report_opts *o,
		      const struct model_thread *t, const struct calltree *tr,
		      const uint32_t *order)
{
	unsigned mi = o->metric;
	struct pathbuf p = {0};
	char label[300];

	p.end = calloc((size_t)tr->max_level + 1, sizeof(*p.end));
	if (!p.end)
		return -1;
	snprintf(label, sizeof(label), "%s#%" PRIu32, t->name, t->serial);
	for (uint32_t i = 0; i < tr->nnodes; i++) {
		const struct calltree_node *n = &tr->nodes[order[i]];

		if (n->level && path_set(&p, n->level, model_method_name(m, n->method))) {
			free(p.s);
			free(p.end);
			return -1;
		}
		report_csv_node(o->out, m, mi, label, tr, order[i]);
		if (n->level)
			csv_field(o->out, p.s);
		fputc('\n', o->out);
	}
	free(p.s);
	free(p.end);
	return 0;
}

static void json_thread(const struct model *m, const struct report_opts *o,
			const struct model_thread *t, const struct report_view *v,
			const uint32_t *order)
{
	const struct calltree *tr = v->t;
	const struct calltree_stats *s = &tr->stats;
	unsigned mi = o->metric;
	uint32_t prev = 0;

	fprintf(o->out, "{\"serial\":%" PRIu32 ",\"name\":", t->serial);
	json_string(o->out, t->name);
	if (t->pool_serials) { /* a pool's group: its threads' serials */
		fputs(",\"threads\":[", o->out);
		for (size_t i = 0; i < t->nfolded; i++)
			fprintf(o->out, "%s%" PRIu32, i ? "," : "", t->pool_serials[i]);
		fputc(']', o->out);
	}
	if (t->started)
		fprintf(o->out, ",\"java_tid\":%" PRIu64 ",\"os_tid\":%" PRIu32, t->java_tid,
			t->os_tid);
	else
		fputs(",\"java_tid\":null,\"os_tid\":null", o->out);
	fprintf(o->out,
		",\"kind\":\"%s\",\"events\":%" PRIu64 ",\"unmatched_exits\":%" PRIu64
		",\"mismatched_exits\":%" PRIu64 ",\"open_frames_closed\":%" PRIu64,
		model_thread_kind(t), s->events, s->unmatched_exits, s->mismatched_exits,
		s->open_frames);
	if (v->folded)
		fprintf(o->out, ",\"max_depth\":%" PRIu32 ",\"folded_contexts\":%" PRIu64,
			report_max_depth(o), v->folded);
	fputs(",\"root\":", o->out);
	for (uint32_t i = 0; i < tr->nnodes; i++) {
		const struct calltree_node *n = &tr->nodes[order[i]];
		const struct calltree_fig *nf = calltree_fig(tr, order[i], 0);

		if (i > 0 && n->level <= prev) {
			for (uint32_t k = 0; k <= prev - n->level; k++)
				fputs("]}", o->out);
			fputc(',', o->out);
		}
		if (i > 0)
			fputc('\n', o->out);
		fputs("{\"method\":", o->out);
		json_string(o->out, model_method_name(m, n->method));
		fprintf(o->out,
			",\"rl\":%" PRIu32 ",\"calls\":%" PRIu64 ",\"base\":%" PRIu64
			",\"cum\":%" PRIu64 ",\"raw_base\":%" PRIu64 ",\"raw_cum\":%" PRIu64
			",\"children\":[",
			n->rl, n->calls, model_value(m, mi, nf[mi].base),
			model_value(m, mi, nf[mi].cum), model_value(m, mi, nf[mi].raw_base),
			model_value(m, mi, nf[mi].raw_cum));
		prev = n->level;
	}
	for (uint32_t k = 0; k <= prev; k++)
		fputs("]}", o->out);
	fputc('}', o->out);
}

int report_tree(const struct model *m, const struct report_opts *o)
{
	const struct model_thread **list;
	size_t n;

	if (report_threads(m, o, &list, &n))
		return -1;
	if (o->format == REPORT_CSV)
		fputs("thread,level,rl,calls,base,cum,raw_base,raw_cum,path\n", o->out);
	if (o->format == REPORT_JSON) {
		report_json_open(m, o);
	}
	if (!n && o->format == REPORT_TEXT)
		fputs("No thread recorded an event.\n", o->out);
	if (o->format == REPORT_TEXT && o->shaped &&
	    (o->shaped->merged || o->shaped->elided || o->shaped->pools))
		/* threads merged, grouped by pool or left out by --thread */
		report_shape_note(o, report_thread_count(list, n));
	else if (o->format == REPORT_TEXT && n < m->nthreads)
		fprintf(o->out, "(%zu thread%s shown; %zu left out by --thread)\n", n,
			n == 1 ? "" : "s", m->nthreads - n);
	for (size_t i = 0; i < n; i++) {
		struct report_view v;
		uint32_t *order;
		int err = 0;

		if (report_view_get(&v, list[i], o)) {
			free(list);
			return -1;
		}
		order = tree_order_preorder(v.t, o->order, o->metric, method_name, m);
		if (!order) {
			report_view_free(&v);
			free(list);
			return -1;
		}
		switch (o->format) {
		case REPORT_TEXT:
			if (i)
				fputc('\n', o->out);
			text_thread(m, o, list[i], &v, order);
			break;
		case REPORT_CSV:
			err = csv_thread(m, o, list[i], v.t, order);
			break;
		case REPORT_JSON:
			if (i)
				fputs(",\n", o->out);
			json_thread(m, o, list[i], &v, order);
			break;
		}
		free(order);
		report_view_free(&v);
		if (err) {
			free(list);
			return -1;
		}
	}
	if (o->format == REPORT_JSON)
		fputs("\n]}\n", o->out);
	free(list);
	return 0;
}
