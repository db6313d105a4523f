/*
 * cli_options.c - jcal-post's options: the table cli_options[] (name,
 * short name, value, default, help, handler), the getopt_long parser built
 * from it, and --help and the man page printed from it and from the
 * report table (report.c). docs/jcal-post.md describes the options.
 */
#include "postproc/cli_options.h"
#include "common/roff.h"
#include "common/text_wrap.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "postproc/calls.h"
#include "postproc/diff_options.h"
#include "postproc/msg.h"
#include "postproc/threadsel.h"

#define JCAL_POST_VERSION "0.2.0"

/* The estimator applied by default (calib_table.h). */
#define DEFAULT_ESTIMATOR CALIB_EST_DEFAULT
#define DEFAULT_ESTIMATOR_NAME "cond"
_Static_assert(DEFAULT_ESTIMATOR == CALIB_EST_COND, "DEFAULT_ESTIMATOR_NAME is out of date");
#define MAX_DEPTH_DEFAULT_TEXT "4096"
_Static_assert(REPORT_MAX_DEPTH_DEFAULT == 4096, "MAX_DEPTH_DEFAULT_TEXT is out of date");

#define HELP_INDENT 30
#define HELP_WIDTH 80

/* ---- handlers ---- */

static int set_report(struct cli *c, const char *arg)
{
	char names[256] = "";

	c->report = report_kind_find(arg);
	if (c->report)
		return 0;
	for (size_t k = 0; k < report_nkinds; k++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 k ? ", " : "", report_kinds[k].name);
	msg("error", "--report '%s': expected %s", arg, names);
	return -1;
}

static int set_format(struct cli *c, const char *arg)
{
	if (!strcmp(arg, "text"))
		c->format = REPORT_TEXT;
	else if (!strcmp(arg, "csv"))
		c->format = REPORT_CSV;
	else if (!strcmp(arg, "json"))
		c->format = REPORT_JSON;
	else {
		msg("error", "--format '%s': expected text, csv or json", arg);
		return -1;
	}
	return 0;
}

static int set_sort(struct cli *c, const char *arg)
{
	if (!flat_sort_parse(arg, &c->sort))
		return 0;
	msg("error", "--sort '%s': expected base, cum, calls or name", arg);
	return -1;
}

static int set_order(struct cli *c, const char *arg)
{
	if (!tree_order_parse(arg, &c->order))
		return 0;
	msg("error", "--order '%s': expected cum, call, base or name", arg);
	return -1;
}

static int set_by(struct cli *c, const char *arg)
{
	if (!strcmp(arg, "method") || !strcmp(arg, "context")) {
		c->by_context = !strcmp(arg, "context");
		c->by_set = 1;
		return 0;
	}
	msg("error", "--by '%s': expected method or context", arg);
	return -1;
}

static int set_all(struct cli *c, const char *arg)
{
	(void)arg;
	c->sh.all = 1;
	return 0;
}

static int set_thread(struct cli *c, const char *arg)
{
	if (threadsel_check(arg)) {
		msg("error", "--thread '%s': expected NAME, #N or NAME#N", arg);
		return -1;
	}
	c->threads[c->nthreads++] = arg;
	return 0;
}

static int set_metric(struct cli *c, const char *arg)
{
	c->metric = arg;
	return 0;
}

static int set_sig(struct cli *c, const char *arg)
{
	(void)arg;
	c->sig = 1;
	return 0;
}

static int set_calib(struct cli *c, const char *arg)
{
	c->calib = arg;
	return 0;
}

static int set_estimator(struct cli *c, const char *arg)
{
	if (!calib_estimator_parse(arg, &c->estimator))
		return 0;
	msg("error", "--estimator '%s': expected min, p10, median, mean, cond, fit or cfit", arg);
	return -1;
}

static int set_raw(struct cli *c, const char *arg)
{
	(void)arg;
	c->raw = 1;
	return 0;
}

static int set_include(struct cli *c, const char *arg)
{
	c->sh.so.include[c->sh.so.ninclude++] = arg;
	return 0;
}

static int set_exclude(struct cli *c, const char *arg)
{
	c->sh.so.exclude[c->sh.so.nexclude++] = arg;
	return 0;
}

static int set_min_pct(struct cli *c, const char *arg)
{
	char *end;

	c->sh.min_pct_set = 1;
	c->sh.so.min_pct = strtod(arg, &end);
	if (end == arg || *end || !(c->sh.so.min_pct >= 0 && c->sh.so.min_pct <= 100)) {
		msg("error", "--min-pct '%s': expected a percentage, 0 to 100", arg);
		return -1;
	}
	return 0;
}

static int set_top(struct cli *c, const char *arg)
{
	char *end;

	errno = 0;
	c->sh.so.top = strtoul(arg, &end, 10);
	if (end == arg || *end || errno || !c->sh.so.top || arg[0] == '-') {
		msg("error", "--top '%s': expected a number of methods, 1 or more", arg);
		return -1;
	}
	return 0;
}

static int set_simple(struct cli *c, const char *arg)
{
	(void)arg;
	c->sh.so.simple = 1;
	return 0;
}

static int set_merge(struct cli *c, const char *arg)
{
	(void)arg;
	c->sh.so.merge = 1;
	return 0;
}

static int set_split_pools(struct cli *c, const char *arg)
{
	(void)arg;
	c->sh.split_pools = 1;
	return 0;
}

static int set_evented(struct cli *c, const char *arg)
{
	(void)arg;
	c->sh.evented = 1;
	return 0;
}

static int set_min_duration(struct cli *c, const char *arg)
{
	char *end;

	c->sh.min_duration = strtod(arg, &end);
	if (end == arg || *end || !(c->sh.min_duration >= 0)) {
		msg("error", "--min-duration '%s': expected a number, 0 or more", arg);
		return -1;
	}
	return 0;
}

static int set_jobs(struct cli *c, const char *arg)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (end == arg || *end || errno || arg[0] == '-' || v > CLI_JOBS_MAX) {
		msg("error", "--jobs '%s': expected a number of threads, 0 to %d", arg,
		    CLI_JOBS_MAX);
		return -1;
	}
	c->jobs = (unsigned)v;
	return 0;
}

static int set_max_depth(struct cli *c, const char *arg)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (end == arg || *end || errno || arg[0] == '-' || v >= REPORT_MAX_DEPTH_NONE) {
		msg("error",
		    "--max-depth '%s': expected a number of frames, 1 or more (0: no limit)", arg);
		return -1;
	}
	c->sh.max_depth = v ? (uint32_t)v : REPORT_MAX_DEPTH_NONE;
	return 0;
}

static int set_output(struct cli *c, const char *arg)
{
	c->output = arg;
	return 0;
}

static int show_help(struct cli *c, const char *arg)
{
	(void)c, (void)arg;
	cli_help(stdout);
	return 1;
}

static int show_man(struct cli *c, const char *arg)
{
	(void)c, (void)arg;
	cli_man(stdout);
	return 1;
}

static int show_version(struct cli *c, const char *arg)
{
	(void)c, (void)arg;
	printf("jcal-post %s (trace format %d.%d)\n", JCAL_POST_VERSION, TRACE_VERSION_MAJOR,
	       TRACE_VERSION_MINOR);
	return 1;
}

/* ---- the table ---- */

const struct cli_option cli_options[] = {
    {"report", 0, "KIND", "tree", "what to print: a report or an export (see Reports below)",
     set_report},
    {"format", 0, "text|csv|json", "text", "output format of the reports", set_format},
    {"sort", 0, "base|cum|calls|name", "base", "order of the flat report", set_sort},
    {"by", 0, "method|context", "method",
     "latency: a row per method, or per calling context (the contexts of every thread merged "
     "by path)",
     set_by},
    {"order", 0, "cum|call|base|name", "cum",
     "tree: each context's children by cum or base (largest first), by name, or in the order "
     "they were first called; ties in first-call order",
     set_order},
    {"thread", 0, "NAME|#N|virtual|platform", "all",
     "only threads named NAME (a glob, e.g. 'pool-*'), or with serial N, or NAME#N, or every "
     "virtual or platform thread; repeatable. With several inputs NAME matches a thread's own "
     "name or its name with its input ('main [2 host:pid]')",
     set_thread},
    {"metric", 0, "NAME", "the first one",
     "metric to show when the trace has several; offcpu: wall time minus CPU time, for a "
     "recording of metric=cputime+tsc",
     set_metric},
    {"sig", 0, NULL, "off, names are package.Class.method",
     "append the JVM signature to method names", set_sig},
    {"calib", 0, "FILE|DIR|inrun",
     "inrun for a trace made with recalibrate=, else $JCAL_CALIB_DIR, else "
     "~/.local/share/jcal/calib",
     "calibration table, or directory of tables, to apply: a directory gives the table whose "
     "host fingerprint is the trace's; a FILE is applied even when it differs, with a warning. "
     "Compensation applies to metric 0 only. inrun: the samples the agent took in this run "
     "(recalibrate=start|end|both|PERIOD)",
     set_calib},
    {"estimator", 0, "min|p10|median|mean|cond|fit|cfit", DEFAULT_ESTIMATOR_NAME,
     "statistic of each key's calibration samples taken as the agent's overhead: min is the "
     "per-sequence minimum; cond takes, per delta, the mean of the key's overheads that are not "
     "above the delta; fit takes the key's overhead as a line in the step's own work (a table "
     "of version 3; cond for keys without one); cfit takes cond for deltas within the key's "
     "empty-body deltas and the fit, held between cond's overhead and the delta's excess, "
     "past them",
     set_estimator},
    {"raw", 0, NULL, "off", "no compensation: raw figures", set_raw},
    {"include", 0, "PATTERN", "all",
     "only contexts with a method matching PATTERN (glob on package.Class.method) on their "
     "path; repeatable",
     set_include},
    {"exclude", 0, "PATTERN", "none",
     "fold frames of matching methods into their caller; repeatable", set_exclude},
    {"min-pct", 0, "P", "0, or a default cut on a large trace (see --all)",
     "fold contexts under P% of their thread's cum, with their subtree, into the parent",
     set_min_pct},
    {"top", 0, "N", "all",
     "arcs, callers, flat, latency: the first N rows; slow: the N slowest calls (default 20); "
     "other reports: only the N methods of largest cum keep frames, the others fold into "
     "callers",
     set_top},
    {"simple", 0, NULL, "off", "class names without their package", set_simple},
    {"merge-threads", 0, NULL, "off",
     "one tree for all selected threads (of every input); each thread is folded into it as it "
     "ends, so memory follows the calling contexts, not the threads",
     set_merge},
    {"split-pools", 0, NULL, "pools grouped",
     "one tree per thread, also for the threads of one pool, whose names differ only in the "
     "number that ends them (http-nio-8080-exec-1 .. -10): tree, hot, arcs and the exports but "
     "chrome show those as one tree per pool, 'http-nio-8080-exec-* (10 threads)'",
     set_split_pools},
    {"speedscope-evented", 0, NULL, "sampled",
     "speedscope: evented profiles (timelines) from the events; reads FILE again", set_evented},
    {"min-duration", 0, "N", "0, or a default cut on a large trace (see --all)",
     "chrome: leave out spans shorter than N (ns for time metrics, else counts)", set_min_duration},
    {"jobs", 'j', "N", "the CPUs less one, at most 4",
     "threads that decode and build the threads' trees while the trace is read (each "
     "trace thread's tree on one of them; from standard input they only build); 0 builds "
     "them on the reading thread",
     set_jobs},
    {"max-depth", 0, "N", MAX_DEPTH_DEFAULT_TEXT,
     "tree, callers, collapsed, speedscope, pprof, html: the frames of a context deeper than N "
     "are folded into one '<deeper frames folded>' frame holding their calls and metric; flat, "
     "arcs and summary stay exact per method; 0: no limit",
     set_max_depth},
    {"all", 0, NULL, "off",
     "no default cut. On a large trace the text tree folds, in a thread of more than 100000 "
     "contexts, those under 0.5% of its cum; collapsed, sampled speedscope, pprof and html take "
     "the smallest --min-pct that keeps them near 32 MB; chrome the smallest --min-duration "
     "that keeps 200000 spans; one note on stderr names the cut. --min-pct or --min-duration "
     "given (0 too) replace the default cut",
     set_all},
    {"output", 'o', "FILE", "stdout", "write the report to FILE", set_output},
    {"help", 'h', NULL, NULL, "this text", show_help},
    {"man", 0, NULL, NULL, "this text as a troff man page (jcal-post.1)", show_man},
    {"version", 'V', NULL, NULL, "version of jcal-post and the trace format it reads",
     show_version},
};
const size_t cli_noptions = sizeof(cli_options) / sizeof(cli_options[0]);

/* ---- parsing ---- */

int cli_init(struct cli *c, int argc)
{
	memset(c, 0, sizeof(*c));
	/* --thread, --include and --exclude patterns: argc each at most */
	c->threads = calloc(3 * (size_t)argc, sizeof(*c->threads));
	if (!c->threads)
		return -1;
	c->sh.so.include = c->threads + argc;
	c->sh.so.exclude = c->threads + 2 * argc;
	c->sh.min_duration = -1;
	c->estimator = DEFAULT_ESTIMATOR;
	c->report = report_kind_find("tree");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	c->jobs = cpus > 1 ? (unsigned)(cpus - 1 < 4 ? cpus - 1 : 4) : 0;
	return 0;
}

void cli_free(struct cli *c)
{
	free(c->threads);
	c->threads = NULL;
}

/* The option of getopt_long's return value ch; NULL for none. */
static const struct cli_option *option_of(int ch)
{
	if (ch >= 256 && (size_t)(ch - 256) < cli_noptions)
		return &cli_options[ch - 256];
	for (size_t i = 0; i < cli_noptions; i++)
		if (cli_options[i].short_name && cli_options[i].short_name == ch)
			return &cli_options[i];
	return NULL;
}

/* Several inputs: files, and a report that reads each once. Returns 0 or
 * -1 after the message. */
static int check_inputs(const struct cli *c)
{
	const char *kind = c->report->name;

	for (size_t i = 0; i < c->ninputs; i++)
		if (!strcmp(c->inputs[i], "-")) {
			msg("error", "several inputs are files: stdin ('-') is one input alone");
			return -1;
		}
	if (!c->report->run) {
		msg("error",
		    "--report calib derives a table from one calibration trace, got %zu "
		    "inputs",
		    c->ninputs);
		return -1;
	}
	if (!strcmp(kind, "chrome") || c->sh.evented) {
		msg("error",
		    "--report %s draws one recording's timeline from its events: give one "
		    "input, not %zu",
		    !strcmp(kind, "chrome") ? "chrome" : "speedscope --speedscope-evented",
		    c->ninputs);
		return -1;
	}
	return 0;
}

/* The waits report lists the JVM's waits, not the trees: the options that
 * shape trees would change nothing. Returns 0, or -1 after the message. */
static int check_waits(const struct cli *c)
{
	const struct shape_opts *so = &c->sh.so;
	const char *opt = so->ninclude	      ? "--include"
			  : so->nexclude      ? "--exclude"
			  : so->top	      ? "--top"
			  : c->sh.min_pct_set ? "--min-pct"
			  : so->merge	      ? "--merge-threads"
					      : NULL;

	if (!opt)
		return 0;
	msg("error",
	    "--report waits lists the JVM's waits per method and monitor class: %s does "
	    "not apply (--thread selects the threads)",
	    opt);
	return -1;
}

/* Whether an input is a tree snapshot. */
static int any_snapshot(const struct cli *c)
{
	for (size_t i = 0; i < c->ninputs; i++)
		if (model_peek_snapshot(c->inputs[i]) == 1)
			return 1;
	return 0;
}

/* The reports of single calls (latency, slow) read one trace again, call by
 * call; each takes one tree snapshot too (latency its histograms, slow the
 * calls its agent kept with slow=). Returns 0, or -1 after the message. */
static int check_calls(const struct cli *c)
{
	const char *kind = c->report->name;

	if (!strcmp(c->trace, "-"))
		msg("error", "--report %s reads the trace again: give a file, not stdin", kind);
	else if (any_snapshot(c) && c->ninputs > 1 && strcmp(kind, "slow"))
		msg("error", "--report %s: %s", kind, CALLS_NEED_TRACE);
	else if (c->sh.so.merge)
		msg("error", "--report %s takes each call apart: --merge-threads does not apply",
		    kind);
	else if (c->sh.min_pct_set)
		msg("error", "--report %s takes each call apart: --min-pct does not apply", kind);
	else
		return 0;
	return -1;
}

/* Checks what no single option can: the trace operand and the options
 * that exclude or need each other. Returns 0 or -1 after the message. */
static int check_args(int argc, char **argv, struct cli *c)
{
	const char *kind = c->report->name;

	if (optind >= argc) {
		msg("error",
		    "no trace file given (usage: jcal-post FILE... [options]; see --help)");
		return -1;
	}
	c->trace = argv[optind];
	c->inputs = (const char *const *)argv + optind;
	c->ninputs = (size_t)(argc - optind);
	if (c->ninputs > 1 && check_inputs(c))
		return -1;
	if (c->raw && c->calib) {
		msg("error", "--raw and --calib exclude each other");
		return -1;
	}
	if (c->sh.evented && strcmp(kind, "speedscope")) {
		msg("error", "--speedscope-evented applies to --report speedscope only");
		return -1;
	}
	if (c->sh.min_duration >= 0 && strcmp(kind, "chrome")) {
		msg("error", "--min-duration applies to --report chrome only");
		return -1;
	}
	if (c->by_set && strcmp(kind, "latency")) {
		msg("error", "--by applies to --report latency only");
		return -1;
	}
	if ((!strcmp(kind, "latency") || !strcmp(kind, "slow")) && check_calls(c))
		return -1;
	if (!strcmp(kind, "waits") && check_waits(c))
		return -1;
	if ((!strcmp(kind, "chrome") || c->sh.evented) && !strcmp(c->trace, "-")) {
		msg("error", "--report %s reads the trace again: give a file, not stdin",
		    !strcmp(kind, "chrome") ? "chrome" : "speedscope --speedscope-evented");
		return -1;
	}
	if (!strcmp(kind, "pprof") && (!c->output || !strcmp(c->output, "-")) && isatty(1)) {
		msg("error", "--report pprof writes gzipped binary data: give -o FILE");
		return -1;
	}
	return 0;
}

int cli_parse(int argc, char **argv, struct cli *c)
{
	struct option lo[sizeof(cli_options) / sizeof(cli_options[0]) + 1];
	char shorts[2 * sizeof(cli_options) / sizeof(cli_options[0]) + 2] = ":";
	size_t ns = 1;
	int ch;

	for (size_t i = 0; i < cli_noptions; i++) {
		const struct cli_option *op = &cli_options[i];

		lo[i].name = op->name;
		lo[i].has_arg = op->arg ? required_argument : no_argument;
		lo[i].flag = NULL;
		lo[i].val = op->short_name ? op->short_name : (int)(256 + i);
		if (op->short_name) {
			shorts[ns++] = op->short_name;
			if (op->arg)
				shorts[ns++] = ':';
		}
	}
	memset(&lo[cli_noptions], 0, sizeof(lo[cli_noptions]));
	shorts[ns] = '\0';
	opterr = 0;
	while ((ch = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct cli_option *op = option_of(ch);
		int r;

		if (ch == ':') {
			msg("error", "option '%s' needs a value (see --help)", argv[optind - 1]);
			return -1;
		}
		if (!op) {
			msg("error", "unknown option '%s' (see --help)", argv[optind - 1]);
			return -1;
		}
		r = op->set(c, op->arg ? optarg : NULL);
		if (r)
			return r;
	}
	return check_args(argc, argv, c);
}

/* ---- --help and the man page ---- */

void cli_help(FILE *f)
{
	fputs("usage: jcal-post FILE... [options]\n"
	      "       jcal-post diff BASE NEW [options]          compare two runs (see jcal-post\n"
	      "                                                  diff --help)\n"
	      "       jcal-post calib show|check|merge|diff ...  (see jcal-post calib --help)\n"
	      "Builds per-Java-thread call trees from a jcal trace or tree snapshot (FILE,\n"
	      "or - for stdin) and prints a report; several FILEs are merged into one\n"
	      "profile, each compensated with its own table (see docs/jcal-post.md).\n\n",
	      f);
	for (size_t i = 0; i < cli_noptions; i++) {
		const struct cli_option *op = &cli_options[i];

		text_help_option(f, op->short_name, op->name, op->arg, op->help, op->def,
				 HELP_INDENT, HELP_WIDTH);
	}
	fputs("\nReports (--report KIND):\n", f);
	for (size_t k = 0; k < report_nkinds; k++)
		text_wrap_after(f, fprintf(f, "  %s", report_kinds[k].name), report_kinds[k].help,
				HELP_INDENT, HELP_WIDTH);
	fputs("\nExit status: 0 ok (a truncated trace is reported with a warning), 1 bad input\n"
	      "or output, 2 usage error.\n",
	      f);
}

void cli_man(FILE *f)
{
	fputs(".TH JCAL-POST 1 \"\" \"jcal-post " JCAL_POST_VERSION "\" \"jcal\"\n"
	      ".SH NAME\njcal\\-post \\- reports and exports of jcal traces\n"
	      ".SH SYNOPSIS\n.B jcal\\-post\n.I FILE...\n[\\fIoptions\\fR]\n.br\n"
	      ".B jcal\\-post diff\n.I BASE NEW\n[\\fIoptions\\fR]\n.br\n"
	      ".B jcal\\-post calib\nshow|check|merge|diff ...\n"
	      ".SH DESCRIPTION\nBuilds per\\-Java\\-thread call trees from a jcal trace or tree "
	      "snapshot (\\fIFILE\\fR, or \\- for stdin) and prints a report; several "
	      "\\fIFILE\\fRs are merged into one profile, each compensated with its own "
	      "calibration table. "
	      "The options and reports are described in docs/jcal\\-post.md.\n"
	      ".SH OPTIONS\n",
	      f);
	for (size_t i = 0; i < cli_noptions; i++)
		roff_option(f, cli_options[i].short_name, cli_options[i].name, cli_options[i].arg,
			    cli_options[i].help, cli_options[i].def);
	fputs(".SH REPORTS\n", f);
	for (size_t k = 0; k < report_nkinds; k++) {
		fputs(".TP\n.B ", f);
		roff_text(f, report_kinds[k].name);
		fputc('\n', f);
		roff_text(f, report_kinds[k].help);
		fputc('\n', f);
	}
	diff_options_man(f);
	fputs(".SH EXIT STATUS\n0 ok (a truncated trace is reported with a warning), 1 bad input "
	      "or output, 2 usage error; for jcal\\-post diff, 3 a \\-\\-fail\\-on gate failed.\n"
	      ".SH SEE ALSO\njcal\\-post diff \\-\\-help; jcal\\-post calib \\-\\-help; "
	      "docs/jcal\\-post.md\n",
	      f);
}
