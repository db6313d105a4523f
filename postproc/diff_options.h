/*
 * diff_options.h - the options of jcal-post diff: one table
 * (diff_options[]) from which the parser (diff_cli.c), jcal-post diff
 * --help and the DIFF section of the man page jcal-post(1) are made. Most
 * rows are jcal-post's own options (cli_options.c), taken by the same
 * handler; the others are diff's: --report (its reports), --fail-on,
 * --value, --help.
 */
#ifndef JCAL_DIFF_OPTIONS_H
#define JCAL_DIFF_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "postproc/diff_gate.h"
#include "postproc/diff_report.h"

/* What diff's own options set. */
struct diff_opts {
	const struct diff_report_kind *report; /* --report, default flat */
	enum diff_value value;		       /* --value */
	int value_set;
	double min_pct; /* --min-pct (html) */
	int min_pct_set, all;
	int merge;		 /* --merge: each side's inputs one merged profile */
	struct diff_gate *gates; /* --fail-on, in the order given */
	size_t ngates;
};

struct diff_option {
	const char *name; /* long name, without "--" */
	char short_name;  /* '\0': none */
	const char *arg;  /* value as shown; NULL: a flag */
	const char *def;  /* default as shown; NULL: none to show */
	const char *help; /* one paragraph, wrapped when printed */
	/* diff's own option: takes arg into d; returns 0, 1 when the option
	 * was all the work (--help), or -1 after the message. NULL: jcal-post's
	 * option of the same name (cli_options[]) takes it. */
	int (*set)(struct diff_opts *d, const char *arg);
};

extern const struct diff_option diff_options[];
extern const size_t diff_noptions;

/* The defaults; room for argc gates. Returns 0 or -1 (no memory). */
int diff_options_init(struct diff_opts *d, int argc);
void diff_options_free(struct diff_opts *d);

/* jcal-post diff --help, and the DIFF section of the man page. */
void diff_options_help(FILE *f);
void diff_options_man(FILE *f);

#endif
