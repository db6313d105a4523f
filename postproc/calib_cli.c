/*
 * calib_cli.c - calibration on jcal-post's command line: "jcal-post calib
 * show|check|merge|diff" shows, validates, merges and compares calibration
 * tables (common/calib_table.h); --report calib derives one; --calib and
 * --raw choose the table a report applies. Prints the results and
 * "jcal-post: error: ..." messages.
 */
#include "postproc/msg.h"
#include "postproc/calib_cli.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/calib_comp.h"
#include "common/calib_dir.h"
#include "common/calib_derive.h"
#include "common/calib_table.h"
#include "postproc/output.h"
#include "postproc/samefile.h"

static void usage(FILE *f)
{
	fputs(
	    "usage: jcal-post calib show FILE          the table, its fingerprint and coverage\n"
	    "       jcal-post calib check FILE         validate: syntax, comp = max(0, min - "
	    "env),\n"
	    "                                          keys possible in the table's mode, "
	    "statistics\n"
	    "       jcal-post calib merge [--force] -o OUT A B...\n"
	    "                                          per-key minimum of tables of the same\n"
	    "                                          fingerprint, samples added (--force: merge\n"
	    "                                          different fingerprints, keeping A's)\n"
	    "       jcal-post calib diff A B           compare two tables key by key\n"
	    "Tables are described in docs/calibration-format.md.\n",
	    f);
}

/* Loads path into t (initialised here); prints the error. */
static int load(struct calib_table *t, const char *path)
{
	char err[1024];

	if (calib_table_init(t)) {
		msg("error", "out of memory");
		return -1;
	}
	if (calib_table_read_file(t, path, err, sizeof(err))) {
		msg("error", "%s", err);
		return -1;
	}
	return 0;
}

static int show(const char *path)
{
	struct calib_table t;
	enum seqkey_mode mode;
	unsigned reach = 0, present = 0;
	char key[SEQKEY_TEXT_LEN], name[64];
	struct seqkey k;
	uint64_t gmin = 0;
	int have = 0;

	if (load(&t, path)) {
		calib_table_free(&t);
		return 1;
	}
	calib_fingerprint_filename(&t.fp, name, sizeof(name));
	/* values from the file: escaped (output.h) */
	text_escapef(stdout, "Calibration table %s", path);
	putchar('\n');
	for (unsigned i = 0; i < CALIB_FP_COUNT; i++) {
		printf("  %-16s ", calib_fp_name(i));
		text_escape(stdout, t.fp.field[i]);
		putchar('\n');
	}
	text_escapef(stdout, "  %-16s %s", "created", t.created);
	text_escapef(stdout, "\n  %-16s %s", "unit", t.unit);
	text_escapef(stdout, "\n  %-16s %s", "env.method", t.env_method);
	printf("\n  %-16s %s\n", "file name", name);
	for (unsigned i = 0; i < SEQKEY_COUNT; i++)
		if (t.e[i].present && (!have || t.e[i].comp < gmin)) {
			gmin = t.e[i].comp;
			have = 1;
		}
	printf("  %-16s %u (%u without env)", "keys", t.nkeys, calib_table_env_missing(&t));
	if (!seqkey_mode_parse(t.fp.field[CALIB_FP_MODE], &mode)) {
		calib_table_coverage(&t, mode, &reach, &present);
		printf(", %u of the %u keys possible in mode %s", present, reach,
		       t.fp.field[CALIB_FP_MODE]);
	}
	printf("\n  %-16s %" PRIu64 " (fallback for keys without a similar one)\n", "smallest comp",
	       gmin);
	printf("%-9s %10s %10s %8s %8s %10s %8s %8s\n", "KEY", "MIN", "SAMPLES", "ENV", "COMP",
	       "MEAN", "MEDIAN", "P10");
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		const struct calib_entry *e = &t.e[i];

		if (!e->present)
			continue;
		seqkey_from_index(i, &k);
		printf("%-9s %10" PRIu64 " %10" PRIu64 " %8" PRIu64 " %8" PRIu64,
		       seqkey_format(&k, key), e->min, e->samples, e->env, e->comp);
		if (e->has_stats)
			printf(" %10.1f %8" PRIu64 " %8" PRIu64 "\n", e->mean, e->median, e->p10);
		else
			printf(" %10s %8s %8s\n", "-", "-", "-");
	}
	calib_table_free(&t);
	return 0;
}

static int check(const char *path)
{
	struct calib_table t;
	char report[8192];
	unsigned n;

	if (load(&t, path)) {
		calib_table_free(&t);
		return 1;
	}
	n = calib_table_check(&t, report, sizeof(report));
	if (n) {
		char *line, *save = NULL;

		for (line = strtok_r(report, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			msg("error", "%s: %s", path, line);
		msg("error", "%s: %u problem%s", path, n, n == 1 ? "" : "s");
	} else {
		text_escapef(stdout, "%s: ok: %u keys, mode %s, metrics %s", path, t.nkeys,
			     t.fp.field[CALIB_FP_MODE], t.fp.field[CALIB_FP_METRICS]);
		putchar('\n');
	}
	calib_table_free(&t);
	return n ? 1 : 0;
}

static int merge(int argc, char **argv)
{
	const char *out = NULL;
	int force = 0, first = -1, status = 0;
	struct calib_table acc, t;
	char err[2048];
	time_t now = time(NULL);
	struct tm tm;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--force")) {
			force = 1;
		} else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			if (i + 1 >= argc) {
				msg("error", "calib merge: %s needs a file name", argv[i]);
				return 2;
			}
			out = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			msg("error",
			    "calib merge: unknown option '%s' (see jcal-post calib --help)",
			    argv[i]);
			return 2;
		} else if (first < 0) {
			first = i;
		}
	}
	if (!out || first < 0) {
		msg("error",
		    "calib merge: %s (usage: jcal-post calib merge [--force] -o OUT A B...)",
		    !out ? "no output file (-o OUT)" : "no input table");
		return 2;
	}
	/* an output that is one of the inputs: refused before anything is
	 * written (the inputs are read first, but a failed merge must not
	 * have replaced one) */
	for (int i = first; i < argc; i++) {
		if (!strcmp(argv[i], "--force"))
			continue;
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			i++;
			continue;
		}
		if (samefile_is_input(out, argv[i])) {
			msg("error",
			    "calib merge: -o %s is the input table %s: writing would replace it; "
			    "choose another output",
			    out, argv[i]);
			return 1;
		}
	}
	if (load(&acc, argv[first])) {
		calib_table_free(&acc);
		return 1;
	}
	for (int i = first + 1; i < argc && !status; i++) {
		if (!strcmp(argv[i], "--force"))
			continue;
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			i++;
			continue;
		}
		if (load(&t, argv[i])) {
			status = 1;
		} else if (calib_table_merge(&acc, &t, force, err, sizeof(err))) {
			msg("error", "calib merge: %s and %s: %s (--force merges anyway)",
			    argv[first], argv[i], err);
			status = 1;
		} else if (calib_fingerprint_diff(&acc.fp, &t.fp)) {
			calib_fingerprint_diff_text(&acc.fp, &t.fp,
						    calib_fingerprint_diff(&acc.fp, &t.fp), err,
						    sizeof(err));
			msg("warning",
			    "calib merge --force: %s has another fingerprint (%s); the "
			    "result keeps %s's",
			    argv[i], err, argv[first]);
		}
		calib_table_free(&t);
	}
	if (!status) {
		if (gmtime_r(&now, &tm))
			strftime(acc.created, sizeof(acc.created), "%Y-%m-%dT%H:%M:%SZ", &tm);
		if (!strcmp(out, "-")) {
			if (calib_table_write(&acc, stdout) || fflush(stdout)) {
				msg("error", "stdout: write error: %s", strerror(errno));
				status = 1;
			}
		} else if (calib_table_write_file(&acc, out, err, sizeof(err))) {
			msg("error", "%s", err);
			status = 1;
		}
	}
	calib_table_free(&acc);
	return status;
}

/* calib_table_diff() to stdout, each line escaped (the fingerprint
 * values come from the files). Returns its count. */
static unsigned diff_escaped(const struct calib_table *a, const struct calib_table *b)
{
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	unsigned n;

	if (!mem)
		return calib_table_diff(a, b, stdout);
	n = calib_table_diff(a, b, mem);
	fclose(mem);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		text_escape(stdout, line);
		putchar('\n');
	}
	free(text);
	return n;
}

static int diff(const char *a, const char *b)
{
	struct calib_table ta, tb;
	int status = 0;
	unsigned n;

	memset(&ta, 0, sizeof(ta));
	memset(&tb, 0, sizeof(tb));
	if (load(&ta, a) || load(&tb, b)) {
		calib_table_free(&ta);
		calib_table_free(&tb);
		return 1;
	}
	text_escapef(stdout, "--- A %s", a);
	text_escapef(stdout, "\n+++ B %s", b);
	putchar('\n');
	n = diff_escaped(&ta, &tb);
	if (n)
		printf("%u difference%s\n", n, n == 1 ? "" : "s");
	else
		printf("the tables are the same (header dates aside)\n");
	calib_table_free(&ta);
	calib_table_free(&tb);
	return status;
}

int calib_cli_main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd) {
		msg("error",
		    "calib: no subcommand (show, check, merge or diff; see jcal-post calib "
		    "--help)");
		return 2;
	}
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "merge"))
		return merge(argc - 2, argv + 2);
	if (!strcmp(cmd, "show") || !strcmp(cmd, "check")) {
		if (argc != 3) {
			msg("error",
			    "calib %s: one table file expected (usage: jcal-post calib %s FILE)",
			    cmd, cmd);
			return 2;
		}
		return cmd[0] == 's' ? show(argv[2]) : check(argv[2]);
	}
	if (!strcmp(cmd, "diff")) {
		if (argc != 4) {
			msg("error",
			    "calib diff: two table files expected (usage: jcal-post calib diff "
			    "A B)");
			return 2;
		}
		return diff(argv[2], argv[3]);
	}
	msg("error", "calib: unknown subcommand '%s' (show, check, merge or diff)", cmd);
	return 2;
}

/* ---- the calibration of a report: --report calib, --calib, --raw ---- */

/* --report calib: derives the table of a calibration trace, writes it to
 * -o (default stdout). Returns the exit status. */
int calib_cli_derive(const struct cli *c)
{
	struct calib_derive_info info;
	struct calib_table t;
	char err[1024];
	int status = 0;

	if (!strcmp(c->trace, "-")) {
		msg("error", "--report calib reads the trace twice: give a file, not stdin");
		return 2;
	}
	if (model_peek_snapshot(c->trace)) {
		msg("error",
		    "--report calib: %s is a tree snapshot: a table is derived from the events of "
		    "a "
		    "calibration trace",
		    c->trace);
		return 1;
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

/* The trees' compensation hook for cal's table, prepared now so that the
 * trees of several threads can read it at once (tree_workers.h). */
static int use_table(struct calib_apply *cal, struct calltree_comp *comp)
{
	if (calib_table_prepare(&cal->table)) {
		msg("error", "out of memory");
		return -1;
	}
	comp->fn = calib_apply_comp;
	comp->batch = calib_apply_comp_batch;
	comp->ctx = cal;
	comp->table = &cal->table; /* the builders compensate inline */
	comp->counted = calib_apply_counted;
	return 0;
}
/*
 * Chooses the calibration table for the trace (none with --raw) and sets
 * the compensation hook. A note to show once the trace is read (no table)
 * goes to note. Prints errors; returns 0 or -1.
 */
int calib_cli_setup(struct calib_apply *cal, const struct cli *c, struct calltree_comp *comp,
		    char *note, size_t len)
{
	struct calib_fingerprint fp;
	struct trace_result res;
	const struct calib_fingerprint *fpp = NULL;
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
	/* a directory is searched by the trace's fingerprint, and a table file
	 * must have the trace's clock: read it first; the same scan says
	 * whether the trace was made with recalibrate= */
	if (strcmp(c->trace, "-")) {
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
			return use_table(cal, comp);
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
	if (fpp && calib_apply_clock_differs(&cal->table, cal->path, fpp, text, sizeof(text))) {
		snprintf(note, len, "%s; figures are raw", text);
		calib_apply_free(cal);
		if (calib_apply_init(cal)) {
			msg("error", "out of memory");
			return -1;
		}
		return 0;
	}
	calib_table_use_estimator(&cal->table, c->estimator);
	if (c->estimator == CALIB_EST_COND && !calib_table_keys_with_q(&cal->table))
		msg("warning",
		    "%s has no quantiles (a version 1 table): --estimator cond takes each key's "
		    "mean; calibrate again to get them",
		    cal->path);
	if ((c->estimator == CALIB_EST_FIT || c->estimator == CALIB_EST_CFIT) &&
	    !calib_table_keys_with_fit(&cal->table))
		msg("warning",
		    "%s has no fit of the overhead against the step's work (a table before version "
		    "3): --estimator %s takes cond for every key; calibrate again to get them",
		    cal->path, calib_estimator_name(c->estimator));
	return use_table(cal, comp);
}

/* Once the trace is read: warns when the table applied is for another
 * fingerprint, or shows the note of calib_cli_setup. A table of another
 * clock applied to a trace from stdin (whose clock was not known before
 * it was read) is an error. Returns 0 or -1 (the error printed). */
int calib_cli_loaded(struct calib_apply *cal, const struct model *m, const char *note)
{
	struct calib_fingerprint fp;
	char text[2048];

	if (note[0]) {
		struct calib_hint h = {model_meta(m, "java.home"),    model_meta(m, "jvm.exec"),
				       model_meta(m, "mode"),	      model_meta(m, "metrics"),
				       model_meta(m, "metric.0.why"), model_meta(m, "clock")};

		calib_apply_hint(&h, text, sizeof(text));
		msg("note", "%s (calibrate with: %s)", note, text);
	}
	if (!cal->active)
		return 0;
	calib_fingerprint_clear(&fp);
	for (unsigned i = 0; i < CALIB_FP_COUNT; i++) {
		const char *v = model_meta(m, calib_fp_meta_key(i));

		calib_fingerprint_set_meta(&fp, calib_fp_meta_key(i), v ? v : "");
	}
	if (calib_apply_clock_differs(&cal->table, cal->path, &fp, text, sizeof(text))) {
		msg("error", "%s (use --raw, or a table of the trace's clock)", text);
		return -1;
	}
	if (calib_apply_check_fingerprint(cal, &fp, text, sizeof(text)))
		msg("warning", "%s", text);
	return 0;
}

int calib_cli_snapshot(const struct calib_apply *cal, const struct cli *c, const struct model *m,
		       char *desc, size_t len)
{
	const char *table = model_meta(m, "snapshot.calib.table");
	const char *est = model_meta(m, "snapshot.calib.estimator");
	const char *digest = model_meta(m, "snapshot.calib.digest");
	const char *note = model_meta(m, "snapshot.calib.note");
	int comp = table && *table && est && digest;
	char have[24];

	desc[0] = '\0';
	if (c->calib && !strcmp(c->calib, "inrun")) {
		msg("error",
		    "--calib inrun: %s is a tree snapshot: it has no events to calibrate from",
		    c->trace);
		return -1;
	}
	if (c->raw)
		return 0;
	if (comp && strcmp(est, calib_estimator_name(c->estimator))) {
		msg("error",
		    "--estimator %s: %s is a tree snapshot compensated in the agent with estimator "
		    "%s; it has no events to compensate again (use --raw for raw figures)",
		    calib_estimator_name(c->estimator), c->trace, est);
		return -1;
	}
	if (c->calib) {
		snprintf(have, sizeof(have), "%016" PRIx64,
			 cal->active ? calib_table_digest(&cal->table) : 0);
		if (!comp || !cal->active || strcmp(have, digest)) {
			msg("error",
			    "--calib %s: %s is a tree snapshot %s%s; it has no events to "
			    "compensate "
			    "with another table (use --raw for raw figures)",
			    c->calib, c->trace,
			    comp ? "compensated in the agent with " : "with raw figures only",
			    comp ? table : "");
			return -1;
		}
	}
	if (!comp) {
		msg("note", "%s is a tree snapshot with raw figures only: %s", c->trace,
		    note && *note ? note : "no calibration table in the agent");
		return 0;
	}
	snprintf(desc, len, "%s (applied in the agent), estimator %s", table, est);
	return 0;
}
