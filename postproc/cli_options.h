/*
 * cli_options.h - jcal-post's command line: one table of options
 * (cli_options[]) from which the parser, --help and the man page
 * (jcal-post --man, docs/jcal-post.md) are all made.
 */
#ifndef JCAL_CLI_OPTIONS_H
#define JCAL_CLI_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

#include "common/calib_table.h"
#include "postproc/report.h"

/* Options of the shaping and exports. */
struct cli_shape {
	struct shape_opts so;
	int evented;	     /* --speedscope-evented */
	double min_duration; /* --min-duration, < 0 unset */
	uint32_t max_depth;  /* --max-depth: 0 default, REPORT_MAX_DEPTH_NONE none */
	int min_pct_set;     /* --min-pct given (0 included): no default cut */
	int all;	     /* --all: no default cut of a large trace */
	int split_pools;     /* --split-pools: the threads of a pool apart */
};

/* The most --jobs accepted. */
#define CLI_JOBS_MAX 64

struct cli {
	const char *trace;	   /* the first input */
	const char *const *inputs; /* every input (jcal-post FILE...), ninputs of them */
	size_t ninputs;
	const struct report_kind *report; /* --report */
	enum report_format format;
	const char **threads;
	size_t nthreads;
	const char *output;
	int raw;
	const char *calib;
	enum calib_estimator estimator;
	int sig;
	const char *metric;
	enum flat_sort sort;
	enum tree_order order;	/* --order */
	unsigned jobs;		/* --jobs: tree-building threads, 0 none */
	int by_context, by_set; /* --by context; --by given */
	struct cli_shape sh;
	/* Not an option: set by main.c when the report shows no thread apart,
	 * so that the threads are folded as they are read (model_fold). */
	int fold;
	/* Not an option: set by main.c for the summary of several inputs,
	 * which shows each thread's counts but none of its contexts: the
	 * merged profile keeps each thread as a shell (merge.c). */
	int shells;
};

/* One option: what the parser, --help and the man page read. */
struct cli_option {
	const char *name; /* long name, without "--" */
	char short_name;  /* '\0': none */
	const char *arg;  /* value as shown ("FILE"); NULL: a flag */
	const char *def;  /* default as shown; NULL: none to show */
	const char *help; /* one paragraph, wrapped when printed */
	/* Takes the option (arg NULL for a flag) into c. Returns 0, 1 when
	 * the option was all the work (--help), or -1 after the message. */
	int (*set)(struct cli *c, const char *arg);
};

extern const struct cli_option cli_options[];
extern const size_t cli_noptions;

/* Sets the defaults; room for argc patterns of each repeatable option.
 * Returns 0 or -1 (out of memory). */
int cli_init(struct cli *c, int argc);
void cli_free(struct cli *c);

/* Parses argv into c; returns -1 after printing a usage error, 1 when
 * --help, --man or --version was handled, 0 to go on. */
int cli_parse(int argc, char **argv, struct cli *c);

/* --help and the troff man page jcal-post.1, from the tables. */
void cli_help(FILE *f);
void cli_man(FILE *f);

#endif
