/*
 * test-post-escapes.c - names from the file never carry a control character to
 * a terminal (docs/jcal-post.md, "Names from the file"): a thread named
 * with an OSC sequence, BEL, CR and LF, methods whose names hold ESC, DEL,
 * a C1 control, a byte that is not UTF-8 and ';', through every report
 * and export. Text reports and folded stacks escape them (\x1b, \r...;
 * folded stacks write ';' as ','), JSON writes \u escapes (HTML also for
 * '<', '>', '&'), pprof's strings are escaped as text, CSV keeps the exact
 * name in a file and escapes it on a terminal (a pty here), and pprof's
 * gzip data is refused on a terminal. Exact output for each format.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>
#include <zlib.h>

#include "postproc/model.h"
#include "postproc/output.h"
#include "postproc/report.h"
#include "native-tests/test.h"
#include "native-tests/tracegen.h"

#define THREAD "evil\x1b]0;pwned\x07\r\nname"
#define RUN_CLASS "Lp/Ev\x1b[31mil;"
#define RUN_NAME "run;x\x7f"
#define STEP_NAME                                                                                  \
	"st\xff"                                                                                   \
	"ep\xc2\x9b"

/* What the text reports show for them. */
#define THREAD_T "evil\\x1b]0;pwned\\x07\\r\\nname"
#define RUN_T "p.Ev\\x1b[31mil.run;x\\x7f"
#define STEP_T "p.B.st\\xffep\\xc2\\x9b"

static char err[REPORT_ERR_LEN];

static char trace_path[64];

/* One thread: run (4 ticks of its own) calls step (2); a trace file, read
 * back (chrome reads it again). */
static int hostile_model(struct model *m)
{
	static struct tracegen tg;
	static const struct {
		unsigned tr;
		uint32_t method;
		uint64_t v;
	} ev[] = {{JCAL_TR_ENTRY, 1, 0},
		  {JCAL_TR_ENTRY, 2, 1},
		  {JCAL_TR_EXIT, 2, 3},
		  {JCAL_TR_EXIT, 1, 6}};
	struct trace_result res;
	uint64_t zero = 0;

	if (tg_open(&tg, trace_path))
		return -1;
	trace_rec_meta(&tg.rb, "metrics", "ticks");
	trace_rec_meta(&tg.rb, "host.kernel", "6.1\x1b[2J");
	trace_rec_method(&tg.rb, 1, JCAL_ACC_STATIC, RUN_CLASS, RUN_NAME, "()V");
	trace_rec_method(&tg.rb, 2, JCAL_ACC_STATIC, "Lp/B;", STEP_NAME, "()V");
	trace_rec_thread_start(&tg.rb, 1, 1, 4242, 0, 1, THREAD, 1, &zero);
	/* a wait on a monitor of a class whose name holds escapes, in run */
	trace_rec_monitor(&tg.rb, &(struct trace_monitor){.thread = 1,
							  .kind = TRACE_MON_ENTER,
							  .method = 1,
							  .class_sig = RUN_CLASS,
							  .wall_ns = 5,
							  .nmetrics = 1,
							  .end = {5}});
	tg_flush(&tg);
	tg_events_begin(&tg, 1, 1);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		tg_event(&tg, ev[i].tr, JCAL_MT_INTERP_STATIC, ev[i].method, &ev[i].v);
	tg_events_end(&tg);
	trace_rec_end(&tg.rb, 4, 1, 0);
	if (tg_close(&tg))
		return -1;
	model_init(m, NULL);
	if (model_load(m, trace_path, &res) != TRACE_OK)
		return -1;
	return model_finish(m) || model_names(m, 0) ? -1 : 0;
}

/* The report of kind in format to f. */
static int run_to(const struct model *m, const char *kind, enum report_format format, FILE *f)
{
	const struct report_kind *k = report_kind_find(kind);
	struct report_opts o;

	memset(&o, 0, sizeof(o));
	o.format = format;
	o.out = f;
	o.err = err;
	o.trace_path = trace_path;
	err[0] = '\0';
	CHECK(k != NULL);
	return k ? k->run(m, &o) : -1;
}

/* ... as a string (*len bytes). */
static char *run(const struct model *m, const char *kind, enum report_format format, size_t *len)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	CHECK(f != NULL);
	if (!f)
		return NULL;
	CHECK_EQ_I(run_to(m, kind, format, f), 0);
	fclose(f);
	if (len)
		*len = n;
	return s;
}

/* No byte that a terminal takes as a control: C0 but LF and TAB, DEL, a C1
 * control (C2 80..9F) or a byte that is not part of valid UTF-8. */
static int terminal_safe(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < n; i++) {
		if ((p[i] < 0x20 && p[i] != '\n' && p[i] != '\t') || p[i] == 0x7f)
			return 0;
		if (p[i] == 0xc2 && i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] < 0xa0)
			return 0;
		if (p[i] >= 0xf8 || p[i] == 0xc0 || p[i] == 0xc1)
			return 0;
	}
	return 1;
}

static void test_text_reports(void)
{
	static const char *const kinds[] = {"tree",    "flat",	  "hot",  "arcs", "callers",
					    "summary", "latency", "slow", "waits"};
	struct model m;
	char *s;
	size_t n;

	CHECK_EQ_I(hostile_model(&m), 0);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		s = run(&m, kinds[i], REPORT_TEXT, &n);
		if (!terminal_safe(s, n))
			fprintf(stderr, "  --report %s lets a control character through\n",
				kinds[i]);
		CHECK(s && terminal_safe(s, n));
		free(s);
	}
	s = run(&m, "tree", REPORT_TEXT, NULL);
	CHECK_STR(s, "Thread \"" THREAD_T "\" #1  java tid 1  os tid 4242  platform  metric ticks  "
		     "4 events\n"
		     "Lvl RL Calls Base Cum  Name\n"
		     "  0  1     1    0   6  <thread root>\n"
		     "  1  1     1    4   6    " RUN_T "\n"
		     "  2  1     1    2   2      " STEP_T "\n");
	free(s);
	s = run(&m, "flat", REPORT_TEXT, NULL);
	CHECK_STR(s, "Flat profile  metric ticks  1 thread  total 6\n"
		     "Calls Base   Base% Cum    Cum%  Name\n"
		     "    1    4   66.67   6  100.00  " RUN_T "\n"
		     "    1    2   33.33   2   33.33  " STEP_T "\n");
	free(s);
	s = run(&m, "summary", REPORT_TEXT, NULL);
	CHECK(s && strstr(s, "6.1\\x1b[2J") != NULL);
	free(s);
	model_free(&m);
}

static void test_collapsed(void)
{
	struct model m;
	char *s;
	size_t n;

	CHECK_EQ_I(hostile_model(&m), 0);
	s = run(&m, "collapsed", REPORT_TEXT, &n);
	CHECK(s && terminal_safe(s, n));
	/* ';' of a name is ',': each line has its frames only */
	CHECK_STR(s, "evil\\x1b]0,pwned\\x07\\r\\nname;p.Ev\\x1b[31mil.run,x\\x7f 4\n"
		     "evil\\x1b]0,pwned\\x07\\r\\nname;p.Ev\\x1b[31mil.run,x\\x7f;" STEP_T " 2\n");
	free(s);
	model_free(&m);
}

static void test_json_html(void)
{
	static const char *const kinds[] = {"tree",    "flat",	  "hot",  "arcs", "callers",
					    "summary", "latency", "slow", "waits"};
	static const char *const exports[] = {"speedscope", "chrome", "html"};
	struct model m;
	char *s;
	size_t n;

	CHECK_EQ_I(hostile_model(&m), 0);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		s = run(&m, kinds[i], REPORT_JSON, &n);
		CHECK(s && terminal_safe(s, n));
		free(s);
	}
	s = run(&m, "flat", REPORT_JSON, NULL);
	CHECK(s && strstr(s, "\"method\":\"p.Ev\\u001b[31mil.run;x\\u007f\"") != NULL);
	CHECK(s && strstr(s, "\"method\":\"p.B.st\\ufffdep\\u009b\"") != NULL);
	free(s);
	s = run(&m, "tree", REPORT_JSON, NULL);
	CHECK(s && strstr(s, "\"name\":\"evil\\u001b]0;pwned\\u0007\\r\\nname\"") != NULL);
	free(s);
	for (size_t i = 0; i < sizeof(exports) / sizeof(exports[0]); i++) {
		s = run(&m, exports[i], REPORT_TEXT, &n);
		if (!terminal_safe(s, n))
			fprintf(stderr, "  --report %s lets a control character through\n",
				exports[i]);
		CHECK(s && terminal_safe(s, n));
		CHECK(s && strstr(s, "p.Ev\\u001b[31mil.run;x\\u007f") != NULL);
		free(s);
	}
	model_free(&m);
}

/* Whether the protobuf message buf holds str as a string of its string
 * table (field 6, shorter than 128 bytes). */
static int pb_has_string(const uint8_t *buf, size_t n, const char *str)
{
	uint8_t want[130];
	size_t len = strlen(str);

	want[0] = 6 << 3 | 2;
	want[1] = (uint8_t)len;
	memcpy(want + 2, str, len);
	return len < 128 && memmem(buf, n, want, len + 2) != NULL;
}

/* pprof's strings, read back from its gzip data. */
static void test_pprof(void)
{
	struct model m;
	char *s;
	size_t n;
	uint8_t out[1 << 14];
	z_stream z;

	CHECK_EQ_I(hostile_model(&m), 0);
	s = run(&m, "pprof", REPORT_TEXT, &n);
	memset(&z, 0, sizeof(z));
	CHECK(s && inflateInit2(&z, 15 + 16) == Z_OK);
	z.next_in = (Bytef *)s;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = sizeof(out);
	CHECK_EQ_I(inflate(&z, Z_FINISH), Z_STREAM_END);
	n = z.total_out;
	inflateEnd(&z);
	/* function names and the thread label, each a string of the table */
	CHECK(pb_has_string(out, n, RUN_T));
	CHECK(pb_has_string(out, n, STEP_T));
	CHECK(pb_has_string(out, n, THREAD_T "#1"));
	CHECK(memmem(out, n, "evil\x1b", 5) == NULL && memmem(out, n, "run;x\x7f", 6) == NULL);
	free(s);
	model_free(&m);
}

/* A pty's slave end, raw (no CR added to LF), for what a terminal gets;
 * *master is where it can be read. NULL when there is no pty. */
static FILE *pty_open(int *master)
{
	struct termios tio;
	int fd, s;

	*master = posix_openpt(O_RDWR | O_NOCTTY);
	if (*master < 0 || grantpt(*master) || unlockpt(*master))
		return NULL;
	s = open(ptsname(*master), O_RDWR | O_NOCTTY);
	if (s < 0)
		return NULL;
	if (!tcgetattr(s, &tio)) {
		cfmakeraw(&tio);
		tcsetattr(s, TCSANOW, &tio);
	}
	fd = fcntl(*master, F_GETFL);
	fcntl(*master, F_SETFL, fd | O_NONBLOCK);
	return fdopen(s, "w");
}

/* What the master end holds now. */
static size_t pty_read(int master, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < cap && (r = read(master, buf + n, cap - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	return n;
}

static void test_csv(void)
{
	struct model m;
	char *s, buf[4096];
	int master = -1;
	FILE *tty;

	CHECK_EQ_I(hostile_model(&m), 0);
	/* to a file or a pipe: the exact names, quoted */
	s = run(&m, "flat", REPORT_CSV, NULL);
	CHECK_STR(s, "method,calls,base,cum,raw_base,raw_cum\n"
		     "p.Ev\x1b[31mil.run;x\x7f,1,4,6,4,6\n"
		     "p.B." STEP_NAME ",1,2,2,2,2\n");
	free(s);
	s = run(&m, "tree", REPORT_CSV, NULL);
	CHECK(s &&
	      strstr(s, "\n\"" THREAD "#1\",1,1,1,4,6,4,6,p.Ev\x1b[31mil.run;x\x7f\n") != NULL);
	free(s);
	/* to a terminal: escaped as the text reports show them */
	tty = pty_open(&master);
	if (!tty) {
		printf("SKIP csv to a terminal: no pty\n");
		return;
	}
	CHECK_EQ_I(run_to(&m, "flat", REPORT_CSV, tty), 0);
	fflush(tty);
	pty_read(master, buf, sizeof(buf));
	CHECK_STR(buf, "method,calls,base,cum,raw_base,raw_cum\n" RUN_T ",1,4,6,4,6\n" STEP_T
		       ",1,2,2,2,2\n");
	CHECK_EQ_I(run_to(&m, "tree", REPORT_CSV, tty), 0);
	fflush(tty);
	pty_read(master, buf, sizeof(buf));
	CHECK(strstr(buf, "\n" THREAD_T "#1,1,1,1,4,6,4,6," RUN_T "\n") != NULL);
	CHECK(terminal_safe(buf, strlen(buf)));
	/* pprof's gzip data: refused */
	CHECK_EQ_I(run_to(&m, "pprof", REPORT_TEXT, tty), -1);
	CHECK_STR(err, "--report pprof writes gzip data: not to a terminal (-o FILE, or a pipe)");
	CHECK_EQ_U(pty_read(master, buf, sizeof(buf)), 0);
	fclose(tty);
	close(master);
	model_free(&m);
}

/* The one escaping, for each kind of byte. */
static void test_text_escaped(void)
{
	char *s = text_escaped("a\x1b"
			       "b\x07;\r\n\t\x7f\xff\xc2\x9b\xc3\xa9\\");

	CHECK_STR(s, "a\\x1bb\\x07;\\r\\n\\t\\x7f\\xff\\xc2\\x9b\xc3\xa9\\");
	free(s);
	s = text_escaped("plain");
	CHECK_STR(s, "plain");
	free(s);
}

int main(void)
{
	int fd;

	snprintf(trace_path, sizeof(trace_path), "/tmp/jcal-test-escapes-XXXXXX");
	fd = mkstemp(trace_path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	RUN(test_text_reports);
	RUN(test_collapsed);
	RUN(test_json_html);
	RUN(test_pprof);
	RUN(test_csv);
	RUN(test_text_escaped);
	unlink(trace_path);
	return test_summary("post-escapes");
}
