/*
 * test-post-safety.c - what jcal-post and the shared table code do with
 * hostile inputs and outputs: number ranges of table lines (a table of bad
 * lines and their messages), tables that must be regular files (FIFO,
 * /dev/zero, over-long lines), the calibration directory's mode and its
 * non-regular entries, how tables are written (temporary name, mode,
 * FIFOs and /dev/null written in place), the output-is-an-input check,
 * escaping of names in text output, tsc.hz out of range, and an arcs
 * report of a thread without events (qsort of nothing).
 *
 * Tests that could block on a FIFO run under alarm(): a hang ends the
 * program (a failure), never the test run.
 *
 * Runs threads: also run under ThreadSanitizer (make tsan).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "postproc/arcs.h"
#include "common/calib_dir.h"
#include "common/calib_table.h"
#include "postproc/model.h"
#include "postproc/output.h"
#include "postproc/samefile.h"
#include "native-tests/test.h"

static char tmpdir[256];

static void tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

/* A valid header (lines 1-17) for the key-line cases; keys 1 follows. */
#define HDR                                                                                        \
	"jcal-calibration 2\n"                                                                     \
	"cpu.vendor V\ncpu.family 6\ncpu.model 85\ncpu.stepping 7\ncpu.model_name M\n"             \
	"kernel K\njvm.vendor J\njvm.version 17\njvm.exec mixed mode\nmode events\n"               \
	"metrics cputime\n"                                                                        \
	"agent.version 0.1.0\ncreated 2024-05-01T12:00:00Z\nunit ns\nenv.method x\n"               \
	"env.missing 1\nkeys 1\n"
#define MAX CALIB_NUM_MAX_TEXT
#define STATS " mean=5 median=5 p10=5"

static int parse_text(struct calib_table *t, const char *text, char *err, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r;

	if (!f)
		return -2;
	r = calib_table_parse(t, f, "t.txt", err, len);
	fclose(f);
	return r;
}

static char *to_text(const struct calib_table *t)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		return NULL;
	calib_table_write(t, f);
	fclose(f);
	return buf;
}

/* Every number of a key line is decimal, finite and at most CALIB_NUM_MAX;
 * anything else names the line and the field. */
static void test_number_ranges(void)
{
	static const struct {
		int line;
		const char *key; /* line 19 */
		const char *what;
	} c[] = {
	    {__LINE__, "i:E:I:X:i 9007199254740992 samples=1 env=0 comp=9007199254740992",
	     "key i:E:I:X:i: MIN '9007199254740992' is above " MAX},
	    {__LINE__, "i:E:I:X:i 18446744073709551616 samples=1 env=0 comp=0",
	     "MIN '18446744073709551616' is above " MAX},
	    {__LINE__, "i:E:I:X:i 5 samples=9007199254740992 env=0 comp=5",
	     "samples='9007199254740992' is above " MAX},
	    {__LINE__, "i:E:I:X:i 5 samples=1 env=0 comp=18446744073709551615",
	     "comp='18446744073709551615' is above " MAX},
	    {__LINE__, "i:E:I:X:i 5 samples=1 env=0x10 comp=5", "env='0x10' is not an unsigned"},
	    {__LINE__, "i:E:I:X:i 5 samples=1 env=0 comp=5 mean=1.7e308 median=5 p10=5",
	     "mean='1.7e308' is not a non-negative number"},
	    {__LINE__, "i:E:I:X:i 5 samples=1 env=0 comp=5 mean=0x10 median=5 p10=5",
	     "mean='0x10' is not a non-negative number"},
	    {__LINE__, "i:E:I:X:i 5 samples=1 env=0 comp=5 mean=inf median=5 p10=5",
	     "mean='inf' is not a non-negative number"},
	    {__LINE__, "i:E:I:X:i 5 samples=1 env=0 comp=5 mean=nan median=5 p10=5",
	     "mean='nan' is not a non-negative number"},
	    {__LINE__, "i:E:I:X:i 5 samples=1 env=0 comp=5 mean=-1 median=5 p10=5",
	     "mean='-1' is not a non-negative number"},
	    {__LINE__, "i:E:I:X:i 5 samples=1 env=0 comp=5 mean=. median=5 p10=5",
	     "mean='.' is not a non-negative number"},
	    {__LINE__, "i:E:I:X:i 5 samples=1 env=0 comp=5 mean=5.5.5 median=5 p10=5",
	     "mean='5.5.5' is not a non-negative number"},
	    {__LINE__, "i:E:I:X:i 5 samples=1 env=0 comp=5 mean=9007199254740994 median=5 p10=5",
	     "mean='9007199254740994' is above " MAX},
	    {__LINE__, "i:E:I:X:i 5 samples=1 env=0 comp=5 mean=5 median=9223372036854775808 p10=5",
	     "median='9223372036854775808' is above " MAX},
	    {__LINE__, "i:E:I:X:i 5 samples=1 env=0 comp=5 mean=5 median=5 p10=1e3",
	     "p10='1e3' is not an unsigned integer"},
	    {__LINE__,
	     "i:E:I:X:i 5 samples=1 env=0 comp=5" STATS
	     " q=5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,9223372036854775808",
	     "is not 16 integers of at most " MAX},
	};
	struct calib_table t;
	char err[512], text[2048], want[64];

	CHECK_EQ_I(calib_table_init(&t), 0);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int r;

		snprintf(text, sizeof(text), HDR "%s\n", c[i].key);
		r = parse_text(&t, text, err, sizeof(err));
		snprintf(want, sizeof(want), "t.txt:19: ");
		if (r != -1 || strncmp(err, want, strlen(want)) || !strstr(err, c[i].what)) {
			fprintf(stderr,
				"  case at line %d: r=%d err=\"%s\", expected \"%s...%s\"\n",
				c[i].line, r, r ? err : "", want, c[i].what);
			test_cur_failed = 1;
		}
		CHECK_EQ_U(t.nkeys, 0);
	}
	/* the limit itself parses, writes and parses back the same */
	snprintf(text, sizeof(text),
		 HDR "i:E:I:X:i " MAX " samples=" MAX " env=0 comp=" MAX " mean=" MAX
		     ".0 median=" MAX " p10=" MAX " q=" MAX "," MAX "," MAX "," MAX "," MAX "," MAX
		     "," MAX "," MAX "," MAX "," MAX "," MAX "," MAX "," MAX "," MAX "," MAX "," MAX
		     "\n");
	CHECK_EQ_I(parse_text(&t, text, err, sizeof(err)), 0);
	if (test_cur_failed)
		fprintf(stderr, "  %s\n", err);
	{
		char *a = to_text(&t), *b = NULL;
		struct calib_table u;

		CHECK_EQ_I(calib_table_init(&u), 0);
		CHECK(a && parse_text(&u, a, err, sizeof(err)) == 0);
		b = to_text(&u);
		CHECK(a && b && !strcmp(a, b));
		CHECK(a && strstr(a, " mean=" MAX ".0 ") != NULL);
		free(a);
		free(b);
		calib_table_free(&u);
	}
	/* decimal fractions stay accepted */
	snprintf(text, sizeof(text),
		 HDR "i:E:I:X:i 5 samples=1 env=0 comp=5 mean=.5 median=5 p10=5\n");
	CHECK_EQ_I(parse_text(&t, text, err, sizeof(err)), 0);
	calib_table_free(&t);
}

/* Entries set or merged with values no table holds are capped: what merge
 * writes, the parser reads (a merged mean was inf before). */
static void test_merge_writes_what_parses(void)
{
	struct calib_table a, b, u;
	struct calib_entry e = {0};
	struct seqkey k;
	char err[512], *text;

	CHECK_EQ_I(calib_table_init(&a), 0);
	CHECK_EQ_I(calib_table_init(&b), 0);
	CHECK_EQ_I(calib_table_init(&u), 0);
	calib_fingerprint_set_meta(&a.fp, "mode", "events");
	snprintf(a.unit, sizeof(a.unit), "ns");
	b.fp = a.fp;
	snprintf(b.unit, sizeof(b.unit), "ns");
	CHECK_EQ_I(seqkey_parse("i:E:I:X:i", &k), 0);
	e.min = UINT64_MAX;
	e.samples = UINT64_MAX;
	e.env = 0;
	e.has_stats = e.has_q = 1;
	e.mean = 1.7e308;
	e.median = e.p10 = UINT64_MAX;
	for (unsigned j = 0; j < CALIB_NQ; j++)
		e.q[j] = UINT64_MAX;
	calib_table_set(&a, &k, &e);
	CHECK_EQ_U(calib_table_get(&a, &k)->min, CALIB_NUM_MAX);
	CHECK_EQ_U(calib_table_get(&a, &k)->comp, CALIB_NUM_MAX);
	CHECK(calib_table_get(&a, &k)->mean == (double)CALIB_NUM_MAX);
	calib_table_set(&b, &k, &e);
	CHECK_EQ_I(calib_table_merge(&a, &b, 0, err, sizeof(err)), 0);
	CHECK_EQ_U(calib_table_get(&a, &k)->samples, CALIB_NUM_MAX);
	CHECK(isfinite(calib_table_get(&a, &k)->mean));
	text = to_text(&a);
	CHECK(text != NULL);
	CHECK(text && !strstr(text, "inf"));
	CHECK_EQ_I(text ? parse_text(&u, text, err, sizeof(err)) : -1, 0);
	if (test_cur_failed)
		fprintf(stderr, "  %s\n", err);
	/* the mean estimator of the capped table: no undefined cast */
	calib_table_use_estimator(&a, CALIB_EST_MEAN);
	CHECK_EQ_U(calib_table_get(&a, &k)->comp, CALIB_NUM_MAX);
	free(text);
	calib_table_free(&a);
	calib_table_free(&b);
	calib_table_free(&u);
}

static char *escaped(const char *s, size_t width)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		return NULL;
	text_escape_n(f, s, width);
	fclose(f);
	return buf;
}

static char *json_of(const char *s)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		return NULL;
	json_string(f, s);
	fclose(f);
	return buf;
}

static void test_text_escape(void)
{
	static const struct {
		const char *in, *out;
	} c[] = {
	    {"evil\x1b[2J\r\nname", "evil\\x1b[2J\\r\\nname"},
	    {"tab\there", "tab\\there"},
	    {"del\x7f", "del\\x7f"},
	    {"bell\a", "bell\\x07"},
	    {"c1 \xc2\x9b"
	     "31m",
	     "c1 \\xc2\\x9b31m"}, /* U+009B CSI as UTF-8 */
	    {"raw \x9b"
	     "31m",
	     "raw \\x9b31m"}, /* a lone C1 byte */
	    {"bad \xff\xfe", "bad \\xff\\xfe"},
	    {"na\xc3\xafve \xe5\x90\x8d\xe5\x89\x8d", "na\xc3\xafve \xe5\x90\x8d\xe5\x89\x8d"},
	    {"nbsp\xc2\xa0", "nbsp\xc2\xa0"},
	    /* modified UTF-8: a surrogate pair (U+1F600), a lone half, NUL */
	    {"\xed\xa0\xbd\xed\xb8\x80", "\xf0\x9f\x98\x80"},
	    {"\xed\xa0\xbdx", "\\xed\\xa0\\xbdx"},
	    {"nul\xc0\x80", "nul\\xc0\\x80"},
	    {"back\\slash", "back\\slash"},
	    {"", ""},
	};
	char *s;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		s = escaped(c[i].in, 0);
		CHECK_STR(s, c[i].out);
		free(s);
	}
	s = escaped("a\x1b"
		    "b",
		    8);
	CHECK_STR(s, "a\\x1bb  ");
	free(s);
	s = escaped("\xe5\x90\x8d", 3);
	CHECK_STR(s, "\xe5\x90\x8d  ");
	free(s);
	/* JSON escapes DEL and the C1 controls too */
	s = json_of("a\x7f\xc2\x9b\x1b");
	CHECK_STR(s, "\"a\\u007f\\u009b\\u001b\"");
	free(s);
}

static void test_same_file(void)
{
	char a[512], b[512], l[512], h[512], missing[512];
	int saved, fd;
	FILE *f;

	tmp_path(a, sizeof(a), "same-a");
	tmp_path(b, sizeof(b), "same-b");
	tmp_path(l, sizeof(l), "same-link");
	tmp_path(h, sizeof(h), "same-hard");
	tmp_path(missing, sizeof(missing), "same-missing");
	f = fopen(a, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	f = fopen(b, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	CHECK_EQ_I(symlink(a, l), 0);
	CHECK_EQ_I(link(a, h), 0);
	CHECK_EQ_I(samefile_is_input(a, a), 1);
	CHECK_EQ_I(samefile_is_input(l, a), 1);
	CHECK_EQ_I(samefile_is_input(a, l), 1);
	CHECK_EQ_I(samefile_is_input(h, l), 1);
	CHECK_EQ_I(samefile_is_input(b, a), 0);
	CHECK_EQ_I(samefile_is_input(missing, a), 0);
	CHECK_EQ_I(samefile_is_input("-", a), 0);
	CHECK_EQ_I(samefile_is_input("/dev/null", "/dev/null"), 0);
	/* stdin */
	saved = dup(STDIN_FILENO);
	fd = open(a, O_RDONLY);
	CHECK(saved >= 0 && fd >= 0);
	if (saved >= 0 && fd >= 0) {
		dup2(fd, STDIN_FILENO);
		CHECK_EQ_I(samefile_is_input(h, "-"), 1);
		CHECK_EQ_I(samefile_is_input(b, "-"), 0);
		dup2(saved, STDIN_FILENO);
	}
	if (fd >= 0)
		close(fd);
	if (saved >= 0)
		close(saved);
}

static void small_table(struct calib_table *t)
{
	struct calib_entry e = {0};
	struct seqkey k;

	calib_table_init(t);
	calib_fingerprint_set_meta(&t->fp, "mode", "events");
	snprintf(t->unit, sizeof(t->unit), "ns");
	seqkey_parse("i:E:I:X:i", &k);
	e.min = 812;
	e.samples = 10;
	e.env = 75;
	calib_table_set(t, &k, &e);
}

struct reader {
	char path[512];
	char buf[8192];
	size_t n;
};

static void *read_all(void *arg)
{
	struct reader *r = arg;
	int fd = open(r->path, O_RDONLY);
	ssize_t k;

	if (fd < 0)
		return NULL;
	while (r->n < sizeof(r->buf) - 1 &&
	       (k = read(fd, r->buf + r->n, sizeof(r->buf) - 1 - r->n)) > 0)
		r->n += (size_t)k;
	r->buf[r->n] = '\0';
	close(fd);
	return NULL;
}

/* A FIFO (also behind a symlink) and /dev/null are written in place, never
 * replaced by a regular file. */
static void test_write_non_regular(void)
{
	struct calib_table t;
	struct reader r = {.n = 0};
	char link[512], err[512];
	pthread_t th;
	struct stat sb;

	small_table(&t);
	alarm(30); /* a FIFO nobody writes would block the reader */
	tmp_path(r.path, sizeof(r.path), "out.fifo");
	CHECK_EQ_I(mkfifo(r.path, 0600), 0);
	CHECK_EQ_I(pthread_create(&th, NULL, read_all, &r), 0);
	CHECK_EQ_I(calib_table_write_file(&t, r.path, err, sizeof(err)), 0);
	pthread_join(th, NULL);
	CHECK(!strncmp(r.buf, "jcal-calibration 2\n", 19));
	CHECK(strstr(r.buf, "i:E:I:X:i 812 samples=10 env=75 comp=737\n") != NULL);
	CHECK(!lstat(r.path, &sb) && S_ISFIFO(sb.st_mode));
	/* through a symlink: the link stays, the FIFO gets the table */
	tmp_path(link, sizeof(link), "out-link");
	CHECK_EQ_I(symlink(r.path, link), 0);
	r.n = 0;
	CHECK_EQ_I(pthread_create(&th, NULL, read_all, &r), 0);
	CHECK_EQ_I(calib_table_write_file(&t, link, err, sizeof(err)), 0);
	pthread_join(th, NULL);
	CHECK(!strncmp(r.buf, "jcal-calibration 2\n", 19));
	CHECK(!lstat(link, &sb) && S_ISLNK(sb.st_mode));
	CHECK(!lstat(r.path, &sb) && S_ISFIFO(sb.st_mode));
	alarm(0);
	/* /dev/null, only once the FIFO showed devices are written in place */
	if (!test_cur_failed) {
		CHECK_EQ_I(calib_table_write_file(&t, "/dev/null", err, sizeof(err)), 0);
		CHECK(!stat("/dev/null", &sb) && S_ISCHR(sb.st_mode));
	}
	calib_table_free(&t);
}

/* No file of a predictable name is opened: a symlink planted at the old
 * "<table>.tmp.<pid>" is left alone, and the table gets 0644 less the
 * umask (not 0666, not mkstemp's 0600). */
static void test_temp_name_and_mode(void)
{
	struct calib_table t;
	char path[512], planted[600], victim[512], err[512], buf[64] = "";
	struct stat sb;
	mode_t old;
	FILE *f;

	small_table(&t);
	tmp_path(path, sizeof(path), "mode-table.txt");
	tmp_path(victim, sizeof(victim), "victim");
	f = fopen(victim, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("victim\n", f);
		fclose(f);
	}
	snprintf(planted, sizeof(planted), "%s.tmp.%ld", path, (long)getpid());
	CHECK_EQ_I(symlink(victim, planted), 0);
	old = umask(0);
	CHECK_EQ_I(calib_table_write_file(&t, path, err, sizeof(err)), 0);
	CHECK(!lstat(path, &sb) && S_ISREG(sb.st_mode));
	CHECK_EQ_U(sb.st_mode & 07777, 0644);
	f = fopen(victim, "r");
	CHECK(f && fgets(buf, sizeof(buf), f));
	CHECK_STR(buf, "victim\n");
	if (f)
		fclose(f);
	CHECK(!lstat(planted, &sb) && S_ISLNK(sb.st_mode));
	umask(077);
	CHECK_EQ_I(calib_table_write_file(&t, path, err, sizeof(err)), 0);
	CHECK(!stat(path, &sb) && (sb.st_mode & 07777) == 0600);
	umask(022);
	CHECK_EQ_I(calib_table_write_file(&t, path, err, sizeof(err)), 0);
	CHECK(!stat(path, &sb) && (sb.st_mode & 07777) == 0644);
	umask(old);
	/* nothing left beside it but the planted link */
	{
		char cmd[700];

		snprintf(cmd, sizeof(cmd), "test \"$(ls '%s' | grep -c 'mode-table.txt.tmp')\" = 1",
			 tmpdir);
		CHECK_EQ_I(system(cmd), 0);
	}
	calib_table_free(&t);
}

static void test_calib_dir_mode(void)
{
	char dir[512], shared[512], err[512];
	struct stat sb;
	mode_t old = umask(022);

	tmp_path(dir, sizeof(dir), "home/.local/share/jcal/calib");
	CHECK_EQ_I(calib_dir_create(dir, err, sizeof(err)), 0);
	CHECK(!stat(dir, &sb) && (sb.st_mode & 07777) == 0700);
	tmp_path(dir, sizeof(dir), "home/.local");
	CHECK(!stat(dir, &sb) && (sb.st_mode & 07777) == 0700);
	/* a folder the user made and shares keeps its mode */
	tmp_path(shared, sizeof(shared), "shared");
	CHECK_EQ_I(mkdir(shared, 0755), 0);
	CHECK_EQ_I(calib_dir_create(shared, err, sizeof(err)), 0);
	CHECK(!stat(shared, &sb) && (sb.st_mode & 07777) == 0755);
	umask(old);
}

/* Tables are regular files: a FIFO or /dev/zero is refused at once, a line
 * longer than CALIB_LINE_MAX is an error with file:line, and the directory
 * search skips what is not a regular file, naming it. */
static void test_non_regular_tables(void)
{
	struct calib_table t, good;
	struct calib_fingerprint fp;
	char fifo[512], path[1024], dir[512], found[1024], skipped[512], err[512], name[64];
	FILE *f;

	CHECK_EQ_I(calib_table_init(&t), 0);
	alarm(30);
	tmp_path(fifo, sizeof(fifo), "table.fifo");
	CHECK_EQ_I(mkfifo(fifo, 0600), 0);
	CHECK_EQ_I(calib_table_read_file(&t, fifo, err, sizeof(err)), -1);
	CHECK(strstr(err, "table.fifo: a FIFO, not a regular file") != NULL);
	CHECK_EQ_I(calib_table_read_file(&t, "/dev/zero", err, sizeof(err)), -1);
	CHECK_STR(err, "/dev/zero: a character device, not a regular file: a calibration table "
		       "is a file");
	CHECK_EQ_I(calib_table_read_file(&t, tmpdir, err, sizeof(err)), -1);
	CHECK(strstr(err, "a directory, not a regular file") != NULL);
	/* an over-long line */
	tmp_path(path, sizeof(path), "long.txt");
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("jcal-calibration 2\n# ", f);
		for (int i = 0; i < CALIB_LINE_MAX; i++)
			fputc('x', f);
		fputs("\nkeys 0\n", f);
		fclose(f);
	}
	CHECK_EQ_I(calib_table_read_file(&t, path, err, sizeof(err)), -1);
	CHECK(strstr(err, "long.txt:2: line longer than 65536 bytes") != NULL);

	/* the directory: a FIFO at the table's own name, another one, a
	 * directory named *.txt, and the real table under another name */
	small_table(&good);
	fp = good.fp;
	tmp_path(dir, sizeof(dir), "cdir");
	CHECK_EQ_I(mkdir(dir, 0700), 0);
	CHECK_EQ_I(calib_dir_path(dir, &fp, path, sizeof(path)), 0);
	CHECK_EQ_I(mkfifo(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/a.txt", dir);
	CHECK_EQ_I(mkfifo(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/b.txt", dir);
	CHECK_EQ_I(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/c.txt", dir);
	CHECK_EQ_I(calib_table_write_file(&good, path, err, sizeof(err)), 0);
	CHECK_EQ_I(calib_dir_find(dir, &fp, found, sizeof(found), skipped, sizeof(skipped), err,
				  sizeof(err)),
		   1);
	CHECK_STR(found, path);
	calib_fingerprint_filename(&fp, name, sizeof(name));
	{
		char want[256];

		snprintf(want, sizeof(want), "%s (a FIFO), a.txt (a FIFO), b.txt (a directory)",
			 name);
		CHECK_STR(skipped, want);
	}
	alarm(0);
	calib_table_free(&good);
	calib_table_free(&t);
}

static const char *name_of(void *ctx, uint32_t method)
{
	(void)ctx;
	(void)method;
	return "m";
}

/* A thread without events: only the root, no arc line (the line array is
 * NULL, which must not reach qsort). */
static void test_arcs_empty_thread(void)
{
	struct calltree t;
	const struct calltree *tp = &t;
	struct arcs a;

	CHECK_EQ_I(calltree_init(&t, 1, NULL), 0);
	CHECK_EQ_I(calltree_finish(&t), 0);
	CHECK_EQ_I(arcs_build(&tp, 1, 0, name_of, NULL, &a), 0);
	CHECK_EQ_U(a.n, 1);
	CHECK_EQ_U(a.nlines, 0);
	arcs_free(&a);
	calltree_free(&t);
}

static int model_with_hz(struct model *m, const char *hz)
{
	struct trace_visitor v;
	struct trace_event e = {.thread = 1, .nmetrics = 1, .type = JCAL_MT_INTERP};

	model_init(m, NULL);
	model_visitor(m, &v);
	v.meta(v.ctx, "metrics", "tsc");
	v.meta(v.ctx, "tsc.hz", hz);
	e.transition = JCAL_TR_ENTRY;
	e.method = 1;
	v.event(v.ctx, &e);
	e.transition = JCAL_TR_EXIT;
	e.metric[0] = 3000;
	v.event(v.ctx, &e);
	return model_finish(m);
}

/* tsc.hz that would make every figure 0 (or overflow) is an error. */
static void test_tsc_hz_range(void)
{
	static const char *bad[] = {"1e-300", "0.5", "999999", "1e12", "inf", "nan", "3GHz", ""};
	struct model m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ_I(model_with_hz(&m, bad[i]), -1);
		if (!strstr(m.err, "tsc.hz") || !strstr(m.err, "between 1e6 and 1e11")) {
			fprintf(stderr, "  tsc.hz '%s': %s\n", bad[i], m.err);
			test_cur_failed = 1;
		}
		model_free(&m);
	}
	CHECK_EQ_I(model_with_hz(&m, "1000000"), 0);
	CHECK_EQ_U(model_value(&m, 0, 3), 3000);
	CHECK_EQ_U(model_value(&m, 0, UINT64_MAX), UINT64_MAX); /* saturates */
	model_free(&m);
	CHECK_EQ_I(model_with_hz(&m, "3000000000"), 0);
	CHECK_EQ_U(model_value(&m, 0, 3000), 1000);
	model_free(&m);
}

static void cleanup(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "  could not remove %s\n", tmpdir);
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/jcal-test-post-safety-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_number_ranges);
	RUN(test_merge_writes_what_parses);
	RUN(test_text_escape);
	RUN(test_same_file);
	RUN(test_arcs_empty_thread);
	RUN(test_tsc_hz_range);
	RUN(test_calib_dir_mode);
	RUN(test_temp_name_and_mode);
	RUN(test_non_regular_tables);
	RUN(test_write_non_regular);
	cleanup();
	return test_summary("post-safety");
}
