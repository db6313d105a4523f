/*
 * test-post-readable.c - a server's reports as a user reads them
 * (docs/jcal-post.md, "Thread pools" and "Method names"), end to end with
 * build/jcal-post on a real trace file (modelgen.h, postrun.h): the threads
 * of a pool (http-nio-8080-exec-N, pool-1-thread-N, names that differ only
 * in the number that ends them) are one tree per pool in tree, hot, arcs
 * and the exports, their calls and figures added up exactly; a thread
 * alone in its pool, --split-pools, --thread NAME and the summary show
 * each thread; a bridge method's name carries no JVM descriptor in any
 * report or export unless --sig.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "native-tests/modelgen.h"
#include "native-tests/postrun.h"
#include "native-tests/test.h"

static char dir[64], err_path[128], trace[128], snap[128];

#define ACCEPT "t.NioEndpoint.accept()Ljava/nio/channels/SocketChannel;"
#define BRIDGE "t.NioEndpoint.accept()Ljava/nio/channels/NetworkChannel;"

/* Serial order: main, the pool http-nio-8080-exec-* (#2, #4, #5: serials
 * need not follow), pool-1-thread-* (#3, #6), and two threads alone in
 * their pools. */
static const char *const names[] = {
    "main",
    "http-nio-8080-exec-1",
    "pool-1-thread-1",
    "http-nio-8080-exec-2",
    "http-nio-8080-exec-10",
    "pool-1-thread-2",
    "pool-2-thread-1",
    "ForkJoinPool.commonPool-worker-2",
};
static const char *const scripts[] = {
    /* main */
    "0 E M.main\n10 X M.main\n",
    /* exec-1: run (work) */
    "0 E P.run\n1 E P.work\n3 X P.work\n4 X P.run\n",
    /* pool-1-thread-1 */
    "0 E Q.poll\n1 X Q.poll\n",
    /* exec-2: run (work, other), the acceptor's bridge and its target */
    "0 E P.run\n1 E P.work\n2 X P.work\n2 E P.other\n5 X P.other\n6 X P.run\n"
    "7 E " BRIDGE "\n8 E " ACCEPT "\n11 X " ACCEPT "\n12 X " BRIDGE "\n",
    /* exec-10 */
    "5 E P.run\n7 X P.run\n",
    /* pool-1-thread-2 */
    "0 E Q.poll\n3 X Q.poll\n",
    /* pool-2-thread-1 */
    "0 E S.alone\n7 X S.alone\n",
    /* the common pool's worker, alone */
    "0 E F.task\n2 X F.task\n",
};
#define NTHREADS (sizeof(names) / sizeof(names[0]))

/* Runs jcal-post on args (NULL-terminated); the output (free it), NULL
 * when it failed. */
static char *post(const char *const *args)
{
	char out[128];
	size_t len;

	snprintf(out, sizeof(out), "%s/out", dir);
	if (postrun(args, out, err_path, 0))
		return NULL;
	return postrun_slurp(out, &len);
}

#define POST(...) post((const char *const[]){__VA_ARGS__, NULL})

static void test_tree_text(void)
{
	char *s = POST(trace, "--raw", "--simple");

	CHECK_STR(
	    s, "(5 threads of 2 pools shown as one tree per pool; --split-pools shows each "
	       "thread)\n"
	       "Thread \"main\" #1  java tid 1  os tid 4242  platform  metric ticks (ticks)  2 "
	       "events\n"
	       "Lvl RL Calls Base Cum  Name\n"
	       "  0  1     1    0  10  <thread root>\n"
	       "  1  1     1   10  10    M.main\n"
	       "\n"
	       "Thread \"http-nio-8080-exec-* (3 threads)\" #2  threads #2, #4-#5  platform  "
	       "metric ticks (ticks)  16 events\n"
	       "Lvl RL Calls Base Cum  Name\n"
	       "  0  1     1    1  18  <thread root>\n"
	       "  1  1     3    6  12    P.run\n"
	       "  2  1     2    3   3      P.work\n"
	       "  2  1     1    3   3      P.other\n"
	       "  1  1     1    2   5    NioEndpoint.accept(): NetworkChannel\n"
	       "  2  1     1    3   3      NioEndpoint.accept(): SocketChannel\n"
	       "\n"
	       "Thread \"pool-1-thread-* (2 threads)\" #3  threads #3, #6  platform  metric ticks "
	       "(ticks)  4 events\n"
	       "Lvl RL Calls Base Cum  Name\n"
	       "  0  1     1    0   4  <thread root>\n"
	       "  1  1     2    4   4    Q.poll\n"
	       "\n"
	       "Thread \"pool-2-thread-1\" #7  java tid 7  os tid 4248  platform  metric ticks "
	       "(ticks)  2 events\n"
	       "Lvl RL Calls Base Cum  Name\n"
	       "  0  1     1    0   7  <thread root>\n"
	       "  1  1     1    7   7    S.alone\n"
	       "\n"
	       "Thread \"ForkJoinPool.commonPool-worker-2\" #8  java tid 8  os tid 4249  platform "
	       " metric ticks (ticks)  2 events\n"
	       "Lvl RL Calls Base Cum  Name\n"
	       "  0  1     1    0   2  <thread root>\n"
	       "  1  1     1    2   2    F.task\n");
	free(s);
}

/* The group's rows in CSV and JSON, and its calls: the threads' added. */
static void test_tree_csv_json(void)
{
	char *s = POST(trace, "--raw", "--format", "csv", "--thread", "http*");

	CHECK_STR(s,
		  "thread,level,rl,calls,base,cum,raw_base,raw_cum,path\n"
		  "http-nio-8080-exec-* (3 threads)#2,0,1,1,1,18,1,18,\n"
		  "http-nio-8080-exec-* (3 threads)#2,1,1,3,6,12,6,12,P.run\n"
		  "http-nio-8080-exec-* (3 threads)#2,2,1,2,3,3,3,3,P.run;P.work\n"
		  "http-nio-8080-exec-* (3 threads)#2,2,1,1,3,3,3,3,P.run;P.other\n"
		  "http-nio-8080-exec-* (3 threads)#2,1,1,1,2,5,2,5,"
		  "t.NioEndpoint.accept(): NetworkChannel\n"
		  "http-nio-8080-exec-* (3 threads)#2,2,1,1,3,3,3,3,"
		  "t.NioEndpoint.accept(): NetworkChannel;t.NioEndpoint.accept(): SocketChannel\n");
	free(s);
	s = POST(trace, "--raw", "--format", "json", "--thread", "pool-1-*");
	CHECK(s &&
	      strstr(s,
		     "{\"serial\":3,\"name\":\"pool-1-thread-* (2 threads)\",\"threads\":[3,"
		     "6],\"java_tid\":null,\"os_tid\":null,\"kind\":\"platform\",\"events\":4,"));
	CHECK(s && strstr(s, "{\"method\":\"Q.poll\",\"rl\":1,\"calls\":2,\"base\":4,\"cum\":4,"));
	free(s);
}

static void test_hot_and_exports(void)
{
	char *s = POST(trace, "--raw", "--report", "hot", "--thread", "pool-1-*");

	CHECK_STR(s,
		  "(2 threads shown; 6 left out by --thread)\n"
		  "(2 threads of 1 pool shown as one tree per pool; --split-pools shows each "
		  "thread)\n"
		  "Hot path of thread \"pool-1-thread-* (2 threads)\" #3  metric ticks (ticks)  1 "
		  "contexts deep\n"
		  "Lvl RL Calls Base Cum   Cum%  Name\n"
		  "  0  1     1    0   4 100.00  <thread root>\n"
		  "  1  1     2    4   4 100.00    Q.poll\n");
	free(s);
	s = POST(trace, "--raw", "--report", "collapsed", "--simple");
	CHECK_STR(s, "main;M.main 10\n"
		     "http-nio-8080-exec-* (3 threads) 1\n"
		     "http-nio-8080-exec-* (3 threads);P.run 6\n"
		     "http-nio-8080-exec-* (3 threads);P.run;P.work 3\n"
		     "http-nio-8080-exec-* (3 threads);P.run;P.other 3\n"
		     "http-nio-8080-exec-* (3 threads);NioEndpoint.accept(): NetworkChannel 2\n"
		     "http-nio-8080-exec-* (3 threads);NioEndpoint.accept(): "
		     "NetworkChannel;NioEndpoint.accept(): SocketChannel 3\n"
		     "pool-1-thread-* (2 threads);Q.poll 4\n"
		     "pool-2-thread-1;S.alone 7\n"
		     "ForkJoinPool.commonPool-worker-2;F.task 2\n");
	free(s);
	s = POST(trace, "--raw", "--report", "html");
	CHECK(s && strstr(s, "\"http-nio-8080-exec-* (3 threads)#2\"") &&
	      !strstr(s, "http-nio-8080-exec-1"));
	free(s);
	s = POST(trace, "--raw", "--report", "speedscope");
	CHECK(s && strstr(s, "\"name\":\"pool-1-thread-* (2 threads)#3\"") &&
	      !strstr(s, "pool-1-thread-2"));
	free(s);
	/* the timelines keep each thread's events apart */
	s = POST(trace, "--raw", "--report", "chrome");
	CHECK(s && strstr(s, "\"name\":\"http-nio-8080-exec-10\"") && !strstr(s, "threads)"));
	free(s);
}

/* --split-pools: every thread apart, as before; the summary lists each. */
static void test_split_and_select(void)
{
	char *s = POST(trace, "--raw", "--report", "collapsed", "--split-pools");

	CHECK_STR(s, "main;M.main 10\n"
		     "http-nio-8080-exec-1;P.run 2\n"
		     "http-nio-8080-exec-1;P.run;P.work 2\n"
		     "pool-1-thread-1;Q.poll 1\n"
		     "http-nio-8080-exec-2 1\n"
		     "http-nio-8080-exec-2;P.run 2\n"
		     "http-nio-8080-exec-2;P.run;P.work 1\n"
		     "http-nio-8080-exec-2;P.run;P.other 3\n"
		     "http-nio-8080-exec-2;t.NioEndpoint.accept(): NetworkChannel 2\n"
		     "http-nio-8080-exec-2;t.NioEndpoint.accept(): "
		     "NetworkChannel;t.NioEndpoint.accept(): SocketChannel 3\n"
		     "http-nio-8080-exec-10;P.run 2\n"
		     "pool-1-thread-2;Q.poll 3\n"
		     "pool-2-thread-1;S.alone 7\n"
		     "ForkJoinPool.commonPool-worker-2;F.task 2\n");
	free(s);
	/* one thread of a pool: as it is */
	s = POST(trace, "--raw", "--report", "collapsed", "--thread", "http-nio-8080-exec-10");
	CHECK_STR(s, "http-nio-8080-exec-10;P.run 2\n");
	free(s);
	s = POST(trace, "--raw", "--report", "collapsed", "--thread", "#2", "--thread", "#5");
	CHECK_STR(s, "http-nio-8080-exec-* (2 threads);P.run 4\n"
		     "http-nio-8080-exec-* (2 threads);P.run;P.work 2\n");
	free(s);
	/* --merge-threads: one tree of all, as before */
	s = POST(trace, "--raw", "--report", "collapsed", "--merge-threads", "--thread", "pool-*");
	CHECK_STR(s, "Q.poll 4\nS.alone 7\n");
	free(s);
	/* flat and callers add every thread up: no group (--min-pct cuts each
	 * thread by its own cum) */
	s = POST(trace, "--raw", "--report", "callers", "--min-pct", "1");
	CHECK(s && strstr(s, "  8 threads  total 41\n") && !strstr(s, "pool"));
	free(s);
	s = POST(trace, "--raw", "--report", "summary");
	for (size_t i = 0; i < NTHREADS; i++)
		CHECK(s && strstr(s, names[i]));
	CHECK(s && !strstr(s, "threads)"));
	free(s);
}

/* A tree snapshot's threads group the same way; so do a merged profile's,
 * each input's pools apart. */
static void test_snapshot_and_merged(void)
{
	char *a = POST(trace, "--raw", "--report", "collapsed");
	char *b = POST(snap, "--raw", "--report", "collapsed");
	char *c = POST(trace, trace, "--raw", "--report", "collapsed", "--thread", "pool-1-*");

	CHECK(a && b && !strcmp(a, b));
	CHECK_STR(c, "pool-1-thread-* (2 threads) [1];Q.poll 4\n"
		     "pool-1-thread-* (2 threads) [2];Q.poll 4\n");
	free(a);
	free(b);
	free(c);
}

/* The gunzipped pprof profile, whose strings are plain in it (NUL bytes
 * made newlines); NULL when it cannot be read. */
static char *pprof_text(const char *const *args)
{
	static unsigned char buf[1 << 16];
	char out[128], *gz, *s = NULL;
	size_t len;
	z_stream z;

	snprintf(out, sizeof(out), "%s/out", dir);
	if (postrun(args, out, err_path, 0) || !(gz = postrun_slurp(out, &len)))
		return NULL;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) == Z_OK) {
		z.next_in = (Bytef *)gz;
		z.avail_in = (uInt)len;
		z.next_out = buf;
		z.avail_out = sizeof(buf) - 1;
		if (inflate(&z, Z_FINISH) == Z_STREAM_END && (s = malloc(z.total_out + 1))) {
			for (size_t i = 0; i < z.total_out; i++)
				s[i] = buf[i] ? (char)buf[i] : '\n';
			s[z.total_out] = '\0';
		}
		inflateEnd(&z);
	}
	free(gz);
	return s;
}

/* The bridge method and its target in every report and export: told apart
 * by their return types, never the descriptor unless --sig. */
static void test_no_descriptors(void)
{
	static const char *const kinds[] = {"tree",   "hot",	 "flat",      "summary",
					    "arcs",   "callers", "collapsed", "speedscope",
					    "chrome", "html"};
	static const char *const formats[] = {"text", "csv", "json"};

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (size_t f = 0; f < 3; f++)
			for (int simple = 0; simple < 2; simple++) {
				char *s = POST(trace, "--report", kinds[k], "--format", formats[f],
					       simple ? "--simple" : "--raw");
				/* the summary names no method, hot only its path's */
				int names_shown =
				    strcmp(kinds[k], "summary") && strcmp(kinds[k], "hot");

				if (!s || strstr(s, "Ljava/") || strstr(s, ")V") ||
				    (names_shown && !strstr(s, "accept(): SocketChannel"))) {
					fprintf(stderr, "  --report %s --format %s%s: %.300s\n",
						kinds[k], formats[f], simple ? " --simple" : "",
						s ? s : "(failed)");
					CHECK(0);
				}
				free(s);
			}
	{
		char *s = pprof_text((const char *const[]){trace, "--report", "pprof", NULL});
		char *sig =
		    pprof_text((const char *const[]){trace, "--report", "pprof", "--sig", NULL});

		CHECK(s && strstr(s, "t.NioEndpoint.accept(): SocketChannel") &&
		      strstr(s, "t.NioEndpoint.accept(): NetworkChannel") && !strstr(s, "Ljava/"));
		CHECK(s && strstr(s, "[thread root]") && !strstr(s, "<thread root>"));
		CHECK(sig &&
		      strstr(sig, "t.NioEndpoint.accept()Ljava/nio/channels/SocketChannel;"));
		free(s);
		free(sig);
	}
	{
		char *s = POST(trace, "--report", "flat", "--format", "csv", "--sig", "--raw");

		CHECK(s && strstr(s, "\n" ACCEPT ",1,3,3,3,3\n") &&
		      strstr(s, "\n" BRIDGE ",1,2,5,2,5\n"));
		free(s);
	}
}

int main(void)
{
	char cmd[128];

	if (access("build/jcal-post", X_OK)) {
		fprintf(stderr, "build/jcal-post is missing (run from the repository root, after "
				"make)\n");
		return 1;
	}
	snprintf(dir, sizeof(dir), "/tmp/jcal-post-readable.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(err_path, sizeof(err_path), "%s/err.txt", dir);
	snprintf(trace, sizeof(trace), "%s/server.bin", dir);
	snprintf(snap, sizeof(snap), "%s/server.snap", dir);
	if (mg_trace_file(trace, scripts, names, NTHREADS, NULL, NULL) ||
	    mg_snapshot_file(snap, scripts, names, NTHREADS)) {
		fprintf(stderr, "cannot write the traces in %s\n", dir);
		return 1;
	}
	RUN(test_tree_text);
	RUN(test_tree_csv_json);
	RUN(test_hot_and_exports);
	RUN(test_split_and_select);
	RUN(test_snapshot_and_merged);
	RUN(test_no_descriptors);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "  cannot remove %s\n", dir);
	return test_summary("post-readable");
}
