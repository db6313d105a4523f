/*
 * export_chrome.c - Chrome trace event JSON (the "JSON Object Format" of
 * the Trace Event Format, read by Perfetto and chrome://tracing): one
 * complete event ("ph":"X") per method call, one track per Java thread
 * (tid = thread serial, named by a thread_name metadata event).
 *
 * The trace is read again (replay.c); each span is written when its frame
 * closes, so memory holds only the open frames. ts and dur are in
 * microseconds: the raw metric in ns / 1000 for a time metric; for a count
 * metric one count is shown as one microsecond. Spans shorter than
 * --min-duration (in the metric's unit, ns or counts) are left out. Frames
 * live before tracing started begin at the thread's first event.
 *
 * The CHROME_SLOW longest spans written (kept in a heap as they close) are
 * marked at the end: an instant event ("ph":"i", on the thread's track) at
 * each one's start, "slow #1" for the longest, its method and duration in
 * args, so that the slowest calls are found on the timeline (the
 * --report slow of the timeline's raw figures). Not for a tree snapshot,
 * whose spans are laid out, not timed.
 *
 * With the tsc metric (wall time), the waits the JVM reported (MONITOR
 * records, wait_sum.h) are spans of their own on their thread's track,
 * inside the span of the method they happened in: "blocked on CLASS"
 * (cat monitor) and "Object.wait on CLASS" (cat wait), placed by the
 * thread's tsc readings at both ends, as the method spans are.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/minheap.h"
#include "postproc/output.h"
#include "postproc/replay.h"
#include "postproc/report.h"
#include "postproc/report_util.h"
#include "postproc/wait_sum.h"

/* Spans marked as the slowest. */
#define CHROME_SLOW 20

struct chrome_span {
	uint32_t serial, method;
	uint64_t opened, dur, seq;
};

struct chrome {
	const struct model *m;
	FILE *out;
	int time; /* metric in ns */
	uint64_t min;
	uint64_t written, dropped;
	struct chrome_span slow[CHROME_SLOW]; /* a min-heap by dur */
	size_t nslow;
};

/* a is shorter than b (of equal ones the later): less in the heap. */
static int span_less(const void *pa, const void *pb)
{
	const struct chrome_span *a = pa, *b = pb;

	return a->dur != b->dur ? a->dur < b->dur : a->seq > b->seq;
}

/* Keeps s among the CHROME_SLOW longest spans. */
static void slow_keep(struct chrome *c, const struct chrome_span *s)
{
	if (c->nslow < CHROME_SLOW) {
		c->slow[c->nslow] = *s;
		minheap_up(c->slow, sizeof(c->slow[0]), c->nslow++, span_less);
	} else if (span_less(c->slow, s)) {
		c->slow[0] = *s;
		minheap_down(c->slow, c->nslow, sizeof(c->slow[0]), 0, span_less);
	}
}

static int span_longer(const void *a, const void *b)
{
	const struct chrome_span *x = a, *y = b;

	return span_less(x, y) ? 1 : span_less(y, x) ? -1 : 0;
}

static void put_us(struct chrome *c, uint64_t v);

/* The marks of the slowest spans, longest first. */
static void slow_marks(struct chrome *c)
{
	qsort(c->slow, c->nslow, sizeof(c->slow[0]), span_longer);
	for (size_t i = 0; i < c->nslow; i++) {
		const struct chrome_span *s = &c->slow[i];

		fprintf(c->out,
			",\n{\"name\":\"slow #%zu\",\"cat\":\"slow\",\"ph\":\"i\",\"s\":\"t\","
			"\"pid\":1,\"tid\":%" PRIu32 ",\"ts\":",
			i + 1, s->serial);
		put_us(c, s->opened);
		fputs(",\"args\":{\"method\":", c->out);
		json_string(c->out, model_method_name(c->m, s->method));
		fputs(",\"duration\":", c->out);
		put_us(c, s->dur);
		fputs("}}", c->out);
	}
}

static void put_us(struct chrome *c, uint64_t v)
{
	if (c->time)
		fprintf(c->out, "%" PRIu64 ".%03u", v / 1000, (unsigned)(v % 1000));
	else
		fprintf(c->out, "%" PRIu64, v);
}

/* The waits of the selected threads as spans (with the tsc metric, mi);
 * returns how many were written. */
static uint64_t wait_spans(struct chrome *c, unsigned mi, const struct threadsel *sel)
{
	const struct waits *w = &c->m->waits;
	char cls[1024], name[1100];
	uint64_t n = 0;

	for (size_t i = 0; i < w->n; i++) {
		const struct waits_rec *r = &w->r[i];
		uint64_t a, b;

		if (mi >= r->nmetrics || !wait_selected(c->m, sel, r->serial))
			continue;
		a = model_value(c->m, mi, r->start[mi]);
		b = model_value(c->m, mi, r->start[mi] + r->delta[mi]);
		if (b - a < c->min)
			continue;
		wait_class_name(c->m, r->cls, cls, sizeof(cls));
		snprintf(name, sizeof(name), "%s on %s",
			 r->kind == TRACE_MON_ENTER ? "blocked" : "Object.wait", cls);
		fputs(",\n{\"name\":", c->out);
		json_string(c->out, name);
		fprintf(c->out,
			",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":%" PRIu32 ",\"ts\":",
			r->kind == TRACE_MON_ENTER ? "monitor" : "wait", r->serial);
		put_us(c, a);
		fputs(",\"dur\":", c->out);
		put_us(c, b - a);
		fputs(",\"args\":{\"class\":", c->out);
		json_string(c->out, cls);
		fputs(",\"method\":", c->out);
		json_string(c->out, r->method ? model_method_name(c->m, r->method) : "<unknown>");
		if (r->kind == TRACE_MON_WAIT)
			fprintf(c->out, ",\"timed_out\":%s", r->timed_out ? "true" : "false");
		fputs("}}", c->out);
		n++;
	}
	return n;
}

static int ch_begin(void *ctx, const struct model_thread *t, uint64_t at)
{
	struct chrome *c = ctx;

	(void)at;
	fprintf(c->out,
		",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%" PRIu32
		",\"args\":{\"name\":",
		t->serial);
	json_string(c->out, t->name);
	fprintf(c->out,
		"}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":%" PRIu32
		",\"args\":{\"sort_index\":%" PRIu32 "}}",
		t->serial, t->serial);
	return 0;
}

static int ch_close(void *ctx, const struct model_thread *t, uint32_t method, uint64_t opened,
		    uint64_t at, uint32_t depth)
{
	struct chrome *c = ctx;

	(void)depth;
	if (at - opened < c->min) {
		c->dropped++;
		return 0;
	}
	fputs(",\n{\"name\":", c->out);
	json_string(c->out, model_method_name(c->m, method));
	fprintf(c->out,
		",\"cat\":\"java\",\"ph\":\"X\",\"pid\":1,\"tid\":%" PRIu32 ",\"ts\":", t->serial);
	put_us(c, opened);
	fputs(",\"dur\":", c->out);
	put_us(c, at - opened);
	fputc('}', c->out);
	if (!c->m->snapshot) {
		struct chrome_span s = {t->serial, method, opened, at - opened, c->written};

		slow_keep(c, &s);
	}
	c->written++;
	return 0;
}

int export_chrome(const struct model *m, const struct report_opts *o)
{
	struct chrome c = {0};
	struct replay_opts ro = {0};
	struct replay_cb cb = {0};
	const char *base = o->trace_path ? strrchr(o->trace_path, '/') : NULL;
	uint64_t waits = 0;
	int err;

	c.m = m;
	c.out = o->out;
	c.time = report_metric_is_time(m, o->metric);
	c.min = o->min_duration > 0 ? (uint64_t)o->min_duration : 0;
	ro.path = o->trace_path;
	ro.metric = o->metric;
	ro.sel = o->shaping ? o->shaping->sel : o->sel;
	ro.progress = o->progress;
	if (o->shaping) {
		ro.exclude = o->shaping->exclude;
		ro.nexclude = o->shaping->nexclude;
	}
	cb.ctx = &c;
	cb.begin = ch_begin;
	cb.close = ch_close;
	fputs("{\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,"
	      "\"args\":{\"name\":",
	      o->out);
	json_string(o->out, base ? base + 1 : o->trace_path ? o->trace_path : "jcal");
	fputs("}}", o->out);
	err = replay_run(m, &ro, &cb, o->err, REPORT_ERR_LEN);
	if (!err)
		slow_marks(&c);
	/* the waits the JVM reported, on a wall-time timeline */
	if (!err && m->waits.n && !strcmp(m->metric[o->metric].name, "tsc"))
		waits = wait_spans(&c, o->metric, ro.sel);
	fputs("\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"metric\":", o->out);
	json_string(o->out, m->metric[o->metric].name);
	fprintf(o->out,
		",\"unit\":\"%s\",\"spans\":%" PRIu64 ",\"dropped_spans\":%" PRIu64
		",\"min_duration\":%" PRIu64 ",\"slow_marked\":%zu",
		c.time ? "ns" : "count (shown as us)", c.written, c.dropped, c.min, c.nslow);
	if (waits)
		fprintf(o->out, ",\"waits\":%" PRIu64, waits);
	fputs("}}\n", o->out);
	return err;
}
