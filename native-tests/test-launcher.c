/*
 * test-launcher.c - the pure parts of the jcal launcher (agent/launcher/):
 * PerfData parsing (buffers built here in both byte orders, corrupt ones,
 * and real hsperfdata files of JDK 17 and JDK 25 in
 * native-tests/launcher/), PerfData files believed only when their user's,
 * the /proc status, stat and maps parsers, the verdict on a held process
 * before a signal (fed with made-up /proc texts, then on real child
 * processes), the escaping of control characters, the attach request (and
 * its length limit) and the parsing of both forms of HotSpot's answer, the
 * command line and the agent's option string, the library search, the
 * reply file, and record --loop's file names and --keep.
 */
#include "agent/launcher/hotspot_attach.h"
#include "agent/launcher/jvm_list.h"
#include "agent/launcher/jvm_process.h"
#include "agent/launcher/launcher_cli.h"
#include "agent/launcher/launcher_io.h"
#include "agent/launcher/loop_files.h"
#include "common/lib_locate.h"
#include "agent/launcher/perfdata.h"
#include "agent/launcher/proc_handle.h"
#include "agent/launcher/reply_file.h"
#include "native-tests/test.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- a PerfData buffer builder ---- */

struct pdbuf {
	unsigned char b[4096];
	size_t len;
	int little;
	uint32_t n;
};

static void put4(struct pdbuf *p, size_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p->b[off + (size_t)i] =
		    (unsigned char)(p->little ? v >> (8 * i) : v >> (8 * (3 - i)));
}

static void pd_init(struct pdbuf *p, int little)
{
	memset(p, 0, sizeof(*p));
	p->little = little;
	p->b[0] = 0xca, p->b[1] = 0xfe, p->b[2] = 0xc0, p->b[3] = 0xc0;
	p->b[4] = (unsigned char)little;
	p->b[5] = 2;
	p->b[7] = 1;
	put4(p, 24, 32);
	p->len = 32;
}

/* Appends an entry: a string (s != NULL) or a long. */
static void pd_add(struct pdbuf *p, const char *name, const char *s, int64_t v)
{
	size_t at = p->len, nl = strlen(name) + 1;
	size_t doff = (20 + nl + 7) & ~(size_t)7;
	size_t dlen = s ? strlen(s) + 1 : 8;
	size_t elen = (doff + dlen + 7) & ~(size_t)7;
	memset(p->b + at, 0, elen);
	put4(p, at, (uint32_t)elen);
	put4(p, at + 4, 20);
	put4(p, at + 8, s ? (uint32_t)dlen : 0);
	p->b[at + 12] = s ? 'B' : 'J';
	put4(p, at + 16, (uint32_t)doff);
	memcpy(p->b + at + 20, name, nl);
	if (s) {
		memcpy(p->b + at + doff, s, dlen);
	} else {
		uint64_t u = (uint64_t)v;
		uint32_t hi = (uint32_t)(u >> 32), lo = (uint32_t)u;
		put4(p, at + doff, p->little ? lo : hi);
		put4(p, at + doff + 4, p->little ? hi : lo);
	}
	p->len += elen;
	put4(p, 28, ++p->n);
}

static void test_perfdata_built(void)
{
	for (int little = 0; little < 2; little++) {
		struct pdbuf p;
		struct perfdata pd;
		char err[128], s[64];
		int64_t v = 0;
		pd_init(&p, little);
		pd_add(&p, "sun.rt.javaCommand", "app.Main --port 8080", 0);
		pd_add(&p, "sun.os.hrt.frequency", NULL, 1000000000);
		pd_add(&p, "neg", NULL, -5);
		CHECK_EQ_I(perfdata_open(&pd, p.b, p.len, err, sizeof(err)), 0);
		CHECK_EQ_I(perfdata_string(&pd, "sun.rt.javaCommand", s, sizeof(s)), 0);
		CHECK_STR(s, "app.Main --port 8080");
		CHECK_EQ_I(perfdata_long(&pd, "sun.os.hrt.frequency", &v), 0);
		CHECK_EQ_I(v, 1000000000);
		CHECK_EQ_I(perfdata_long(&pd, "neg", &v), 0);
		CHECK_EQ_I(v, -5);
		/* wrong type, unknown name, a prefix of a name */
		CHECK_EQ_I(perfdata_long(&pd, "sun.rt.javaCommand", &v), -1);
		CHECK_EQ_I(perfdata_string(&pd, "neg", s, sizeof(s)), -1);
		CHECK_EQ_I(perfdata_string(&pd, "sun.rt", s, sizeof(s)), -1);
		CHECK_EQ_I(perfdata_string(&pd, "nothing", s, sizeof(s)), -1);
		/* cut to the room given */
		CHECK_EQ_I(perfdata_string(&pd, "sun.rt.javaCommand", s, 4), 0);
		CHECK_STR(s, "app");
	}
}

static void test_perfdata_corrupt(void)
{
	struct pdbuf p;
	struct perfdata pd;
	char err[128], s[64];
	pd_init(&p, 1);
	pd_add(&p, "a.b", "x", 0);
	pd_add(&p, "c.d", "y", 0);
	CHECK_EQ_I(perfdata_open(&pd, p.b, 31, err, sizeof(err)), -1);
	CHECK(strstr(err, "too short") != NULL);
	/* every cut of the buffer: no read past it, and the entries that are
	 * whole are still found */
	for (size_t cut = 32; cut < p.len; cut++) {
		CHECK_EQ_I(perfdata_open(&pd, p.b, cut, err, sizeof(err)), 0);
		CHECK_EQ_I(perfdata_string(&pd, "c.d", s, sizeof(s)), -1);
	}
	struct pdbuf q = p;
	q.b[0] = 0;
	CHECK_EQ_I(perfdata_open(&pd, q.b, q.len, err, sizeof(err)), -1);
	CHECK(strstr(err, "magic") != NULL);
	q = p;
	q.b[5] = 1;
	CHECK_EQ_I(perfdata_open(&pd, q.b, q.len, err, sizeof(err)), -1);
	CHECK(strstr(err, "version 1.0") != NULL);
	q = p;
	q.b[4] = 7;
	CHECK_EQ_I(perfdata_open(&pd, q.b, q.len, err, sizeof(err)), -1);
	q = p;
	put4(&q, 24, 100000);
	CHECK_EQ_I(perfdata_open(&pd, q.b, q.len, err, sizeof(err)), -1);
	/* an entry length past the end, a zero one, a name or data offset past
	 * the entry, a string length past the entry */
	size_t e2 = 32 + 32; /* second entry: the first is 32 bytes */
	uint32_t bad[][2] = {{0, 100000}, {0, 0}, {4, 9999}, {16, 9999}, {8, 9999}};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		q = p;
		put4(&q, e2 + bad[i][0], bad[i][1]);
		CHECK_EQ_I(perfdata_open(&pd, q.b, q.len, err, sizeof(err)), 0);
		CHECK_EQ_I(perfdata_string(&pd, "c.d", s, sizeof(s)), -1);
		CHECK_EQ_I(perfdata_string(&pd, "a.b", s, sizeof(s)), 0);
	}
	/* more entries announced than there are */
	q = p;
	put4(&q, 28, 1000);
	CHECK_EQ_I(perfdata_open(&pd, q.b, q.len, err, sizeof(err)), 0);
	CHECK_EQ_I(perfdata_string(&pd, "zz", s, sizeof(s)), -1);
}

/* Real files: JDK 17 started as "java -cp DIR Sleep 3000 alpha beta",
 * Temurin 25 as "java -XX:+DisableAttachMechanism -cp DIR Sleep 3000 gamma". */
static void test_perfdata_real(void)
{
	static const struct {
		const char *file, *main, *version;
		int attach;
	} rows[] = {{"native-tests/launcher/hsperfdata-jdk17", "Sleep", "17.0.15", 1},
		    {"native-tests/launcher/hsperfdata-jdk25-noattach", "Sleep", "25.0.3", 0}};
	for (size_t i = 0; i < 2; i++) {
		unsigned char *buf = NULL;
		size_t len = 0;
		char err[256], cmd[128];
		struct perfdata pd;
		struct jvm_entry e;
		int64_t hz = 0;
		CHECK_EQ_I(perfdata_read_file(rows[i].file, &buf, &len, err, sizeof(err)), 0);
		if (!buf)
			continue;
		CHECK_EQ_U(len, 32768);
		CHECK_EQ_I(perfdata_open(&pd, buf, len, err, sizeof(err)), 0);
		CHECK_EQ_I(perfdata_string(&pd, "sun.rt.javaCommand", cmd, sizeof(cmd)), 0);
		CHECK_STR(cmd, i == 0 ? "Sleep 3000 alpha beta" : "Sleep 3000 gamma");
		CHECK_EQ_I(perfdata_long(&pd, "sun.os.hrt.frequency", &hz), 0);
		CHECK_EQ_I(hz, 1000000000);
		CHECK_EQ_I(jvm_entry_from_perfdata(&e, buf, len), 0);
		CHECK_STR(e.main_class, rows[i].main);
		CHECK_STR(e.version, rows[i].version);
		CHECK_EQ_I(e.attach_enabled, rows[i].attach);
		free(buf);
	}
	unsigned char *buf = NULL;
	size_t len;
	char err[256];
	CHECK_EQ_I(perfdata_read_file("native-tests/launcher", &buf, &len, err, sizeof(err)), -1);
	CHECK_EQ_I(perfdata_read_file("/nonexistent/x", &buf, &len, err, sizeof(err)), -1);
	CHECK(strstr(err, "No such file") != NULL);
}

/* Only a file of the JVM's uid, in a directory of its uid, neither a
 * symbolic link. */
static void test_perfdata_owned(void)
{
	char dir[] = "/tmp/jcal-test-perfdata-XXXXXX", sub[128], file[160], link[160], cmd[256];
	unsigned char *buf = NULL;
	size_t len = 0;
	char err[512];
	uid_t me = geteuid();
	CHECK(mkdtemp(dir) != NULL);
	snprintf(sub, sizeof(sub), "%s/hsperfdata_x", dir);
	snprintf(file, sizeof(file), "%s/4242", sub);
	CHECK_EQ_I(mkdir(sub, 0755), 0);
	snprintf(cmd, sizeof(cmd), "cp native-tests/launcher/hsperfdata-jdk17 %s", file);
	CHECK_EQ_I(system(cmd), 0);
	CHECK_EQ_I(perfdata_read_owned(sub, "4242", me, &buf, &len, err, sizeof(err)), 0);
	CHECK_EQ_U(len, 32768);
	free(buf);
	buf = NULL;
	/* another uid's JVM: the file and directory are not its */
	CHECK_EQ_I(perfdata_read_owned(sub, "4242", me + 1, &buf, &len, err, sizeof(err)), -1);
	CHECK(strstr(err, "not owned by the JVM's uid") != NULL);
	/* a link to the file, a link to the directory */
	CHECK_EQ_I(symlink("4242", (snprintf(link, sizeof(link), "%s/77", sub), link)), 0);
	CHECK_EQ_I(perfdata_read_owned(sub, "77", me, &buf, &len, err, sizeof(err)), -1);
	CHECK_EQ_I(symlink(sub, (snprintf(link, sizeof(link), "%s/hsperfdata_y", dir), link)), 0);
	CHECK_EQ_I(perfdata_read_owned(link, "4242", me, &buf, &len, err, sizeof(err)), -1);
	/* not a regular file */
	snprintf(link, sizeof(link), "%s/88", sub);
	CHECK_EQ_I(mkdir(link, 0755), 0);
	CHECK_EQ_I(perfdata_read_owned(sub, "88", me, &buf, &len, err, sizeof(err)), -1);
	CHECK(buf == NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_EQ_I(system(cmd), 0);
}

static void test_proc_status(void)
{
	struct jvm_process p = {.pid = 4242};
	const char *plain = "Name:\tjava\nTgid:\t4242\nPid:\t4242\nUid:\t1000\t1001\t1001\t1001\n"
			    "Gid:\t100\t101\t101\t101\nNSpid:\t4242\n";
	CHECK_EQ_I(jvm_process_parse_status(plain, &p), 0);
	CHECK_EQ_U(p.uid, 1001);
	CHECK_EQ_U(p.gid, 101);
	CHECK_EQ_I(p.nspid, 4242);
	CHECK_EQ_I(p.tgid, 4242);
	const char *container = "Tgid:\t4242\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n"
				"NSpid:\t4242\t17\t1\n";
	CHECK_EQ_I(jvm_process_parse_status(container, &p), 0);
	CHECK_EQ_I(p.nspid, 1);
	const char *thread = "Tgid:\t4000\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n";
	CHECK_EQ_I(jvm_process_parse_status(thread, &p), 0);
	CHECK_EQ_I(p.tgid, 4000);
	CHECK_EQ_I(p.nspid, 4242); /* no NSpid line: the pid */
	CHECK_EQ_I(jvm_process_parse_status("Name:\tx\nUid:\t5\n", &p), -1);
	CHECK_EQ_I(jvm_process_parse_status("XUid:\t1 1 1 1\nGid:\t1 1 1 1\n", &p), -1);
}

static void test_proc_maps(void)
{
	const char *maps = "55d0c000-55d0d000 r--p 00000000 08:01 123 /usr/lib/jvm/x/bin/java\n"
			   "7f00-7f01 r-xp 00000000 08:01 456 /usr/lib/jvm/x/lib/server/libjvm.so\n"
			   "7f02-7f03 r-xp 00000000 08:01 789 /opt/my libs/libjcal.so (deleted)\n"
			   "7f04-7f05 rw-p 00000000 00:00 0 [heap]\n";
	char out[256];
	CHECK_EQ_I(jvm_process_maps_has_jvm(maps), 1);
	CHECK_EQ_I(jvm_process_maps_find(maps, "libjcal.so", out, sizeof(out)), 0);
	CHECK_STR(out, "/opt/my libs/libjcal.so");
	CHECK_EQ_I(jvm_process_maps_find(maps, "libjcal.so", out, 10), -1);
	CHECK_EQ_I(jvm_process_maps_has_jvm("7f00-7f01 r-xp 0 08:01 4 /lib/notlibjvm.so\n"
					    "7f00-7f01 r-xp 0 08:01 4 /lib/libjvm.so.1\n"),
		   0);
	CHECK_EQ_I(jvm_process_maps_find("7f00-7f01 r-xp 0 08:01 4 /usr/bin/sleep\n", "libjcal.so",
					 out, sizeof(out)),
		   -1);
	CHECK_EQ_I(jvm_process_maps_has_jvm(""), 0);
}

/* /proc/PID/stat of a process started at 4242 ticks, state st, named comm. */
static void fake_stat(char *out, size_t len, const char *comm, char st, unsigned long long start)
{
	snprintf(out, len,
		 "123 (%s) %c 1 123 123 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 %llu 2252800 "
		 "200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n",
		 comm, st, start);
}

static void test_proc_stat(void)
{
	char text[512], state = 0;
	unsigned long long start = 0;
	fake_stat(text, sizeof(text), "java", 'S', 4242);
	CHECK_EQ_I(proc_stat_parse(text, &start, &state), 0);
	CHECK_EQ_U(start, 4242);
	CHECK_EQ_I(state, 'S');
	/* a name that looks like more fields, parentheses included */
	fake_stat(text, sizeof(text), "a) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 99 (b",
		  'Z', 77);
	CHECK_EQ_I(proc_stat_parse(text, &start, &state), 0);
	CHECK_EQ_U(start, 77);
	CHECK_EQ_I(state, 'Z');
	CHECK_EQ_I(proc_stat_parse("123 (java) S 1 2 3", &start, &state), -1);
	CHECK_EQ_I(proc_stat_parse("123 java S 1 2 3", &start, &state), -1);
	CHECK_EQ_I(proc_stat_parse("", &start, &state), -1);
	/* ours, read for real */
	char *self = jvm_process_slurp("/proc/self/stat");
	CHECK(self != NULL);
	CHECK_EQ_I(self ? proc_stat_parse(self, &start, &state) : -1, 0);
	CHECK(start > 0);
	free(self);
}

static void test_proc_verdict(void)
{
	static const struct {
		const char *cgt, *ign;
		int catches;
	} masks[] = {
	    {"0000000000000004", "0000000000000000", 1}, /* SIGQUIT: bit 2 */
	    {"0000000180004a04", "0000000000001000", 1}, /* a JVM's, roughly */
	    {"0000000000000000", "0000000000000000", 0}, /* default action: it would die */
	    {"0000000000000004", "0000000000000004", 0}, /* ignored wins */
	    {"fffffffffffffffb", "0000000000000000", 0}, /* all but SIGQUIT */
	};
	char stat[512], status[256];
	for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		snprintf(status, sizeof(status),
			 "Name:\tjava\nSigQ:\t0/"
			 "1\nSigPnd:\t0000000000000000\nSigBlk:\t0000000000000004\n"
			 "SigIgn:\t%s\nSigCgt:\t%s\nCapInh:\t0\n",
			 masks[i].ign, masks[i].cgt);
		CHECK_EQ_I(proc_status_catches_quit(status), masks[i].catches);
		fake_stat(stat, sizeof(stat), "java", 'S', 4242);
		CHECK_EQ_I(proc_verdict_of(stat, status, 4242),
			   masks[i].catches ? PROC_READY : PROC_NOT_CATCHING);
		/* another process under the pid: another start time */
		CHECK_EQ_I(proc_verdict_of(stat, status, 4241), PROC_GONE);
		/* ended, not yet reaped */
		fake_stat(stat, sizeof(stat), "java", 'Z', 4242);
		CHECK_EQ_I(proc_verdict_of(stat, status, 4242), PROC_GONE);
		/* gone: its files answer nothing */
		CHECK_EQ_I(proc_verdict_of(NULL, status, 4242), PROC_GONE);
		CHECK_EQ_I(proc_verdict_of(stat, NULL, 4242), PROC_GONE);
	}
	CHECK_EQ_I(proc_status_catches_quit("Name:\tx\nSigIgn:\t0\n"), -1);
	CHECK_EQ_I(proc_status_catches_quit("SigCgt:\tzz\nSigIgn:\t0\n"), -1);
	fake_stat(stat, sizeof(stat), "java", 'S', 1);
	CHECK_EQ_I(proc_verdict_of(stat, "SigCgt:\tzz\n", 1), PROC_NOT_CATCHING);
}

static void on_quit(int sig)
{
	(void)sig;
	_exit(7);
}

/* A child that catches SIGQUIT or not, paused until a signal ends it;
 * returns once its disposition is in place (it writes a byte). */
static pid_t child(int catch_quit)
{
	int fds[2];
	if (pipe(fds))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		struct sigaction sa = {.sa_handler = catch_quit ? on_quit : SIG_DFL};
		sigaction(SIGQUIT, &sa, NULL);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	char c;
	close(fds[1]);
	if (pid < 0 || read(fds[0], &c, 1) != 1)
		pid = -1;
	close(fds[0]);
	return pid;
}

/* The re-check on real processes: no signal to one that does not catch
 * SIGQUIT, one to one that does, none after it ended. */
static void test_proc_handle(void)
{
	struct proc_handle h;
	int status = 0;
	CHECK_EQ_I(proc_handle_open(&h, 0x3ffffff0), -1);
	CHECK_EQ_I(errno, ESRCH);
	pid_t dflt = child(0), caught = child(1);
	CHECK(dflt > 0 && caught > 0);
	CHECK_EQ_I(proc_handle_open(&h, dflt), 0);
	CHECK_EQ_I(proc_handle_check(&h), PROC_NOT_CATCHING);
	CHECK_EQ_I(proc_handle_quit(&h), PROC_NOT_CATCHING);
	CHECK_EQ_I(kill(dflt, 0), 0); /* not sent: it lives */
	kill(dflt, SIGKILL);
	/* dead but not reaped, then reaped: gone either way */
	for (int i = 0; i < 1000 && proc_handle_alive(&h); i++)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	CHECK_EQ_I(proc_handle_check(&h), PROC_GONE);
	waitpid(dflt, &status, 0);
	CHECK_EQ_I(proc_handle_check(&h), PROC_GONE);
	CHECK_EQ_I(proc_handle_quit(&h), PROC_GONE);
	proc_handle_close(&h);
	CHECK_EQ_I(proc_handle_open(&h, caught), 0);
	CHECK_EQ_I(proc_handle_check(&h), PROC_READY);
	CHECK_EQ_I(proc_handle_quit(&h), PROC_READY);
	CHECK_EQ_I(waitpid(caught, &status, 0), caught);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7);
	CHECK_EQ_I(proc_handle_quit(&h), PROC_GONE);
	proc_handle_close(&h);
}

static void test_escape(void)
{
	static const struct {
		const char *in;
		int keep_nl;
		const char *out;
	} rows[] = {
	    {"app.Main", 0, "app.Main"},
	    {"evil\x1b]0;owned\x07\x1b[31m.jar", 0, "evil\\x1b]0;owned\\x07\\x1b[31m.jar"},
	    {"a\nb\tc\rd\x7f", 0, "a\\x0ab\\x09c\\x0dd\\x7f"},
	    {"line 1\nline 2\x1b\n", 1, "line 1\nline 2\\x1b\n"},
	    /* valid UTF-8 stays, C1 in UTF-8 (U+009B) and out of it do not */
	    {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0,
	     "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
	    {"x\xc2\x9b"
	     "2Jy",
	     0, "x\\xc2\\x9b2Jy"},
	    {"x\x9b"
	     "2J\x85y",
	     0, "x\\x9b2J\\x85y"},
	    /* Latin-1 bytes out of UTF-8 above 0x9f stay; so does a cut sequence's lead */
	    {"caf\xe9", 0, "caf\xe9"},
	    {"\xe2\x82", 0, "\xe2\\x82"},
	    /* overlong and surrogate forms are not UTF-8 */
	    {"\xc0\x9b\xed\xa0\x80", 0, "\xc0\\x9b\xed\xa0\\x80"},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char out[128];
		size_t need = launcher_escape(rows[i].in, rows[i].keep_nl, out, sizeof(out));
		CHECK_STR(out, rows[i].out);
		CHECK_EQ_U(need, strlen(rows[i].out));
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		launcher_put_escaped(f, rows[i].in, rows[i].keep_nl);
		fclose(f);
		CHECK_STR(text, rows[i].out);
		free(text);
	}
	/* cut to the room: whole escapes only */
	char small[8];
	CHECK_EQ_U(launcher_escape("ab\x1b\x1b", 0, small, sizeof(small)), 10);
	CHECK_STR(small, "ab\\x1b");
	CHECK_EQ_U(launcher_escape("abc", 0, small, 0), 3);
}

static void test_attach_request(void)
{
	char buf[128];
	static const char want[] = "1\0load\0/x/libjcal.so\0true\0status,reply=/r\0";
	size_t n = hotspot_load_request("/x/libjcal.so", "status,reply=/r", buf, sizeof(buf));
	CHECK_EQ_U(n, sizeof(want) - 1);
	CHECK(memcmp(buf, want, sizeof(want) - 1) == 0);
	CHECK_EQ_U(hotspot_load_request("/x/libjcal.so", "status,reply=/r", buf, 20), 0);
	CHECK_EQ_U(hotspot_load_request("", "", buf, sizeof(buf)), 14);
	/* HotSpot takes 1,024 bytes per argument, its NUL not counted */
	static char big[2100], arg[1100];
	memset(arg, 'o', 1024);
	CHECK_EQ_U(hotspot_load_request("/l.so", arg, big, sizeof(big)), 2 + 5 + 6 + 5 + 1025);
	arg[1024] = 'o';
	CHECK_EQ_U(hotspot_load_request("/l.so", arg, big, sizeof(big)), 0);
	CHECK_EQ_U(hotspot_load_request(arg, "start", big, sizeof(big)), 0);
}

static void test_attach_answer(void)
{
	static const struct {
		const char *answer;
		enum hotspot_attach_result r;
		int rc;
		const char *msg;
	} rows[] = {
	    /* JDK 21+ and current JDK 17 updates */
	    {"0\nreturn code: 0\n", HOTSPOT_ATTACH_OK, 0, NULL},
	    {"0\nreturn code: 2\n", HOTSPOT_ATTACH_OK, 2, NULL},
	    {"0\nreturn code: -1\n", HOTSPOT_ATTACH_OK, -1, NULL},
	    /* older JDK 17: the agent's code alone on the second line */
	    {"0\n0\n", HOTSPOT_ATTACH_OK, 0, NULL},
	    {"0\n3\n", HOTSPOT_ATTACH_OK, 3, NULL},
	    {"0\n3", HOTSPOT_ATTACH_OK, 3, NULL},
	    /* the library did not load: JDK 17 says -1, JDK 25 0 */
	    {"-1\n/x.so was not loaded.\n/x.so: cannot open shared object file\n",
	     HOTSPOT_ATTACH_LOAD, 0,
	     "/x.so was not loaded.; /x.so: cannot open shared object file"},
	    {"0\nAgent_OnAttach is not available in /lib/libz.so.1\n", HOTSPOT_ATTACH_LOAD, 0,
	     "Agent_OnAttach is not available in /lib/libz.so.1"},
	    {"-1\n", HOTSPOT_ATTACH_LOAD, 0, "the JVM did not load the library (attach status -1)"},
	    {"0\nreturn code: x\n", HOTSPOT_ATTACH_LOAD, 0, "return code: x"},
	    {"", HOTSPOT_ATTACH_ERROR, 0, NULL},
	    {"garbage\n", HOTSPOT_ATTACH_ERROR, 0, NULL},
	    {"0", HOTSPOT_ATTACH_ERROR, 0, NULL},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int rc = 12345;
		char msg[256] = "";
		enum hotspot_attach_result r =
		    hotspot_parse_load_answer(rows[i].answer, &rc, msg, sizeof(msg));
		CHECK_EQ_I(r, rows[i].r);
		if (r == HOTSPOT_ATTACH_OK)
			CHECK_EQ_I(rc, rows[i].rc);
		if (rows[i].msg)
			CHECK_STR(msg, rows[i].msg);
	}
}

/* Parses a command line given as one string of space-separated words. */
static int parse(const char *line, struct launcher_args *a, char *err, size_t errlen)
{
	static char copy[512];
	char *argv[32];
	int argc = 0;
	snprintf(copy, sizeof(copy), "%s", line);
	argv[argc++] = "jcal";
	for (char *w = strtok(copy, " "); w && argc < 31; w = strtok(NULL, " "))
		argv[argc++] = w;
	argv[argc] = NULL;
	return launcher_cli_parse(argc, argv, a, err, errlen);
}

static void test_cli_ok(void)
{
	struct launcher_args a;
	char err[256] = "";
	CHECK_EQ_I(
	    parse("record 123 -d 30s -o app.bin metric=cputime output=tree", &a, err, sizeof(err)),
	    0);
	CHECK_EQ_I(a.cmd, LAUNCHER_CMD_RECORD);
	CHECK_EQ_I(a.pid, 123);
	CHECK_EQ_I(a.duration_s, 30);
	CHECK_STR(a.out, "app.bin");
	CHECK_STR(a.opts, "metric=cputime,output=tree");
	CHECK_EQ_I(a.timeout_ms, 10000);
	/* options after the operands, out= among the agent options, --timeout */
	CHECK_EQ_I(parse("start 77 metric=tsc,out=x.bin --timeout 3 --lib /l/libjcal.so", &a, err,
			 sizeof(err)),
		   0);
	CHECK_EQ_I(a.cmd, LAUNCHER_CMD_START);
	CHECK_STR(a.out, "x.bin");
	CHECK_STR(a.opts, "metric=tsc");
	CHECK_STR(a.lib, "/l/libjcal.so");
	CHECK_EQ_I(a.timeout_ms, 3000);
	CHECK_EQ_I(parse("dump 5 -o snap.bin", &a, err, sizeof(err)), 0);
	CHECK_EQ_I(a.cmd, LAUNCHER_CMD_DUMP);
	CHECK_EQ_I(parse("list", &a, err, sizeof(err)), 0);
	CHECK_EQ_I(a.cmd, LAUNCHER_CMD_LIST);
	CHECK_EQ_I(parse("--help", &a, err, sizeof(err)), 0);
	CHECK_EQ_I(a.cmd, LAUNCHER_CMD_HELP);
	CHECK_EQ_I(parse("status 9 --help", &a, err, sizeof(err)), 0);
	CHECK_EQ_I(a.cmd, LAUNCHER_CMD_HELP);
	CHECK_EQ_I(parse("--version", &a, err, sizeof(err)), 0);
	CHECK_EQ_I(a.cmd, LAUNCHER_CMD_VERSION);
	CHECK_EQ_I(parse("record 1 --duration 2m", &a, err, sizeof(err)), 0);
	CHECK_EQ_I(a.duration_s, 120);
	CHECK(a.out == NULL);
	/* --label KEY:VALUE, repeatable, as the agent's label= among its options */
	CHECK_EQ_I(parse("record 1 -d 5 --label service:web metric=tsc --label env:prod", &a, err,
			 sizeof(err)),
		   0);
	CHECK_STR(a.opts, "label=service:web,label=env:prod,metric=tsc");
	CHECK_EQ_I(parse("start 1 --label=run:7", &a, err, sizeof(err)), 0);
	CHECK_STR(a.opts, "label=run:7");
	/* a continuous recording: -d optional */
	CHECK_EQ_I(parse("record 4 --loop 10m --keep 24 -o app-%t.bin", &a, err, sizeof(err)), 0);
	CHECK_EQ_I(a.loop_s, 600);
	CHECK_EQ_I(a.keep, 24);
	CHECK_EQ_I(a.duration_s, 0);
	CHECK_EQ_I(parse("record 4 --loop 1s -d 1h", &a, err, sizeof(err)), 0);
	CHECK_EQ_I(a.duration_s, 3600);
	CHECK(a.out == NULL);
}

static int removed_n;
static char removed[8][64];

static int fake_remove(const char *name, void *ctx)
{
	CHECK(ctx == (void *)&removed_n);
	if (removed_n < 8)
		snprintf(removed[removed_n], sizeof(removed[0]), "%s", name);
	removed_n++;
	return 0;
}

/* record --loop's names (%n counted, % escaped for the agent) and --keep */
static void test_loop_files(void)
{
	struct loop_files lf = {.keep = 2};
	char name[PATH_MAX], agent[2 * PATH_MAX], err[256] = "";
	time_t t = 1700000000;

	CHECK_EQ_I(loop_files_next(&lf, "/d/app-%p-%n.bin", 42, t, name, sizeof(name), agent,
				   sizeof(agent), err, sizeof(err)),
		   0);
	CHECK_STR(name, "/d/app-42-1.bin");
	CHECK_STR(agent, "/d/app-42-1.bin");
	CHECK_EQ_I(loop_files_add(&lf, name), 0);
	CHECK_EQ_U(loop_files_trim(&lf, fake_remove, &removed_n), 0);
	/* a literal % in the result goes to the agent doubled */
	CHECK_EQ_I(loop_files_next(&lf, "/d/100%%-%n.bin", 42, t, name, sizeof(name), agent,
				   sizeof(agent), err, sizeof(err)),
		   0);
	CHECK_STR(name, "/d/100%-2.bin");
	CHECK_STR(agent, "/d/100%%-2.bin");
	CHECK_EQ_I(loop_files_add(&lf, name), 0);
	CHECK_EQ_U(loop_files_trim(&lf, fake_remove, &removed_n), 0);
	for (unsigned i = 3; i <= 5; i++) {
		char want[64];
		CHECK_EQ_I(loop_files_next(&lf, "/d/a-%n.bin", 1, t, name, sizeof(name), agent,
					   sizeof(agent), err, sizeof(err)),
			   0);
		snprintf(want, sizeof(want), "/d/a-%u.bin", i);
		CHECK_STR(name, want);
		CHECK_EQ_I(loop_files_add(&lf, name), 0);
		CHECK_EQ_U(loop_files_trim(&lf, fake_remove, &removed_n), 1);
	}
	/* the oldest went, one by one; the two newest stay */
	CHECK_EQ_I(removed_n, 3);
	CHECK_STR(removed[0], "/d/app-42-1.bin");
	CHECK_STR(removed[1], "/d/100%-2.bin");
	CHECK_STR(removed[2], "/d/a-3.bin");
	CHECK_EQ_U(lf.n, 2);
	CHECK_STR(lf.name[0], "/d/a-4.bin");
	CHECK_STR(lf.name[1], "/d/a-5.bin");
	/* keep 1: the file being written stays, nothing else */
	lf.keep = 1;
	CHECK_EQ_U(loop_files_trim(&lf, fake_remove, &removed_n), 1);
	CHECK_EQ_U(lf.n, 1);
	CHECK_STR(lf.name[0], "/d/a-5.bin");
	/* keep 0: all stay */
	lf.keep = 0;
	CHECK_EQ_I(loop_files_add(&lf, "/d/a-6.bin"), 0);
	CHECK_EQ_U(loop_files_trim(&lf, fake_remove, &removed_n), 0);
	CHECK_EQ_U(lf.n, 2);
	/* a pattern without %n or %t names one file for all: refused */
	CHECK_EQ_I(loop_files_next(&lf, "/d/a.bin", 1, t, name, sizeof(name), agent, sizeof(agent),
				   err, sizeof(err)),
		   -1);
	CHECK(strstr(err, "%n") != NULL);
	CHECK_EQ_I(loop_files_next(&lf, "/d/a-%q-%n.bin", 1, t, name, sizeof(name), agent,
				   sizeof(agent), err, sizeof(err)),
		   -1);
	CHECK(strstr(err, "%q") != NULL);
	/* an escaped name that does not fit */
	CHECK_EQ_I(loop_files_next(&lf, "/d/%%%%%%-%n", 1, t, name, sizeof(name), agent, 8, err,
				   sizeof(err)),
		   -1);
	CHECK(strstr(err, "too long") != NULL);
	/* a stage's path as the agent's out= */
	CHECK_EQ_I(loop_files_escape("/tmp/jcal-out-x/a%b", agent, sizeof(agent)), 0);
	CHECK_STR(agent, "/tmp/jcal-out-x/a%%b");
	CHECK_EQ_I(loop_files_escape("%%", agent, 5), 0);
	CHECK_STR(agent, "%%%%");
	CHECK_EQ_I(loop_files_escape("%%", agent, 4), -1);
	loop_files_free(&lf);
}

static void test_cli_errors(void)
{
	static const struct {
		const char *line, *err;
	} rows[] = {
	    {"", "no command given"},
	    {"frobnicate 1", "unknown command 'frobnicate'"},
	    {"status", "'status' needs a PID"},
	    {"status abc", "'abc' is not a process id"},
	    {"status -5", "unknown option -5"},
	    {"status 0", "'0' is not a process id"},
	    {"status 12x", "'12x' is not a process id"},
	    {"status 1 metric=tsc", "'status' takes no agent options ('metric=tsc')"},
	    {"stop 1 -o x", "--out does not apply to 'stop'"},
	    {"start 1 -d 5s", "--duration does not apply to 'start'"},
	    {"list --lib x", "--lib does not apply to 'list'"},
	    {"record 1", "record needs -d DURATION (or --loop PERIOD)"},
	    {"record 1 --loop 0", "--loop '0'"},
	    {"record 1 --loop 10s -o app.bin", "-o needs %n (its number) or %t"},
	    {"record 1 --loop 10s -o app-%%n.bin", "-o needs %n"},
	    {"record 1 -d 5 --keep 2", "--keep goes with --loop"},
	    {"record 1 --loop 5s --keep 0", "--keep '0'"},
	    {"record 1 --loop 5s --keep 2x", "--keep '2x'"},
	    {"record 1 --loop 1m -d 60s", "--loop 60s is not shorter than -d 60s"},
	    {"start 1 --loop 5s", "--loop does not apply to 'start'"},
	    {"record 1 -d 0", "-d '0'"},
	    {"record 1 -d 5x", "-d '5x'"},
	    {"record 1 -d", "no value for option -d"},
	    {"record 1 -d 5 duration=9s", "record takes its duration from -d"},
	    {"start 1 reply=/tmp/x", "reply= is jcal's own"},
	    {"start 1 -o a out=b", "the output file is given twice"},
	    {"start 1 metric=tsc,,x=1", "empty agent option"},
	    {"status 1 --timeout 0", "--timeout '0'"},
	    {"status 1 --timeout", "no value for option --timeout"},
	    {"status 1 --bogus", "unknown option '--bogus'"},
	    {"start 1 --label env", "--label 'env': expected KEY:VALUE"},
	    {"record 1 -d 5 --label host:x",
	     "--label 'host:x': jcal-post labels every sample with host"},
	    {"record 1 -d 5 --label 9:x", "--label '9:x': expected KEY:VALUE"},
	    {"dump 1 --label a:b", "--label does not apply to 'dump'"},
	    {"start 1 --label", "no value for option --label"},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct launcher_args a;
		char err[256] = "";
		int r = parse(rows[i].line, &a, err, sizeof(err));
		CHECK_EQ_I(r, -1);
		if (!strstr(err, rows[i].err))
			fprintf(stderr, "  '%s': got '%s', expected '%s'\n", rows[i].line, err,
				rows[i].err);
		CHECK(strstr(err, rows[i].err) != NULL);
	}
}

static void test_durations(void)
{
	long s = 0;
	CHECK_EQ_I(launcher_parse_duration("45", &s), 0);
	CHECK_EQ_I(s, 45);
	CHECK_EQ_I(launcher_parse_duration("3h", &s), 0);
	CHECK_EQ_I(s, 10800);
	CHECK_EQ_I(launcher_parse_duration("168h", &s), 0);
	CHECK_EQ_I(launcher_parse_duration("169h", &s), -1);
	CHECK_EQ_I(launcher_parse_duration("", &s), -1);
	CHECK_EQ_I(launcher_parse_duration("s", &s), -1);
	CHECK_EQ_I(launcher_parse_duration("5ms", &s), -1);
	CHECK_EQ_I(launcher_parse_duration("-5", &s), -1);
	CHECK_EQ_I(launcher_parse_duration("99999999999999999999", &s), -1);
}

static void test_agent_options(void)
{
	struct launcher_args a;
	char err[256], out[512], abs[64];
	CHECK_EQ_I(launcher_absolute("app.bin", "/home/u", abs, sizeof(abs)), 0);
	CHECK_STR(abs, "/home/u/app.bin");
	CHECK_EQ_I(launcher_absolute("/a/b.bin", "/home/u", abs, sizeof(abs)), 0);
	CHECK_STR(abs, "/a/b.bin");
	CHECK_EQ_I(launcher_absolute("app.bin", "/home/u", abs, 10), -1);
	/* from the root directory: one slash, not "//app.bin" */
	CHECK_EQ_I(launcher_absolute("app.bin", "/", abs, sizeof(abs)), 0);
	CHECK_STR(abs, "/app.bin");

	CHECK_EQ_I(parse("record 9 -d 1m metric=cputime", &a, err, sizeof(err)), 0);
	CHECK_EQ_I(launcher_agent_options(&a, "/o/x.bin", "/tmp/r/reply", out, sizeof(out)), 0);
	CHECK_STR(out, "start,out=/o/x.bin,duration=60s,metric=cputime,reply=/tmp/r/reply");
	CHECK_EQ_I(parse("start 9", &a, err, sizeof(err)), 0);
	CHECK_EQ_I(launcher_agent_options(&a, NULL, "/r", out, sizeof(out)), 0);
	CHECK_STR(out, "start,reply=/r");
	CHECK_EQ_I(parse("dump 9", &a, err, sizeof(err)), 0);
	CHECK_EQ_I(launcher_agent_options(&a, "/s.bin", "/r", out, sizeof(out)), 0);
	CHECK_STR(out, "dump,out=/s.bin,reply=/r");
	CHECK_EQ_I(parse("status 9", &a, err, sizeof(err)), 0);
	CHECK_EQ_I(launcher_agent_options(&a, NULL, "/r", out, sizeof(out)), 0);
	CHECK_STR(out, "status,reply=/r");
	CHECK_EQ_I(launcher_agent_options(&a, NULL, "/r", out, 10), -1);
	CHECK_EQ_I(parse("record 9 -d 10 --label service:web", &a, err, sizeof(err)), 0);
	CHECK_EQ_I(launcher_agent_options(&a, "/o/x.bin", "/r", out, sizeof(out)), 0);
	CHECK_STR(out, "start,out=/o/x.bin,duration=10s,label=service:web,reply=/r");
	CHECK_EQ_I(parse("stop 9", &a, err, sizeof(err)), 0);
	CHECK_EQ_I(launcher_agent_options(&a, NULL, "/r", out, sizeof(out)), 0);
	CHECK_STR(out, "stop,reply=/r");
	/* record --loop without -d: no duration=; its rotations */
	CHECK_EQ_I(parse("record 9 --loop 5s -o a-%n.bin", &a, err, sizeof(err)), 0);
	CHECK_EQ_I(launcher_agent_options(&a, "/o/a-1.bin", "/r", out, sizeof(out)), 0);
	CHECK_STR(out, "start,out=/o/a-1.bin,reply=/r");
	a.cmd = LAUNCHER_CMD_ROTATE;
	CHECK_EQ_I(launcher_agent_options(&a, "/o/a-2.bin", "/r", out, sizeof(out)), 0);
	CHECK_STR(out, "rotate,out=/o/a-2.bin,reply=/r");
}

static void test_help(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	launcher_cli_help(f);
	fclose(f);
	CHECK(strstr(text, "jcal record PID -d DURATION") != NULL);
	CHECK(strstr(text, "jcal record PID --loop PERIOD") != NULL);
	CHECK(strstr(text, "--timeout SECONDS") != NULL);
	/* every exit code, and no line wider than 80 columns */
	for (size_t i = 0; i < jcal_exit_nrows; i++) {
		char row[16];
		snprintf(row, sizeof(row), "\n  %-4d", jcal_exit_rows[i].code);
		CHECK(strstr(text, row) != NULL);
	}
	for (char *l = text; *l;) {
		size_t w = strcspn(l, "\n");
		CHECK(w <= 80);
		l += w + (l[w] != '\0');
	}
	free(text);
}

/* The reply file as the agent accepts one: a new, empty regular file of
 * one link, 0600, in a new 0700 directory of jcal's user; read back only
 * while it is a regular file. */
static void test_reply_file(void)
{
	struct reply_file rf;
	struct stat sb;
	char err[512];
	CHECK_EQ_I(reply_file_create(&rf, "", err, sizeof(err)), 0);
	CHECK(strncmp(rf.target, "/tmp/jcal-reply-", 16) == 0 && strlen(rf.target) == 28);
	CHECK_STR(rf.target, rf.file);
	CHECK_EQ_I(lstat(rf.dir, &sb), 0);
	CHECK(S_ISDIR(sb.st_mode) && (sb.st_mode & 07777) == 0700 && sb.st_uid == geteuid());
	CHECK_EQ_I(lstat(rf.file, &sb), 0);
	CHECK(S_ISREG(sb.st_mode) && (sb.st_mode & 07777) == 0600 && sb.st_uid == geteuid());
	CHECK_EQ_U(sb.st_size, 0);
	CHECK_EQ_U(sb.st_nlink, 1);
	/* what the agent does: open without creating or truncating, write */
	int fd = open(rf.file, O_WRONLY | O_NOFOLLOW);
	CHECK(fd >= 0 && write(fd, "recording: no\n", 14) == 14);
	close(fd);
	char *text = reply_file_read(&rf);
	CHECK_STR(text, "recording: no\n");
	free(text);
	/* a FIFO in its place is not read (nor waited on) */
	CHECK_EQ_I(unlink(rf.file), 0);
	CHECK_EQ_I(mkfifo(rf.file, 0600), 0);
	alarm(10);
	CHECK(reply_file_read(&rf) == NULL);
	alarm(0);
	char dir[sizeof(rf.dir)];
	snprintf(dir, sizeof(dir), "%s", rf.dir);
	reply_file_remove(&rf);
	CHECK(lstat(dir, &sb) != 0 && errno == ENOENT);
}

static void touch(const char *path, mode_t mode)
{
	FILE *f = fopen(path, "w");
	if (f)
		fclose(f);
	chmod(path, mode);
}

static void test_lib_locate(void)
{
	char dir[] = "/tmp/jcal-test-launcher-XXXXXX", p[512], out[4096], err[8192];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(p, sizeof(p), "%s/bin", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/lib", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/lib/jcal", dir);
	mkdir(p, 0755);
	char bin[512];
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	/* nothing there */
	CHECK_EQ_I(lib_locate(NULL, NULL, bin, out, sizeof(out), err, sizeof(err)), -1);
	CHECK(strstr(err, "no agent library") != NULL);
	/* the installed layout */
	snprintf(p, sizeof(p), "%s/lib/jcal/libjcal.so", dir);
	touch(p, 0644);
	CHECK_EQ_I(lib_locate(NULL, "", bin, out, sizeof(out), err, sizeof(err)), 0);
	CHECK_STR(out, p);
	/* jars missing beside it */
	CHECK_EQ_I(lib_check(out, err, sizeof(err)), -1);
	CHECK(strstr(err, "jcal-agent.jar") != NULL);
	snprintf(p, sizeof(p), "%s/lib/jcal/jcal-agent.jar", dir);
	touch(p, 0644);
	CHECK_EQ_I(lib_check(out, err, sizeof(err)), -1);
	CHECK(strstr(err, "jcal-calibrator.jar") != NULL);
	snprintf(p, sizeof(p), "%s/lib/jcal/jcal-calibrator.jar", dir);
	touch(p, 0644);
	CHECK_EQ_I(lib_check(out, err, sizeof(err)), 0);
	/* beside the binary wins */
	snprintf(p, sizeof(p), "%s/bin/libjcal.so", dir);
	touch(p, 0644);
	CHECK_EQ_I(lib_locate(NULL, NULL, bin, out, sizeof(out), err, sizeof(err)), 0);
	CHECK_STR(out, p);
	/* $JCAL_LIB, then --lib, win; a bad one is an error, not a fallback */
	CHECK_EQ_I(
	    lib_locate(NULL, "/nonexistent/libjcal.so", bin, out, sizeof(out), err, sizeof(err)),
	    -1);
	CHECK(strstr(err, "/nonexistent/libjcal.so ($JCAL_LIB): No such file") != NULL);
	CHECK_EQ_I(lib_locate("/nonexistent/l.so", p, bin, out, sizeof(out), err, sizeof(err)), -1);
	CHECK(strstr(err, "/nonexistent/l.so (--lib)") != NULL);
	CHECK_EQ_I(lib_locate(dir, NULL, bin, out, sizeof(out), err, sizeof(err)), -1);
	CHECK(strstr(err, "Is a directory") != NULL);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_EQ_I(system(cmd), 0);
}

int main(void)
{
	RUN(test_perfdata_built);
	RUN(test_perfdata_corrupt);
	RUN(test_perfdata_real);
	RUN(test_perfdata_owned);
	RUN(test_proc_status);
	RUN(test_proc_maps);
	RUN(test_proc_stat);
	RUN(test_proc_verdict);
	RUN(test_proc_handle);
	RUN(test_escape);
	RUN(test_attach_request);
	RUN(test_attach_answer);
	RUN(test_cli_ok);
	RUN(test_cli_errors);
	RUN(test_loop_files);
	RUN(test_durations);
	RUN(test_agent_options);
	RUN(test_help);
	RUN(test_lib_locate);
	RUN(test_reply_file);
	return test_summary("launcher");
}
