/*
 * report_hot.c - the hot path of each thread (docs/jcal-post.md, hot): from
 * the thread root, at each level the child of largest cum (ties: the one
 * called first), down to a context without children, as the hot-path
 * expansion of JMC and VisualVM opens it. Text with the share of the
 * thread's cum; CSV one row per context; JSON one path per thread.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "postproc/output.h"
#include "postproc/report.h"
#include "postproc/report_util.h"

/* The hot path of t: node indices from the root, *n of them (malloc'ed). */
static uint32_t *hot_path(const struct calltree *t, unsigned mi, uint32_t *n)
{
	uint32_t *p = malloc(((size_t)t->max_level + 1) * sizeof(*p));
	uint32_t node = CALLTREE_ROOT, k = 0;

	if (!p)
		return NULL;
	for (;;) {
		uint32_t best = CALLTREE_NONE;

		p[k++] = node;
		for (uint32_t c = t->nodes[node].first_child; c != CALLTREE_NONE;
		     c = t->nodes[c].next_sibling)
			if (best == CALLTREE_NONE ||
			    calltree_fig(t, c, mi)->cum > calltree_fig(t, best, mi)->cum)
				best = c;
		if (best == CALLTREE_NONE || k > t->max_level)
			break;
		node = best;
	}
	*n = k;
	return p;
}

static void text_thread(const struct model *m, const struct report_opts *o,
			const struct model_thread *th, const struct calltree *t, const uint32_t *p,
			uint32_t n)
{
	unsigned mi = o->metric, wl = 3, wr = 2, wc = 5, wb = 4, wu = 3;
	uint64_t total = calltree_fig(t, CALLTREE_ROOT, mi)->cum;
	char label[128];

	for (uint32_t i = 0; i < n; i++) {
		const struct calltree_node *nd = &t->nodes[p[i]];
		const struct calltree_fig *ndf = calltree_fig(t, p[i], 0);

		wl = report_width(wl, nd->level);
		wr = report_width(wr, nd->rl);
		wc = report_width(wc, nd->calls);
		wb = report_width(wb, model_value(m, mi, ndf[mi].base));
		wu = report_width(wu, model_value(m, mi, ndf[mi].cum));
	}
	report_metric_label(m, mi, label, sizeof(label));
	fputs("Hot path of thread \"", o->out);
	text_escape(o->out, th->name);
	fprintf(o->out, "\" #%" PRIu32 "  metric ", th->serial);
	text_escape(o->out, label);
	fprintf(o->out, "  %" PRIu32 " contexts deep\n", n - 1);
	fprintf(o->out, "%*s %*s %*s %*s %*s   Cum%%  Name\n", wl, "Lvl", wr, "RL", wc, "Calls", wb,
		"Base", wu, "Cum");
	for (uint32_t i = 0; i < n; i++) {
		const struct calltree_node *nd = &t->nodes[p[i]];
		const struct calltree_fig *ndf = calltree_fig(t, p[i], 0);

		fprintf(o->out,
			"%*" PRIu32 " %*" PRIu32 " %*" PRIu64 " %*" PRIu64 " %*" PRIu64
			" %6.2f  %*s",
			wl, nd->level, wr, nd->rl, wc, nd->calls, wb,
			model_value(m, mi, ndf[mi].base), wu, model_value(m, mi, ndf[mi].cum),
			report_pct(ndf[mi].cum, total), (int)(2 * nd->level), "");
		text_escape(o->out, model_method_name(m, nd->method));
		fputc('\n', o->out);
	}
}

static void csv_thread(const struct model *m, const struct report_opts *o,
		       const struct model_thread *th, const struct calltree *t, const uint32_t *p,
		       uint32_t n)
{
	unsigned mi = o->metric;
	char label[300];

	report_thread_label(th, label, sizeof(label));
	for (uint32_t i = 0; i < n; i++) {
		const struct calltree_node *nd = &t->nodes[p[i]];

		report_csv_node(o->out, m, mi, label, t, p[i]);
		csv_field(o->out, model_method_name(m, nd->method));
		fputc('\n', o->out);
	}
}

static void json_thread(const struct model *m, const struct report_opts *o,
			const struct model_thread *th, const struct calltree *t, const uint32_t *p,
			uint32_t n)
{
	unsigned mi = o->metric;

	fprintf(o->out, "{\"serial\":%" PRIu32 ",\"name\":", th->serial);
	json_string(o->out, th->name);
	fputs(",\"path\":[", o->out);
	for (uint32_t i = 0; i < n; i++) {
		const struct calltree_node *nd = &t->nodes[p[i]];
		const struct calltree_fig *ndf = calltree_fig(t, p[i], 0);

		fputs(i ? ",\n{\"method\":" : "\n{\"method\":", o->out);
		json_string(o->out, model_method_name(m, nd->method));
		fprintf(o->out,
			",\"level\":%" PRIu32 ",\"rl\":%" PRIu32 ",\"calls\":%" PRIu64
			",\"base\":%" PRIu64 ",\"cum\":%" PRIu64 ",\"raw_base\":%" PRIu64
			",\"raw_cum\":%" PRIu64 "}",
			nd->level, nd->rl, nd->calls, model_value(m, mi, ndf[mi].base),
			model_value(m, mi, ndf[mi].cum), model_value(m, mi, ndf[mi].raw_base),
			model_value(m, mi, ndf[mi].raw_cum));
	}
	fputs("]}", o->out);
}

static void header(const struct model *m, const struct report_opts *o,
		   const struct model_thread **list, size_t n)
{
	if (o->format == REPORT_CSV)
		fputs("thread,level,rl,calls,base,cum,raw_base,raw_cum,method\n", o->out);
	if (o->format == REPORT_JSON) {
		report_json_open(m, o);
	}
	if (!n && o->format == REPORT_TEXT)
		fputs("No thread recorded an event.\n", o->out);
	if (o->format == REPORT_TEXT) /* a pool's group shows its threads */
		report_shape_note(o, report_thread_count(list, n));
}

int report_hot(const struct model *m, const struct report_opts *o)
{
	const struct model_thread **list;
	size_t n;

	if (report_threads(m, o, &list, &n))
		return -1;
	header(m, o, list, n);
	for (size_t i = 0; i < n; i++) {
		struct report_view v;
		uint32_t *p, np;

		if (report_view_get(&v, list[i], o)) {
			free(list);
			return -1;
		}
		p = hot_path(v.t, o->metric, &np);
		if (!p) {
			report_view_free(&v);
			free(list);
			return -1;
		}
		if (o->format == REPORT_TEXT) {
			if (i)
				fputc('\n', o->out);
			text_thread(m, o, list[i], v.t, p, np);
		} else if (o->format == REPORT_CSV) {
			csv_thread(m, o, list[i], v.t, p, np);
		} else {
			if (i)
				fputs(",\n", o->out);
			json_thread(m, o, list[i], v.t, p, np);
		}
		free(p);
		report_view_free(&v);
	}
	if (o->format == REPORT_JSON)
		fputs("\n]}\n", o->out);
	free(list);
	return 0;
}
