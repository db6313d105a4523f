/*
 * input.c - loads one input of jcal-post (see input.h): the calibration
 * chosen for it, the read of the file (on worker threads with --jobs), the
 * warnings of an incomplete file, the model finished and named, and what
 * the reports say about the calibration.
 */
#include "postproc/input.h"

#include <string.h>

#include "common/satsum.h"
#include "postproc/calib_cli.h"
#include "postproc/msg.h"
#include "postproc/offcpu.h"
#include "postproc/progress.h"

/* A fresh model for a read of the file (again): its compensation, and
 * with cli.fold its threads folded, while reading when it may be. Returns
 * 0 or -1 (no memory). */
static int model_start(struct input *in, const struct calltree_comp *comp)
{
	model_init(&in->m, comp);
	in->m.snapshot_raw = in->c.raw;
	in->have_model = 1;
	/* a thread is folded at its THREAD_END only where the file can be
	 * read again without folding (model_fold_broken) */
	unsigned flags = in->c.sh.so.merge ? MODEL_FOLD_STATS : 0;

	if (!in->fold_broken && !in->snap && strcmp(in->c.trace, "-"))
		flags |= MODEL_FOLD_WHILE_READING;
	return in->c.fold && model_fold(&in->m, &in->sel, flags);
}

/* Reads the trace into in->m. With --jobs threads and a file, they decode
 * the events chunks too, straight into their trees (faster than trees
 * built from events decoded here: docs/performance.md); the file is read
 * again on this thread alone when they met what only the reader says
 * exactly (model_redo), and without folding threads as they end when a
 * thread came back after its end (model_fold_broken). */
static enum trace_status read_trace(struct input *in)
{
	const struct cli *c = &in->c;
	struct trace_visitor v;
	enum trace_status st;
	int chunks = c->jobs >= 1 && strcmp(c->trace, "-") != 0; /* stdin: not twice */

	model_visitor(&in->m, &v);
	model_jobs(&in->m, c->jobs, chunks); /* without the threads: built while reading */
	st = progress_read(c->trace, &v, &in->res, progress_bar_stream(c->trace), "reading");
	const int broken = model_fold_broken(&in->m);

	if (!model_redo(&in->m) && !broken)
		return st;
	const struct calltree_comp comp = in->m.comp;
	const int has_comp = in->m.has_comp;

	in->fold_broken |= broken;
	model_free(&in->m);
	if (model_start(in, has_comp ? &comp : NULL)) {
		snprintf(in->m.err, sizeof(in->m.err), "out of memory");
		return TRACE_ABORTED;
	}
	calib_apply_counts_reset(&in->cal);
	model_visitor(&in->m, &v);
	if (broken) /* the workers' chunks, if any, are read again too */
		return read_trace(in);
	return progress_read(c->trace, &v, &in->res, progress_bar_stream(c->trace), "reading");
}

/* Loads the trace; prints warnings, or the error and returns -1. */
static int load(struct input *in)
{
	struct model *m = &in->m;
	const struct cli *c = &in->c;
	struct trace_result *res = &in->res;
	enum trace_status st = read_trace(in);

	switch (st) {
	case TRACE_OK:
		break;
	case TRACE_TRUNCATED:
		msg("warning", "%s; read up to the last complete record", res->msg);
		break;
	case TRACE_ABORTED:
		msg("error", "%s: %s", c->trace, m->err[0] ? m->err : res->msg);
		return -1;
	default:
		msg("error", "%s", res->msg[0] ? res->msg : trace_status_str(st));
		return -1;
	}
	if (res->end_threads_missing)
		msg("warning",
		    "%s: the END record counts %llu more threads than the file has THREAD_START "
		    "records (a miscount of jcal 0.2.0 when a recording started as a thread "
		    "did); everything the file holds is read",
		    c->trace, (unsigned long long)res->end_threads_missing);
	if (!m->has_end && st == TRACE_OK)
		msg("warning",
		    "%s: no END record: %s; open frames are closed at each thread's last event",
		    c->trace, trace_no_end_str(res));
	else if (!m->has_end)
		msg("warning", "%s: no END record: %s", c->trace, trace_no_end_str(res));
	if (model_finish(m)) {
		msg("error", "%s: %s", c->trace, m->err);
		return -1;
	}
	if (model_names(m, c->sig)) {
		msg("error", "%s: out of memory", c->trace);
		return -1;
	}
	return 0;
}

/* What the reports show as the calibration. */
static void describe(struct input *in)
{
	const char *none = in->c.raw ? "none (--raw: raw figures)" : NULL;

	if (in->m.snapshot) {
		/* compensated in the agent (calib_cli_snapshot set the description) */
		in->calibrated = model_snapshot_compensated(&in->m);
		in->calib = NULL;
		in->calib_desc = in->calibrated ? in->desc : none;
		return;
	}
	in->calibrated = in->cal.active;
	in->calib = in->cal.active ? &in->cal : NULL;
	calib_apply_describe(&in->cal, in->desc, sizeof(in->desc));
	if (in->cal.active) {
		size_t used = strlen(in->desc);

		snprintf(in->desc + used, sizeof(in->desc) - used, ", estimator %s",
			 calib_estimator_name(in->c.estimator));
	}
	in->calib_desc = in->cal.active ? in->desc : none;
}

/* --metric offcpu: the metric made from tsc and cputime (offcpu.h).
 * Returns 0, or 1 after the message. */
static int add_offcpu(struct input *in)
{
	char err[256];

	if (!in->c.metric || strcmp(in->c.metric, "offcpu") ||
	    model_metric_index(&in->m, "offcpu") >= 0)
		return 0;
	if (!offcpu_add(&in->m, err, sizeof(err)))
		return 0;
	msg("error", "--metric offcpu: %s: %s", in->c.trace, err);
	return 1;
}

int input_open(struct input *in, const struct cli *c, const char *path)
{
	memset(in, 0, sizeof(*in));
	in->c = *c;
	in->c.trace = path;

	/* a tree snapshot was compensated in the agent: no table to search for
	 * (one given with --calib is checked against it once it is read) */
	int snap = strcmp(path, "-") && model_peek_snapshot(path) == 1;

	in->have_cal = 1;
	if (snap && (!c->calib || !strcmp(c->calib, "inrun"))
		? calib_apply_init(&in->cal) != 0
		: calib_cli_setup(&in->cal, &in->c, &in->comp, in->calib_note,
				  sizeof(in->calib_note)))
		return 1;
	if (in->cal.skipped[0])
		msg("warning",
		    "calibration directory: skipped what is not a regular file (never opened): %s",
		    in->cal.skipped);
	in->sel.pats = in->c.threads;
	in->sel.npats = in->c.nthreads;
	in->snap = snap;
	if (model_start(in, in->cal.active && !snap ? &in->comp : NULL)) {
		msg("error", "%s: out of memory", path);
		return 1;
	}
	if (load(in))
		return 1;
	if (in->m.snapshot) {
		if (calib_cli_snapshot(&in->cal, &in->c, &in->m, in->desc, sizeof(in->desc)))
			return 1;
	} else if (calib_cli_loaded(&in->cal, &in->m, in->calib_note)) {
		return 1;
	}
	describe(in);
	return add_offcpu(in);
}

int input_metric(const struct input *in, const char *name, char *have, size_t len)
{
	int metric = model_metric_index(&in->m, name);

	if (len)
		have[0] = '\0';
	if (metric >= 0)
		return metric;
	for (unsigned i = 0; i < in->m.nmetrics; i++) {
		size_t used = strlen(have);

		snprintf(have + used, len - used, "%s%s", i ? ", " : "", in->m.metric[i].name);
	}
	return -1;
}

uint64_t input_events(const struct input *in)
{
	uint64_t n = 0;

	for (size_t i = 0; i < in->m.nthreads; i++)
		satsum_addto(&n, in->m.thread_list[i]->tree.stats.events, SATSUM_EVENTS);
	return n;
}

void input_free(struct input *in)
{
	if (in->have_model)
		model_free(&in->m);
	if (in->have_cal)
		calib_apply_free(&in->cal);
	in->have_model = in->have_cal = 0;
}
