/*
 * report_util.h - small helpers shared by the reports and the exports:
 * notes about shaped threads, frame labels, calling-context paths, the
 * metric's kind, JSON strings safe inside HTML.
 */
#ifndef JCAL_REPORT_UTIL_H
#define JCAL_REPORT_UTIL_H

#include <stdint.h>
#include <stdio.h>

#include "postproc/report.h"

/* Text reports: one line saying how many threads were merged into one or
 * left out by --thread (of shown threads), and one saying how many were
 * grouped by pool, when any; nothing otherwise. */
void report_shape_note(const struct report_opts *o, size_t shown);

/* 1 when metric i is a time (unit "ns"), 0 for counts. */
int report_metric_is_time(const struct model *m, unsigned i);

/* "name#serial", as the CSV reports print a thread. */
void report_thread_label(const struct model_thread *t, char *buf, size_t len);

/* The methods path[0..depth) as "a > b > c" (text), "a;b;c" (CSV, the
 * field quoted by the caller) or a JSON array: a calling context, root
 * first. */
void report_path(FILE *f, const struct model *m, const uint32_t *path, uint32_t depth,
		 enum report_format fmt);

/* json_string() whose output is also safe inside an HTML <script>: '<',
 * '>' and '&' become \u escapes. */
void report_json_html(FILE *f, const char *s);

/* v as a percentage of total, 0 for no total, never above 100 (a part of
 * a total that saturated cannot pass it; report every share through
 * this). */
double report_pct(uint64_t v, uint64_t total);

/* The depth limit o asks for (REPORT_MAX_DEPTH_NONE: none). */
uint32_t report_max_depth(const struct report_opts *o);

/* A thread's tree as the reports that print calling contexts show it: the
 * thread's own tree, or a copy with the frames below the depth limit folded
 * into one pseudo-frame per context at the limit (shape_cap_depth), so that
 * the output grows with the contexts times the limit, never with depth
 * squared. */
struct report_view {
	const struct calltree *t;
	struct calltree own; /* the folded copy, when owned */
	int owned;
	uint64_t folded; /* contexts folded */
};

/* Returns 0 or -1 (no memory). */
int report_view_get(struct report_view *v, const struct model_thread *th,
		    const struct report_opts *o);
void report_view_free(struct report_view *v);

/* Text reports: one line saying how many contexts a thread's view folded,
 * when any. */
void report_view_note(const struct report_opts *o, const struct report_view *v);

/* A tree CSV row of node of t up to its last field: thread label, level,
 * rl, calls, base, cum, raw_base, raw_cum of metric mi, each followed by a
 * comma. */
void report_csv_node(FILE *f, const struct model *m, unsigned mi, const char *label,
		     const struct calltree *t, uint32_t node);

/* JSON reports of per-thread sections: writes the opening
 * {"metric":{"name":..,"unit":..},"calibrated":B,"threads":[ and a newline. */
void report_json_open(const struct model *m, const struct report_opts *o);

#endif
