/*
 * main.c - jcal-post: command line, messages and exit status of the
 * post-processor. Everything else lives in the library files beside it.
 *
 * Exit status: 0 success (also for a truncated trace, with a warning),
 * 1 bad or unreadable input or output, 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msg.h"
#include "calib_apply.h"
#include "calib_cli.h"
#include "calib_derive.h"
#include "model.h"
#include "progress.h"
#include "report.h"
#include "samefile.h"
#include "shaping.h"
#include "threadsel.h"

#define JCAL_POST_VERSION "0.2.0"

/* The estimator applied by default: chosen by bench/accuracy.sh, see
 * docs/accuracy.md for the figures that chose it. */
#define DEFAULT_ESTIMATOR CALIB_EST_COND
#define DEFAULT_ESTIMATOR_NAME "cond"
#define MAX_DEPTH_DEFAULT_TEXT "4096"
_Static_assert(REPORT_MAX_DEPTH_DEFAULT == 4096, "MAX_DEPTH_DEFAULT_TEXT is out of date");

enum report_kind {
	KIND_TREE,
	KIND_FLAT,
	KIND_SUMMARY,
	KIND_CALIB,
	/* see report_kinds[] */
	KIND_ARCS,
	KIND_CALLERS,
	KIND_COLLAPSED,
	KIND_SPEEDSCOPE,
	KIND_PPROF,
	KIND_CHROME,
	KIND_HTML,
};

/* Reports and exports, by --report name. */
static const struct {
	const char *name;
	enum report_kind kind;
	int (*fn)(const struct model *, const struct report_opts *);
} report_kinds[] = {
    {"arcs", KIND_ARCS, report_arcs},
    {"callers", KIND_CALLERS, report_callers},
    {"collapsed", KIND_COLLAPSED, export_collapsed},
    {"speedscope", KIND_SPEEDSCOPE, export_speedscope},
    {"pprof", KIND_PPROF, export_pprof},
    {"chrome", KIND_CHROME, export_chrome},
    {"html", KIND_HTML, export_html},
};

/* Options of the shaping and exports. */
struct cli_shape {
	struct shape_opts so;
	int evented;	     /* --speedscope-evented */
	double min_duration; /* --min-duration, < 0 unset */
	uint32_t max_depth;  /* --max-depth: 0 default, REPORT_MAX_DEPTH_NONE none */
};

struct cli {
	const char *trace;
	enum report_kind kind;
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
	struct cli_shape sh;
};


static void usage(FILE *f)
{
	fputs("usage: jcal-post FILE [options]\n"
	      "       jcal-post calib show|check|merge|diff ...  (see jcal-post calib --help)\n"
	      "Builds per-Java-thread call trees from a jcal trace (FILE, or - for stdin)\n"
	      "and prints a report.\n"
	      "\n"
	      "  --report KIND               what to print (default: tree): tree, flat,\n"
	      "                              summary, calib, arcs, callers, or an export:\n"
	      "                              collapsed, speedscope, pprof, chrome, html\n"
	      "                                tree: per thread, Lvl RL Calls Base Cum and the\n"
	      "                                      calling context, root first\n"
	      "                                flat: per method, sorted by --sort; cum counts\n"
	      "                                      each activation once\n"
	      "                                summary: trace, metric, events, threads,\n"
	      "                                      unbalanced events, calibration\n"
	      "                                calib: derive a calibration table from a\n"
	      "                                      calibration trace (written to -o)\n"
	      "                                arcs: per method its callers (PARENT), itself\n"
	      "                                      (SELF) and callees (CHILD), by cum\n"
	      "                                callers: bottom-up, per method the contexts\n"
	      "                                      leading to it and their share of its base\n"
	      "                                collapsed: folded stacks 'a;b;c base' (flame\n"
	      "                                      graphs; thread as first frame)\n"
	      "                                speedscope: speedscope JSON, one profile per\n"
	      "                                      thread (sampled: aggregated tree)\n"
	      "                                pprof: gzipped profile.proto (go tool pprof)\n"
	      "                                chrome: trace event JSON (Perfetto), spans\n"
	      "                                      from the events\n"
	      "                                html: self-contained flame graph page\n"
	      "  --format text|csv|json      output format (default: text)\n"
	      "  --sort base|cum|calls|name  order of the flat report (default: base)\n"
	      "  --thread NAME|#N|virtual|platform\n"
	      "                              only threads named NAME (a glob, e.g. 'pool-*'),\n"
	      "                              or with serial N, or NAME#N, or every virtual\n"
	      "                              or platform thread; repeatable (default: all)\n"
	      "  --metric NAME               metric to show when the trace has several\n"
	      "                              (default: the first one)\n"
	      "  --sig                       append the JVM signature to method names\n"
	      "                              (default: off, names are package.Class.method)\n"
	      "  --calib FILE|DIR|inrun      calibration table, or directory of tables, to\n"
	      "                              apply: a directory gives the table whose host\n"
	      "                              fingerprint is the trace's; a FILE is applied\n"
	      "                              even when it differs, with a warning (default:\n"
	      "                              inrun for a trace made with recalibrate=, else\n"
	      "                              $JCAL_CALIB_DIR, else ~/.local/share/jcal/calib)\n"
	      "                              Compensation applies to metric 0 only. inrun:\n"
	      "                              the samples the agent took in this run\n"
	      "                              (recalibrate=start|end|both|PERIOD)\n"
	      "  --estimator min|p10|median|mean|cond\n"
	      "                              statistic of each key's calibration samples\n"
	      "                              taken as the agent's overhead: min is seed\n"
	      "                              003's per-sequence minimum; cond takes, per\n"
	      "                              delta, the mean of the key's overheads that\n"
	      "                              are not above the delta (default: "DEFAULT_ESTIMATOR_NAME")\n"
	      "  --raw                       no compensation: raw figures (default: off)\n"
	      "  --include PATTERN           only contexts with a method matching PATTERN\n"
	      "                              (glob on package.Class.method) on their path;\n"
	      "                              repeatable (default: all)\n"
	      "  --exclude PATTERN           fold frames of matching methods into their\n"
	      "                              caller; repeatable (default: none)\n"
	      "  --min-pct P                 fold contexts under P% of their thread's cum,\n"
	      "                              with their subtree, into the parent (default: 0)\n"
	      "  --top N                     arcs, callers, flat: the first N methods; other\n"
	      "                              reports: only the N methods of largest cum keep\n"
	      "                              frames, the others fold into callers (default: all)\n"
	      "  --simple                    class names without their package (default: off)\n"
	      "  --merge-threads             one tree for all selected threads (default: off)\n"
	      "  --speedscope-evented        speedscope: evented profiles (timelines) from\n"
	      "                              the events; reads FILE again (default: sampled)\n"
	      "  --min-duration N            chrome: leave out spans shorter than N (ns for\n"
	      "                              time metrics, else counts) (default: 0)\n"
	      "  --max-depth N               tree, callers, collapsed, speedscope, pprof,\n"
	      "                              html: the frames of a context deeper than N\n"
	      "                              are folded into one '<deeper frames folded>'\n"
	      "                              frame holding their calls and metric; flat,\n"
	      "                              arcs and summary stay exact per method; 0: no\n"
	      "                              limit (default: " MAX_DEPTH_DEFAULT_TEXT ")\n"
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
	    {"report", required_argument, NULL, 'r'},
	    {"format", required_argument, NULL, 'f'},
	    {"thread", required_argument, NULL, 't'},
	    {"output", required_argument, NULL, 'o'},
	    {"raw", no_argument, NULL, 'R'},
	    {"calib", required_argument, NULL, 'c'},
	    {"estimator", required_argument, NULL, 280},
	    {"sig", no_argument, NULL, 's'},
	    {"metric", required_argument, NULL, 'm'},
	    {"sort", required_argument, NULL, 'S'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {"include", required_argument, NULL, 256},
	    {"exclude", required_argument, NULL, 257},
	    {"min-pct", required_argument, NULL, 258},
	    {"top", required_argument, NULL, 259},
	    {"simple", no_argument, NULL, 260},
	    {"merge-threads", no_argument, NULL, 261},
	    {"speedscope-evented", no_argument, NULL, 262},
	    {"min-duration", required_argument, NULL, 263},
	    {"max-depth", required_argument, NULL, 264},
	    {NULL, 0, NULL, 0},
	};
	struct shape_opts *so = &c->sh.so;
	char *end;
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
			else if (!strcmp(optarg, "calib"))
				c->kind = KIND_CALIB;
			else {
				size_t k = 0, nk = sizeof(report_kinds) / sizeof(report_kinds[0]);

				while (k < nk && strcmp(optarg, report_kinds[k].name))
					k++;
				if (k == nk) {
					msg("error",
					    "--report '%s': expected tree, flat, summary, calib, "
					    "arcs, callers, collapsed, speedscope, pprof, chrome, "
					    "html",
					    optarg);
					return -1;
				}
				c->kind = report_kinds[k].kind;
			}
			break;
		case 256:
			so->include[so->ninclude++] = optarg;
			break;
		case 257:
			so->exclude[so->nexclude++] = optarg;
			break;
		case 258:
			so->min_pct = strtod(optarg, &end);
			if (end == optarg || *end || !(so->min_pct >= 0 && so->min_pct <= 100)) {
				msg("error", "--min-pct '%s': expected a percentage, 0 to 100",
				    optarg);
				return -1;
			}
			break;
		case 259:
			errno = 0;
			so->top = strtoul(optarg, &end, 10);
			if (end == optarg || *end || errno || !so->top || optarg[0] == '-') {
				msg("error", "--top '%s': expected a number of methods, 1 or more",
				    optarg);
				return -1;
			}
			break;
		case 260:
			so->simple = 1;
			break;
		case 261:
			so->merge = 1;
			break;
		case 262:
			c->sh.evented = 1;
			break;
		case 263:
			c->sh.min_duration = strtod(optarg, &end);
			if (end == optarg || *end || !(c->sh.min_duration >= 0)) {
				msg("error", "--min-duration '%s': expected a number, 0 or more",
				    optarg);
				return -1;
			}
			break;
		case 264: {
			unsigned long long v;

			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (end == optarg || *end || errno || optarg[0] == '-' ||
			    v >= REPORT_MAX_DEPTH_NONE) {
				msg("error",
				    "--max-depth '%s': expected a number of frames, 1 or more (0: no "
				    "limit)",
				    optarg);
				return -1;
			}
			c->sh.max_depth = v ? (uint32_t)v : REPORT_MAX_DEPTH_NONE;
			break;
		}
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
		case 280:
			if (calib_estimator_parse(optarg, &c->estimator)) {
				msg("error", "--estimator '%s': expected min, p10, median, mean or cond",
				    optarg);
				return -1;
			}
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
	if (c->sh.evented && c->kind != KIND_SPEEDSCOPE) {
		msg("error", "--speedscope-evented applies to --report speedscope only");
		return -1;
	}
	if (c->sh.min_duration >= 0 && c->kind != KIND_CHROME) {
		msg("error", "--min-duration applies to --report chrome only");
		return -1;
	}
	if ((c->kind == KIND_CHROME || c->sh.evented) && !strcmp(c->trace, "-")) {
		msg("error", "--report %s reads the trace again: give a file, not stdin",
		    c->kind == KIND_CHROME ? "chrome" : "speedscope --speedscope-evented");
		return -1;
	}
	if (c->kind == KIND_PPROF && (!c->output || !strcmp(c->output, "-")) && isatty(1)) {
		msg("error", "--report pprof writes gzipped binary data: give -o FILE");
		return -1;
	}
	return 0;
}

/* Refuses an output that is one of the inputs (the trace, or the table of
 * --calib FILE) before anything is opened for writing. Returns 0 or -1
 * after the message. */
static int check_output(const struct cli *c)
{
	const char *what = NULL, *in = NULL;

	if (!c->output)
		return 0;
	if (samefile_is_input(c->output, c->trace)) {
		what = "the trace";
		in = c->trace;
	} else if (c->calib && samefile_is_input(c->output, c->calib)) {
		what = "the calibration table";
		in = c->calib;
	}
	if (!what)
		return 0;
	msg("error", "-o %s is %s it reads (%s): writing would destroy it; choose another output",
	    c->output, what, !strcmp(in, "-") ? "stdin" : in);
	return -1;
}

/* The progress bar's stream: stderr when it is a terminal and the trace a
 * file larger than PROGRESS_MIN_BYTES ($JCAL_PROGRESS_MIN_BYTES); else NULL. */
static FILE *progress_stream(const char *trace)
{
	const char *env = getenv("JCAL_PROGRESS_MIN_BYTES");
	uint64_t min = env && *env ? strtoull(env, NULL, 10) : PROGRESS_MIN_BYTES;
	struct stat sb;

	if (!isatty(2) || !strcmp(trace, "-") || stat(trace, &sb) || (uint64_t)sb.st_size <= min)
		return NULL;
	return stderr;
}

/* Loads the trace; prints warnings, or the error and returns -1. */
static int load(struct model *m, const struct cli *c, struct trace_result *res)
{
	struct trace_visitor v;
	enum trace_status st;

	model_visitor(m, &v);
	st = progress_read(c->trace, &v, res, progress_stream(c->trace), "reading");

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

/* --report calib: derives the table of a calibration trace, writes it to
 * -o (default stdout). Returns the exit status. */
static int report_calib(const struct cli *c)
{
	struct calib_derive_info info;
	struct calib_table t;
	char err[1024];
	int status = 0;

	if (!strcmp(c->trace, "-")) {
		msg("error", "--report calib reads the trace twice: give a file, not stdin");
		return 2;
	}
	if (calib_derive_file(c->trace, &t, &info, err, sizeof(err))) {
		msg("error", "%s", err);
		calib_table_free(&t);
		return 1;
	}
	if (info.truncated)
		msg("warning", "%s; read up to the last complete record", info.trace_msg);
	if (info.too_large)
		msg("warning",
		    "%llu deltas above " CALIB_NUM_MAX_TEXT
		    " (more than a table holds: not a step's cost) left out",
		    (unsigned long long)info.too_large);
	if (c->output && strcmp(c->output, "-")) {
		if (calib_table_write_file(&t, c->output, err, sizeof(err))) {
			msg("error", "%s", err);
			status = 1;
		}
	} else if (calib_table_write(&t, stdout) || fflush(stdout)) {
		msg("error", "stdout: write error: %s", strerror(errno));
		status = 1;
	}
	if (!status)
		msg("note",
		    "%u keys from %llu deltas of %u of %u threads%s%s%s; %u keys without an "
		    "environment cost (env 0)",
		    t.nkeys, (unsigned long long)info.deltas, info.threads_used, info.threads,
		    info.calib_thread[0] ? " (calib.thread '" : "", info.calib_thread,
		    info.calib_thread[0] ? "')" : "", info.env_missing);
	calib_table_free(&t);
	return status;
}

/*
 * Chooses the calibration table for the trace (none with --raw) and sets
 * the compensation hook. A note to show once the trace is read (no table)
 * goes to note. Prints errors; returns 0 or -1.
 */
static int calib_setup(struct calib_apply *cal, const struct cli *c, struct calltree_comp *comp,
		       char *note, size_t len)
{
	struct calib_fingerprint fp;
	struct trace_result res;
	const struct calib_fingerprint *fpp = NULL;
	struct stat sb;
	char text[2048], dir[PATH_MAX], path[PATH_MAX];
	int inrun, recalibrated = 0;

	note[0] = '\0';
	if (calib_apply_init(cal)) {
		msg("error", "out of memory");
		return -1;
	}
	if (c->raw)
		return 0;
	inrun = c->calib && !strcmp(c->calib, "inrun");
	if (inrun && !strcmp(c->trace, "-")) {
		msg("error", "--calib inrun reads the trace twice: give a file, not stdin");
		return -1;
	}
	/* a directory is searched by the trace's fingerprint: read it first;
	 * the same scan says whether the trace was made with recalibrate= */
	if (strcmp(c->trace, "-") && !(c->calib && !stat(c->calib, &sb) && !S_ISDIR(sb.st_mode))) {
		enum trace_status st = calib_trace_fingerprint(c->trace, &fp, &recalibrated, &res);

		if (!inrun && st != TRACE_OK && st != TRACE_TRUNCATED)
			return 0; /* the trace's own error comes when it is loaded */
		fpp = &fp;
	}
	/* --calib inrun, or by default a trace with in-run bursts: the run's
	 * own samples (bench/accuracy.sh: the lowest error of all) */
	if (inrun || (!c->calib && recalibrated)) {
		if (calib_apply_inrun(cal, c->trace, text, sizeof(text)) == CALIB_SEL_APPLIED) {
			calib_table_use_estimator(&cal->table, c->estimator);
			/* How far this run's overhead moved from the stored table. */
			if (fpp && calib_dir_default(dir, sizeof(dir)) == 0 &&
			    calib_dir_find(dir, fpp, path, sizeof(path), cal->skipped,
					   sizeof(cal->skipped), text, sizeof(text)) > 0)
				calib_apply_compare(cal, path, c->estimator);
			comp->fn = calib_apply_comp;
			comp->ctx = cal;
			return 0;
		}
		if (inrun) {
			msg("error", "%s", text);
			return -1;
		}
		msg("warning",
		    "%s was traced with recalibrate= but holds no in-run calibration (a burst cut "
		    "short by the end of the run leaves none): the stored table applies",
		    c->trace);
		calib_table_free(&cal->table);
		if (calib_table_init(&cal->table)) {
			msg("error", "out of memory");
			return -1;
		}
	}
	switch (calib_apply_select(cal, c->calib, fpp, text, sizeof(text))) {
	case CALIB_SEL_ERROR:
		msg("error", "%s", text);
		return -1;
	case CALIB_SEL_NONE:
		snprintf(note, len, "%s", text);
		return 0;
	case CALIB_SEL_APPLIED:
		break;
	}
	calib_table_use_estimator(&cal->table, c->estimator);
	if (c->estimator == CALIB_EST_COND && !calib_table_keys_with_q(&cal->table))
		msg("warning",
		    "%s has no quantiles (a version 1 table): --estimator cond takes each key's "
		    "mean; calibrate again to get them",
		    cal->path);
	comp->fn = calib_apply_comp;
	comp->ctx = cal;
	return 0;
}

/* Once the trace is read: warns when the table applied is for another
 * fingerprint, or shows the note of calib_setup. */
static void calib_loaded(struct calib_apply *cal, const struct model *m, const char *note)
{
	struct calib_fingerprint fp;
	char text[2048];

	if (note[0])
		msg("note", "%s", note);
	if (!cal->active)
		return;
	calib_fingerprint_clear(&fp);
	for (unsigned i = 0; i < CALIB_FP_COUNT; i++) {
		const char *v = model_meta(m, calib_fp_meta_key(i));

		calib_fingerprint_set_meta(&fp, calib_fp_meta_key(i), v ? v : "");
	}
	if (calib_apply_check_fingerprint(cal, &fp, text, sizeof(text)))
		msg("warning", "%s", text);
}

/*
 * Applies --include/--exclude/--top/--min-pct/--simple/
 * --merge-threads to the model (not for summary and calib) and runs the
 * arcs, callers and export reports. Returns 1 when the caller's switch
 * runs the report, 0 when it ran here, -1 after an error (status set).
 */
static int shape_and_report(struct model *m, struct cli *c, struct threadsel *sel,
			    struct report_opts *o, int *status)
{
	static struct shape_info info;
	static char err[REPORT_ERR_LEN];
	struct shape_opts *so = &c->sh.so;
	int list = c->kind == KIND_FLAT || c->kind == KIND_ARCS || c->kind == KIND_CALLERS;

	if (c->kind == KIND_SUMMARY || c->kind == KIND_CALIB)
		return 1;
	so->metric = o->metric;
	so->sig = c->sig;
	so->sel = sel;
	o->top = list ? so->top : 0;
	if (list)
		so->top = 0;
	if (shape_active(so) && shape_apply(m, so, &info)) {
		msg("error", "out of memory while shaping the trees");
		*status = 1;
		return -1;
	}
	if (so->merge)
		o->sel = NULL; /* the merged thread is the selection */
	o->shaped = &info;
	o->shaping = so;
	o->evented = c->sh.evented;
	o->min_duration = c->sh.min_duration > 0 ? c->sh.min_duration : 0;
	o->max_depth = c->sh.max_depth;
	o->progress = progress_stream(c->trace);
	o->err = err;
	for (size_t k = 0; k < sizeof(report_kinds) / sizeof(report_kinds[0]); k++) {
		if (report_kinds[k].kind != c->kind)
			continue;
		err[0] = '\0';
		if (report_kinds[k].fn(m, o)) {
			msg("error", "%s", err[0] ? err : "out of memory while writing the report");
			*status = 1;
			return -1;
		}
		return 0;
	}
	return 1;
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
	char names[512], calib_note[2048], calib_desc[2048];
	struct calib_apply cal;
	struct calltree_comp comp = {0};

	if (argc > 1 && !strcmp(argv[1], "calib"))
		return calib_cli_main(argc - 1, argv + 1);
	/* --thread, --include and --exclude patterns: argc each at most */
	c.threads = calloc(3 * (size_t)argc, sizeof(*c.threads));
	if (!c.threads) {
		msg("error", "out of memory");
		return 1;
	}
	c.sh.so.include = c.threads + argc;
	c.sh.so.exclude = c.threads + 2 * argc;
	c.sh.min_duration = -1;
	c.estimator = DEFAULT_ESTIMATOR;
	r = parse_args(argc, argv, &c);
	if (r) {
		free(c.threads);
		return r < 0 ? 2 : 0;
	}
	if (check_output(&c)) {
		free(c.threads);
		return 1;
	}
	if (c.calib && strcmp(c.calib, "inrun")) {
		struct stat sb;

		if (stat(c.calib, &sb)) {
			msg("error", "--calib %s: %s", c.calib, strerror(errno));
			free(c.threads);
			return 1;
		}
	}

	if (c.kind == KIND_CALIB) {
		r = report_calib(&c);
		free(c.threads);
		return r;
	}
	if (calib_setup(&cal, &c, &comp, calib_note, sizeof(calib_note))) {
		calib_apply_free(&cal);
		free(c.threads);
		return 1;
	}
	if (cal.skipped[0])
		msg("warning",
		    "calibration directory: skipped what is not a regular file (never opened): %s",
		    cal.skipped);
	model_init(&m, cal.active ? &comp : NULL);
	if (load(&m, &c, &res)) {
		model_free(&m);
		calib_apply_free(&cal);
		free(c.threads);
		return 1;
	}
	calib_loaded(&cal, &m, calib_note);
	if (c.metric && (metric = model_metric_index(&m, c.metric)) < 0) {
		char have[256] = "";

		for (unsigned i = 0; i < m.nmetrics; i++)
			snprintf(have + strlen(have), sizeof(have) - strlen(have), "%s%s",
				 i ? ", " : "", m.metric[i].name);
		msg("error", "--metric '%s': the trace has %s", c.metric, have);
		model_free(&m);
		calib_apply_free(&cal);
		free(c.threads);
		return 2;
	}
	sel.pats = c.threads;
	sel.npats = c.nthreads;
	if (c.nthreads) {
		size_t k = 0;

		for (size_t i = 0; i < m.nthreads; i++)
			k +=
			    threadsel_match(&sel, m.thread_list[i]->serial, m.thread_list[i]->name,
					    m.thread_list[i]->flags);
		if (!k) {
			list_threads(&m, names, sizeof(names));
			msg("error", "--thread: no thread matches (threads: %s)",
			    m.nthreads ? names : "none");
			model_free(&m);
			calib_apply_free(&cal);
			free(c.threads);
			return 1;
		}
	}
	if (c.output && strcmp(c.output, "-") && !(out = fopen(c.output, "w"))) {
		msg("error", "-o %s: %s", c.output, strerror(errno));
		model_free(&m);
		calib_apply_free(&cal);
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
	o.calibrated = cal.active;
	o.calib = cal.active ? &cal : NULL;
	calib_apply_describe(&cal, calib_desc, sizeof(calib_desc));
	if (cal.active) {
		size_t used = strlen(calib_desc);
		snprintf(calib_desc + used, sizeof(calib_desc) - used, ", estimator %s",
			 calib_estimator_name(c.estimator));
	}
	o.calib_desc = cal.active ? calib_desc : c.raw ? "none (--raw: raw figures)" : NULL;
	o.max_depth = c.sh.max_depth;
	r = shape_and_report(&m, &c, &sel, &o, &status);
	switch (r < 0 ? KIND_CALIB : c.kind) {
	case KIND_TREE:
		r = report_tree(&m, &o);
		break;
	case KIND_FLAT:
		r = report_flat(&m, &o);
		break;
	case KIND_SUMMARY:
		r = report_summary(&m, &o);
		break;
	case KIND_CALIB: /* handled before the trace is loaded */
	default:	 /* handled by shape_and_report */
		r = 0;
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
	calib_apply_free(&cal);
	free(c.threads);
	return status;
}
