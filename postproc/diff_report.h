/*
 * diff_report.h - the reports of jcal-post diff over a finished model
 * (diff_model.h; docs/jcal-post.md, "Comparing two runs"): flat, tree and
 * callers in text, CSV and JSON, the folded export with both runs' values
 * (collapsed); their table, and what they share: the methods in the order
 * of their change, the text header naming both sides' inputs, the JSON
 * head, signed deltas, percentages and status words. Reports write to
 * o->out only; names from the traces go through output.h's escaping.
 */
#ifndef JCAL_DIFF_REPORT_H
#define JCAL_DIFF_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "postproc/diff_model.h"
#include "postproc/diff_stats.h"
#include "postproc/report.h"

/* The value of the folded export and the html graph. */
enum diff_value {
	DIFF_VALUE_BASE,  /* self cost in the metric's unit (the default) */
	DIFF_VALUE_CALLS, /* calls */
};

struct diff_report_opts {
	FILE *out;
	enum report_format format; /* flat, tree, callers */
	size_t top;		   /* 0 all; else the first N methods (flat, callers), the N
				    * contexts of largest change with their callers (tree),
				    * the N stacks of largest change (collapsed) */
	enum diff_value value;	   /* collapsed, html */
	/* html: --min-pct P (min_pct_set, 0 included) cuts the page as asked,
	 * --all not at all; else a default cut keeps it within the flame
	 * graphs' bound */
	double min_pct;
	int min_pct_set, all;
	char *err;  /* REPORT_ERR_LEN bytes for why a report failed; may be NULL */
	char *note; /* REPORT_ERR_LEN bytes for a note the command prints after the
		     * report (a default cut); may be NULL */
};

/* One --report KIND of jcal-post diff. */
struct diff_report_kind {
	const char *name;
	/* 0, or -1 (o->err says why, else out of memory) */
	int (*run)(const struct diff_model *dm, const struct diff_report_opts *o);
	const char *help;
	unsigned flags;
};

/* The report prints calling contexts: the model's tree is limited to
 * --max-depth frames (the others are whole). */
#define DIFF_REPORT_CONTEXTS 1u
/* The report reads --value. */
#define DIFF_REPORT_VALUE 2u

extern const struct diff_report_kind diff_report_kinds[];
extern const size_t diff_report_nkinds;

/* The kind named name, or NULL. */
const struct diff_report_kind *diff_report_find(const char *name);

int diff_report_flat(const struct diff_model *dm, const struct diff_report_opts *o);
int diff_report_tree(const struct diff_model *dm, const struct diff_report_opts *o);
int diff_report_callers(const struct diff_model *dm, const struct diff_report_opts *o);
int diff_export_collapsed(const struct diff_model *dm, const struct diff_report_opts *o);
/* The differential flame graph (export_html_diff_model.c). */
int diff_export_html(const struct diff_model *dm, const struct diff_report_opts *o);

/* ---- shared by the reports ---- */

/* The methods (and pseudo-frames) any run has, by the size of their
 * change: |calls delta| first, then |cum delta|, both descending, then by
 * name. *order is malloc'ed (free it). Returns 0 or -1 (no memory). */
int diff_report_methods(const struct diff_model *dm, uint32_t **order, size_t *n);

/* Orders two comparisons by the size of their change as above: < 0 when
 * a comes first, > 0 when b does, 0 when they are alike. */
int diff_report_by_change(const struct diff_cmp *a, const struct diff_cmp *b);

/* The comparison of method name. */
void diff_report_method(const struct diff_model *dm, uint32_t name, struct diff_cmp *c);

/* Several runs on a side: the sets' columns and marks are shown. */
int diff_report_sets(const struct diff_model *dm);

/* Writes to - from exactly, signed; with plus a '+' before a rise. */
void diff_report_delta(FILE *f, uint64_t from, uint64_t to, int plus);
/* The same into buf (at least 22 bytes). */
void diff_report_delta_str(char *buf, size_t len, uint64_t from, uint64_t to, int plus);

/* "same", "changed", "added", "removed". */
const char *diff_report_status(enum diff_status s);

/* The mark of text reports: '+' added, '-' removed, '*' changed, ' ' same. */
char diff_report_mark(enum diff_status s);

/* "beyond", "within" ("" when not judged). */
const char *diff_report_cost(enum diff_cost c);

/* A relative spread as the reports print it: "%.1f", "inf". */
void diff_report_spread(char *buf, size_t len, double pct);

/* Text: the header of a report titled what: the metric, each input of
 * both sides (path, JVM, mode, events, threads, calibration), what was
 * normalised, what the depth limit folded. */
void diff_report_text_head(const struct diff_model *dm, const struct diff_report_opts *o,
			   const char *what);

/* JSON: writes {"metric":{"name","unit"},"base":[RUN...],"new":[RUN...],
 * "normalised":{...}, and the report's own keys follow (then "}\n"). */
void diff_report_json_head(const struct diff_model *dm, const struct diff_report_opts *o);

/* Text: the columns of a comparison's figures (CallsBase CallsNew
 * CallsDelta Calls%, CumBase CumNew CumDelta Cum%, BaseBase BaseNew
 * BaseDelta, with sets Spread% Cost), as wide as the rows fitted. */
#define DIFF_COLS 13
struct diff_cols {
	size_t w[DIFF_COLS];
	int n; /* columns shown */
};

void diff_report_cols_init(const struct diff_model *dm, struct diff_cols *cols);
/* Widens the columns to hold c's figures. */
void diff_report_cols_fit(struct diff_cols *cols, const struct diff_cmp *c);
/* The heads, then 2 blanks (where the rows have their mark). */
void diff_report_cols_head(FILE *f, const struct diff_cols *cols);
/* c's figures, then its mark and a blank. */
void diff_report_cols_row(FILE *f, const struct diff_cols *cols, const struct diff_cmp *c);

/* CSV: the sets' columns of c: ",calls_spread,cost_spread,cost_change". */
void diff_report_csv_sets(FILE *f, const struct diff_cmp *c);

/* CSV and JSON: a comparison's figures: calls, base and cum of both sides
 * with their deltas, as CSV fields (each preceded by a comma) or JSON
 * members (each preceded by a comma); then the status. */
void diff_report_csv_figs(FILE *f, const struct diff_cmp *c);
void diff_report_json_figs(FILE *f, const struct diff_model *dm, const struct diff_cmp *c);

#endif
