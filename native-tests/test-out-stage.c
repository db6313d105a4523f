/*
 * test-out-stage.c - the launcher's stage for a recording the JVM cannot
 * write where the caller asked (agent/launcher/out_stage.c): when one is
 * needed (another root, simulated by a directory standing for
 * /proc/PID/root), the stage and the out= the agent is given ('%'
 * doubled), which staged files are taken (complete regular files named
 * after the recording; not a .part, a link or a FIFO), the copy into place
 * and its mode, the note between start and stop, the caller's directory
 * checked; and jvm_process_shares_files on jcal itself.
 */
#include "agent/launcher/jvm_process.h"
#include "agent/launcher/out_stage.h"
#include "agent/launcher/proc_handle.h"
#include "native-tests/test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char work[64]; /* the test's own directory */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char *read_file(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

/* A process as jvm_process_read leaves it: this one, with root as given. */
static void fake_process(struct jvm_process *p, const char *root)
{
	memset(p, 0, sizeof(*p));
	p->pid = p->nspid = getpid();
	p->uid = geteuid();
	p->gid = getegid();
	snprintf(p->user, sizeof(p->user), "tester");
	snprintf(p->root, sizeof(p->root), "%s", root);
	p->proc.pid = getpid();
	p->proc.start = 4242;
	p->proc.pidfd = p->proc.procfd = -1;
}

static void test_needed(void)
{
	struct jvm_process p;
	char dest[PATH_MAX], why[512], root[128];
	snprintf(dest, sizeof(dest), "%s/out/app.bin", work);
	snprintf(root, sizeof(root), "%s/root", work);
	mkdir(root, 0755);
	/* the same files: written by the agent itself */
	fake_process(&p, "");
	CHECK_EQ_I(out_stage_needed(&p, dest, 0, why, sizeof(why)), 0);
	/* another root that has no such directory */
	fake_process(&p, root);
	CHECK_EQ_I(out_stage_needed(&p, dest, 0, why, sizeof(why)), 1);
	CHECK(strstr(why, "another mount namespace") != NULL);
	/* another user, who cannot write a directory of mode 0500 (unless
	 * root, whom modes do not stop: then only the wording is checked) */
	char ro[128];
	snprintf(ro, sizeof(ro), "%s/ro", work);
	mkdir(ro, 0500);
	snprintf(dest, sizeof(dest), "%s/app.bin", ro);
	fake_process(&p, "");
	int r = out_stage_needed(&p, dest, 1, why, sizeof(why));
	if (geteuid() != 0) {
		CHECK_EQ_I(r, 1);
		CHECK(strstr(why, "runs as tester, which cannot write ") != NULL);
	}
	CHECK_EQ_I(out_stage_needed(&p, dest, 0, why, sizeof(why)), 0);
}

static void test_check_dest(void)
{
	char dest[PATH_MAX], err[512];
	snprintf(dest, sizeof(dest), "%s/no/such/app.bin", work);
	CHECK_EQ_I(out_stage_check_dest(dest, err, sizeof(err)), -1);
	CHECK(strstr(err, "No such file or directory") != NULL);
	snprintf(dest, sizeof(dest), "%s/file/app.bin", work);
	char file[128];
	snprintf(file, sizeof(file), "%s/file", work);
	write_file(file, "x");
	CHECK_EQ_I(out_stage_check_dest(dest, err, sizeof(err)), -1);
	CHECK(strstr(err, "not a directory") != NULL);
	snprintf(dest, sizeof(dest), "%s/app.bin", work);
	CHECK_EQ_I(out_stage_check_dest(dest, err, sizeof(err)), 0);
}

/* Stages dest under root; the agent's files written in it. */
static void stage_with_files(struct out_stage *s, const struct jvm_process *p, const char *dest)
{
	char err[512], path[PATH_MAX + 64];
	CHECK_EQ_I(out_stage_create(s, p, dest, err, sizeof(err)), 0);
	const char *names[] = {"a%b.bin", "a%b.bin.tree", "a%b.bin.dump1.part", "other.bin",
			       "a%b.binx"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", s->dir, names[i]);
		write_file(path, names[i]);
	}
	snprintf(path, sizeof(path), "%s/a%%b.bin.dump2", s->dir);
	CHECK_EQ_I(symlink("/etc/passwd", path), 0);
	snprintf(path, sizeof(path), "%s/a%%b.bin.dump3", s->dir);
	CHECK_EQ_I(mkfifo(path, 0600), 0);
}

static void test_stage_and_copy(void)
{
	struct jvm_process p;
	struct out_stage s;
	struct out_staged f[OUT_STAGE_MAX_FILES];
	char root[128], dest[256], path[PATH_MAX + 64], err[512];
	struct stat sb;
	int partial;
	snprintf(root, sizeof(root), "%s/root", work);
	snprintf(path, sizeof(path), "%s/tmp", root);
	mkdir(root, 0755);
	mkdir(path, 01777);
	snprintf(dest, sizeof(dest), "%s/a%%b.bin", work);
	fake_process(&p, root);
	stage_with_files(&s, &p, dest);
	CHECK(strncmp(s.dir, root, strlen(root)) == 0);
	CHECK_EQ_I(lstat(s.dir, &sb), 0);
	CHECK(S_ISDIR(sb.st_mode) && (sb.st_mode & 07777) == 0700);
	/* the agent's view: no root prefix, '%' doubled */
	CHECK(strncmp(s.inside, "/tmp/jcal-out-", 14) == 0);
	CHECK_STR(s.inside + strlen(s.inside) - 9, "/a%%b.bin");
	int n = out_stage_open(&s, f, OUT_STAGE_MAX_FILES, &partial);
	CHECK_EQ_I(n, 2);
	CHECK_EQ_I(partial, 1);
	mode_t old = umask(027);
	for (int i = 0; i < n; i++) {
		CHECK_EQ_I(out_stage_put(&s, &f[i], path, sizeof(path), err, sizeof(err)), 0);
		CHECK_STR(read_file(path), f[i].suffix[0] ? "a%b.bin.tree" : "a%b.bin");
		CHECK_EQ_I(stat(path, &sb), 0);
		CHECK_EQ_I(sb.st_mode & 0777, 0640);
		out_stage_unlink(&s, &f[i]);
		close(f[i].fd);
	}
	umask(old);
	/* copied files are not taken again; the .part still is being written */
	CHECK_EQ_I(out_stage_open(&s, f, OUT_STAGE_MAX_FILES, &partial), 0);
	CHECK_EQ_I(partial, 1);
	char dir[sizeof(s.dir)];
	snprintf(dir, sizeof(dir), "%s", s.dir);
	out_stage_remove(&s);
	CHECK(lstat(dir, &sb) != 0 && errno == ENOENT);
	CHECK_EQ_I(stat("/etc/passwd", &sb), 0); /* the link's target untouched */
}

static void test_note(void)
{
	struct jvm_process p;
	struct out_stage s, back;
	char err[512], dest[256], path[128];
	struct stat sb;
	fake_process(&p, "");
	snprintf(dest, sizeof(dest), "%s/noted.bin", work);
	CHECK_EQ_I(out_stage_create(&s, &p, dest, err, sizeof(err)), 0);
	CHECK_EQ_I(out_stage_note_read(&back, &p.proc), -1);
	CHECK_EQ_I(out_stage_note_write(&s, &p.proc, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "/tmp/.jcal-pending-%u-%d-4242", (unsigned)getuid(),
		 (int)getpid());
	CHECK_EQ_I(lstat(path, &sb), 0);
	CHECK(S_ISREG(sb.st_mode) && (sb.st_mode & 07777) == 0600);
	CHECK_EQ_I(out_stage_note_read(&back, &p.proc), 0);
	CHECK_STR(back.dir, s.dir);
	CHECK_STR(back.inside, s.inside);
	CHECK_STR(back.dest, dest);
	CHECK_STR(back.base, "noted.bin");
	/* a note others could have written is not believed */
	chmod(path, 0622);
	CHECK_EQ_I(out_stage_note_read(&back, &p.proc), -1);
	out_stage_note_remove(&p.proc);
	CHECK(lstat(path, &sb) != 0 && errno == ENOENT);
	out_stage_remove(&s);
}

static void test_shares_files(void)
{
	struct proc_handle h;
	CHECK_EQ_I(proc_handle_open(&h, getpid()), 0);
	CHECK_EQ_I(jvm_process_shares_files(&h), 1);
	proc_handle_close(&h);
}

int main(void)
{
	snprintf(work, sizeof(work), "/tmp/jcal-test-stage-XXXXXX");
	if (!mkdtemp(work)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_needed);
	RUN(test_check_dest);
	RUN(test_stage_and_copy);
	RUN(test_note);
	RUN(test_shares_files);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s && rm -rf %s", work, work);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", work);
	return test_summary("out-stage");
}
