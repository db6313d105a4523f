/*
 * main.c - jcal-post: the run of a report, its messages and exit status.
 * The options are in cli_options.c, the table of reports in report.c, the
 * load of the trace with its calibration in input.c, the calib
 * subcommands in calib_cli.c, jcal-post diff in diff_cli.c; everything
 * else lives in the library files beside it.
 *
 * Exit status: 0 success (also for a truncated trace, with a warning),
 * 1 bad or unreadable input or output, 2 usage error (and for jcal-post
 * diff, 3 a --fail-on gate failed).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "postproc/msg.h"
#include "postproc/calib_cli.h"
#include "postproc/cli_options.h"
#include "postproc/crc_fast.h"
#include "postproc/default_cut.h"
#include "postproc/diff_cli.h"
#include "postproc/input.h"
#include "postproc/merge.h"
#include "postproc/progress.h"
#include "postproc/report.h"
#include "common/satsum.h"
#include "postproc/samefile.h"
#include "postproc/shaping.h"
#include "postproc/threadsel.h"
#include "common/trace_encoder.h"

/* What one run holds; run_free releases what was set up. */
struct run {
	struct cli c;
	struct input in; /* the trace, loaded and calibrated */
	/* latency, slow of a merged profile: one input loaded again at a time */
	struct input sub;
	int have_sub;
	struct calls_inputs reload;
	struct threadsel sel;
	struct report_opts o;
	FILE *out;
};

/* Exit status of a stage that completed: go on. */
#define GO_ON (-1)

/* Refuses an output that is one of the inputs (a trace, or the table of
 * --calib FILE) before anything is opened for writing. Returns 0 or -1
 * after the message. */
static int check_output(const struct cli *c)
{
	const char *what = NULL, *in = NULL;

	if (!c->output)
		return 0;
	for (size_t i = 0; i < c->ninputs && !what; i++)
		if (samefile_is_input(c->output, c->inputs[i])) {
			what = "the trace";
			in = c->inputs[i];
		}
	if (!what && c->calib && samefile_is_input(c->output, c->calib)) {
		what = "the calibration table";
		in = c->calib;
	}
	if (!what)
		return 0;
	msg("error", "-o %s is %s it reads (%s): writing would destroy it; choose another output",
	    c->output, what, !strcmp(in, "-") ? "stdin" : in);
	return -1;
}

/* Parses the command line and checks the outputs and --calib before
 * anything is read. Returns an exit status, or GO_ON. */
static int start(struct run *r, int argc, char **argv)
{
	struct stat sb;
	int p = cli_parse(argc, argv, &r->c);

	if (p)
		return p < 0 ? 2 : 0;
	if (check_output(&r->c))
		return 1;
	if (r->c.calib && strcmp(r->c.calib, "inrun") && stat(r->c.calib, &sb)) {
		msg("error", "--calib %s: %s", r->c.calib, strerror(errno));
		return 1;
	}
	return GO_ON;
}

/* --metric: the index of the metric shown, or -1 after the message. */
static int select_metric(const struct run *r)
{
	char have[256];
	int metric;

	if (!r->c.metric)
		return 0;
	metric = input_metric(&r->in, r->c.metric, have, sizeof(have));
	if (metric >= 0)
		return metric;
	msg("error", "--metric '%s': the trace has %s", r->c.metric, have);
	return -1;
}

/* --thread: the selection; returns 0, or -1 after the message when no
 * thread matches. */
static int select_threads(struct run *r)
{
	char names[512];
	size_t k = 0;

	r->sel.pats = r->c.threads;
	r->sel.npats = r->c.nthreads;
	if (!r->c.nthreads)
		return 0;
	for (size_t i = 0; i < r->in.m.nthreads; i++)
		k += r->in.m.folded
			 ? model_thread_count(r->in.m.thread_list[i])
			 : (size_t)model_thread_selected(&r->sel, r->in.m.thread_list[i]);
	if (k)
		return 0;
	model_thread_names(&r->in.m, names, sizeof(names));
	msg("error", "--thread: no thread matches (threads: %s)",
	    r->in.m.nthreads ? names : "none");
	return -1;
}

/*
 * Whether the report shows no thread apart, so that the threads are
 * folded into one tree as they are read (model_fold; docs/jcal-post.md,
 * "Memory: threads folded"): --merge-threads, unless --include, --exclude
 * or --top rebuild each thread's tree before the merge (their order of
 * children would then be the merge's alone to say); flat and callers,
 * whose rows are per method and path in an order of their own, unless
 * --min-pct cuts each thread's tree by its own total. Not the timelines,
 * which read the events again per thread.
 */
static int fold_wanted(const struct cli *c)
{
	const struct report_kind *k = c->report;
	const struct shape_opts *so = &c->sh.so;

	if (!(k->flags & REPORT_SHAPED) || !strcmp(k->name, "chrome") || c->sh.evented)
		return 0;
	if (so->merge)
		return !so->ninclude && !so->nexclude && !(so->top && !(k->flags & REPORT_LIST));
	return (!strcmp(k->name, "flat") || !strcmp(k->name, "callers")) && !(so->min_pct > 0);
}

/* Loads the trace (input.c), or merges the inputs (merge.c), selects the
 * metric and the threads, opens the output. Returns an exit status, or
 * GO_ON. */
static int open_trace(struct run *r)
{
	int metric;

	r->c.fold = fold_wanted(&r->c);
	/* the summary of several inputs: each thread's counts, not its tree */
	r->c.shells = r->c.ninputs > 1 && !strcmp(r->c.report->name, "summary");
	if (r->c.ninputs > 1 ? merge_open(&r->in, &r->c) : input_open(&r->in, &r->c, r->c.trace))
		return 1;
	if ((metric = select_metric(r)) < 0)
		return 2;
	if (select_threads(r))
		return 1;
	r->out = stdout;
	if (r->c.output && strcmp(r->c.output, "-") && !(r->out = fopen(r->c.output, "w"))) {
		msg("error", "-o %s: %s", r->c.output, strerror(errno));
		return 1;
	}
	r->o.metric = (unsigned)metric;
	return GO_ON;
}

/* calls_inputs.load: input i of a merged profile loaded again as
 * merge_open loaded it, with its own calibration, not folded. */
static int reload_input(void *ctx, size_t i, const struct model **m)
{
	struct run *r = ctx;
	struct cli c = r->c;

	c.fold = 0;
	r->have_sub = 1;
	if (input_open(&r->sub, &c, r->c.inputs[i]))
		return -1;
	*m = &r->sub.m;
	return 0;
}

static void reload_drop(void *ctx)
{
	struct run *r = ctx;

	if (r->have_sub)
		input_free(&r->sub);
	r->have_sub = 0;
}

/* The report's options from the command line and the calibration. */
static void fill_opts(struct run *r)
{
	struct report_opts *o = &r->o;

	o->out = r->out;
	o->format = r->c.format;
	o->sel = &r->sel;
	o->some_threads = r->sel.npats > 0;
	o->sort = r->c.sort;
	o->order = r->c.order;
	o->trace_path = r->in.m.ninputs ? NULL : r->c.trace;
	o->res = r->in.m.ninputs ? NULL : &r->in.res; /* a merged profile: per input */
	o->calibrated = r->in.calibrated;
	o->calib = r->in.calib;
	o->calib_desc = r->in.calib_desc;
	o->max_depth = r->c.sh.max_depth;
	o->by_context = r->c.by_context;
	r->reload = (struct calls_inputs){reload_input, reload_drop, r};
	o->inputs = &r->reload;
}

/* One warning when figures passed what 64 bits hold (satsum.h): the
 * report shows them as 18446744073709551615 rather than wrapped round. */
static void saturation_warning(void)
{
	char names[256];
	unsigned seen = satsum_seen();

	if (!seen)
		return;
	satsum_names(seen, names, sizeof(names));
	msg("warning",
	    "figures past 2^64 - 1 were saturated (%s): shown as 18446744073709551615%s; the "
	    "input holds more than its counters can (a damaged or crafted file?)",
	    names, seen == SATSUM_INT64 ? " (pprof: 9223372036854775807)" : "");
}

/*
 * Applies --include/--exclude/--top/--min-pct/--simple/--merge-threads and
 * the grouping of pools (unless --split-pools) to the model (reports with REPORT_SHAPED) and runs
 * the report. Returns 0, or 1 after the message.
 */
static int run_report(struct run *r)
{
	static struct shape_info info;
	static char err[REPORT_ERR_LEN];
	static struct default_cut dc;
	char note[512];
	struct shape_opts *so = &r->c.sh.so;
	struct report_opts *o = &r->o;
	const struct report_kind *k = r->c.report;

	err[0] = '\0';
	memset(&dc, 0, sizeof(dc));
	if (k->flags & REPORT_SHAPED) {
		so->metric = o->metric;
		so->sig = r->c.sig;
		/* a folded model's one thread is the selection */
		so->sel = r->in.m.folded ? NULL : &r->sel;
		if (r->in.m.folded)
			o->sel = NULL;
		o->top = k->flags & REPORT_LIST ? so->top : 0;
		if (k->flags & REPORT_LIST)
			so->top = 0;
		o->min_duration = r->c.sh.min_duration > 0 ? r->c.sh.min_duration : 0;
		/* chrome's spans are counted on the trees as recorded */
		if (!strcmp(k->name, "chrome") && r->c.sh.min_duration < 0 && !r->c.sh.all)
			o->min_duration =
			    (double)default_cut_spans(&r->in.m, o->metric, so->sel, &dc);
		/* the threads of a pool as one tree (pools.h) where threads are
		 * shown apart: not in the timelines, which show each thread's
		 * events, nor in flat and callers, which add every thread up */
		so->pools = !r->c.sh.split_pools && strcmp(k->name, "chrome") && !r->c.sh.evented &&
			    strcmp(k->name, "flat") && strcmp(k->name, "callers");
		if ((shape_active(so) || so->pools) && shape_apply(&r->in.m, so, &info)) {
			msg("error", "out of memory while shaping the trees");
			return 1;
		}
		if (so->merge || info.pools)
			o->sel = NULL; /* the merged thread, or the groups, are the selection */
		if (!r->c.sh.all && !r->c.sh.min_pct_set && !r->c.sh.evented &&
		    strcmp(k->name, "chrome") &&
		    default_cut_trees(&r->in.m, k->name, o->format, o->metric, o->sel, so->merge,
				      &dc)) {
			msg("error", "out of memory while cutting the trees");
			return 1;
		}
		o->shaped = &info;
		o->shaping = so;
		o->evented = r->c.sh.evented;
		o->progress = progress_bar_stream(r->c.trace);
		o->err = err;
	}
	if (k->run(&r->in.m, o)) {
		msg("error", "%s", err[0] ? err : "out of memory while writing the report");
		return 1;
	}
	if (dc.active) {
		default_cut_note(&dc, note, sizeof(note));
		msg("note", "%s", note);
	}
	saturation_warning();
	return 0;
}

/* Flushes and closes the output; returns status, or 1 after the message. */
static int close_output(struct run *r, int status)
{
	if (fflush(r->out) || ferror(r->out)) {
		msg("error", "%s: write error: %s", r->c.output ? r->c.output : "stdout",
		    strerror(errno));
		status = 1;
	}
	if (r->out != stdout && fclose(r->out)) {
		msg("error", "%s: %s", r->c.output, strerror(errno));
		status = 1;
	}
	return status;
}

static void run_free(struct run *r)
{
	reload_drop(r);
	input_free(&r->in);
	cli_free(&r->c);
}

int main(int argc, char **argv)
{
	static struct run r;
	int status;

	trace_use_crc32(crc_fast);
	if (argc > 1 && !strcmp(argv[1], "calib"))
		return calib_cli_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "diff"))
		return diff_cli_main(argc - 1, argv + 1);
	if (cli_init(&r.c, argc)) {
		msg("error", "out of memory");
		return 1;
	}
	status = start(&r, argc, argv);
	if (status == GO_ON && !r.c.report->run)
		status = calib_cli_derive(&r.c); /* --report calib: no trace to load */
	if (status == GO_ON)
		status = open_trace(&r);
	if (status == GO_ON) {
		fill_opts(&r);
		status = close_output(&r, run_report(&r));
	}
	run_free(&r);
	return status;
}
