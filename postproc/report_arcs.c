/*
 * report_arcs.c - the caller/callee report (docs/jcal-post.md, arcs): per
 * thread, per method a stanza of PARENT/rPARENT lines, the SELF
 * line with the method's index and CHILD/rCHILD lines, stanzas sorted by
 * cum. Text, CSV or JSON. The arcs themselves are built by arcs.c.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "postproc/arcs.h"
#include "postproc/output.h"
#include "postproc/report.h"
#include "postproc/report_util.h"

static const char *name_of(void *ctx, uint32_t method)
{
	return model_method_name(ctx, method);
}

static size_t shown(const struct arcs *a, const struct report_opts *o)
{
	return o->top && o->top < a->n ? o->top : a->n;
}

struct widths {
	unsigned c, b, u;
};

static void widen(struct widths *w, const struct model *m, unsigned mi, uint64_t calls,
		  uint64_t base, uint64_t cum)
{
	w->c = report_width(w->c, calls);
	w->b = report_width(w->b, model_value(m, mi, base));
	w->u = report_width(w->u, model_value(m, mi, cum));
}

static void text_line(const struct model *m, const struct report_opts *o, const struct arcs *a,
		      const struct widths *w, const struct arc_line *l)
{
	unsigned mi = o->metric;

	fprintf(o->out, "%-7s %*" PRIu64 " %*" PRIu64 " %*" PRIu64 "      ",
		arcs_role_name(l->role), w->c, l->calls, w->b, model_value(m, mi, l->base), w->u,
		model_value(m, mi, l->cum));
	text_escape(o->out, a->entry[l->index].name);
	fprintf(o->out, " [%zu]\n", l->index);
}

static void text_thread(const struct model *m, const struct report_opts *o,
			const struct model_thread *t, const struct arcs *a)
{
	struct widths w = {5, 4, 3};
	unsigned mi = o->metric;
	size_t n = shown(a, o);
	char label[128];

	for (size_t i = 0; i < a->n; i++) {
		const struct arc_entry *e = &a->entry[i];

		widen(&w, m, mi, e->calls, e->base, e->cum_all);
	}
	for (size_t i = 0; i < a->nlines; i++)
		widen(&w, m, mi, a->lines[i].calls, a->lines[i].base, a->lines[i].cum);
	report_metric_label(m, mi, label, sizeof(label));
	text_escapef(o->out, "Thread \"%s\" #%" PRIu32 "  metric %s  total %" PRIu64, t->name,
		     t->serial, label, model_value(m, mi, a->entry[0].cum));
	fputc('\n', o->out);
	fprintf(o->out, "%-7s %*s %*s %*s  Function\n", "Source", w.c, "Calls", w.b, "Base", w.u,
		"Cum");
	for (size_t i = 0; i < n; i++) {
		const struct arc_entry *e = &a->entry[i];

		if (i)
			fputc('\n', o->out);
		for (size_t k = 0; k < e->nparents; k++)
			text_line(m, o, a, &w, &e->parents[k]);
		fprintf(o->out, "%-7s %*" PRIu64 " %*" PRIu64 " %*" PRIu64 "  [%zu] ", "SELF", w.c,
			e->calls, w.b, model_value(m, mi, e->base), w.u, model_value(m, mi, e->cum),
			i);
		text_escape(o->out, e->name);
		fputc('\n', o->out);
		if (e->cum_all != e->cum)
			fprintf(o->out,
				"%-7s %*s %*s %*" PRIu64 "  (recursive calls counted again)\n", "",
				w.c, "", w.b, "", w.u, model_value(m, mi, e->cum_all));
		for (size_t k = 0; k < e->nchildren; k++)
			text_line(m, o, a, &w, &e->children[k]);
	}
	if (n < a->n)
		fprintf(o->out, "(%zu more method%s; --top %zu)\n", a->n - n,
			a->n - n == 1 ? "" : "s", o->top);
}

static void csv_row(const struct model *m, const struct report_opts *o, const char *thread,
		    size_t stanza, const char *role, uint64_t calls, uint64_t base, uint64_t cum,
		    const uint64_t *cum_all, uint64_t raw_base, uint64_t raw_cum, size_t index,
		    const char *name)
{
	unsigned mi = o->metric;

	csv_field(o->out, thread);
	fprintf(o->out, ",%zu,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", stanza, role, calls,
		model_value(m, mi, base), model_value(m, mi, cum));
	if (cum_all)
		fprintf(o->out, "%" PRIu64, model_value(m, mi, *cum_all));
	fprintf(o->out, ",%" PRIu64 ",%" PRIu64 ",%zu,", model_value(m, mi, raw_base),
		model_value(m, mi, raw_cum), index);
	csv_field(o->out, name);
	fputc('\n', o->out);
}

static void csv_thread(const struct model *m, const struct report_opts *o,
		       const struct model_thread *t, const struct arcs *a)
{
	char label[300];

	report_thread_label(t, label, sizeof(label));
	for (size_t i = 0; i < shown(a, o); i++) {
		const struct arc_entry *e = &a->entry[i];

		for (size_t k = 0; k < e->nparents; k++) {
			const struct arc_line *l = &e->parents[k];

			csv_row(m, o, label, i, arcs_role_name(l->role), l->calls, l->base, l->cum,
				NULL, l->raw_base, l->raw_cum, l->index, a->entry[l->index].name);
		}
		csv_row(m, o, label, i, "SELF", e->calls, e->base, e->cum, &e->cum_all, e->raw_base,
			e->raw_cum, i, e->name);
		for (size_t k = 0; k < e->nchildren; k++) {
			const struct arc_line *l = &e->children[k];

			csv_row(m, o, label, i, arcs_role_name(l->role), l->calls, l->base, l->cum,
				NULL, l->raw_base, l->raw_cum, l->index, a->entry[l->index].name);
		}
	}
}

static void json_lines(const struct model *m, const struct report_opts *o, const struct arcs *a,
		       const struct arc_line *l, size_t n)
{
	unsigned mi = o->metric;

	for (size_t k = 0; k < n; k++) {
		fprintf(o->out, "%s{\"index\":%zu,\"method\":", k ? "," : "", l[k].index);
		json_string(o->out, a->entry[l[k].index].name);
		fprintf(o->out,
			",\"recursive\":%s,\"calls\":%" PRIu64 ",\"base\":%" PRIu64
			",\"cum\":%" PRIu64 ",\"raw_base\":%" PRIu64 ",\"raw_cum\":%" PRIu64 "}",
			l[k].role == ARC_RPARENT || l[k].role == ARC_RCHILD ? "true" : "false",
			l[k].calls, model_value(m, mi, l[k].base), model_value(m, mi, l[k].cum),
			model_value(m, mi, l[k].raw_base), model_value(m, mi, l[k].raw_cum));
	}
}

static void json_thread(const struct model *m, const struct report_opts *o,
			const struct model_thread *t, const struct arcs *a)
{
	unsigned mi = o->metric;

	fprintf(o->out, "{\"serial\":%" PRIu32 ",\"name\":", t->serial);
	json_string(o->out, t->name);
	fputs(",\"methods\":[", o->out);
	for (size_t i = 0; i < shown(a, o); i++) {
		const struct arc_entry *e = &a->entry[i];

		fprintf(o->out, "%s\n{\"index\":%zu,\"method\":", i ? "," : "", i);
		json_string(o->out, e->name);
		fprintf(o->out,
			",\"calls\":%" PRIu64 ",\"base\":%" PRIu64 ",\"cum\":%" PRIu64
			",\"cum_all\":%" PRIu64 ",\"raw_base\":%" PRIu64 ",\"raw_cum\":%" PRIu64
			",\"parents\":[",
			e->calls, model_value(m, mi, e->base), model_value(m, mi, e->cum),
			model_value(m, mi, e->cum_all), model_value(m, mi, e->raw_base),
			model_value(m, mi, e->raw_cum));
		json_lines(m, o, a, e->parents, e->nparents);
		fputs("],\"children\":[", o->out);
		json_lines(m, o, a, e->children, e->nchildren);
		fputs("]}", o->out);
	}
	fputs("]}", o->out);
}

int report_arcs(const struct model *m, const struct report_opts *o)
{
	const struct model_thread **list;
	size_t n;
	char label[128];

	if (report_threads(m, o, &list, &n))
		return -1;
	switch (o->format) {
	case REPORT_TEXT:
		report_metric_label(m, o->metric, label, sizeof(label));
		fputs("Caller/callee arcs. Base: metric in the method itself; Cum: with its "
		      "callees,\n"
		      "each activation once. rPARENT/rCHILD: calls into/from a recursive "
		      "(nested)\n"
		      "activation. Sum of PARENT+rPARENT calls and base = SELF; of PARENT cum = "
		      "SELF cum.\n",
		      o->out);
		report_shape_note(o, report_thread_count(list, n));
		if (!n)
			fputs("No thread recorded an event.\n", o->out);
		break;
	case REPORT_CSV:
		fputs("thread,stanza,role,calls,base,cum,cum_all,raw_base,raw_cum,index,method\n",
		      o->out);
		break;
	case REPORT_JSON:
		report_json_open(m, o);
		break;
	}
	for (size_t i = 0; i < n; i++) {
		const struct calltree *tree = &list[i]->tree;
		struct arcs a;

		if (arcs_build(&tree, 1, o->metric, name_of, (void *)m, &a)) {
			free(list);
			return -1;
		}
		switch (o->format) {
		case REPORT_TEXT:
			fputc('\n', o->out);
			text_thread(m, o, list[i], &a);
			break;
		case REPORT_CSV:
			csv_thread(m, o, list[i], &a);
			break;
		case REPORT_JSON:
			if (i)
				fputs(",\n", o->out);
			json_thread(m, o, list[i], &a);
			break;
		}
		arcs_free(&a);
	}
	if (o->format == REPORT_JSON)
		fputs("\n]}\n", o->out);
	free(list);
	return 0;
}
