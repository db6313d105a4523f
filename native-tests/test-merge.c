/*
 * test-merge.c - jcal-post FILE... (postproc/merge.c): three recordings of
 * one program, two traces from "two hosts" (two calibration tables of
 * different fingerprints in one directory, each trace finding its own) and
 * a tree snapshot, merged to exact sums, each compensated with its own
 * table; threads named and numbered with their input; the summary's
 * inputs; the pprof export's labels (host, pid, thread, jvm, label=);
 * inputs of other metrics refused in one line; TSC figures of different
 * frequencies added as ns; a merged profile folded (flat, callers,
 * --merge-threads) as it is kept apart; the reports of single calls
 * (latency, slow) reading each input again; the errors of several inputs.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "native-tests/foldgen.h"
#include "native-tests/modelgen.h"
#include "native-tests/postrun.h"
#include "native-tests/test.h"
#include "postproc/merge.h"
#include "postproc/shaping.h"

static char dir[64], err_path[128];

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* One run: main calls a twice, every event 10 ticks after the one before. */
static const char run_script[] = "10 E M.main\n20 E M.a\n30 X M.a\n40 E M.a\n50 X M.a\n"
				 "60 X M.main\n";

/* A host's fingerprint (calibration-format.md) as trace meta records. */
#define FINGERPRINT(NAME)                                                                          \
	"host.cpu.vendor", "v", "host.cpu.family", "6", "host.cpu.model", "1",                     \
	    "host.cpu.stepping", "0", "host.cpu.model_name", NAME, "host.kernel", "k",             \
	    "jvm.vendor", "j", "jvm.version", "17", "jvm.exec", "interpreted mode",                \
	    "agent.version", "merge-test"

/* A table of that fingerprint: comp on each of the run's four keys (its
 * minimum less an environment cost of 1). */
static int write_table(const char *path, const char *name, unsigned comp)
{
	static const char *const keys[] = {"O:E:I:E:I", "I:E:I:X:I", "I:X:I:E:I", "I:X:I:X:O"};
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(
	    f,
	    "jcal-calibration 2\ncpu.vendor v\ncpu.family 6\ncpu.model 1\ncpu.stepping 0\n"
	    "cpu.model_name %s\nkernel k\njvm.vendor j\njvm.version 17\n"
	    "jvm.exec interpreted mode\nmode events\nmetrics ticks\nagent.version merge-test\n"
	    "created 2024-05-01T12:00:00Z\nunit ticks\nenv.method none\nenv.missing 0\nkeys 4\n",
	    name);
	for (size_t i = 0; i < 4; i++)
		fprintf(f, "%s %u samples=10 env=1 comp=%u mean=%u.0 median=%u p10=%u\n", keys[i],
			comp + 1, comp, comp + 1, comp + 1, comp + 1);
	return fclose(f) ? -1 : 0;
}

static char trace_a[128], trace_b[128], snap_c[128], tables[128];

/* The three runs and the two tables. */
static void write_runs(void)
{
	static const char *const meta_a[] = {
	    FINGERPRINT("hostA-cpu"), "host.name", "hostA", "pid", "101", "jvm.name", "VM",
	    "label.service",	      "web",	   NULL};
	static const char *const meta_b[] = {
	    FINGERPRINT("hostB-cpu"), "host.name", "hostB", "pid", "202", NULL};
	static const char *const meta_c[] = {"host.name", "hostC", "pid", "303", NULL};
	const char *scripts[] = {run_script};
	static const char *const names[] = {"main"};
	char path[160];

	path_of(trace_a, sizeof(trace_a), "a.bin");
	path_of(trace_b, sizeof(trace_b), "b.bin");
	path_of(snap_c, sizeof(snap_c), "c.snap");
	path_of(tables, sizeof(tables), "calib");
	CHECK_EQ_I(mkdir(tables, 0700), 0);
	snprintf(path, sizeof(path), "%s/hostA.txt", tables);
	CHECK_EQ_I(write_table(path, "hostA-cpu", 1), 0);
	snprintf(path, sizeof(path), "%s/hostB.txt", tables);
	CHECK_EQ_I(write_table(path, "hostB-cpu", 3), 0);
	mg_meta = meta_a;
	CHECK_EQ_I(mg_trace_file(trace_a, scripts, names, 1, NULL, NULL), 0);
	mg_meta = meta_b;
	CHECK_EQ_I(mg_trace_file(trace_b, scripts, names, 1, NULL, NULL), 0);
	mg_meta = meta_c;
	CHECK_EQ_I(mg_snapshot_file(snap_c, scripts, names, 1), 0);
	mg_meta = NULL;
}

/* Runs jcal-post with args and compares its output with want. */
static void check_run(const char *const *args, const char *want)
{
	char out[128];
	size_t len;
	char *got;

	path_of(out, sizeof(out), "out.txt");
	CHECK_EQ_I(postrun(args, out, err_path, 0), 0);
	got = postrun_slurp(out, &len);
	CHECK(got != NULL);
	if (got)
		CHECK_STR(got, want);
	free(got);
}

/* The merge adds each run compensated by its own table: A's deltas lose 1
 * tick, B's 3, the snapshot's are raw (an agent without a table). */
static void test_three_runs(void)
{
	const char *flat[] = {trace_a, trace_b,	   snap_c, "--calib",  tables, "--estimator",
			      "min",   "--report", "flat", "--format", "csv",  NULL};
	const char *alone_b[] = {trace_b,    "--calib", tables,	    "--estimator", "min",
				 "--report", "flat",	"--format", "csv",	   NULL};
	const char *tree[] = {trace_a, trace_b,	   snap_c, "--calib",  tables, "--estimator",
			      "min",   "--report", "tree", "--format", "csv",  NULL};
	const char *sum[] = {trace_a, trace_b,	  snap_c,    "--calib",	 tables, "--estimator",
			     "min",   "--report", "summary", "--format", "csv",	 NULL};
	char out[128], want[256];
	size_t len;
	char *s;

	/* main: 3 deltas of 10 a run, a: 2; A 27/18, B 21/14, C 30/20 */
	check_run(flat, "method,calls,base,cum,raw_base,raw_cum\n"
			"M.main,3,78,130,90,150\nM.a,6,52,52,60,60\n");
	check_run(alone_b, "method,calls,base,cum,raw_base,raw_cum\n"
			   "M.main,1,21,35,30,50\nM.a,2,14,14,20,20\n");
	check_run(tree, "thread,level,rl,calls,base,cum,raw_base,raw_cum,path\n"
			"main [1 hostA:101]#1,0,1,1,0,45,0,50,\n"
			"main [1 hostA:101]#1,1,1,1,27,45,30,50,M.main\n"
			"main [1 hostA:101]#1,2,1,2,18,18,20,20,M.main;M.a\n"
			"main [2 hostB:202]#2,0,1,1,0,35,0,50,\n"
			"main [2 hostB:202]#2,1,1,1,21,35,30,50,M.main\n"
			"main [2 hostB:202]#2,2,1,2,14,14,20,20,M.main;M.a\n"
			"main [3 hostC:303]#3,0,1,1,0,50,0,50,\n"
			"main [3 hostC:303]#3,1,1,1,30,50,30,50,M.main\n"
			"main [3 hostC:303]#3,2,1,2,20,20,20,20,M.main;M.a\n");
	path_of(out, sizeof(out), "out.txt");
	CHECK_EQ_I(postrun(sum, out, err_path, 0), 0);
	s = postrun_slurp(out, &len);
	CHECK(s != NULL);
	/* each input with the table of its own fingerprint */
	snprintf(want, sizeof(want), "\ninput.1.calib,\"%s/hostA.txt", tables);
	CHECK(s && strstr(s, want));
	snprintf(want, sizeof(want), "\ninput.2.calib,\"%s/hostB.txt", tables);
	CHECK(s && strstr(s, want));
	CHECK(s && strstr(s, "\ninput.3.kind,snapshot\ninput.3.host,hostC\ninput.3.pid,303\n"));
	CHECK(s && strstr(s, "\ninput.3.calib,none\n"));
	CHECK(s && strstr(s, "\ninput.1.host,hostA\ninput.1.pid,101\ninput.1.jvm,VM 17\n"));
	CHECK(s && strstr(s, "\ninput.1.events,6\ninput.1.threads,1\ninput.1.label.service,web\n"));
	CHECK(s && strstr(s, "\ninputs,3\n") && strstr(s, "\nthreads,3\n"));
	CHECK(s && strstr(s, "\nevents,18\n"));
	free(s);
}

/* The reports of single calls read each input again with its own table:
 * main's one call a run (45 calibrated by hostA's table, 35 by hostB's),
 * a's two (9 and 7 each); a snapshot among the inputs refused. */
static void test_single_calls(void)
{
	const char *lat[] = {trace_a,	 trace_b,   "--calib",	tables, "--estimator", "min",
			     "--report", "latency", "--format", "csv",	NULL};
	const char *slow[] = {trace_a, trace_b,	   "--calib", tables,	  "--estimator",
			      "min",   "--report", "slow",    "--format", "csv",
			      "--top", "3",	   NULL};
	const char *snap[] = {trace_a, snap_c, "--report", "latency", NULL};
	char out[128];

	check_run(lat, "method,calls,min,p50,p90,p99,p99_9,max,mean,total\n"
		       "M.main,2,35,35,45,45,45,45,40,80\n"
		       "M.a,4,7,7,9,9,9,9,8,32\n");
	check_run(slow, "rank,method,duration,thread,start,start_ns,path,self,callees\n"
			"1,M.main,45,main [1 hostA:101]#1,,,M.main,27,M.a=18\n"
			"2,M.main,35,main [2 hostB:202]#2,,,M.main,21,M.a=14\n"
			"3,M.a,9,main [1 hostA:101]#1,,,M.main;M.a,9,\n");
	path_of(out, sizeof(out), "out.txt");
	fprintf(stderr, "  (an error line expected:)\n");
	CHECK_EQ_I(postrun(snap, out, err_path, 0), 2);
}

/* --- the labels of the pprof export, decoded --- */

struct pbuf {
	const uint8_t *p, *end;
};

static uint64_t varint(struct pbuf *b)
{
	uint64_t v = 0;

	for (unsigned s = 0; b->p < b->end && s < 64; s += 7) {
		uint8_t c = *b->p++;

		v |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80))
			break;
	}
	return v;
}

/* The next field of b: its number, its varint or its bytes in sub. */
static int field(struct pbuf *b, unsigned *num, uint64_t *v, struct pbuf *sub)
{
	uint64_t key;

	if (b->p >= b->end)
		return 0;
	key = varint(b);
	*num = (unsigned)(key >> 3);
	if ((key & 7) == 0) {
		*v = varint(b);
	} else {
		uint64_t n = varint(b);

		sub->p = b->p;
		sub->end = b->p + n <= b->end ? b->p + n : b->end;
		b->p = sub->end;
	}
	return 1;
}

/* The samples' labels as "k=v,k=v\n" lines, in the samples' order. */
static char *pprof_labels(const char *path)
{
	static uint8_t raw[1 << 20];
	char *strs[256] = {0}, *lines = NULL;
	size_t nstr = 0, len = 0, nl = 0;
	FILE *mem;
	gzFile g = gzopen(path, "rb");
	int n = g ? gzread(g, raw, sizeof(raw)) : -1;
	struct pbuf b = {raw, raw + (n > 0 ? n : 0)}, s, l, x;
	struct {
		uint64_t k, v;
	} lab[1024][8];
	size_t nlab[1024] = {0}, ns = 0;
	unsigned f, f2, f3;
	uint64_t v, v2, v3;

	if (g)
		gzclose(g);
	while (field(&b, &f, &v, &s)) {
		if (f == 6 && nstr < 256)
			strs[nstr++] = strndup((const char *)s.p, (size_t)(s.end - s.p));
		if (f != 2 || ns == 1024)
			continue;
		while (field(&s, &f2, &v2, &l))
			if (f2 == 3 && nlab[ns] < 8) {
				while (field(&l, &f3, &v3, &x))
					if (f3 == 1)
						lab[ns][nlab[ns]].k = v3;
					else if (f3 == 2)
						lab[ns][nlab[ns]].v = v3;
				nlab[ns]++;
			}
		ns++;
	}
	mem = open_memstream(&lines, &len);
	for (size_t i = 0; mem && i < ns; i++) {
		for (size_t k = 0; k < nlab[i]; k++)
			fprintf(mem, "%s%s=%s", k ? "," : "",
				lab[i][k].k < nstr ? strs[lab[i][k].k] : "?",
				lab[i][k].v < nstr ? strs[lab[i][k].v] : "?");
		fputc('\n', mem);
		nl++;
	}
	if (mem)
		fclose(mem);
	for (size_t i = 0; i < nstr; i++)
		free(strs[i]);
	return lines;
}

static void test_pprof_labels(void)
{
	const char *args[] = {trace_a, trace_b, snap_c, "--raw", "--report", "pprof", NULL};
	char out[128];
	char *lines;

	path_of(out, sizeof(out), "out.pb.gz");
	CHECK_EQ_I(postrun(args, out, err_path, 0), 0);
	lines = pprof_labels(out);
	/* per run: main and a, each one sample; the thread's own name and serial */
	CHECK_STR(lines, "thread=main#1,host=hostA,pid=101,jvm=VM 17,service=web\n"
			 "thread=main#1,host=hostA,pid=101,jvm=VM 17,service=web\n"
			 "thread=main#1,host=hostB,pid=202,jvm=17\n"
			 "thread=main#1,host=hostB,pid=202,jvm=17\n"
			 "thread=main#1,host=hostC,pid=303\n"
			 "thread=main#1,host=hostC,pid=303\n");
	free(lines);
	/* one input alone: the same labels from its meta records */
	const char *one[] = {trace_a, "--raw", "--report", "pprof", NULL};

	CHECK_EQ_I(postrun(one, out, err_path, 0), 0);
	lines = pprof_labels(out);
	CHECK_STR(lines, "thread=main#1,host=hostA,pid=101,jvm=VM 17,service=web\n"
			 "thread=main#1,host=hostA,pid=101,jvm=VM 17,service=web\n");
	free(lines);
	/* merged threads of several inputs: no host nor pid of their own */
	const char *merged[] = {trace_a, trace_b,	    "--raw", "--report",
				"pprof", "--merge-threads", NULL};

	CHECK_EQ_I(postrun(merged, out, err_path, 0), 0);
	lines = pprof_labels(out);
	CHECK_STR(lines, "thread=2 threads merged#0\nthread=2 threads merged#0\n");
	free(lines);
}

/* Runs jcal-post with args; it must fail with exit status st and the one
 * line err on stderr. */
static void check_error(const char *const *args, int st, const char *err)
{
	char out[128], want[1024];
	size_t len;
	char *got;

	path_of(out, sizeof(out), "never.txt");
	CHECK_EQ_I(postrun(args, out, err_path, 0), st);
	got = postrun_slurp(err_path, &len);
	snprintf(want, sizeof(want), "jcal-post: error: %s\n", err);
	CHECK(got != NULL);
	if (got)
		CHECK_STR(got, want);
	free(got);
	CHECK(access(out, F_OK) != 0);
}

static void test_errors(void)
{
	static const char *const names[] = {"main"};
	const char *scripts[] = {run_script};
	char cpu[128], want[512];

	path_of(cpu, sizeof(cpu), "cpu.bin");
	CHECK_EQ_I(mg_trace_file(cpu, scripts, names, 1, "cputime", "ns"), 0);
	const char *metrics[] = {trace_a, cpu, "--raw", NULL};

	snprintf(want, sizeof(want),
		 "%s records ticks, %s records cputime: figures of different metrics cannot be "
		 "added (merge recordings made with one metric= setting)",
		 trace_a, cpu);
	check_error(metrics, 1, want);
	const char *stdin_too[] = {trace_a, "-", NULL};

	check_error(stdin_too, 2, "several inputs are files: stdin ('-') is one input alone");
	const char *chrome[] = {trace_a, trace_b, "--report", "chrome", NULL};

	check_error(chrome, 2,
		    "--report chrome draws one recording's timeline from its events: give one "
		    "input, not 2");
	const char *calib[] = {trace_a, trace_b, "--report", "calib", NULL};

	check_error(calib, 2,
		    "--report calib derives a table from one calibration trace, got 2 inputs");
	const char *missing[] = {trace_a, "/nonexistent/x.bin", "--raw", NULL};

	check_error(missing, 1, "/nonexistent/x.bin: cannot open: No such file or directory");
}

/* Two TSC traces of different frequencies: each run's figures as ns
 * (ticks * 1e9 / hz), added. */
static void test_tsc(void)
{
	static const char *const hz1[] = {"metrics",	"tsc", "metric.0.name", "tsc", "tsc.hz",
					  "1000000000", NULL};
	static const char *const hz4[] = {"metrics",	"tsc", "metric.0.name", "tsc", "tsc.hz",
					  "4000000000", NULL};
	static const char *const names[] = {"main"};
	const char *scripts[] = {run_script};
	char t1[128], t4[128];

	path_of(t1, sizeof(t1), "tsc1.bin");
	path_of(t4, sizeof(t4), "tsc4.bin");
	mg_nometrics = 1;
	mg_meta = hz1;
	CHECK_EQ_I(mg_trace_file(t1, scripts, names, 1, NULL, NULL), 0);
	mg_meta = hz4;
	CHECK_EQ_I(mg_trace_file(t4, scripts, names, 1, NULL, NULL), 0);
	mg_meta = NULL;
	mg_nometrics = 0;
	const char *args[] = {t1, t4, "--raw", "--report", "flat", "--format", "csv", NULL};

	/* 1 GHz: 30 and 20 ns; 4 GHz: 7.5 rounds to 8 per context, 5 */
	check_run(args, "method,calls,base,cum,raw_base,raw_cum\n"
			"M.main,2,38,63,38,63\nM.a,4,25,25,25,25\n");
	/* single calls converted with their own trace's frequency: main 50 and
	 * 12.5 ns, a 10 and 2.5 ns */
	const char *lat[] = {t1, t4, "--raw", "--report", "latency", "--format", "csv", NULL};

	check_run(lat, "method,calls,min,p50,p90,p99,p99_9,max,mean,total\n"
		       "M.main,2,13,13,50,50,50,50,32,63\n"
		       "M.a,4,3,3,10,10,10,10,7,26\n");
}

/* --- folded as kept apart --- */

/* The inputs merged, folded or not; c's other fields as jcal-post's. */
static int merged(struct input *in, const char *const *paths, size_t n, int fold, int merge,
		  const char **pats, size_t npats)
{
	struct cli c;

	if (cli_init(&c, 4))
		return -1;
	c.inputs = paths;
	c.ninputs = n;
	c.trace = paths[0];
	c.raw = 1;
	c.jobs = 2;
	c.fold = fold;
	c.sh.so.merge = merge;
	for (size_t i = 0; i < npats; i++)
		c.threads[i] = pats[i];
	c.nthreads = npats;
	int rc = merge_open(in, &c);

	in->c.threads = NULL; /* c's, freed here */
	cli_free(&c);
	return rc;
}

static char *run_kind(int (*fn)(const struct model *, const struct report_opts *), struct input *in,
		      enum report_format fmt, int merge, const char **pats, size_t npats)
{
	static struct shape_info info;
	struct threadsel sel = {pats, npats};
	struct shape_opts so = {0};
	struct report_opts o = {0};
	char err[REPORT_ERR_LEN];
	int st;

	memset(&info, 0, sizeof(info));
	so.merge = merge;
	so.sel = in->m.folded ? NULL : &sel;
	if (shape_active(&so) && shape_apply(&in->m, &so, &info))
		return NULL;
	o.format = fmt;
	o.sel = in->m.folded || merge ? NULL : &sel;
	o.shaped = &info;
	o.err = err;
	return mg_run(fn, &in->m, &o, &st);
}

static void test_fold_matches(void)
{
	static const struct {
		int (*fn)(const struct model *, const struct report_opts *);
		enum report_format fmt;
		int merge;
	} kinds[] = {
	    {report_flat, REPORT_TEXT, 0},	{report_callers, REPORT_CSV, 0},
	    {report_tree, REPORT_CSV, 1},	{report_hot, REPORT_TEXT, 1},
	    {export_collapsed, REPORT_TEXT, 1}, {export_html, REPORT_TEXT, 1},
	};
	static const char *pats[] = {"worker-2", "#40", "main*"};
	char paths[3][128];
	const char *p[3] = {paths[0], paths[1], paths[2]};

	for (unsigned i = 0; i < 3; i++) {
		char name[32];

		snprintf(name, sizeof(name), "fold-%u.bin", i);
		path_of(paths[i], sizeof(paths[i]), name);
		CHECK_EQ_I(foldgen_write(paths[i], 25 + 5 * i, 1, 31 + i, 1 + i), 0);
	}
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (size_t np = 0; np <= 3; np += 3) {
			struct input a, b;
			char *x = NULL, *y = NULL;

			CHECK_EQ_I(merged(&a, p, 3, 0, kinds[k].merge, pats, np), 0);
			CHECK_EQ_I(merged(&b, p, 3, 1, kinds[k].merge, pats, np), 0);
			CHECK(b.m.folded);
			x = run_kind(kinds[k].fn, &a, kinds[k].fmt, kinds[k].merge, pats, np);
			y = run_kind(kinds[k].fn, &b, kinds[k].fmt, kinds[k].merge, pats, np);
			CHECK(x && y);
			if (x && y && strcmp(x, y))
				fprintf(stderr,
					"  kind %zu, %zu patterns: differs\n--- apart\n%s--- "
					"folded\n%s",
					k, np, x, y);
			CHECK(x && y && !strcmp(x, y));
			free(x);
			free(y);
			input_free(&a);
			input_free(&b);
		}
}

int main(void)
{
	char cmd[128];

	snprintf(dir, sizeof(dir), "/tmp/jcal-merge.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(err_path, sizeof(err_path), "%s/err.txt", dir);
	if (access("build/jcal-post", X_OK)) {
		fprintf(stderr, "  build/jcal-post is missing (run from the repository root)\n");
		return 1;
	}
	write_runs();
	RUN(test_three_runs);
	RUN(test_single_calls);
	RUN(test_pprof_labels);
	RUN(test_errors);
	RUN(test_tsc);
	RUN(test_fold_matches);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "  cannot remove %s\n", dir);
	return test_summary("merge");
}
