/*
 * report_latency.c - the latency report (docs/jcal-post.md, latency): per
 * method, or per calling context with --by context, the calls and the
 * min, p50, p90, p99, p99.9, max and mean of their single durations
 * (latency.h), in text, CSV or JSON.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "common/lathist.h"
#include "postproc/latency.h"
#include "postproc/output.h"
#include "postproc/report.h"
#include "postproc/report_util.h"

/* The figures of a row as shown: min p50 p90 p99 p99.9 max mean. */
static void figures(const struct model *m, unsigned mi, const struct latency_row *r,
		    uint64_t out[7])
{
	out[0] = calls_value(m, mi, r->min);
	out[1] = calls_value(m, mi, r->p50);
	out[2] = calls_value(m, mi, r->p90);
	out[3] = calls_value(m, mi, r->p99);
	out[4] = calls_value(m, mi, r->p999);
	out[5] = calls_value(m, mi, r->max);
	/* the mean of the converted sum, rounded to the nearest */
	out[6] =
	    (uint64_t)(((unsigned __int128)calls_value(m, mi, r->total) + r->calls / 2) / r->calls);
}

/* The context c as "a > b > c" (text), "a;b;c" (CSV) or a JSON array,
 * root first. */
static void context(FILE *f, const struct model *m, const struct latency *l, uint32_t c,
		    enum report_format fmt)
{
	uint32_t depth = 0, *path;

	for (uint32_t k = c; k; k = l->ctx_parent[k])
		depth++;
	path = malloc((depth ? depth : 1) * sizeof(*path));
	if (!path)
		return; /* the stream's error is not set: the row is just shorter */
	for (uint32_t k = c, i = depth; k; k = l->ctx_parent[k])
		path[--i] = l->ctx_method[k];
	report_path(f, m, path, depth, fmt);
	free(path);
}

static const char *const heads[] = {"Min", "P50", "P90", "P99", "P99.9", "Max", "Mean"};

static void text(const struct model *m, const struct report_opts *o, const struct latency *l,
		 size_t n)
{
	unsigned w[8] = {5, 3, 3, 3, 3, 5, 3, 4};
	char label[128];
	uint64_t f[7], shown = 0;

	for (size_t i = 0; i < n; i++) {
		figures(m, o->metric, &l->rows[i], f);
		w[0] = report_width(w[0], l->rows[i].calls);
		for (int k = 0; k < 7; k++)
			w[k + 1] = report_width(w[k + 1], f[k]);
	}
	for (size_t i = 0; i < l->nrows; i++)
		shown += l->rows[i].calls; /* every row's, --top or not */
	report_metric_label(m, o->metric, label, sizeof(label));
	fputs("Latency  metric ", o->out);
	text_escape(o->out, label);
	fprintf(o->out,
		"%s  %zu thread%s  %" PRIu64 " calls  per %s; percentiles by nearest rank%s\n",
		o->calibrated ? "  calibrated" : "", l->nthreads, l->nthreads == 1 ? "" : "s",
		shown, o->by_context ? "calling context" : "method",
		l->from_hists ? ", from histograms, within " LATHIST_ERROR_PCT "%" : "");
	fprintf(o->out, "%*s", w[0], "Calls");
	for (int k = 0; k < 7; k++)
		fprintf(o->out, " %*s", w[k + 1], heads[k]);
	fputs("  Name\n", o->out);
	if (!n)
		fputs("No method recorded a call.\n", o->out);
	for (size_t i = 0; i < n; i++) {
		const struct latency_row *r = &l->rows[i];

		figures(m, o->metric, r, f);
		fprintf(o->out, "%*" PRIu64, w[0], r->calls);
		for (int k = 0; k < 7; k++)
			fprintf(o->out, " %*" PRIu64, w[k + 1], f[k]);
		fputs("  ", o->out);
		if (o->by_context)
			context(o->out, m, l, r->context, REPORT_TEXT);
		else
			text_escape(o->out, model_method_name(m, r->method));
		fputc('\n', o->out);
	}
}

/* A CSV field of the context: built in memory, then quoted as needed. */
static void csv_context(FILE *f, const struct model *m, const struct latency *l, uint32_t c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (!mem)
		return;
	context(mem, m, l, c, REPORT_CSV);
	if (!fclose(mem))
		csv_field(f, buf);
	free(buf);
}

static void csv(const struct model *m, const struct report_opts *o, const struct latency *l,
		size_t n)
{
	uint64_t f[7];

	fputs(o->by_context ? "method,context," : "method,", o->out);
	fputs("calls,min,p50,p90,p99,p99_9,max,mean,total\n", o->out);
	for (size_t i = 0; i < n; i++) {
		const struct latency_row *r = &l->rows[i];

		figures(m, o->metric, r, f);
		csv_field(o->out, model_method_name(m, r->method));
		if (o->by_context) {
			fputc(',', o->out);
			csv_context(o->out, m, l, r->context);
		}
		fprintf(o->out, ",%" PRIu64, r->calls);
		for (int k = 0; k < 7; k++)
			fprintf(o->out, ",%" PRIu64, f[k]);
		fprintf(o->out, ",%" PRIu64 "\n", calls_value(m, o->metric, r->total));
	}
}

static void json(const struct model *m, const struct report_opts *o, const struct latency *l,
		 size_t n)
{
	static const char *const keys[] = {"min", "p50", "p90", "p99", "p99_9", "max", "mean"};
	uint64_t f[7];

	fputs("{\"metric\":{\"name\":", o->out);
	json_string(o->out, m->metric[o->metric].name);
	fputs(",\"unit\":", o->out);
	json_string(o->out, m->metric[o->metric].unit);
	fprintf(
	    o->out,
	    "},\"calibrated\":%s,\"by\":\"%s\",\"percentiles\":\"nearest-rank\",\"threads\":%zu,",
	    o->calibrated ? "true" : "false", o->by_context ? "context" : "method", l->nthreads);
	if (l->from_hists)
		fprintf(o->out, "\"from_histograms\":true,\"relative_error\":%.6g,",
			1.0 / LATHIST_ERROR_DIV);
	fputs("\"rows\":[", o->out);
	for (size_t i = 0; i < n; i++) {
		const struct latency_row *r = &l->rows[i];

		figures(m, o->metric, r, f);
		fputs(i ? ",\n{\"method\":" : "\n{\"method\":", o->out);
		json_string(o->out, model_method_name(m, r->method));
		if (o->by_context) {
			fputs(",\"context\":", o->out);
			context(o->out, m, l, r->context, REPORT_JSON);
		}
		fprintf(o->out, ",\"calls\":%" PRIu64, r->calls);
		for (int k = 0; k < 7; k++)
			fprintf(o->out, ",\"%s\":%" PRIu64, keys[k], f[k]);
		fprintf(o->out, ",\"total\":%" PRIu64 "}", calls_value(m, o->metric, r->total));
	}
	fputs("\n]}\n", o->out);
}

int report_latency(const struct model *m, const struct report_opts *o)
{
	struct latency_opts lo = {0};
	struct latency l;
	char errbuf[REPORT_ERR_LEN];
	char *err = o->err ? o->err : errbuf;
	size_t n;

	lo.path = o->trace_path;
	lo.metric = o->metric;
	lo.sel = o->sel;
	lo.shp = o->shaping;
	lo.by_context = o->by_context;
	lo.progress = o->progress;
	lo.inputs = o->inputs;
	if (latency_build(m, &lo, &l, err, REPORT_ERR_LEN))
		return -1;
	n = o->top && l.nrows > o->top ? o->top : l.nrows; /* --top N: the first N rows */
	if (o->format == REPORT_TEXT)
		text(m, o, &l, n);
	else if (o->format == REPORT_CSV)
		csv(m, o, &l, n);
	else
		json(m, o, &l, n);
	latency_free(&l);
	return 0;
}
