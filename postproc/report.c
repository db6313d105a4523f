/*
 * report.c - the table of --report kinds, and helpers shared by the
 * reports (see report.h).
 */
#include "postproc/report.h"

#include <stdlib.h>
#include <string.h>

const struct report_kind report_kinds[] = {
    {"tree", report_tree, "per thread, Lvl RL Calls Base Cum and the calling context, root first",
     REPORT_SHAPED},
    {"hot", report_hot,
     "per thread, the hot path: from the root, at each level the child of largest cum",
     REPORT_SHAPED},
    {"flat", report_flat, "per method, sorted by --sort; cum counts each activation once",
     REPORT_SHAPED | REPORT_LIST},
    {"summary", report_summary, "trace, metric, events, threads, unbalanced events, calibration",
     0},
    {"calib", NULL, "derive a calibration table from a calibration trace (written to -o)", 0},
    {"arcs", report_arcs,
     "per method its callers (PARENT), itself (SELF) and callees (CHILD), by cum",
     REPORT_SHAPED | REPORT_LIST},
    {"callers", report_callers,
     "bottom-up, per method the contexts leading to it and their share of its base",
     REPORT_SHAPED | REPORT_LIST},
    {"latency", report_latency,
     "per method (--by context: per calling context), calls and min, p50, p90, p99, p99.9, "
     "max, mean of single calls' durations (reads the trace, or a snapshot's histograms, again)",
     REPORT_SHAPED | REPORT_LIST},
    {"slow", report_slow,
     "the slowest single calls (--top N, default 20): method, duration, thread, start, "
     "calling context, largest callees (reads the trace again)",
     REPORT_SHAPED | REPORT_LIST},
    {"waits", report_waits,
     "the JVM's monitor events: per kind (blocked on a contended monitor, Object.wait), method "
     "and monitor class, count, total and max wall time, timeouts",
     0},
    {"collapsed", export_collapsed,
     "export: folded stacks 'a;b;c base' (flame graphs; thread as first frame)", REPORT_SHAPED},
    {"speedscope", export_speedscope,
     "export: speedscope JSON, one profile per thread (sampled: aggregated tree)", REPORT_SHAPED},
    {"pprof", export_pprof, "export: gzipped profile.proto (go tool pprof)", REPORT_SHAPED},
    {"chrome", export_chrome, "export: trace event JSON (Perfetto), spans from the events",
     REPORT_SHAPED},
    {"html", export_html, "export: self-contained flame graph page", REPORT_SHAPED},
};
const size_t report_nkinds = sizeof(report_kinds) / sizeof(report_kinds[0]);

const struct report_kind *report_kind_find(const char *name)
{
	for (size_t i = 0; i < report_nkinds; i++)
		if (!strcmp(name, report_kinds[i].name))
			return &report_kinds[i];
	return NULL;
}

int report_threads(const struct model *m, const struct report_opts *o,
		   const struct model_thread ***list, size_t *n)
{
	const struct model_thread **l = malloc((m->nthreads ? m->nthreads : 1) * sizeof(*l));
	size_t k = 0;

	*list = NULL;
	*n = 0;
	if (!l)
		return -1;
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct model_thread *t = m->thread_list[i];

		if (model_thread_selected(o->sel, t))
			l[k++] = t;
	}
	*list = l;
	*n = k;
	return 0;
}

size_t report_thread_count(const struct model_thread *const *list, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += model_thread_count(list[i]);
	return k;
}

void report_metric_label(const struct model *m, unsigned i, char *buf, size_t len)
{
	if (i < m->nmetrics && m->metric[i].unit[0])
		snprintf(buf, len, "%s (%s)", m->metric[i].name, m->metric[i].unit);
	else if (i < m->nmetrics)
		snprintf(buf, len, "%s", m->metric[i].name);
	else
		snprintf(buf, len, "metric%u", i);
}

unsigned report_width(unsigned w, uint64_t v)
{
	unsigned d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d > w ? d : w;
}
