/*
 * diff_report_flat.c - jcal-post diff's flat report (docs/jcal-post.md,
 * "Comparing two runs"): per method both sides' calls, base and cum, the
 * deltas and the status, by the size of the change (--top N: the first
 * N). Text opens with both sides' inputs, what was normalised, the counts
 * of changed, added and removed methods and the totals; CSV and JSON give
 * the figures exactly, with the sets' spread and cost change when a side
 * has several runs.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/satsum.h"
#include "postproc/diff_report.h"
#include "postproc/output.h"

/* The counts of each status, the totals of calls and base. */
struct summary {
	size_t status[4], beyond;
	uint64_t calls[2], base[2];
};

static void summarise(const struct diff_model *dm, const uint32_t *order, size_t n,
		      struct summary *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < n; i++) {
		struct diff_cmp c;

		diff_report_method(dm, order[i], &c);
		s->status[c.status]++;
		s->beyond += c.cost == DIFF_COST_BEYOND;
		satsum_addto(&s->calls[0], c.base.calls, SATSUM_CALLS);
		satsum_addto(&s->calls[1], c.new_.calls, SATSUM_CALLS);
		satsum_addto(&s->base[0], c.base.base, SATSUM_BASE);
		satsum_addto(&s->base[1], c.new_.base, SATSUM_BASE);
	}
}

static void text_summary(const struct diff_model *dm, const struct diff_report_opts *o,
			 const struct summary *s, size_t n)
{
	char pct[32];

	fprintf(o->out, "  %zu method%s: %zu changed, %zu added, %zu removed, %zu same\n", n,
		n == 1 ? "" : "s", s->status[DIFF_CHANGED], s->status[DIFF_ADDED],
		s->status[DIFF_REMOVED], s->status[DIFF_SAME]);
	fprintf(o->out, "  total calls %" PRIu64 " -> %" PRIu64 " (", s->calls[0], s->calls[1]);
	diff_report_delta(o->out, s->calls[0], s->calls[1], 1);
	diff_stats_pct(pct, sizeof(pct), s->base[0], s->base[1]);
	fprintf(o->out, "), base %" PRIu64 " -> %" PRIu64 " (", s->base[0], s->base[1]);
	diff_report_delta(o->out, s->base[0], s->base[1], 1);
	fprintf(o->out, ", %s)\n", pct);
	if (diff_report_sets(dm))
		fprintf(o->out,
			"  cost: %zu method%s changed beyond the runs' spread (Cost beyond), the "
			"others within it (noise)\n",
			s->beyond, s->beyond == 1 ? "" : "s");
	else
		fputs("  one run a side: cost deltas are shown, not judged (calls are exact)\n",
		      o->out);
	fputs("  marks: + added, - removed, * changed\n", o->out);
}

static void text(const struct diff_model *dm, const struct diff_report_opts *o,
		 const uint32_t *order, size_t n, size_t shown)
{
	struct diff_cols cols;
	struct summary s;
	struct diff_cmp c;

	summarise(dm, order, n, &s);
	diff_report_text_head(dm, o, "flat profile");
	text_summary(dm, o, &s, n);
	diff_report_cols_init(dm, &cols);
	for (size_t i = 0; i < shown; i++) {
		diff_report_method(dm, order[i], &c);
		diff_report_cols_fit(&cols, &c);
	}
	diff_report_cols_head(o->out, &cols);
	fputs("Name\n", o->out);
	if (!n)
		fputs("No method recorded an event.\n", o->out);
	for (size_t i = 0; i < shown; i++) {
		diff_report_method(dm, order[i], &c);
		diff_report_cols_row(o->out, &cols, &c);
		text_escape(o->out, diff_model_name(dm, order[i]));
		fputc('\n', o->out);
	}
}

static void csv(const struct diff_model *dm, const struct diff_report_opts *o,
		const uint32_t *order, size_t shown)
{
	int sets = diff_report_sets(dm);

	fputs("method,calls_base,calls_new,calls_delta,base_base,base_new,base_delta,cum_base,"
	      "cum_new,cum_delta,status",
	      o->out);
	fputs(sets ? ",calls_spread,cost_spread,cost_change\n" : "\n", o->out);
	for (size_t i = 0; i < shown; i++) {
		struct diff_cmp c;

		diff_report_method(dm, order[i], &c);
		csv_field(o->out, diff_model_name(dm, order[i]));
		diff_report_csv_figs(o->out, &c);
		if (sets)
			diff_report_csv_sets(o->out, &c);
		fputc('\n', o->out);
	}
}

static void json(const struct diff_model *dm, const struct diff_report_opts *o,
		 const uint32_t *order, size_t n, size_t shown)
{
	struct summary s;

	summarise(dm, order, n, &s);
	diff_report_json_head(dm, o);
	fprintf(o->out,
		",\n\"totals\":{\"methods\":%zu,\"changed\":%zu,\"added\":%zu,\"removed\":%zu,"
		"\"same\":%zu,\"calls_base\":%" PRIu64 ",\"calls_new\":%" PRIu64
		",\"base_base\":%" PRIu64 ",\"base_new\":%" PRIu64 "},\n\"methods\":[",
		n, s.status[DIFF_CHANGED], s.status[DIFF_ADDED], s.status[DIFF_REMOVED],
		s.status[DIFF_SAME], s.calls[0], s.calls[1], s.base[0], s.base[1]);
	for (size_t i = 0; i < shown; i++) {
		struct diff_cmp c;

		diff_report_method(dm, order[i], &c);
		fputs(i ? ",\n{\"method\":" : "\n{\"method\":", o->out);
		json_string(o->out, diff_model_name(dm, order[i]));
		diff_report_json_figs(o->out, dm, &c);
		fputc('}', o->out);
	}
	fputs("\n]}\n", o->out);
}

int diff_report_flat(const struct diff_model *dm, const struct diff_report_opts *o)
{
	uint32_t *order;
	size_t n, shown;

	if (diff_report_methods(dm, &order, &n))
		return -1;
	shown = o->top && o->top < n ? o->top : n;
	if (o->format == REPORT_TEXT)
		text(dm, o, order, n, shown);
	else if (o->format == REPORT_CSV)
		csv(dm, o, order, shown);
	else
		json(dm, o, order, n, shown);
	free(order);
	return 0;
}
