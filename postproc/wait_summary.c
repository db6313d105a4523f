/*
 * wait_summary.c - the summary's figures of the waits the JVM reported
 * (wait_summary.h). The times are off the CPU (tsc less cputime) when the
 * trace has both, so that blocked, Object.wait and other add up to the
 * thread's time off the CPU; else wall time (wait_sum.h).
 */
#include "postproc/wait_summary.h"

#include <inttypes.h>
#include <stdlib.h>

#include "postproc/offcpu.h"
#include "postproc/output.h"
#include "postproc/wait_sum.h"

#define CLASS_MAX 1024

/* t's time off the CPU not in a reported wait, in *other: 0, or -1 when
 * the trace has no off-CPU figures. */
static int other_of(const struct model *m, const struct model_thread *t,
		    const struct wait_thread_sum *s, uint64_t *other)
{
	uint64_t wall, off, waited;

	if (offcpu_thread(m, &t->tree, &wall, &off))
		return -1;
	waited = s->time[TRACE_MON_ENTER] + s->time[TRACE_MON_WAIT];
	*other = off > waited ? off - waited : 0;
	return 0;
}

static int has_offcpu(const struct model *m, const struct model_thread *const *list, size_t n)
{
	uint64_t wall, off;

	return n && !offcpu_thread(m, &list[0]->tree, &wall, &off);
}

static void text_thread(FILE *f, const struct model *m, const struct model_thread *t,
			const struct wait_thread_sum *s, int off)
{
	char cls[CLASS_MAX];
	uint64_t other;

	fprintf(f, "  #%-4" PRIu32 " ", t->serial);
	text_escape_n(f, t->name, 24);
	fprintf(f, " monitor %12" PRIu64 " (%" PRIu64 ")  Object.wait %12" PRIu64 " (%" PRIu64 ")",
		s->time[TRACE_MON_ENTER], s->count[TRACE_MON_ENTER], s->time[TRACE_MON_WAIT],
		s->count[TRACE_MON_WAIT]);
	if (off && !other_of(m, t, s, &other))
		fprintf(f, "  other %12" PRIu64, other);
	fputc('\n', f);
	for (size_t k = 0; k < s->n; k++) {
		const struct wait_class_sum *c = &s->by_cls[k];

		wait_class_name(m, c->cls, cls, sizeof(cls));
		fprintf(f, "        %-11s %12" PRIu64 " (%" PRIu64 ")  ",
			c->kind == TRACE_MON_ENTER ? "monitor" : "Object.wait", c->time, c->count);
		text_escape(f, cls);
		fputc('\n', f);
	}
}

int wait_summary_text(FILE *f, const struct model *m, const struct model_thread *const *list,
		      size_t n)
{
	int off = has_offcpu(m, list, n);

	if (!m->waits.n)
		return 0;
	fprintf(f,
		"Waiting (the JVM's monitor events; %s, ns; (N) waits; other: the rest of the "
		"time off the CPU: sleep, park, I/O)\n",
		off ? "off the CPU, raw" : "wall time");
	for (size_t i = 0; i < n; i++) {
		struct wait_thread_sum s;

		if (wait_thread_sum(m, list[i]->serial, off, &s))
			return -1;
		if (s.n)
			text_thread(f, m, list[i], &s, off);
		wait_thread_sum_free(&s);
	}
	return 0;
}

int wait_summary_csv(FILE *f, const struct model *m, const struct model_thread *const *list,
		     size_t n)
{
	int off = has_offcpu(m, list, n);
	char cls[CLASS_MAX], key[CLASS_MAX + 64];

	for (size_t i = 0; i < n && m->waits.n; i++) {
		uint32_t sn = list[i]->serial;
		struct wait_thread_sum s;
		uint64_t other;

		if (wait_thread_sum(m, sn, off, &s))
			return -1;
		if (s.n) {
			fprintf(f,
				"thread.%" PRIu32 ".blocked,%" PRIu64 "\nthread.%" PRIu32
				".blocked_count,%" PRIu64 "\nthread.%" PRIu32 ".wait,%" PRIu64
				"\nthread.%" PRIu32 ".wait_count,%" PRIu64 "\n",
				sn, s.time[TRACE_MON_ENTER], sn, s.count[TRACE_MON_ENTER], sn,
				s.time[TRACE_MON_WAIT], sn, s.count[TRACE_MON_WAIT]);
			if (off && !other_of(m, list[i], &s, &other))
				fprintf(f, "thread.%" PRIu32 ".other,%" PRIu64 "\n", sn, other);
		}
		for (size_t k = 0; k < s.n; k++) {
			wait_class_name(m, s.by_cls[k].cls, cls, sizeof(cls));
			const char *kind = s.by_cls[k].kind == TRACE_MON_ENTER ? "blocked" : "wait";

			snprintf(key, sizeof(key), "thread.%" PRIu32 ".%s.%s", sn, kind, cls);
			csv_field(f, key);
			fprintf(f, ",%" PRIu64 "\n", s.by_cls[k].time);
			snprintf(key, sizeof(key), "thread.%" PRIu32 ".%s_count.%s", sn, kind, cls);
			csv_field(f, key);
			fprintf(f, ",%" PRIu64 "\n", s.by_cls[k].count);
		}
		wait_thread_sum_free(&s);
	}
	return 0;
}

int wait_summary_json(FILE *f, const struct model *m, const struct model_thread *t)
{
	const struct model_thread *one[1] = {t};
	int off = has_offcpu(m, one, 1);
	struct wait_thread_sum s;
	char cls[CLASS_MAX];
	uint64_t other;

	if (!m->waits.n)
		return 0;
	if (wait_thread_sum(m, t->serial, off, &s))
		return -1;
	if (s.n) {
		fprintf(f,
			",\"waiting\":{\"blocked\":%" PRIu64 ",\"blocked_count\":%" PRIu64
			",\"wait\":%" PRIu64 ",\"wait_count\":%" PRIu64,
			s.time[TRACE_MON_ENTER], s.count[TRACE_MON_ENTER], s.time[TRACE_MON_WAIT],
			s.count[TRACE_MON_WAIT]);
		if (off && !other_of(m, t, &s, &other))
			fprintf(f, ",\"other\":%" PRIu64, other);
		fputs(",\"classes\":[", f);
		for (size_t k = 0; k < s.n; k++) {
			wait_class_name(m, s.by_cls[k].cls, cls, sizeof(cls));
			fprintf(f, "%s{\"kind\":\"%s\",\"class\":", k ? "," : "",
				s.by_cls[k].kind == TRACE_MON_ENTER ? "monitor" : "wait");
			json_string(f, cls);
			fprintf(f, ",\"time\":%" PRIu64 ",\"count\":%" PRIu64 "}", s.by_cls[k].time,
				s.by_cls[k].count);
		}
		fputs("]}", f);
	}
	wait_thread_sum_free(&s);
	return 0;
}
