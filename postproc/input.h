/*
 * input.h - one input of jcal-post, loaded: a trace or a tree snapshot read
 * into a finished, named model, compensated with the calibration table the
 * command line chooses for it (its own table, found by its host
 * fingerprint; --calib; --raw), with what the reports say about that
 * calibration. The ordinary reports load their one input with it
 * (main.c); jcal-post diff loads each of its inputs with it, one after the
 * other (diff_cli.c). Prints its warnings, notes and errors (msg.h).
 */
#ifndef JCAL_INPUT_H
#define JCAL_INPUT_H

#include "postproc/calib_apply.h"
#include "postproc/cli_options.h"
#include "postproc/model.h"
#include "postproc/threadsel.h"

struct input {
	struct cli c; /* the command line, with trace set to this input */
	struct model m;
	struct calib_apply cal;
	struct calltree_comp comp;
	struct trace_result res;
	struct threadsel sel; /* --thread, for the fold (cli.fold) */
	int snap;	      /* a tree snapshot */
	int fold_broken;      /* a thread came back after its end: no fold while reading */
	int have_model, have_cal;
	/* What the reports show as the calibration (input_open sets them):
	 * whether the figures are compensated, the table applied to the
	 * events (NULL for a snapshot or raw figures) and its description
	 * (NULL: none, raw figures). */
	int calibrated;
	const struct calib_apply *calib;
	const char *calib_desc;
	char calib_note[2048], desc[2048];
};

/* Loads path ("-" for stdin) with the options of c: chooses the table,
 * reads and finishes the model, names its methods, checks a snapshot's
 * calibration against c. Returns 0, or 1 after the error message (free in
 * with input_free in either case). */
int input_open(struct input *in, const struct cli *c, const char *path);

/* The index of metric name in the input, or -1 with the metrics it has
 * ("a, b") in have. */
int input_metric(const struct input *in, const char *name, char *have, size_t len);

/* The number of events the input's threads recorded. */
uint64_t input_events(const struct input *in);

void input_free(struct input *in);

#endif
