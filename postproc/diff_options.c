/*
 * diff_options.c - jcal-post diff's option table (see diff_options.h),
 * the handlers of its own options, its --help and its section of the man
 * page. docs/jcal-post.md, "Comparing two runs", describes them.
 */
#include "postproc/diff_options.h"

#include <stdlib.h>
#include <string.h>

#include "common/roff.h"
#include "common/text_wrap.h"
#include "postproc/msg.h"

#define HELP_INDENT 30
#define HELP_WIDTH 80

static int set_report(struct diff_opts *d, const char *arg)
{
	char names[256] = "";

	d->report = diff_report_find(arg);
	if (d->report)
		return 0;
	for (size_t k = 0; k < diff_report_nkinds; k++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 k ? ", " : "", diff_report_kinds[k].name);
	msg("error", "--report '%s': expected %s", arg, names);
	return -1;
}

static int set_fail_on(struct diff_opts *d, const char *arg)
{
	if (diff_gate_parse(arg, &d->gates[d->ngates])) {
		msg("error",
		    "--fail-on '%s': expected calls:PCT or cum:PCT (PCT a percentage, 0 or "
		    "more: 0, 5%%, 2.5%%)",
		    arg);
		return -1;
	}
	d->ngates++;
	return 0;
}

static int set_value(struct diff_opts *d, const char *arg)
{
	if (!strcmp(arg, "base"))
		d->value = DIFF_VALUE_BASE;
	else if (!strcmp(arg, "calls"))
		d->value = DIFF_VALUE_CALLS;
	else {
		msg("error", "--value '%s': expected base or calls", arg);
		return -1;
	}
	d->value_set = 1;
	return 0;
}

static int set_min_pct(struct diff_opts *d, const char *arg)
{
	char *end;

	d->min_pct_set = 1;
	d->min_pct = strtod(arg, &end);
	if (end == arg || *end || !(d->min_pct >= 0 && d->min_pct <= 100)) {
		msg("error", "--min-pct '%s': expected a percentage, 0 to 100", arg);
		return -1;
	}
	return 0;
}

static int set_all(struct diff_opts *d, const char *arg)
{
	(void)arg;
	d->all = 1;
	return 0;
}

static int set_merge(struct diff_opts *d, const char *arg)
{
	(void)arg;
	d->merge = 1;
	return 0;
}

static int show_help(struct diff_opts *d, const char *arg)
{
	(void)d, (void)arg;
	diff_options_help(stdout);
	return 1;
}

const struct diff_option diff_options[] = {
    {"report", 0, "KIND", "flat", "what to print: a report or an export (see Reports below)",
     set_report},
    {"format", 0, "text|csv|json", "text", "output format of flat, tree and callers", NULL},
    {"metric", 0, "NAME", "the first one",
     "the metric whose costs are compared; every input must have it, and inputs of different "
     "metrics are refused",
     NULL},
    {"thread", 0, "NAME|#N|virtual|platform", "all",
     "only the matching threads of every input (each input must have one), as in jcal-post's "
     "reports; repeatable",
     NULL},
    {"include", 0, "PATTERN", "all",
     "only contexts with a method matching PATTERN on their path (glob on package.Class.method), "
     "and only methods matching it for --fail-on; repeatable",
     NULL},
    {"exclude", 0, "PATTERN", "none",
     "fold frames of matching methods into their caller in every input; repeatable", NULL},
    {"merge", 0, NULL, "off (a side's inputs are runs of one build, compared by their medians)",
     "each side's inputs merged into one profile as jcal-post FILE... merges them (counts "
     "summed, each input compensated with its own table, threads matched by their own names), "
     "the two profiles compared as one run a side: a fleet's recordings before and after",
     set_merge},
    {"fail-on", 0, "calls:PCT|cum:PCT", "none",
     "the gate: exit with status 3 when a method in scope has more calls (or a larger "
     "calibrated cum) in NEW than in BASE by more than PCT percent (0, 5%, 2.5%; a method BASE "
     "lacks counts as grown), after one line on stderr per such method; the report is still "
     "written; repeatable",
     set_fail_on},
    {"value", 0, "base|calls", "base",
     "collapsed: the values of each line, the context's self cost in the metric's unit or its "
     "calls; html: what the page starts on, cost or calls",
     set_value},
    {"min-pct", 0, "P", "0, or a default cut of a large page (see --all)",
     "html: fold the contexts under P% of both runs' calls and cost (in each run, with their "
     "callees') into one frame per caller",
     set_min_pct},
    {"all", 0, NULL, "off",
     "html: no default cut (a page that would pass 32 MB folds its smallest contexts, as "
     "--min-pct does, and says so on stderr)",
     set_all},
    {"top", 0, "N", "all",
     "flat, callers: the first N methods; tree: the N contexts of largest change with their "
     "callers; collapsed: the N lines of largest change",
     NULL},
    {"sig", 0, NULL, "off", "names with the JVM method descriptor", NULL},
    {"calib", 0, "FILE|DIR|inrun", "each input's own table, found by its host fingerprint",
     "calibration table, or directory of tables, for every input (a FILE applied to an input of "
     "another fingerprint with a warning, as jcal-post does)",
     NULL},
    {"estimator", 0, "min|p10|median|mean|cond|fit|cfit", "cond",
     "statistic of the calibration samples taken as the agent's overhead (as in jcal-post)", NULL},
    {"raw", 0, NULL, "off", "no compensation of any input: raw figures", NULL},
    {"max-depth", 0, "N", "4096",
     "tree, collapsed: the frames of a context deeper than N are folded into one '<deeper "
     "frames folded>' frame; flat, callers and --fail-on stay exact; 0: no limit",
     NULL},
    {"jobs", 'j', "N", "the CPUs less one, at most 4",
     "threads that build each input's trees while it is read", NULL},
    {"output", 'o', "FILE", "stdout", "write the report to FILE", NULL},
    {"help", 'h', NULL, NULL, "this text", show_help},
};
const size_t diff_noptions = sizeof(diff_options) / sizeof(diff_options[0]);

int diff_options_init(struct diff_opts *d, int argc)
{
	memset(d, 0, sizeof(*d));
	d->report = diff_report_find("flat");
	d->gates = calloc(argc > 0 ? (size_t)argc : 1, sizeof(*d->gates));
	return d->gates ? 0 : -1;
}

void diff_options_free(struct diff_opts *d)
{
	free(d->gates);
	d->gates = NULL;
}

static const char usage[] =
    "usage: jcal-post diff BASE NEW [options]\n"
    "       jcal-post diff BASE... -- NEW... [options]   several runs on each side\n"
    "       jcal-post diff --merge BASE... -- NEW...     each side one merged profile\n"
    "Compares two runs: BASE and NEW are each a trace or a tree snapshot (mixed\n"
    "allowed), each loaded and calibrated as jcal-post loads one. Methods match by\n"
    "class, name and descriptor, with the addresses and counters of generated classes\n"
    "(lambdas, hidden classes, proxies...) normalised; threads by name, pool numbers\n"
    "normalised. With several runs a side, figures are medians and cost changes are\n"
    "judged against the runs' spread; with --merge each side's inputs are summed into\n"
    "one profile (docs/jcal-post.md, \"Comparing two runs\").\n\n";

void diff_options_help(FILE *f)
{
	fputs(usage, f);
	for (size_t i = 0; i < diff_noptions; i++) {
		const struct diff_option *op = &diff_options[i];

		text_help_option(f, op->short_name, op->name, op->arg, op->help, op->def,
				 HELP_INDENT, HELP_WIDTH);
	}
	fputs("\nReports (--report KIND):\n", f);
	for (size_t k = 0; k < diff_report_nkinds; k++)
		text_wrap_after(f, fprintf(f, "  %s", diff_report_kinds[k].name),
				diff_report_kinds[k].help, HELP_INDENT, HELP_WIDTH);
	fputs("\nExit status: 0 ok, 1 bad input or output, 2 usage error, 3 a --fail-on gate\n"
	      "failed.\n",
	      f);
}

void diff_options_man(FILE *f)
{
	fputs(".SH DIFF\n.B jcal\\-post diff\n.I BASE NEW\n[\\fIoptions\\fR]\n.br\n"
	      ".B jcal\\-post diff\n.I BASE... \\-\\- NEW...\n[\\fIoptions\\fR]\n.PP\n",
	      f);
	roff_text(f, "Compares two runs, or two sets of runs: each input a trace or a tree "
		     "snapshot, loaded and calibrated as jcal-post loads one; methods matched by "
		     "class, name and descriptor with the addresses and counters of generated "
		     "classes normalised, threads by name with pool numbers normalised. Exit "
		     "status 3 when a --fail-on gate failed. With --merge, each side's inputs are "
		     "merged into one profile, their counts summed.");
	fputs("\n.PP\nOptions of \\fBjcal\\-post diff\\fR:\n", f);
	for (size_t i = 0; i < diff_noptions; i++)
		roff_option(f, diff_options[i].short_name, diff_options[i].name,
			    diff_options[i].arg, diff_options[i].help, diff_options[i].def);
	fputs(".PP\nReports of \\fBjcal\\-post diff\\fR (\\-\\-report):\n", f);
	for (size_t k = 0; k < diff_report_nkinds; k++) {
		fputs(".TP\n.B ", f);
		roff_text(f, diff_report_kinds[k].name);
		fputc('\n', f);
		roff_text(f, diff_report_kinds[k].help);
		fputc('\n', f);
	}
}
