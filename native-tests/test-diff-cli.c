/*
 * test-diff-cli.c - jcal-post diff end to end (postproc/diff_cli.c,
 * diff_options.c, input.c): build/jcal-post diff on real trace files and
 * a tree snapshot written with the agent's encoder (native-tests/
 * modelgen.h) for two builds of a program (a method's calls tripled, one
 * added, one removed) and for two runs of one build: the exact CSV of
 * flat, tree and collapsed, trace against snapshot, sets of runs, the
 * gate's exit status 3 and its lines on stderr, exit 0 for one build,
 * --merge (each side's inputs summed into one profile),
 * and the errors (one line, exit 1 or 2). Needs build/jcal-post (run
 * from the repository root after make).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "native-tests/modelgen.h"
#include "native-tests/test.h"

static char dir[64], out_path[128], err_path[128];

/* BASE: main calls step once and gone once. NEW: step three times,
 * added once, gone no more. */
static const char *const base_build[] = {"0 E app.Main.main\n1 E app.Work.step\n2 X app.Work.step\n"
					 "3 E app.Old.gone\n4 X app.Old.gone\n5 X app.Main.main\n"};
static const char *const new_build[] = {
    "0 E app.Main.main\n1 E app.Work.step\n3 X app.Work.step\n"
    "4 E app.Work.step\n6 X app.Work.step\n7 E app.Work.step\n9 X app.Work.step\n"
    "10 E app.New.added\n11 X app.New.added\n12 X app.Main.main\n"};
static const char *const names[] = {"main"};

static const char flat_csv[] =
    "method,calls_base,calls_new,calls_delta,base_base,base_new,base_delta,cum_base,cum_new,"
    "cum_delta,status\n"
    "app.Work.step,1,3,2,1,6,5,1,6,5,changed\n"
    "app.New.added,0,1,1,0,1,1,0,1,1,added\n"
    "app.Old.gone,1,0,-1,1,0,-1,1,0,-1,removed\n"
    "app.Main.main,1,1,0,3,5,2,5,12,7,same\n";

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* Runs build/jcal-post diff with args (NULL-terminated), stdout to
 * out_path, stderr to err_path; returns its exit status, -1 when it did
 * not exit. */
static int diff(const char *const *args)
{
	static char *argv[1024];
	size_t n = 0;
	pid_t pid;
	int st;

	argv[n++] = "build/jcal-post";
	argv[n++] = "diff";
	for (; *args && n < 1023; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);
	int c;

	while (f && m && (c = fgetc(f)) != EOF)
		fputc(c, m);
	if (m)
		fclose(m);
	if (f)
		fclose(f);
	return s;
}

/* Checks the exit status, stdout and stderr of the last run (NULL: not
 * checked). */
static void expect(int line, int got, int status, const char *out, const char *err)
{
	char *o = slurp(out_path), *e = slurp(err_path);

	if (got != status || (out && strcmp(o ? o : "", out)) || (err && strcmp(e ? e : "", err))) {
		fprintf(stderr, "  line %d: exit %d (expected %d)\n--- stdout\n%s--- stderr\n%s",
			line, got, status, o ? o : "", e ? e : "");
		CHECK(0);
	}
	free(o);
	free(e);
}

static char base[128], new_[128], same[128], snap[128], cycles[128];

static void write_inputs(void)
{
	static const char *const cyc[] = {"0 E app.Main.main\n9 X app.Main.main\n"};

	path_of(base, sizeof(base), "base.bin");
	path_of(new_, sizeof(new_), "new.bin");
	path_of(same, sizeof(same), "same.bin");
	path_of(snap, sizeof(snap), "new.tree");
	path_of(cycles, sizeof(cycles), "cycles.bin");
	path_of(out_path, sizeof(out_path), "out.txt");
	path_of(err_path, sizeof(err_path), "err.txt");
	CHECK_EQ_I(mg_trace_file(base, base_build, names, 1, NULL, NULL), 0);
	CHECK_EQ_I(mg_trace_file(new_, new_build, names, 1, NULL, NULL), 0);
	CHECK_EQ_I(mg_trace_file(same, base_build, names, 1, NULL, NULL), 0);
	CHECK_EQ_I(mg_snapshot_file(snap, new_build, names, 1), 0);
	CHECK_EQ_I(mg_trace_file(cycles, cyc, names, 1, "cycles", "cycles"), 0);
}

static void test_reports(void)
{
	const char *flat[] = {base, new_, "--raw", "--format", "csv", NULL};
	const char *tree[] = {base, new_, "--raw", "--report", "tree", "--format", "csv", NULL};
	const char *coll[] = {base, new_, "--raw", "--report", "collapsed", NULL};
	const char *calls[] = {base, new_, "--raw", "--report=collapsed", "--value=calls", NULL};

	expect(__LINE__, diff(flat), 0, flat_csv, "");
	expect(__LINE__, diff(tree), 0,
	       "thread,level,path,calls_base,calls_new,calls_delta,base_base,base_new,base_delta,"
	       "cum_base,cum_new,cum_delta,status\n"
	       "main,0,,1,1,0,0,0,0,5,12,7,same\n"
	       "main,1,app.Main.main,1,1,0,3,5,2,5,12,7,same\n"
	       "main,2,app.Main.main;app.Work.step,1,3,2,1,6,5,1,6,5,changed\n"
	       "main,2,app.Main.main;app.New.added,0,1,1,0,1,1,0,1,1,added\n"
	       "main,2,app.Main.main;app.Old.gone,1,0,-1,1,0,-1,1,0,-1,removed\n",
	       "");
	expect(__LINE__, diff(coll), 0,
	       "main;app.Main.main 3 5\n"
	       "main;app.Main.main;app.Work.step 1 6\n"
	       "main;app.Main.main;app.Old.gone 1 0\n"
	       "main;app.Main.main;app.New.added 0 1\n",
	       "");
	expect(__LINE__, diff(calls), 0,
	       "main;app.Main.main 1 1\n"
	       "main;app.Main.main;app.Work.step 1 3\n"
	       "main;app.Main.main;app.Old.gone 1 0\n"
	       "main;app.Main.main;app.New.added 0 1\n",
	       "");
}

/* A trace against a tree snapshot of the same events: the same report. */
static void test_snapshot(void)
{
	const char *args[] = {base, snap, "--raw", "--format", "csv", NULL};
	const char *both[] = {new_,	   snap,    "--raw", "--fail-on", "calls:0%",
			      "--fail-on", "cum:0", "-o",    out_path,	  NULL};

	expect(__LINE__, diff(args), 0, flat_csv, "");
	expect(__LINE__, diff(both), 0, NULL, "");
}

static void test_gate(void)
{
	const char *fail[] = {base,	   new_,       "--raw",	    "--format", "csv",
			      "--fail-on", "calls:0%", "--fail-on", "cum:400%", NULL};
	const char *scoped[] = {base,	   new_,	"--raw",    "--format", "csv",	"--fail-on",
				"calls:0", "--include", "*.Main.*", "--thread", "main", NULL};
	const char *one[] = {base,     same,	   "--raw", "--fail-on", "calls:0%", "--fail-on",
			     "cum:0%", "--report", "tree",  "-o",	 out_path,   NULL};

	expect(__LINE__, diff(fail), 3, flat_csv,
	       "jcal-post: fail-on calls:0%: app.Work.step calls 1 -> 3 (+200.0%)\n"
	       "jcal-post: fail-on calls:0%: app.New.added calls 0 -> 1 (added)\n"
	       "jcal-post: fail-on cum:400%: app.Work.step cum 1 -> 6 (+500.0%)\n"
	       "jcal-post: fail-on cum:400%: app.New.added cum 0 -> 1 (added)\n");
	/* only app.Main.main in scope: it did not grow */
	expect(__LINE__, diff(scoped), 0, NULL, "");
	/* two runs of one build */
	expect(__LINE__, diff(one), 0, NULL, "");
}

/* BASE... -- NEW...: medians and the sets' columns. */
static void test_sets(void)
{
	const char *args[] = {base, same, "--", new_, snap, "--raw", "--format", "csv", NULL};

	expect(__LINE__, diff(args), 0,
	       "method,calls_base,calls_new,calls_delta,base_base,base_new,base_delta,cum_base,"
	       "cum_new,cum_delta,status,calls_spread,cost_spread,cost_change\n"
	       "app.Work.step,1,3,2,1,6,5,1,6,5,changed,0,0.0,beyond\n"
	       "app.New.added,0,1,1,0,1,1,0,1,1,added,0,0.0,beyond\n"
	       "app.Old.gone,1,0,-1,1,0,-1,1,0,-1,removed,0,0.0,beyond\n"
	       "app.Main.main,1,1,0,3,5,2,5,12,7,changed,0,0.0,beyond\n",
	       "");
}

/* --merge: each side's inputs one profile, counts summed (two runs of
 * BASE's build against a trace and a snapshot of NEW's), its threads
 * grouped by their own names; one run a side. */
static void test_merge(void)
{
	const char *flat[] = {"--merge", base,	  same,	      "--",  new_,
			      snap,	 "--raw", "--format", "csv", NULL};
	const char *tree[] = {base,	  same,	  "--",	     new_,	 snap,	"--raw",
			      "--report", "tree", "--merge", "--format", "csv", NULL};
	const char *text[] = {"--merge", base, same, "--", new_, "--raw", NULL};
	const char *one[] = {"--merge", base, "--", new_, "--raw", "--format", "csv", NULL};
	const char *thr[] = {"--merge",	 base,	same,	    "--",	new_,	    snap,   "--raw",
			     "--format", "csv", "--thread", "main [2*", "--report", "tree", NULL};
	const char *metric[] = {"--merge", base, same, "--", new_, cycles, "--raw", NULL};
	char *o, *e;

	expect(__LINE__, diff(flat), 0,
	       "method,calls_base,calls_new,calls_delta,base_base,base_new,base_delta,cum_base,"
	       "cum_new,cum_delta,status\n"
	       "app.Work.step,2,6,4,2,12,10,2,12,10,changed\n"
	       "app.New.added,0,2,2,0,2,2,0,2,2,added\n"
	       "app.Old.gone,2,0,-2,2,0,-2,2,0,-2,removed\n"
	       "app.Main.main,2,2,0,6,10,4,10,24,14,same\n",
	       "");
	expect(__LINE__, diff(tree), 0,
	       "thread,level,path,calls_base,calls_new,calls_delta,base_base,base_new,base_delta,"
	       "cum_base,cum_new,cum_delta,status\n"
	       "main,0,,2,2,0,0,0,0,10,24,14,same\n"
	       "main,1,app.Main.main,2,2,0,6,10,4,10,24,14,same\n"
	       "main,2,app.Main.main;app.Work.step,2,6,4,2,12,10,2,12,10,changed\n"
	       "main,2,app.Main.main;app.New.added,0,2,2,0,2,2,0,2,2,added\n"
	       "main,2,app.Main.main;app.Old.gone,2,0,-2,2,0,-2,2,0,-2,removed\n",
	       "");
	/* the head names both inputs of the merged side, and its events */
	expect(__LINE__, diff(text), 0, NULL, "");
	o = slurp(out_path);
	CHECK(o && strstr(o, "base.bin + ") &&
	      strstr(o, "same.bin: JVM unknown, mode events, 12 "
			"events, 2 threads, calibration none"));
	CHECK(o && strstr(o, "one run a side"));
	free(o);
	/* a side of one input is that input, as without --merge */
	expect(__LINE__, diff(one), 0, flat_csv, "");
	/* --thread by the name with its input: the second input's main of each side */
	expect(__LINE__, diff(thr), 0,
	       "thread,level,path,calls_base,calls_new,calls_delta,base_base,base_new,base_delta,"
	       "cum_base,cum_new,cum_delta,status\n"
	       "main,0,,1,1,0,0,0,0,5,12,7,same\n"
	       "main,1,app.Main.main,1,1,0,3,5,2,5,12,7,same\n"
	       "main,2,app.Main.main;app.Work.step,1,3,2,1,6,5,1,6,5,changed\n"
	       "main,2,app.Main.main;app.New.added,0,1,1,0,1,1,0,1,1,added\n"
	       "main,2,app.Main.main;app.Old.gone,1,0,-1,1,0,-1,1,0,-1,removed\n",
	       "");
	/* inputs of other metrics inside a side: the merge's one line */
	expect(__LINE__, diff(metric), 1, "", NULL);
	e = slurp(err_path);
	CHECK(e && strstr(e, "jcal-post: error: ") == e && strstr(e, "cannot be added") &&
	      strchr(e, '\n') == e + strlen(e) - 1);
	free(e);
}

/* More inputs a side than the runs of a set take: summed with --merge
 * (300 links to one trace: every count 300 times), refused without. */
static void test_merge_many(void)
{
	enum { MANY = 300 };
	static char links[MANY][128];
	static const char *args[MANY + 8];
	size_t n = 0;
	char *o;

	args[n++] = "--merge";
	for (int i = 0; i < MANY; i++) {
		snprintf(links[i], sizeof(links[i]), "%s/many-%d.bin", dir, i);
		CHECK(symlink(base, links[i]) == 0);
		args[n++] = links[i];
	}
	args[n++] = "--";
	args[n++] = new_;
	args[n++] = "--raw";
	args[n++] = "--format";
	args[n++] = "csv";
	args[n] = NULL;
	expect(__LINE__, diff(args), 0, NULL, "");
	o = slurp(out_path);
	CHECK(o && strstr(o, "\napp.Old.gone,300,0,-300,300,0,-300,300,0,-300,removed\n") &&
	      strstr(o, "\napp.Work.step,300,3,-297,300,6,-294,300,6,-294,changed\n") &&
	      strstr(o, "\napp.Main.main,300,1,-299,900,5,-895,1500,12,-1488,changed\n"));
	free(o);
	expect(__LINE__, diff(args + 1), 2, "",
	       "jcal-post: error: more than 256 inputs on a side (--merge takes up to 100000, "
	       "summed)\n");
	for (int i = 0; i < MANY; i++)
		unlink(links[i]);
}

static void test_errors(void)
{
	char missing[128];
	const char *metric[] = {base, cycles, "--raw", NULL};
	const char *nometric[] = {base, new_, "--raw", "--metric", "cycles", NULL};
	const char *nothread[] = {base, new_, "--raw", "--thread", "worker", NULL};
	const char *gone[] = {base, missing, "--raw", NULL};
	const char *oin[] = {base, new_, "-o", new_, NULL};
	const char *one[] = {base, NULL};
	const char *three[] = {base, new_, same, NULL};
	const char *empty_new[] = {base, "--", NULL};
	const char *stdin_in[] = {base, "-", NULL};
	const char *badgate[] = {base, new_, "--fail-on", "calls:lots", NULL};
	const char *badval[] = {base, new_, "--value", "calls", NULL};
	const char *unknown[] = {base, new_, "--speedscope-evented", NULL};
	const char *novalue[] = {base, new_, "--top", NULL};
	const char *rawcal[] = {base, new_, "--raw", "--calib", base, NULL};
	const char *badrep[] = {base, new_, "--report", "summary", NULL};

	path_of(missing, sizeof(missing), "missing.bin");
	expect(__LINE__, diff(metric), 1, "", NULL);
	{
		char *e = slurp(err_path);

		CHECK(e && strstr(e, "jcal-post: error: ") == e &&
		      strstr(e, "cycles.bin measures "
				"cycles (cycles)") &&
		      strchr(e, '\n') == e + strlen(e) - 1);
		free(e);
	}
	expect(__LINE__, diff(nometric), 2, "", NULL);
	expect(__LINE__, diff(nothread), 1, "", NULL);
	expect(__LINE__, diff(gone), 1, "", NULL);
	expect(__LINE__, diff(oin), 1, "", NULL);
	expect(__LINE__, diff(one), 2, "",
	       "jcal-post: error: two inputs expected (usage: jcal-post diff BASE NEW, or BASE... "
	       "-- NEW...; see --help)\n");
	expect(__LINE__, diff(three), 2, "", NULL);
	expect(__LINE__, diff(empty_new), 2, "",
	       "jcal-post: error: no NEW input after -- (usage: jcal-post diff BASE... -- "
	       "NEW...)\n");
	expect(__LINE__, diff(stdin_in), 2, "", NULL);
	expect(__LINE__, diff(badgate), 2, "",
	       "jcal-post: error: --fail-on 'calls:lots': expected calls:PCT or cum:PCT (PCT a "
	       "percentage, 0 or more: 0, 5%, 2.5%)\n");
	expect(__LINE__, diff(badval), 2, "", NULL);
	expect(__LINE__, diff(unknown), 2, "",
	       "jcal-post: error: unknown option '--speedscope-evented' (see jcal-post diff "
	       "--help)\n");
	expect(__LINE__, diff(novalue), 2, "",
	       "jcal-post: error: option '--top' needs a value (see jcal-post diff --help)\n");
	expect(__LINE__, diff(rawcal), 2, "",
	       "jcal-post: error: --raw and --calib exclude each other\n");
	expect(__LINE__, diff(badrep), 2, "", NULL);
	{
		char *e = slurp(err_path);

		CHECK(e &&
		      strstr(e, "--report 'summary': expected flat, tree, callers, collapsed"));
		free(e);
	}
	/* every error is one line */
	{
		char *e = slurp(err_path);

		CHECK(e && strchr(e, '\n') == e + strlen(e) - 1);
		free(e);
	}
}

static void test_help(void)
{
	const char *help[] = {"--help", NULL};
	char *o;

	expect(__LINE__, diff(help), 0, NULL, "");
	o = slurp(out_path);
	CHECK(o && strstr(o, "usage: jcal-post diff BASE NEW [options]") == o);
	CHECK(o && strstr(o, "--fail-on calls:PCT|cum:PCT") && strstr(o, "collapsed"));
	free(o);
}

int main(void)
{
	if (access("build/jcal-post", X_OK)) {
		fprintf(stderr, "  build/jcal-post is missing (run from the repository root, "
				"after make)\n");
		CHECK(0);
		return test_summary("diff-cli");
	}
	snprintf(dir, sizeof(dir), "/tmp/jcal-diff-cli.XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	write_inputs();
	RUN(test_reports);
	RUN(test_snapshot);
	RUN(test_gate);
	RUN(test_sets);
	RUN(test_merge);
	RUN(test_merge_many);
	RUN(test_errors);
	RUN(test_help);
	{
		const char *files[] = {base, new_, same, snap, cycles, out_path, err_path};

		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
			unlink(files[i]);
		rmdir(dir);
	}
	return test_summary("diff-cli");
}
