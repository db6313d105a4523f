/*
 * report.h - the reports of jcal-post over a loaded model: tree, flat and
 * summary, each as text, CSV or JSON. Reports write to o->out and never
 * print anything else; the caller checks the stream for write errors.
 */
#ifndef JCAL_REPORT_H
#define JCAL_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "postproc/calib_apply.h"
#include "postproc/calls.h"
#include "postproc/flat.h"
#include "postproc/model.h"
#include "postproc/shaping.h"
#include "postproc/threadsel.h"
#include "postproc/tree_order.h"

enum report_format {
	REPORT_TEXT,
	REPORT_CSV,
	REPORT_JSON,
};

struct report_opts {
	FILE *out;
	enum report_format format;
	unsigned metric;		 /* index of the metric shown */
	const struct threadsel *sel;	 /* NULL: all threads */
	int some_threads;		 /* --thread given: not every thread is shown */
	enum flat_sort sort;		 /* flat report order */
	enum tree_order order;		 /* tree report: children by cum (0), call, base, name */
	int calibrated;			 /* compensation applied: text shows raw columns too */
	const char *calib_desc;		 /* table used; NULL: "none (raw figures)" */
	const char *trace_path;		 /* for the summary */
	const struct trace_result *res;	 /* for the summary; may be NULL */
	const struct calib_apply *calib; /* the table applied, for the summary; or NULL */
	/* reports and exports (report_arcs.c, export_*.c ...) */
	size_t top;			  /* arcs, callers, flat: at most N entries; 0 all */
	const struct shape_info *shaped;  /* what shaping did, for text notes; or NULL */
	const struct shape_opts *shaping; /* --exclude etc., for exports re-reading the trace */
	int evented;			  /* speedscope: evented profiles from the events */
	double min_duration;		  /* chrome: drop spans shorter (metric unit) */
	FILE *progress;			  /* progress bar of trace re-reads; NULL none */
	/* Reports that print calling contexts (tree, callers, collapsed,
	 * sampled speedscope, pprof, html): deeper frames are folded into one
	 * pseudo-frame (report_view_get). 0: REPORT_MAX_DEPTH_DEFAULT;
	 * REPORT_MAX_DEPTH_NONE: no limit. */
	uint32_t max_depth;
	int by_context; /* latency: per calling context rather than per method */
	/* latency, slow: a merged profile's inputs, loaded again one by one */
	const struct calls_inputs *inputs;
	char *err; /* REPORT_ERR_LEN bytes for why a report failed */
};

#define REPORT_ERR_LEN 256

/* Deeper than any stack the JVM's default thread stack holds in practice
 * (docs/jcal-post.md, --max-depth), yet a chain of contexts this deep
 * prints in tens of megabytes, not gigabytes. */
#define REPORT_MAX_DEPTH_DEFAULT 4096u
#define REPORT_MAX_DEPTH_NONE UINT32_MAX

/* One --report KIND: a report or an export, with its help line (--help
 * and the man page). The table, report_kinds[], is in report.c. */
struct report_kind {
	const char *name;
	/* 0, or -1 (o->err says why, else out of memory); NULL for calib,
	 * which derives a table before any trace is loaded */
	int (*run)(const struct model *m, const struct report_opts *o);
	const char *help;
	unsigned flags; /* REPORT_SHAPED, REPORT_LIST */
};

#define REPORT_SHAPED 1u /* --include, --exclude, --top... shape the trees first */
#define REPORT_LIST 2u	 /* --top N: the first N methods, not a fold */

extern const struct report_kind report_kinds[];
extern const size_t report_nkinds;

/* The kind named name, or NULL. */
const struct report_kind *report_kind_find(const char *name);

/* Each returns 0, or -1 when out of memory. */
int report_tree(const struct model *m, const struct report_opts *o);
int report_flat(const struct model *m, const struct report_opts *o);
int report_summary(const struct model *m, const struct report_opts *o);
int report_arcs(const struct model *m, const struct report_opts *o);
int report_callers(const struct model *m, const struct report_opts *o);
int report_hot(const struct model *m, const struct report_opts *o);
/* latency: o->err says why when it is not out of memory (a snapshot...) */
int report_latency(const struct model *m, const struct report_opts *o);
int report_slow(const struct model *m, const struct report_opts *o);
int report_waits(const struct model *m, const struct report_opts *o);

/* Exports: each writes its own format (o->format does not apply) and
 * returns 0, or -1 with o->err set when it is not out of memory. */
int export_collapsed(const struct model *m, const struct report_opts *o);
int export_speedscope(const struct model *m, const struct report_opts *o);
int export_pprof(const struct model *m, const struct report_opts *o);
int export_chrome(const struct model *m, const struct report_opts *o);
int export_html(const struct model *m, const struct report_opts *o);

/* Shared by the reports: the selected threads in serial order (malloc'ed
 * array, free it; NULL with *n == 0 when none). Returns 0 or -1. */
int report_threads(const struct model *m, const struct report_opts *o,
		   const struct model_thread ***list, size_t *n);

/* The threads list[0..n) stand for (a folded or merged one counts the
 * threads it holds). */
size_t report_thread_count(const struct model_thread *const *list, size_t n);

/* Column width: the larger of w and the decimal digits of v. */
unsigned report_width(unsigned w, uint64_t v);

/* "cputime (ns)" for metric i; just the name when the unit is unknown. */
void report_metric_label(const struct model *m, unsigned i, char *buf, size_t len);

#endif
