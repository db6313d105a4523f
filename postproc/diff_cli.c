/*
 * diff_cli.c - jcal-post diff: its command line (the table of
 * diff_options.c, and jcal-post's handlers for the options they share),
 * the load of every input one after the other (input.c) into the diff
 * model, or with --merge of each side's inputs as one profile (merge.c),
 * the gate, the report, the messages and the exit status: 0 ok, 1
 * bad input or output, 2 usage error, 3 a --fail-on gate failed
 * (docs/jcal-post.md, "Comparing two runs").
 */
#include "postproc/diff_cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/satsum.h"
#include "postproc/diff_options.h"
#include "postproc/input.h"
#include "postproc/merge.h"
#include "postproc/msg.h"
#include "postproc/samefile.h"
#include "postproc/shaping.h"

/* Exit status of a stage that completed: go on. */
#define GO_ON (-1)

struct diff_run_state {
	struct cli c;
	struct diff_opts d;
	const char **inputs; /* BASE's, then NEW's */
	unsigned nbase, nnew;
	struct threadsel sel;
	struct diff_model dm;
	int have_model;
	FILE *out;
};

static const struct diff_option *find_long(const char *name, size_t len)
{
	for (size_t i = 0; i < diff_noptions; i++)
		if (strlen(diff_options[i].name) == len &&
		    !strncmp(diff_options[i].name, name, len))
			return &diff_options[i];
	return NULL;
}

static const struct diff_option *find_short(char c)
{
	for (size_t i = 0; i < diff_noptions; i++)
		if (diff_options[i].short_name && diff_options[i].short_name == c)
			return &diff_options[i];
	return NULL;
}

/* Runs op's handler: diff's own, or jcal-post's option of its name. */
static int take(struct diff_run_state *s, const struct diff_option *op, const char *arg)
{
	if (op->set)
		return op->set(&s->d, arg);
	for (size_t i = 0; i < cli_noptions; i++)
		if (!strcmp(cli_options[i].name, op->name))
			return cli_options[i].set(&s->c, arg);
	msg("error", "option '--%s' has no handler", op->name);
	return -1;
}

/* One option at argv[*i]; returns 0, 1 (--help), or -1 after the message. */
static int option(struct diff_run_state *s, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *val = NULL;
	const struct diff_option *op;

	if (a[1] == '-') {
		const char *eq = strchr(a + 2, '=');

		op = find_long(a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
		val = eq ? eq + 1 : NULL;
	} else {
		op = find_short(a[1]);
		val = op && a[2] ? a + 2 : NULL;
	}
	if (!op) {
		msg("error", "unknown option '%s' (see jcal-post diff --help)", a);
		return -1;
	}
	if (!op->arg && val) {
		msg("error", "option '--%s' takes no value (see jcal-post diff --help)", op->name);
		return -1;
	}
	if (op->arg && !val) {
		if (*i + 1 >= argc) {
			msg("error", "option '%s' needs a value (see jcal-post diff --help)", a);
			return -1;
		}
		val = argv[++*i];
	}
	return take(s, op, val);
}

/* The inputs: BASE NEW, or BASE... -- NEW... Returns 0 or -1. */
static int inputs(struct diff_run_state *s, int npos, int split)
{
	if (split < 0 && npos != 2) {
		msg("error",
		    "%s (usage: jcal-post diff BASE NEW, or BASE... -- NEW...; see --help)",
		    npos < 2 ? "two inputs expected"
			     : "more than two inputs: separate the sides "
			       "with --");
		return -1;
	}
	s->nbase = split < 0 ? 1 : (unsigned)split;
	s->nnew = (unsigned)npos - s->nbase;
	if (!s->nbase || !s->nnew) {
		msg("error", "no %s input %s -- (usage: jcal-post diff BASE... -- NEW...)",
		    !s->nbase ? "BASE" : "NEW", !s->nbase ? "before" : "after");
		return -1;
	}
	if (!s->d.merge && (s->nbase > DIFF_MAX_RUNS || s->nnew > DIFF_MAX_RUNS)) {
		msg("error", "more than %d inputs on a side (--merge takes up to %d, summed)",
		    DIFF_MAX_RUNS, MERGE_MAX_INPUTS);
		return -1;
	}
	if (s->d.merge && (s->nbase > MERGE_MAX_INPUTS || s->nnew > MERGE_MAX_INPUTS)) {
		msg("error", "more than %d inputs on a side", MERGE_MAX_INPUTS);
		return -1;
	}
	for (int i = 0; i < npos; i++)
		if (!strcmp(s->inputs[i], "-")) {
			msg("error",
			    "diff reads files: give BASE and NEW as files, not stdin ('-')");
			return -1;
		}
	return 0;
}

/* Parses argv (argv[0] is "diff"). Returns an exit status, or GO_ON. */
static int parse(struct diff_run_state *s, int argc, char **argv)
{
	int npos = 0, split = -1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int r;

		if (!strcmp(a, "--") && split < 0) {
			split = npos;
		} else if (a[0] == '-' && a[1]) {
			r = option(s, argc, argv, &i);
			if (r)
				return r < 0 ? 2 : 0;
		} else {
			s->inputs[npos++] = a;
		}
	}
	if (inputs(s, npos, split))
		return 2;
	if (s->c.raw && s->c.calib) {
		msg("error", "--raw and --calib exclude each other");
		return 2;
	}
	if ((s->d.min_pct_set || s->d.all) && strcmp(s->d.report->name, "html")) {
		msg("error", "--%s applies to --report html only", s->d.all ? "all" : "min-pct");
		return 2;
	}
	if (s->d.value_set && !(s->d.report->flags & DIFF_REPORT_VALUE)) {
		msg("error", "--value applies to --report collapsed%s only",
		    diff_report_find("html") ? " and html" : "");
		return 2;
	}
	return GO_ON;
}

/* Refuses an output that is one of the inputs or the --calib table, and
 * a --calib that does not exist. Returns an exit status, or GO_ON. */
static int check_files(const struct diff_run_state *s)
{
	struct stat sb;

	for (unsigned i = 0; s->c.output && i < s->nbase + s->nnew; i++)
		if (samefile_is_input(s->c.output, s->inputs[i])) {
			msg("error",
			    "-o %s is an input it reads (%s): writing would destroy it; choose "
			    "another "
			    "output",
			    s->c.output, s->inputs[i]);
			return 1;
		}
	if (s->c.output && s->c.calib && samefile_is_input(s->c.output, s->c.calib)) {
		msg("error",
		    "-o %s is the calibration table it reads (%s): writing would destroy it; "
		    "choose "
		    "another output",
		    s->c.output, s->c.calib);
		return 1;
	}
	if (s->c.calib && strcmp(s->c.calib, "inrun") && stat(s->c.calib, &sb)) {
		msg("error", "--calib %s: %s", s->c.calib, strerror(errno));
		return 1;
	}
	return GO_ON;
}

/* The metric of input in, or -1 after the message (*status set). */
static int metric_of(struct diff_run_state *s, const struct input *in, const char *what,
		     int *status)
{
	char have[256];
	int mi = 0;

	if (s->c.metric && (mi = input_metric(in, s->c.metric, have, sizeof(have))) < 0) {
		msg("error", "--metric '%s': %s has %s", s->c.metric, what, have);
		*status = 2;
		return -1;
	}
	if (s->dm.added && (strcmp(in->m.metric[mi].name, s->dm.metric) ||
			    strcmp(in->m.metric[mi].unit, s->dm.unit))) {
		msg("error",
		    "%s measures %s (%s), %s measures %s (%s): compare runs of one metric "
		    "(--metric "
		    "NAME picks one every input has)",
		    what, in->m.metric[mi].name, in->m.metric[mi].unit, s->dm.runs[0].path,
		    s->dm.metric, s->dm.unit);
		*status = 1;
		return -1;
	}
	return mi;
}

/* --thread: at least one thread of in (named what) must match. */
static int threads_match(struct diff_run_state *s, const struct input *in, const char *what)
{
	char names[512];

	if (!s->c.nthreads)
		return 0;
	for (size_t i = 0; i < in->m.nthreads; i++)
		if (model_thread_selected(&s->sel, in->m.thread_list[i]))
			return 0;
	model_thread_names(&in->m, names, sizeof(names));
	msg("error", "--thread: no thread of %s matches (threads: %s)", what,
	    in->m.nthreads ? names : "none");
	return -1;
}

/* What the reports call a side of n inputs from first (--merge): its
 * inputs joined by " + ", or the first and last of many. */
static void side_name(const struct diff_run_state *s, unsigned first, unsigned n, char *buf,
		      size_t len)
{
	if (n == 1) {
		snprintf(buf, len, "%s", s->inputs[first]);
	} else if (n <= 3) {
		buf[0] = '\0';
		for (unsigned k = 0; k < n; k++)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", k ? " + " : "",
				 s->inputs[first + k]);
	} else {
		snprintf(buf, len, "%s + ... + %s (%u inputs)", s->inputs[first],
			 s->inputs[first + n - 1], n);
	}
}

/* Loads n inputs from first into in: the one input, or (--merge) their
 * merged profile. Returns 0, or 1 after the message. */
static int open_side(struct diff_run_state *s, struct input *in, unsigned first, unsigned n)
{
	struct cli c = s->c;

	if (n == 1)
		return input_open(in, &c, s->inputs[first]);
	c.inputs = s->inputs + first;
	c.ninputs = n;
	c.fold = 0; /* threads kept apart: the tree report groups them by name */
	return merge_open(in, &c);
}

/* A merged side's events, snapshot flag and calibration as the reports
 * describe a run (calib in buf). */
static void describe_merged(const struct input *in, struct diff_run *desc, char *buf, size_t len)
{
	size_t cal = 0, snaps = 0;

	desc->events = 0;
	for (size_t k = 0; k < in->m.ninputs; k++) {
		satsum_addto(&desc->events, in->m.inputs[k].events, SATSUM_EVENTS);
		cal += in->m.inputs[k].calibrated != 0;
		snaps += in->m.inputs[k].snapshot != 0;
	}
	desc->snapshot = snaps == in->m.ninputs;
	desc->calibrated = cal > 0;
	desc->calib = NULL;
	if (cal) {
		snprintf(buf, len, "each input with its own table (%zu of %zu calibrated)", cal,
			 in->m.ninputs);
		desc->calib = buf;
	}
}

/* Loads n inputs from first (one, or with --merge a side) and adds them
 * to the model as one run. Returns an exit status, or GO_ON. */
static int add_input(struct diff_run_state *s, unsigned first, unsigned n)
{
	static struct input in; /* large: not on the stack */
	static char path[4096], calib[256];
	struct shape_opts so = s->c.sh.so;
	struct shape_info info;
	struct diff_import im = {0};
	struct diff_run desc = {0};
	int status = GO_ON, mi;

	side_name(s, first, n, path, sizeof(path));
	if (open_side(s, &in, first, n)) {
		input_free(&in);
		return 1;
	}
	if ((mi = metric_of(s, &in, path, &status)) < 0 || threads_match(s, &in, path))
		goto out;
	so.top = 0; /* --top N: the first N rows */
	so.metric = (unsigned)mi;
	so.sig = s->c.sig;
	so.sel = &s->sel;
	if (shape_active(&so) && shape_apply(&in.m, &so, &info)) {
		msg("error", "out of memory while shaping the trees of %s", path);
		goto out;
	}
	im.metric = (unsigned)mi;
	im.sel = &s->sel;
	if (s->d.report->flags & DIFF_REPORT_CONTEXTS)
		im.max_depth = s->c.sh.max_depth == REPORT_MAX_DEPTH_NONE ? 0
			       : s->c.sh.max_depth			  ? s->c.sh.max_depth
						   : REPORT_MAX_DEPTH_DEFAULT;
	desc.path = path;
	desc.calib = (char *)in.calib_desc;
	desc.calibrated = in.calibrated;
	desc.snapshot = in.m.snapshot;
	desc.events = input_events(&in);
	if (in.m.ninputs)
		describe_merged(&in, &desc, calib, sizeof(calib));
	if (diff_model_add(&s->dm, &in.m, &im, &desc)) {
		msg("error", "out of memory while comparing %s", path);
		goto out;
	}
	status = GO_ON;
	input_free(&in);
	return status;
out:
	input_free(&in);
	return status == GO_ON ? 1 : status;
}

/* Warns when some inputs are calibrated and others are not. */
static void calibration_note(const struct diff_run_state *s)
{
	unsigned cal = 0;

	for (unsigned r = 0; r < s->dm.added; r++)
		cal += s->dm.runs[r].calibrated != 0;
	if (cal && cal < s->dm.added)
		msg("warning",
		    "%u of the %u inputs are calibrated, the others show raw figures: their cost "
		    "deltas mix both (calls are exact either way; --raw compares raw figures)",
		    cal, s->dm.added);
}

/* Loads every input into the model. Returns an exit status, or GO_ON. */
static int load(struct diff_run_state *s)
{
	int st;

	if (diff_model_init(&s->dm, s->d.merge ? 1 : s->nbase, s->d.merge ? 1 : s->nnew,
			    s->c.sig)) {
		msg("error", "out of memory");
		return 1;
	}
	s->have_model = 1;
	s->sel.pats = s->c.threads;
	s->sel.npats = s->c.nthreads;
	if (s->d.merge) {
		if ((st = add_input(s, 0, s->nbase)) != GO_ON ||
		    (st = add_input(s, s->nbase, s->nnew)) != GO_ON)
			return st;
	} else {
		for (unsigned i = 0; i < s->nbase + s->nnew; i++)
			if ((st = add_input(s, i, 1)) != GO_ON)
				return st;
	}
	if (diff_model_finish(&s->dm)) {
		msg("error", "out of memory");
		return 1;
	}
	calibration_note(s);
	return GO_ON;
}

/* Runs every gate; one line per method past it. Returns 3 when any
 * failed, 0 when none did, 1 when out of memory. */
static int gates(struct diff_run_state *s)
{
	uint32_t *order;
	size_t n;
	int failed = 0;

	if (!s->d.ngates)
		return 0;
	if (diff_report_methods(&s->dm, &order, &n)) {
		msg("error", "out of memory");
		return 1;
	}
	for (size_t g = 0; g < s->d.ngates; g++) {
		struct diff_gate_hit *hits;
		size_t nhits;
		char line[2048];

		if (diff_gate_check(&s->dm, &s->d.gates[g], order, n,
				    (const char *const *)s->c.sh.so.include, s->c.sh.so.ninclude,
				    &hits, &nhits)) {
			free(order);
			msg("error", "out of memory");
			return 1;
		}
		for (size_t i = 0; i < nhits; i++) {
			char level[64];

			snprintf(level, sizeof(level), "fail-on %s", s->d.gates[g].spec);
			diff_gate_describe(&s->dm, &s->d.gates[g], &hits[i], line, sizeof(line));
			msg(level, "%s", line);
		}
		failed |= nhits > 0;
		free(hits);
	}
	free(order);
	return failed ? 3 : 0;
}

/* Opens the output, runs the report, closes the output. Returns 0 or 1. */
static int report(struct diff_run_state *s)
{
	static char err[REPORT_ERR_LEN], note[REPORT_ERR_LEN];
	struct diff_report_opts o = {0};
	int status = 0;

	s->out = stdout;
	if (s->c.output && strcmp(s->c.output, "-") && !(s->out = fopen(s->c.output, "w"))) {
		msg("error", "-o %s: %s", s->c.output, strerror(errno));
		return 1;
	}
	o.out = s->out;
	o.format = s->c.format;
	o.top = s->c.sh.so.top;
	o.value = s->d.value;
	o.min_pct = s->d.min_pct;
	o.min_pct_set = s->d.min_pct_set;
	o.all = s->d.all;
	o.err = err;
	o.note = note;
	err[0] = note[0] = '\0';
	if (s->d.report->run(&s->dm, &o)) {
		msg("error", "%s", err[0] ? err : "out of memory while writing the report");
		status = 1;
	}
	if (fflush(s->out) || ferror(s->out)) {
		msg("error", "%s: write error: %s", s->c.output ? s->c.output : "stdout",
		    strerror(errno));
		status = 1;
	}
	if (s->out != stdout && fclose(s->out)) {
		msg("error", "%s: %s", s->c.output, strerror(errno));
		status = 1;
	}
	if (!status && note[0])
		msg("note", "%s", note);
	return status;
}

int diff_cli_main(int argc, char **argv)
{
	static struct diff_run_state s;
	int status = GO_ON, gate = 0;

	memset(&s, 0, sizeof(s));
	s.inputs = calloc((size_t)argc + 1, sizeof(*s.inputs));
	if (!s.inputs || cli_init(&s.c, argc) || diff_options_init(&s.d, argc)) {
		msg("error", "out of memory");
		status = 1;
	}
	if (status == GO_ON)
		status = parse(&s, argc, argv);
	if (status == GO_ON)
		status = check_files(&s);
	if (status == GO_ON)
		status = load(&s);
	if (status == GO_ON) {
		gate = gates(&s);
		status = gate == 1 ? 1 : report(&s);
		if (!status && satsum_seen())
			msg("warning", "figures past 2^64 - 1 were saturated: shown as "
				       "18446744073709551615 (a damaged or crafted input?)");
		if (!status)
			status = gate;
	}
	if (s.have_model)
		diff_model_free(&s.dm);
	diff_options_free(&s.d);
	cli_free(&s.c);
	free(s.inputs);
	return status;
}
