/*
 * test-cli-options.c - unit tests of jcal-post's option and report tables
 * (postproc/cli_options.c, postproc/report.c): --help and the man page
 * name every option with its value and default and every report, and the
 * parser built from the table takes long and short options. jcal-post
 * diff's table (postproc/diff_options.c): each row it shares with
 * jcal-post's names an option of jcal-post's table that takes the same
 * value, and its --help and the man page's DIFF section name every row and
 * every diff report.
 */
#include <getopt.h>
#include <stdlib.h>

#include "postproc/cli_options.h"
#include "postproc/diff_options.h"
#include "native-tests/test.h"

/* What f wrote, blanks and newlines collapsed to one space (the help is
 * wrapped); malloc'ed. */
static char *flat_text(char *buf)
{
	char *out = malloc(strlen(buf) + 1), *q = out;

	for (const char *p = buf; *p; p++) {
		if (*p == ' ' || *p == '\n') {
			if (q > out && q[-1] != ' ')
				*q++ = ' ';
		} else {
			*q++ = *p;
		}
	}
	*q = '\0';
	free(buf);
	return out;
}

static char *capture(void (*fn)(FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fn(f);
	fclose(f);
	return flat_text(buf);
}

/* s with '-' as troff's "\-". */
static void troff_minus(const char *s, char *out, size_t len)
{
	size_t n = 0;

	for (; *s && n + 3 < len; s++) {
		if (*s == '-')
			out[n++] = '\\';
		out[n++] = *s;
	}
	out[n] = '\0';
}

static void test_help_lists_every_option(void)
{
	char *h = capture(cli_help);
	char want[512];

	CHECK(h != NULL);
	for (size_t i = 0; h && i < cli_noptions; i++) {
		const struct cli_option *op = &cli_options[i];

		snprintf(want, sizeof(want), "--%s%s%s", op->name, op->arg ? " " : "",
			 op->arg ? op->arg : "");
		if (!strstr(h, want))
			fprintf(stderr, "  --help lacks '%s'\n", want);
		CHECK(strstr(h, want) != NULL);
		if (op->short_name) {
			snprintf(want, sizeof(want), "-%c, --%s", op->short_name, op->name);
			CHECK(strstr(h, want) != NULL);
		}
		if (op->def) {
			snprintf(want, sizeof(want), "(default: %s)", op->def);
			if (!strstr(h, want))
				fprintf(stderr, "  --help lacks '%s'\n", want);
			CHECK(strstr(h, want) != NULL);
		}
	}
	for (size_t k = 0; h && k < report_nkinds; k++) {
		snprintf(want, sizeof(want), " %s %s", report_kinds[k].name, report_kinds[k].help);
		CHECK(strstr(h, want) != NULL);
	}
	free(h);
}

static void test_man_names_every_option(void)
{
	char *m = capture(cli_man);
	char name[256], want[512];

	CHECK(m != NULL);
	CHECK(m && !strncmp(m, ".TH JCAL-POST 1 ", 16));
	CHECK(m && strstr(m, ".SH OPTIONS") && strstr(m, ".SH REPORTS"));
	for (size_t i = 0; m && i < cli_noptions; i++) {
		const struct cli_option *op = &cli_options[i];

		troff_minus(op->name, name, sizeof(name));
		if (op->short_name)
			snprintf(want, sizeof(want), ".TP \\fB\\-%c\\fR, \\fB\\-\\-%s\\fR",
				 op->short_name, name);
		else
			snprintf(want, sizeof(want), ".TP \\fB\\-\\-%s\\fR", name);
		if (!strstr(m, want))
			fprintf(stderr, "  man page lacks '%s'\n", want);
		CHECK(strstr(m, want) != NULL);
		if (op->def) {
			troff_minus(op->def, name, sizeof(name));
			snprintf(want, sizeof(want), "(default: %s)", name);
			CHECK(strstr(m, want) != NULL);
		}
	}
	for (size_t k = 0; m && k < report_nkinds; k++) {
		snprintf(want, sizeof(want), ".TP .B %s ", report_kinds[k].name);
		CHECK(strstr(m, want) != NULL);
	}
	free(m);
}

static void test_table_is_consistent(void)
{
	for (size_t i = 0; i < cli_noptions; i++) {
		CHECK(cli_options[i].name && cli_options[i].help && cli_options[i].set);
		for (size_t j = i + 1; j < cli_noptions; j++) {
			CHECK(strcmp(cli_options[i].name, cli_options[j].name));
			CHECK(!cli_options[i].short_name ||
			      cli_options[i].short_name != cli_options[j].short_name);
		}
	}
	for (size_t k = 0; k < report_nkinds; k++)
		CHECK(report_kind_find(report_kinds[k].name) == &report_kinds[k]);
	CHECK(report_kind_find("nope") == NULL);
	CHECK(report_kind_find("calib") && !report_kind_find("calib")->run);
}

static void test_parse(void)
{
	char *argv[] = {"jcal-post", "--report",  "flat",     "--top", "3",
			"-o",	     "out.txt",	  "--thread", "main",  "--max-depth=0",
			"--raw",     "trace.bin", NULL};
	struct cli c;

	CHECK_EQ_I(cli_init(&c, 12), 0);
	optind = 0;
	CHECK_EQ_I(cli_parse(12, argv, &c), 0);
	CHECK_STR(c.report->name, "flat");
	CHECK_EQ_U(c.sh.so.top, 3);
	CHECK_STR(c.output, "out.txt");
	CHECK_EQ_U(c.nthreads, 1);
	CHECK_STR(c.threads[0], "main");
	CHECK_EQ_U(c.sh.max_depth, REPORT_MAX_DEPTH_NONE);
	CHECK_EQ_I(c.raw, 1);
	CHECK_STR(c.trace, "trace.bin");
	cli_free(&c);
}

/* The reports of single calls: --by for latency only; several inputs
 * taken; stdin, --merge-threads and --min-pct refused. The waits report
 * takes --thread and refuses the options that shape trees. */
static void test_parse_calls(void)
{
	static const struct {
		int line;
		const char *args[6];
		int rc, by_context;
	} cases[] = {
	    {__LINE__, {"--report", "latency", "--by", "context", "t.bin"}, 0, 1},
	    {__LINE__, {"--report", "latency", "--by", "method", "t.bin"}, 0, 0},
	    {__LINE__, {"--report", "slow", "--top", "5", "t.bin"}, 0, 0},
	    {__LINE__, {"--report", "flat", "--by", "context", "t.bin"}, -1, 0},
	    {__LINE__, {"--report", "latency", "--by", "path", "t.bin"}, -1, 0},
	    {__LINE__, {"--report", "latency", "--merge-threads", "t.bin"}, -1, 0},
	    {__LINE__, {"--report", "slow", "--min-pct", "1", "t.bin"}, -1, 0},
	    {__LINE__, {"--report", "latency", "-"}, -1, 0},
	    {__LINE__, {"--report", "slow", "a.bin", "b.bin"}, 0, 0},
	    /* waits: --thread only; the options that shape trees refused */
	    {__LINE__, {"--report", "waits", "--thread", "main", "t.bin"}, 0, 0},
	    {__LINE__, {"--report", "waits", "--include", "*x", "t.bin"}, -1, 0},
	    {__LINE__, {"--report", "waits", "--exclude", "*x", "t.bin"}, -1, 0},
	    {__LINE__, {"--report", "waits", "--top", "1", "t.bin"}, -1, 0},
	    {__LINE__, {"--report", "waits", "--min-pct", "1", "t.bin"}, -1, 0},
	    {__LINE__, {"--report", "waits", "--merge-threads", "t.bin"}, -1, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[8] = {"jcal-post"};
		int argc = 1, rc;
		struct cli c;

		for (size_t k = 0; k < 6 && cases[i].args[k]; k++)
			argv[argc++] = (char *)cases[i].args[k];
		CHECK_EQ_I(cli_init(&c, argc), 0);
		optind = 0;
		rc = cli_parse(argc, argv, &c);
		if (rc != cases[i].rc || (!rc && c.by_context != cases[i].by_context))
			fprintf(stderr, "  case of line %d: %d\n", cases[i].line, rc);
		CHECK_EQ_I(rc, cases[i].rc);
		CHECK(rc || c.by_context == cases[i].by_context);
		cli_free(&c);
	}
}

static void test_diff_table(void)
{
	for (size_t i = 0; i < diff_noptions; i++) {
		const struct diff_option *op = &diff_options[i];
		const struct cli_option *shared = NULL;

		CHECK(op->name && op->help);
		for (size_t j = 0; j < cli_noptions; j++)
			if (!strcmp(cli_options[j].name, op->name))
				shared = &cli_options[j];
		/* a row without a handler is taken by jcal-post's option of its name */
		if (!op->set) {
			if (!shared)
				fprintf(stderr, "  diff's --%s has no handler\n", op->name);
			CHECK(shared != NULL);
			CHECK(shared && !shared->arg == !op->arg);
			CHECK(shared && shared->short_name == op->short_name);
		}
		for (size_t j = i + 1; j < diff_noptions; j++) {
			CHECK(strcmp(op->name, diff_options[j].name));
			CHECK(!op->short_name || op->short_name != diff_options[j].short_name);
		}
	}
	for (size_t k = 0; k < diff_report_nkinds; k++)
		CHECK(diff_report_find(diff_report_kinds[k].name) == &diff_report_kinds[k]);
	CHECK(diff_report_find("summary") == NULL);
}

static void test_diff_help_and_man(void)
{
	char *h = capture(diff_options_help), *m = capture(cli_man), *top = capture(cli_help);
	char name[256], want[512];

	CHECK(h && m && top);
	CHECK(top && strstr(top, "jcal-post diff BASE NEW [options]"));
	CHECK(h && strstr(h, "usage: jcal-post diff BASE NEW [options]") == h);
	CHECK(m && strstr(m, ".SH DIFF") && strstr(m, "jcal\\-post diff \\-\\-help"));
	for (size_t i = 0; h && m && i < diff_noptions; i++) {
		const struct diff_option *op = &diff_options[i];

		snprintf(want, sizeof(want), "--%s%s%s", op->name, op->arg ? " " : "",
			 op->arg ? op->arg : "");
		if (!strstr(h, want))
			fprintf(stderr, "  diff --help lacks '%s'\n", want);
		CHECK(strstr(h, want) != NULL);
		troff_minus(op->name, name, sizeof(name));
		snprintf(want, sizeof(want), "\\fB\\-\\-%s\\fR", name);
		CHECK(strstr(strstr(m, ".SH DIFF"), want) != NULL);
	}
	for (size_t k = 0; h && m && k < diff_report_nkinds; k++) {
		snprintf(want, sizeof(want), " %s %s", diff_report_kinds[k].name,
			 diff_report_kinds[k].help);
		CHECK(strstr(h, want) != NULL);
		snprintf(want, sizeof(want), ".TP .B %s ", diff_report_kinds[k].name);
		CHECK(strstr(strstr(m, ".SH DIFF"), want) != NULL);
	}
	free(h);
	free(m);
	free(top);
}

int main(void)
{
	RUN(test_help_lists_every_option);
	RUN(test_man_names_every_option);
	RUN(test_table_is_consistent);
	RUN(test_parse);
	RUN(test_parse_calls);
	RUN(test_diff_table);
	RUN(test_diff_help_and_man);
	return test_summary("cli-options");
}
