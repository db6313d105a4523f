/*
 * test-calib-dir.c - the calibration directory (common/calib_dir.c): made
 * twice, a table found by its fingerprint whatever its file's name,
 * garbage and tables of another metric passed over, a missing directory,
 * and the default directory from JCAL_CALIB_DIR or HOME; a directory or
 * table that is there but cannot be read (as user nobody, in a child, when
 * the test runs as root) named with its errno, never "no table".
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/calib_dir.h"
#include "common/calib_table.h"
#include "native-tests/calibgen.h"
#include "native-tests/test.h"

static void test_files_and_dir(void)
{
	struct calib_table t, u;
	struct calib_fingerprint fp, other;
	char dir[512], path[1024], found[1024], err[512], name[64];
	FILE *f;

	CHECK_EQ_I(calib_table_init(&t), 0);
	CHECK_EQ_I(calib_table_init(&u), 0);
	fill_header(&t);
	set_key(&t, "i:E:I:X:i", 812, 1000, 75);
	tmp_path(dir, sizeof(dir), "calib/sub");
	CHECK_EQ_I(calib_dir_create(dir, err, sizeof(err)), 0);
	CHECK_EQ_I(calib_dir_create(dir, err, sizeof(err)), 0);
	fill_fp(&fp);
	other = fp;
	calib_fingerprint_set_meta(&other, "metrics", "instructions");

	/* nothing there yet */
	CHECK_EQ_I(calib_dir_find(dir, &fp, found, sizeof(found), NULL, 0, err, sizeof(err)), 0);
	/* a table under another name, garbage and a table of another metric */
	snprintf(path, sizeof(path), "%s/b-copied.txt", dir);
	CHECK_EQ_I(calib_table_write_file(&t, path, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/a-garbage.txt", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("not a table\n", f);
		fclose(f);
	}
	t.fp = other;
	CHECK_EQ_I(calib_dir_path(dir, &other, path, sizeof(path)), 0);
	CHECK_EQ_I(calib_table_write_file(&t, path, err, sizeof(err)), 0);
	CHECK_EQ_I(calib_dir_find(dir, &fp, found, sizeof(found), NULL, 0, err, sizeof(err)), 1);
	snprintf(path, sizeof(path), "%s/b-copied.txt", dir);
	CHECK_STR(found, path);
	CHECK_EQ_I(calib_dir_find(dir, &other, found, sizeof(found), NULL, 0, err, sizeof(err)), 1);
	calib_fingerprint_filename(&other, name, sizeof(name));
	CHECK(strstr(found, name) != NULL);
	CHECK_EQ_I(calib_table_read_file(&u, found, err, sizeof(err)), 0);
	CHECK_STR(u.fp.field[CALIB_FP_METRICS], "instructions");
	tmp_path(path, sizeof(path), "missing-dir");
	CHECK_EQ_I(calib_dir_find(path, &fp, found, sizeof(found), NULL, 0, err, sizeof(err)), -1);
	CHECK_EQ_I(calib_table_read_file(&u, path, err, sizeof(err)), -1);
	CHECK(strstr(err, "No such file") != NULL);

	/* the default directory */
	setenv("JCAL_CALIB_DIR", "/x/y", 1);
	CHECK_EQ_I(calib_dir_default(path, sizeof(path)), 0);
	CHECK_STR(path, "/x/y");
	unsetenv("JCAL_CALIB_DIR");
	setenv("HOME", "/home/u", 1);
	CHECK_EQ_I(calib_dir_default(path, sizeof(path)), 0);
	CHECK_STR(path, "/home/u/.local/share/jcal/calib");
	calib_table_free(&t);
	calib_table_free(&u);
}

/* A directory of mode mode under the scratch directory, holding t at
 * name (the stable name of t's fingerprint when name is NULL) with mode
 * fmode. */
static void table_dir(const char *sub, mode_t mode, const struct calib_table *t, const char *name,
		      mode_t fmode)
{
	char dir[512], path[1024], err[512], stable[64];

	tmp_path(dir, sizeof(dir), sub);
	CHECK_EQ_I(calib_dir_create(dir, err, sizeof(err)), 0);
	calib_fingerprint_filename(&t->fp, stable, sizeof(stable));
	snprintf(path, sizeof(path), "%s/%s", dir, name ? name : stable);
	CHECK_EQ_I(calib_table_write_file(t, path, err, sizeof(err)), 0);
	CHECK_EQ_I(chmod(path, fmode), 0);
	CHECK_EQ_I(chmod(dir, mode), 0);
}

/* What an unprivileged reader finds in the directories table_dir made. */
static void check_unreadable(const struct calib_fingerprint *fp)
{
	char dir[512], found[1024], err[1024];

	/* the table at its own name cannot be opened */
	tmp_path(dir, sizeof(dir), "stable-0600");
	errno = 0;
	CHECK_EQ_I(calib_dir_find(dir, fp, found, sizeof(found), NULL, 0, err, sizeof(err)), -1);
	CHECK_EQ_I(errno, EACCES);
	CHECK(strstr(err, "cannot read the calibration table ") && strstr(err, "/stable-0600/") &&
	      strstr(err, ": Permission denied"));
	calib_dir_explain(err, sizeof(err), EACCES, "jcal-post", "the fix");
	CHECK(strstr(err, " (jcal-post runs as user ") &&
	      strstr(err, "which may not read it: the fix)"));
	/* the directory cannot be listed */
	tmp_path(dir, sizeof(dir), "dir-0700");
	CHECK_EQ_I(calib_dir_exists(dir, err, sizeof(err)), 1);
	CHECK_EQ_I(calib_dir_find(dir, fp, found, sizeof(found), NULL, 0, err, sizeof(err)), -1);
	CHECK(strstr(err, "cannot read the calibration directory ") &&
	      strstr(err, "dir-0700: Permission denied"));
	/* ... nor what is inside it looked at */
	tmp_path(dir, sizeof(dir), "dir-0700/inner");
	CHECK_EQ_I(calib_dir_exists(dir, err, sizeof(err)), -1);
	CHECK_EQ_I(errno, EACCES);
	CHECK(strstr(err, "dir-0700/inner: Permission denied") != NULL);
	/* a table under another name, unreadable, with no other of fp */
	tmp_path(dir, sizeof(dir), "other-0600");
	CHECK_EQ_I(calib_dir_find(dir, fp, found, sizeof(found), NULL, 0, err, sizeof(err)), -1);
	CHECK(strstr(err, "/other-0600/b.txt: Permission denied (no other table in ") != NULL);
	/* a readable table of fp beside an unreadable one: found */
	tmp_path(dir, sizeof(dir), "both");
	CHECK_EQ_I(calib_dir_find(dir, fp, found, sizeof(found), NULL, 0, err, sizeof(err)), 1);
	CHECK(strstr(found, "/both/a.txt") != NULL);
	/* nothing there at all is no table, not an error */
	tmp_path(dir, sizeof(dir), "missing");
	CHECK_EQ_I(calib_dir_exists(dir, err, sizeof(err)), 0);
}

static void test_unreadable(void)
{
	struct calib_table t;
	struct calib_fingerprint fp;
	char err[512], path[1024];
	pid_t pid;
	int st = -1;

	CHECK_EQ_I(calib_table_init(&t), 0);
	fill_header(&t);
	set_key(&t, "i:E:I:X:i", 812, 1000, 75);
	fill_fp(&fp);
	CHECK_EQ_I(chmod(tmpdir, 0755), 0);
	table_dir("stable-0600", 0755, &t, NULL, 0);
	table_dir("dir-0700", 0755, &t, NULL, 0644);
	tmp_path(path, sizeof(path), "dir-0700/inner");
	CHECK_EQ_I(calib_dir_create(path, err, sizeof(err)), 0);
	tmp_path(path, sizeof(path), "dir-0700");
	CHECK_EQ_I(chmod(path, geteuid() ? 0 : 0700), 0); /* its owner: 0 */
	table_dir("other-0600", 0755, &t, "b.txt", 0);
	table_dir("both", 0755, &t, "b.txt", 0);
	table_dir("both", 0755, &t, "a.txt", 0644);
	calib_table_free(&t);
	if (geteuid() != 0) {
		check_unreadable(&fp);
		tmp_path(path, sizeof(path), "dir-0700");
		CHECK_EQ_I(chmod(path, 0700), 0); /* for cleanup() */
		return;
	}
	/* root reads everything: the reader is user nobody, in a child */
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		check_unreadable(&fp);
		_exit(test_cur_failed);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

int main(void)
{
	make_tmpdir();
	RUN(test_files_and_dir);
	RUN(test_unreadable);
	cleanup();
	return test_summary("calib-dir");
}
