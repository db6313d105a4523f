/*
 * report_slow.c - the slow report (docs/jcal-post.md, slow): the longest
 * single calls (slow.h), each with its method, duration, thread, start on
 * the wall clock, calling context and largest callees, in text, CSV or
 * JSON.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "postproc/output.h"
#include "postproc/report.h"
#include "postproc/report_util.h"
#include "postproc/slow.h"

/* The path of node in t, root first, as text ("a > b"), CSV ("a;b",
 * written raw: the caller quotes) or a JSON array. */
static void path(FILE *f, const struct model *m, const struct calltree *t, uint32_t node,
		 enum report_format fmt)
{
	uint32_t depth = 0, *p;

	for (uint32_t n = node; n != CALLTREE_ROOT; n = t->nodes[n].parent)
		depth++;
	p = malloc((depth ? depth : 1) * sizeof(*p));
	if (!p)
		return;
	for (uint32_t n = node, i = depth; n != CALLTREE_ROOT; n = t->nodes[n].parent)
		p[--i] = t->nodes[n].method;
	report_path(f, m, p, depth, fmt);
	free(p);
}

/* The callees of c as CSV ("name=duration;...", written raw). */
static void csv_callees(FILE *f, const struct model *m, unsigned mi, const struct calltree *t,
			const struct slow_call *c)
{
	for (unsigned i = 0; i < c->ncallees; i++)
		fprintf(f, "%s%s=%" PRIu64, i ? ";" : "",
			model_method_name(m, t->nodes[c->callee[i].node].method),
			calls_value(m, mi, c->callee[i].value));
}

/* A CSV field written by fn into memory first, then quoted as needed. */
static void csv_built(FILE *f, const struct model *m, unsigned mi, const struct calltree *t,
		      const struct slow_call *c, int callees)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (!mem)
		return;
	if (callees)
		csv_callees(mem, m, mi, t, c);
	else
		path(mem, m, t, c->node, REPORT_CSV);
	if (!fclose(mem))
		csv_field(f, buf);
	free(buf);
}

static void start_text(const struct slow_call *c, char *buf, size_t len)
{
	if (c->start_ns)
		slow_time(c->start_ns, buf, len);
	else
		buf[0] = '\0';
}

static void text_call(const struct model *m, const struct report_opts *o, const struct slow *s,
		      size_t i)
{
	const struct slow_call *c = &s->calls[i];
	const struct calltree *t = calls_tree(s->cs[c->source], c->thread);
	uint64_t d = calls_value(m, o->metric, c->value);
	char start[64];

	start_text(c, start, sizeof(start));
	fprintf(o->out, "%3zu  %" PRIu64 "  ", i + 1, d);
	text_escape(o->out, model_method_name(m, c->method));
	fputs("  thread \"", o->out);
	text_escape(o->out, calls_thread(s->cs[c->source], c->thread)->name);
	fprintf(o->out, "\" #%" PRIu32, calls_thread(s->cs[c->source], c->thread)->serial);
	if (start[0])
		fprintf(o->out, "  start %s", start);
	fputs(c->live ? "  (live before tracing)\n     path  " : "\n     path  ", o->out);
	path(o->out, m, t, c->node, REPORT_TEXT);
	fputc('\n', o->out);
	fprintf(o->out, "     self   %*" PRIu64 " %6.2f%%\n", (int)report_width(1, d),
		calls_value(m, o->metric, c->self),
		report_pct(calls_value(m, o->metric, c->self), d));
	for (unsigned k = 0; k < c->ncallees; k++) {
		uint64_t v = calls_value(m, o->metric, c->callee[k].value);

		fprintf(o->out, "     %s %*" PRIu64 " %6.2f%%  ", k ? "      " : "callee",
			(int)report_width(1, d), v, report_pct(v, d));
		text_escape(o->out, model_method_name(m, t->nodes[c->callee[k].node].method));
		fputc('\n', o->out);
	}
}

static void text(const struct model *m, const struct report_opts *o, const struct slow *s)
{
	char label[128];

	report_metric_label(m, o->metric, label, sizeof(label));
	fputs("Slowest calls  metric ", o->out);
	text_escape(o->out, label);
	fprintf(o->out, "%s  %zu of %" PRIu64 " calls, longest first\n",
		o->calibrated ? "  calibrated" : "", s->n, s->seen);
	if (!s->n)
		fputs("No method recorded a call.\n", o->out);
	for (size_t i = 0; i < s->n; i++)
		text_call(m, o, s, i);
}

static void csv(const struct model *m, const struct report_opts *o, const struct slow *s)
{
	fputs("rank,method,duration,thread,start,start_ns,path,self,callees\n", o->out);
	for (size_t i = 0; i < s->n; i++) {
		const struct slow_call *c = &s->calls[i];
		const struct calltree *t = calls_tree(s->cs[c->source], c->thread);
		char label[300], start[64];

		start_text(c, start, sizeof(start));
		report_thread_label(calls_thread(s->cs[c->source], c->thread), label,
				    sizeof(label));
		fprintf(o->out, "%zu,", i + 1);
		csv_field(o->out, model_method_name(m, c->method));
		fprintf(o->out, ",%" PRIu64 ",", calls_value(m, o->metric, c->value));
		csv_field(o->out, label);
		fprintf(o->out, ",%s,", start);
		if (c->start_ns)
			fprintf(o->out, "%" PRIu64, c->start_ns);
		fputc(',', o->out);
		csv_built(o->out, m, o->metric, t, c, 0);
		fprintf(o->out, ",%" PRIu64 ",", calls_value(m, o->metric, c->self));
		csv_built(o->out, m, o->metric, t, c, 1);
		fputc('\n', o->out);
	}
}

static void json_call(const struct model *m, const struct report_opts *o, const struct slow *s,
		      size_t i)
{
	const struct slow_call *c = &s->calls[i];
	const struct calltree *t = calls_tree(s->cs[c->source], c->thread);
	const struct model_thread *th = calls_thread(s->cs[c->source], c->thread);
	char start[64];

	start_text(c, start, sizeof(start));
	fprintf(o->out, "%s{\"rank\":%zu,\"method\":", i ? ",\n" : "\n", i + 1);
	json_string(o->out, model_method_name(m, c->method));
	fprintf(o->out,
		",\"duration\":%" PRIu64 ",\"thread\":", calls_value(m, o->metric, c->value));
	json_string(o->out, th->name);
	fprintf(o->out, ",\"serial\":%" PRIu32 ",\"start\":", th->serial);
	if (c->start_ns)
		fprintf(o->out, "\"%s\",\"start_ns\":%" PRIu64, start, c->start_ns);
	else
		fputs("null,\"start_ns\":null", o->out);
	fprintf(o->out, ",\"live\":%s,\"path\":", c->live ? "true" : "false");
	path(o->out, m, t, c->node, REPORT_JSON);
	fprintf(o->out, ",\"self\":%" PRIu64 ",\"callees\":[", calls_value(m, o->metric, c->self));
	for (unsigned k = 0; k < c->ncallees; k++) {
		fputs(k ? ",{\"method\":" : "{\"method\":", o->out);
		json_string(o->out, model_method_name(m, t->nodes[c->callee[k].node].method));
		fprintf(o->out, ",\"duration\":%" PRIu64 "}",
			calls_value(m, o->metric, c->callee[k].value));
	}
	fputs("]}", o->out);
}

static void json(const struct model *m, const struct report_opts *o, const struct slow *s)
{
	fputs("{\"metric\":{\"name\":", o->out);
	json_string(o->out, m->metric[o->metric].name);
	fputs(",\"unit\":", o->out);
	json_string(o->out, m->metric[o->metric].unit);
	fprintf(o->out, "},\"calibrated\":%s,\"seen\":%" PRIu64 ",\"calls\":[",
		o->calibrated ? "true" : "false", s->seen);
	for (size_t i = 0; i < s->n; i++)
		json_call(m, o, s, i);
	fputs("\n]}\n", o->out);
}

int report_slow(const struct model *m, const struct report_opts *o)
{
	struct slow_opts so = {0};
	struct slow s;
	char errbuf[REPORT_ERR_LEN];
	char *err = o->err ? o->err : errbuf;

	so.path = o->trace_path;
	so.metric = o->metric;
	so.sel = o->sel;
	so.shp = o->shaping;
	so.top = o->top;
	so.progress = o->progress;
	so.inputs = o->inputs;
	if (slow_build(m, &so, &s, err, REPORT_ERR_LEN))
		return -1;
	if (o->format == REPORT_TEXT)
		text(m, o, &s);
	else if (o->format == REPORT_CSV)
		csv(m, o, &s);
	else
		json(m, o, &s);
	slow_free(&s);
	return 0;
}
