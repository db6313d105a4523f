/*
 * report_util.h - small helpers shared by the arcs and callers reports and
 * the exports: notes about shaped threads, frame labels, the metric's
 * kind, JSON strings safe inside HTML.
 */
#ifndef JCAL_REPORT_UTIL_H
#define JCAL_REPORT_UTIL_H

#include <stdint.h>
#include <stdio.h>

#include "report.h"

/* Text reports: one line saying how many threads were merged into one or
 * left out by --thread, when any; nothing otherwise. */
void report_shape_note(const struct report_opts *o, size_t shown);

/* 1 when metric i is a time (unit "ns"), 0 for counts. */
int report_metric_is_time(const struct model *m, unsigned i);

/* "name#serial", as the CSV reports print a thread. */
void report_thread_label(const struct model_thread *t, char *buf, size_t len);

/* Writes s with every ';' replaced by ',' (folded stacks use ';' between
 * frames and "--sig" names hold ';'), and line breaks by blanks. */
void report_folded_name(FILE *f, const char *s);

/* json_string() whose output is also safe inside an HTML <script>: '<',
 * '>' and '&' become \u escapes. */
void report_json_html(FILE *f, const char *s);

#endif
