/*
 * report_waits.c - the waits report (docs/jcal-post.md, waits): the waits
 * the JVM reported in a trace (MONITOR records; wait_sum.h), per kind
 * (blocked entering a contended monitor, Object.wait), method on top of
 * the stack and monitor class: count, total and longest wall time, and the
 * waits that ended by their timeout. Text one line per row; CSV one row;
 * JSON one object.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "postproc/output.h"
#include "postproc/report.h"
#include "postproc/wait_sum.h"

#define WAITS_CLASS_MAX 1024

static const char *kind_name(unsigned kind)
{
	return kind == TRACE_MON_ENTER ? "monitor" : "wait";
}

static const char *method_name(const struct model *m, uint32_t id)
{
	return id ? model_method_name(m, id) : "<unknown>";
}

static void text(const struct model *m, const struct report_opts *o, const struct wait_row *r,
		 size_t n)
{
	char cls[WAITS_CLASS_MAX];
	unsigned wc = 5, wt = 5, wm = 3, wo = 8;
	size_t wk = 13;

	fputs("Waits the JVM reported (wall time, ns): blocked entering a contended monitor "
	      "(monitor), in Object.wait (wait)\n",
	      o->out);
	if (!n) {
		fprintf(o->out, "No monitor events in this trace%s.\n",
			m->snapshot  ? " (a tree snapshot keeps none)"
			: m->ninputs ? " (a profile of several inputs keeps none: give one trace)"
				     : "");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		wc = report_width(wc, r[i].count);
		wt = report_width(wt, r[i].total);
		wm = report_width(wm, r[i].max);
		wait_class_name(m, r[i].cls, cls, sizeof(cls));
		wk = strlen(cls) > wk ? strlen(cls) : wk; /* bytes: escapes only widen */
	}
	fprintf(o->out, "%-7s  %*s  %*s  %*s  %*s  %-*s  Method\n", "Kind", wc, "Count", wt,
		"Total", wm, "Max", wo, "Timeouts", (int)wk, "Monitor class");
	for (size_t i = 0; i < n; i++) {
		fprintf(o->out, "%-7s  %*" PRIu64 "  %*" PRIu64 "  %*" PRIu64 "  %*" PRIu64 "  ",
			kind_name(r[i].kind), wc, r[i].count, wt, r[i].total, wm, r[i].max, wo,
			r[i].timeouts);
		wait_class_name(m, r[i].cls, cls, sizeof(cls));
		text_escape_n(o->out, cls, wk);
		fputs("  ", o->out);
		text_escape(o->out, method_name(m, r[i].method));
		fputc('\n', o->out);
	}
}

static void csv(const struct model *m, const struct report_opts *o, const struct wait_row *r,
		size_t n)
{
	char cls[WAITS_CLASS_MAX];

	fputs("kind,method,class,count,total,max,timeouts\n", o->out);
	for (size_t i = 0; i < n; i++) {
		fprintf(o->out, "%s,", kind_name(r[i].kind));
		csv_field(o->out, method_name(m, r[i].method));
		fputc(',', o->out);
		wait_class_name(m, r[i].cls, cls, sizeof(cls));
		csv_field(o->out, cls);
		fprintf(o->out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", r[i].count,
			r[i].total, r[i].max, r[i].timeouts);
	}
}

static void json(const struct model *m, const struct report_opts *o, const struct wait_row *r,
		 size_t n)
{
	char cls[WAITS_CLASS_MAX];

	fputs("{\"unit\":\"ns\",\"waits\":[", o->out);
	for (size_t i = 0; i < n; i++) {
		fprintf(o->out, "%s{\"kind\":\"%s\",\"method\":", i ? ",\n" : "\n",
			kind_name(r[i].kind));
		json_string(o->out, method_name(m, r[i].method));
		fputs(",\"class\":", o->out);
		wait_class_name(m, r[i].cls, cls, sizeof(cls));
		json_string(o->out, cls);
		fprintf(o->out,
			",\"count\":%" PRIu64 ",\"total\":%" PRIu64 ",\"max\":%" PRIu64
			",\"timeouts\":%" PRIu64 "}",
			r[i].count, r[i].total, r[i].max, r[i].timeouts);
	}
	fputs("\n]}\n", o->out);
}

int report_waits(const struct model *m, const struct report_opts *o)
{
	struct wait_row *r;
	size_t n;

	if (wait_rows(m, o->sel, &r, &n))
		return -1;
	if (o->format == REPORT_CSV)
		csv(m, o, r, n);
	else if (o->format == REPORT_JSON)
		json(m, o, r, n);
	else
		text(m, o, r, n);
	free(r);
	return 0;
}
