/*
 * merge.h - jcal-post FILE...: several traces and tree snapshots merged
 * into one profile that every report and export reads as it reads one
 * input (docs/jcal-post.md, "Several inputs, one profile").
 *
 * Each input is loaded as jcal-post FILE loads it (input.h: compensated
 * with its own calibration table, found by its own host fingerprint),
 * checked to record the metrics of the first, and added to the profile
 * before the next is loaded: its methods by class, name and signature, its
 * threads as threads of their own numbered after the earlier inputs' and
 * named with their input ("main [2 host:4242]"), or, for a report that
 * shows no thread apart (cli.fold), folded into one tree. Counts add up
 * exactly; figures of a TSC metric are converted to ns per context as they
 * are added (the inputs' TSC frequencies differ). Memory: the profile's
 * contexts and the input being added, never the events.
 */
#ifndef JCAL_MERGE_H
#define JCAL_MERGE_H

#include "postproc/cli_options.h"
#include "postproc/input.h"

/* The most inputs one profile takes. */
#define MERGE_MAX_INPUTS 100000

/* Loads c->inputs (c->ninputs >= 2) into in as one profile: in->m the
 * merged model (its inputs in m.inputs), in->calibrated when an input's
 * figures are, in->calib_desc how (NULL when none is), no table of its own
 * (each input had its own). Returns 0, or 1 after the error message (free
 * in with input_free in either case). */
int merge_open(struct input *in, const struct cli *c);

#endif
