/*
 * report_flat.c - the flat profile report: per method calls, base and cum
 * (each activation counted once), sorted by base (docs/jcal-post.md, flat).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "postproc/flat.h"
#include "postproc/output.h"
#include "postproc/report.h"
#include "postproc/report_util.h"
#include "common/satsum.h"
#include "postproc/throttled.h"

static const char *name_of(void *ctx, uint32_t method)
{
	return model_method_name(ctx, method);
}

static void text(const struct model *m, const struct report_opts *o, const struct flat_row *r,
		 size_t n, size_t nthreads, uint64_t total, uint64_t raw_total)
{
	unsigned mi = o->metric, wc = 5, wb = 4, wu = 3, wrb = 7, wrc = 6;
	char label[128];

	for (size_t i = 0; i < n; i++) {
		wc = report_width(wc, r[i].calls);
		wb = report_width(wb, model_value(m, mi, r[i].base));
		wu = report_width(wu, model_value(m, mi, r[i].cum));
		wrb = report_width(wrb, model_value(m, mi, r[i].raw_base));
		wrc = report_width(wrc, model_value(m, mi, r[i].raw_cum));
	}
	report_metric_label(m, mi, label, sizeof(label));
	fputs("Flat profile  metric ", o->out);
	text_escape(o->out, label);
	fprintf(o->out, "  %zu thread%s  total %" PRIu64, nthreads, nthreads == 1 ? "" : "s",
		model_value(m, mi, total));
	if (o->calibrated)
		fprintf(o->out, "  raw total %" PRIu64, model_value(m, mi, raw_total));
	fprintf(o->out, "\n%*s %*s  %6s %*s  %6s", wc, "Calls", wb, "Base", "Base%", wu, "Cum",
		"Cum%");
	if (o->calibrated)
		fprintf(o->out, " %*s %*s", wrb, "RawBase", wrc, "RawCum");
	fputs("  Name\n", o->out);
	if (!n)
		fputs("No method recorded an event.\n", o->out);
	for (size_t i = 0; i < n; i++) {
		fprintf(o->out, "%*" PRIu64 " %*" PRIu64 "  %6.2f %*" PRIu64 "  %6.2f", wc,
			r[i].calls, wb, model_value(m, mi, r[i].base), report_pct(r[i].base, total),
			wu, model_value(m, mi, r[i].cum), report_pct(r[i].cum, total));
		if (o->calibrated)
			fprintf(o->out, " %*" PRIu64 " %*" PRIu64, wrb,
				model_value(m, mi, r[i].raw_base), wrc,
				model_value(m, mi, r[i].raw_cum));
		fputs("  ", o->out);
		text_escape(o->out, r[i].name);
		if (r[i].estimated) /* mode=bci, throttle=: its later calls' time */
			fprintf(o->out, " [throttled, %" PRIu64 " of base estimated]",
				model_value(m, mi, r[i].estimated));
		else if (throttled_is(m, r[i].method))
			fputs(THROTTLED_MARK, o->out);
		fputc('\n', o->out);
	}
}

/* --include or --exclude chose the methods shown. */
static int shaping_filters(const struct report_opts *o)
{
	return o->shaping && (o->shaping->ninclude || o->shaping->nexclude);
}

int report_flat(const struct model *m, const struct report_opts *o)
{
	const struct model_thread **list;
	const struct calltree **trees;
	struct flat_row *r;
	size_t nt, n;
	uint64_t total = 0, raw_total = 0;
	unsigned mi = o->metric;

	if (report_threads(m, o, &list, &nt))
		return -1;
	trees = malloc((nt ? nt : 1) * sizeof(*trees));
	if (!trees) {
		free(list);
		return -1;
	}
	for (size_t i = 0; i < nt; i++) {
		trees[i] = &list[i]->tree;
		satsum_addto(&total, calltree_fig(trees[i], CALLTREE_ROOT, mi)->cum, SATSUM_CUM);
		satsum_addto(&raw_total, calltree_fig(trees[i], CALLTREE_ROOT, mi)->raw_cum,
			     SATSUM_RAW_CUM);
	}
	if (flat_build(trees, nt, mi, o->sort, name_of, (void *)m, &r, &n)) {
		free(trees);
		free(list);
		return -1;
	}
	/* mode=bci, throttle=: a throttled method's calls after its probes went
	 * were counted for the whole JVM, so over every thread only */
	if (!o->some_threads && throttled_rule(m) &&
	    throttled_flat_calls(m, !shaping_filters(o), o->calibrated, name_of, (void *)m, &r, &n,
				 o->sort)) {
		free(r);
		free(trees);
		free(list);
		return -1;
	}
	if (o->top && n > o->top)
		n = o->top; /* --top N: the first N rows */
	switch (o->format) {
	case REPORT_TEXT:
		text(m, o, r, n, report_thread_count(list, nt), total, raw_total);
		break;
	case REPORT_CSV:
		/* a trace recorded with throttle= has one more column */
		fputs(throttled_rule(m)
			  ? "method,calls,base,cum,raw_base,raw_cum,throttled,estimated\n"
			  : "method,calls,base,cum,raw_base,raw_cum\n",
		      o->out);
		for (size_t i = 0; i < n; i++) {
			csv_field(o->out, r[i].name);
			fprintf(o->out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
				r[i].calls, model_value(m, mi, r[i].base),
				model_value(m, mi, r[i].cum), model_value(m, mi, r[i].raw_base),
				model_value(m, mi, r[i].raw_cum));
			if (throttled_rule(m))
				fprintf(o->out, ",%d,%" PRIu64, throttled_is(m, r[i].method),
					model_value(m, mi, r[i].estimated));
			fputc('\n', o->out);
		}
		break;
	case REPORT_JSON:
		fputc('[', o->out);
		for (size_t i = 0; i < n; i++) {
			fputs(i ? ",\n{\"method\":" : "\n{\"method\":", o->out);
			json_string(o->out, r[i].name);
			fprintf(o->out,
				",\"calls\":%" PRIu64 ",\"base\":%" PRIu64 ",\"cum\":%" PRIu64
				",\"raw_base\":%" PRIu64 ",\"raw_cum\":%" PRIu64,
				r[i].calls, model_value(m, mi, r[i].base),
				model_value(m, mi, r[i].cum), model_value(m, mi, r[i].raw_base),
				model_value(m, mi, r[i].raw_cum));
			if (throttled_rule(m))
				fprintf(o->out, ",\"throttled\":%s,\"estimated\":%" PRIu64,
					throttled_is(m, r[i].method) ? "true" : "false",
					model_value(m, mi, r[i].estimated));
			fputc('}', o->out);
		}
		fputs("\n]\n", o->out);
		break;
	}
	free(r);
	free(trees);
	free(list);
	return 0;
}
