/*
 * report.h - the reports of jcal-post over a loaded model: tree, flat and
 * summary, each as text, CSV or JSON. Reports write to o->out and never
 * print anything else; the caller checks the stream for write errors.
 */
#ifndef JCAL_REPORT_H
#define JCAL_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "flat.h"
#include "model.h"
#include "threadsel.h"

enum report_format {
	REPORT_TEXT,
	REPORT_CSV,
	REPORT_JSON,
};

struct report_opts {
	FILE *out;
	enum report_format format;
	unsigned metric;		/* index of the metric shown */
	const struct threadsel *sel;	/* NULL: all threads */
	enum flat_sort sort;		/* flat report order */
	int calibrated;			/* compensation applied: text shows raw columns too */
	const char *calib_desc;		/* table used; NULL: "none (raw figures)" */
	const char *trace_path;		/* for the summary */
	const struct trace_result *res; /* for the summary; may be NULL */
};

/* Each returns 0, or -1 when out of memory. */
int report_tree(const struct model *m, const struct report_opts *o);
int report_flat(const struct model *m, const struct report_opts *o);
int report_summary(const struct model *m, const struct report_opts *o);

/* Shared by the reports: the selected threads in serial order (malloc'ed
 * array, free it; NULL with *n == 0 when none). Returns 0 or -1. */
int report_threads(const struct model *m, const struct report_opts *o,
		   const struct model_thread ***list, size_t *n);

/* Column width: the larger of w and the decimal digits of v. */
unsigned report_width(unsigned w, uint64_t v);

/* "cputime (ns)" for metric i; just the name when the unit is unknown. */
void report_metric_label(const struct model *m, unsigned i, char *buf, size_t len);

#endif
