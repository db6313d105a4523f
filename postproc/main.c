/*
 * main.c - jcal-post: command line, messages and exit status of the
 * post-processor. Everything else lives in the library files beside it.
 *
 * Exit status: 0 success (also for a truncated trace, with a warning),
 * 1 bad or unreadable input or output, 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model.h"
#include "report.h"
#include "threadsel.h"

#define JCAL_POST_VERSION "0.1.0"

enum report_kind { KIND_TREE, KIND_FLAT, KIND_SUMMARY };

struct cli {
	const char *trace;
	enum report_kind kind;
	enum report_format format;
	const char **threads;
	size_t nthreads;
	const char *output;
	int raw;
	const char *calib;
	int sig;
	const char *metric;
	enum flat_sort sort;
};

static void msg(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void msg(const char *level, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "jcal-post: %s: ", level);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void usage(FILE *f)
{
	fputs("usage: jcal-post FILE [options]\n"
	      "Builds per-Java-thread call trees from a jcal trace (FILE, or - for stdin)\n"
	      "and prints a report.\n"
	      "\n"
	      "  --report tree|flat|summary  what to print (default: tree)\n"
	      "                                tree: per thread, Lvl RL Calls Base Cum and the\n"
	      "                                      calling context, root first\n"
	      "                                flat: per method, sorted by --sort; cum counts\n"
	      "                                      each activation once\n"
	      "                                summary: trace, metric, events, threads,\n"
	      "                                      unbalanced events, calibration\n"
	      "  --format text|csv|json      output format (default: text)\n"
	      "  --sort base|cum|calls|name  order of the flat report (default: base)\n"
	      "  --thread NAME|#N            only threads named NAME (a glob, e.g. 'pool-*'),\n"
	      "                              or with serial N, or NAME#N; repeatable\n"
	      "                              (default: all threads)\n"
	      "  --metric NAME               metric to show when the trace has several\n"
	      "                              (default: the first one)\n"
	      "  --sig                       append the JVM signature to method names\n"
	      "                              (default: off, names are package.Class.method)\n"
	      "  --calib FILE|DIR            calibration table, or directory of tables, to\n"
	      "                              apply (default: $JCAL_CALIB_DIR, else\n"
	      "                              ~/.local/share/jcal/calib)\n"
	      "  --raw                       no compensation: raw figures (default: off)\n"
	      "  -o, --output FILE           write the report to FILE (default: stdout)\n"
	      "  -h, --help                  this text\n"
	      "  -V, --version               version of jcal-post and the trace format it reads\n"
	      "\n"
	      "Exit status: 0 ok (a truncated trace is reported with a warning), 1 bad input\n"
	      "or output, 2 usage error.\n",
	      f);
}

/* Parses argv into c; returns -1 after printing a usage error, 1 when
 * --help/--version was handled, 0 to go on. */
static int parse_args(int argc, char **argv, struct cli *c)
{
	static const struct option opts[] = {
	    {"report", required_argument, NULL, 'r'}, {"format", required_argument, NULL, 'f'},
	    {"thread", required_argument, NULL, 't'}, {"output", required_argument, NULL, 'o'},
	    {"raw", no_argument, NULL, 'R'},	      {"calib", required_argument, NULL, 'c'},
	    {"sig", no_argument, NULL, 's'},	      {"metric", required_argument, NULL, 'm'},
	    {"sort", required_argument, NULL, 'S'},   {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},      {NULL, 0, NULL, 0},
	};
	int ch;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":o:hV", opts, NULL)) != -1) {
		switch (ch) {
		case 'r':
			if (!strcmp(optarg, "tree"))
				c->kind = KIND_TREE;
			else if (!strcmp(optarg, "flat"))
				c->kind = KIND_FLAT;
			else if (!strcmp(optarg, "summary"))
				c->kind = KIND_SUMMARY;
			else {
				msg("error", "--report '%s': expected tree, flat or summary",
				    optarg);
				return -1;
			}
			break;
		case 'f':
			if (!strcmp(optarg, "text"))
				c->format = REPORT_TEXT;
			else if (!strcmp(optarg, "csv"))
				c->format = REPORT_CSV;
			else if (!strcmp(optarg, "json"))
				c->format = REPORT_JSON;
			else {
				msg("error", "--format '%s': expected text, csv or json", optarg);
				return -1;
			}
			break;
		case 'S':
			if (flat_sort_parse(optarg, &c->sort)) {
				msg("error", "--sort '%s': expected base, cum, calls or name",
				    optarg);
				return -1;
			}
			break;
		case 't':
			if (threadsel_check(optarg)) {
				msg("error", "--thread '%s': expected NAME, #N or NAME#N", optarg);
				return -1;
			}
			c->threads[c->nthreads++] = optarg;
			break;
		case 'o':
			c->output = optarg;
			break;
		case 'R':
			c->raw = 1;
			break;
		case 'c':
			c->calib = optarg;
			break;
		case 's':
			c->sig = 1;
			break;
		case 'm':
			c->metric = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case 'V':
			printf("jcal-post %s (trace format %d.%d)\n", JCAL_POST_VERSION,
			       TRACE_VERSION_MAJOR, TRACE_VERSION_MINOR);
			return 1;
		case ':':
			msg("error", "option '%s' needs a value (see --help)", argv[optind - 1]);
			return -1;
		default:
			msg("error", "unknown option '%s' (see --help)", argv[optind - 1]);
			return -1;
		}
	}
	if (optind >= argc) {
		msg("error", "no trace file given (usage: jcal-post FILE [options]; see --help)");
		return -1;
	}
	if (argc - optind > 1) {
		msg("error", "one trace file expected, got '%s' and '%s'", argv[optind],
		    argv[optind + 1]);
		return -1;
	}
	c->trace = argv[optind];
	if (c->raw && c->calib) {
		msg("error", "--raw and --calib exclude each other");
		return -1;
	}
	return 0;
}

/* Loads the trace; prints warnings, or the error and returns -1. */
static int load(struct model *m, const struct cli *c, struct trace_result *res)
{
	enum trace_status st = model_load(m, c->trace, res);

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
	if (!m->has_end && st == TRACE_OK)
		msg("warning",
		    "%s: no END record: the JVM did not shut down cleanly; open frames are closed "
		    "at "
		    "each thread's last event",
		    c->trace);
	else if (!m->has_end)
		msg("warning", "%s: the JVM did not shut down cleanly (no END record)", c->trace);
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

/* The first few thread names, for "no thread matches" messages. */
static void list_threads(const struct model *m, char *buf, size_t len)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < m->nthreads && pos < len; i++) {
		const struct model_thread *t = m->thread_list[i];
		int n =
		    snprintf(buf + pos, len - pos, "%s%s#%u", i ? ", " : "", t->name, t->serial);

		if (n < 0)
			break;
		pos += (size_t)n;
		if (i == 7 && m->nthreads > 8) {
			snprintf(buf + (pos < len ? pos : len - 1),
				 len - (pos < len ? pos : len - 1), ", ... (%zu in all)",
				 m->nthreads);
			break;
		}
	}
}

int main(int argc, char **argv)
{
	struct cli c = {0};
	struct model m;
	struct trace_result res;
	struct threadsel sel;
	struct report_opts o = {0};
	FILE *out = stdout;
	int r, metric = 0, status = 0;
	char names[512];

	c.threads = calloc((size_t)argc, sizeof(*c.threads));
	if (!c.threads) {
		msg("error", "out of memory");
		return 1;
	}
	r = parse_args(argc, argv, &c);
	if (r) {
		free(c.threads);
		return r < 0 ? 2 : 0;
	}
	if (c.calib) {
		struct stat sb;

		if (stat(c.calib, &sb)) {
			msg("error", "--calib %s: %s", c.calib, strerror(errno));
			free(c.threads);
			return 1;
		}
	}

	/*
	 * TODO(calibration table): unless --raw, load c.calib (a table, or a
	 * directory searched for the table whose fingerprint matches the trace's
	 * meta data; default $JCAL_CALIB_DIR) and pass its compensation hook
	 * here; set o.calibrated and o.calib_desc. Without a table base = raw.
	 */
	model_init(&m, NULL);
	if (load(&m, &c, &res)) {
		model_free(&m);
		free(c.threads);
		return 1;
	}
	if (c.metric && (metric = model_metric_index(&m, c.metric)) < 0) {
		char have[256] = "";

		for (unsigned i = 0; i < m.nmetrics; i++)
			snprintf(have + strlen(have), sizeof(have) - strlen(have), "%s%s",
				 i ? ", " : "", m.metric[i].name);
		msg("error", "--metric '%s': the trace has %s", c.metric, have);
		model_free(&m);
		free(c.threads);
		return 2;
	}
	sel.pats = c.threads;
	sel.npats = c.nthreads;
	if (c.nthreads) {
		size_t k = 0;

		for (size_t i = 0; i < m.nthreads; i++)
			k +=
			    threadsel_match(&sel, m.thread_list[i]->serial, m.thread_list[i]->name);
		if (!k) {
			list_threads(&m, names, sizeof(names));
			msg("error", "--thread: no thread matches (threads: %s)",
			    m.nthreads ? names : "none");
			model_free(&m);
			free(c.threads);
			return 1;
		}
	}
	if (c.output && strcmp(c.output, "-") && !(out = fopen(c.output, "w"))) {
		msg("error", "-o %s: %s", c.output, strerror(errno));
		model_free(&m);
		free(c.threads);
		return 1;
	}

	o.out = out;
	o.format = c.format;
	o.metric = (unsigned)metric;
	o.sel = &sel;
	o.sort = c.sort;
	o.trace_path = c.trace;
	o.res = &res;
	switch (c.kind) {
	case KIND_TREE:
		r = report_tree(&m, &o);
		break;
	case KIND_FLAT:
		r = report_flat(&m, &o);
		break;
	case KIND_SUMMARY:
		r = report_summary(&m, &o);
		break;
	}
	if (r) {
		msg("error", "out of memory while writing the report");
		status = 1;
	}
	if (fflush(out) || ferror(out)) {
		msg("error", "%s: write error: %s", c.output ? c.output : "stdout",
		    strerror(errno));
		status = 1;
	}
	if (out != stdout && fclose(out)) {
		msg("error", "%s: %s", c.output, strerror(errno));
		status = 1;
	}
	model_free(&m);
	free(c.threads);
	return status;
}
