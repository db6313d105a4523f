/*
 * test-calib-handover.c - the caller's calibration tables handed to an
 * attached recording with trees (agent/launcher/calib_handover.c): which
 * options want them, the tables of a directory read (files that are not
 * tables, hidden ones and other names left out), one table given, a path
 * that cannot be read, the private copies written and removed, and the
 * agent options with calib= put in.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "agent/launcher/calib_handover.h"
#include "common/calib_table.h"
#include "native-tests/calibgen.h"
#include "native-tests/test.h"

static void test_wanted(void)
{
	static const struct {
		const char *opts;
		int wanted;
		const char *given; /* NULL: none */
	} cases[] = {
	    {"", 0, NULL},
	    {"output=trace", 0, NULL},
	    {"output=tree", 1, NULL},
	    {"include=a.*,output=both,duration=5s", 1, NULL},
	    {"output=treehouse", 0, NULL},
	    {"outputs=tree", 0, NULL},
	    {"output=tree,calib=/c/t.txt", 1, "/c/t.txt"},
	    {"calib=/c", 0, "/c"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *given = NULL;
		size_t len = 0;

		CHECK_EQ_I(calib_handover_wanted(cases[i].opts, &given, &len), cases[i].wanted);
		CHECK((given == NULL) == (cases[i].given == NULL));
		if (given && cases[i].given)
			CHECK(len == strlen(cases[i].given) &&
			      !strncmp(given, cases[i].given, len));
	}
}

static void test_options(void)
{
	struct calib_handover h;
	char out[128];

	memset(&h, 0, sizeof(h));
	snprintf(h.target, sizeof(h.target), "/tmp/jcal-calib-AbCdEf");
	CHECK_EQ_I(
	    calib_handover_options(&h, "output=tree,calib=/mine,include=a.*", out, sizeof(out)), 0);
	CHECK_STR(out, "output=tree,include=a.*,calib=/tmp/jcal-calib-AbCdEf");
	CHECK_EQ_I(calib_handover_options(&h, "", out, sizeof(out)), 0);
	CHECK_STR(out, "calib=/tmp/jcal-calib-AbCdEf");
	CHECK_EQ_I(calib_handover_options(&h, "output=both", out, 20), -1);
}

/* A file of text at name in dir. */
static void put(const char *dir, const char *name, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_read_write(void)
{
	struct calib_handover h;
	struct calib_table t;
	char dir[512], path[1024], err[1024];
	struct stat sb;

	tmp_path(dir, sizeof(dir), "caller");
	CHECK_EQ_I(mkdir(dir, 0700), 0);
	CHECK_EQ_I(calib_table_init(&t), 0);
	fill_header(&t);
	set_key(&t, "i:E:I:X:i", 812, 1000, 75);
	snprintf(path, sizeof(path), "%s/t.txt", dir);
	CHECK_EQ_I(calib_table_write_file(&t, path, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/.hidden.txt", dir);
	CHECK_EQ_I(calib_table_write_file(&t, path, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/t.dat", dir);
	CHECK_EQ_I(calib_table_write_file(&t, path, err, sizeof(err)), 0);
	calib_table_free(&t);
	put(dir, "notes.txt", "not a table\n");

	/* the caller's directory: its one table */
	setenv("JCAL_CALIB_DIR", dir, 1);
	CHECK_EQ_I(calib_handover_read(&h, NULL, 0, err, sizeof(err)), 0);
	CHECK_EQ_U(h.n, 1);
	CHECK_STR(h.files[0].name, "t.txt");
	CHECK(!h.one_file);
	CHECK_EQ_I(calib_handover_write(&h, "", err, sizeof(err)), 0);
	CHECK(!strncmp(h.target, "/tmp/jcal-calib-", 16));
	CHECK(!stat(h.dir, &sb) && S_ISDIR(sb.st_mode) && (sb.st_mode & 0777) == 0700);
	snprintf(path, sizeof(path), "%s/t.txt", h.target);
	CHECK(!stat(path, &sb) && S_ISREG(sb.st_mode) && (sb.st_mode & 0777) == 0600);
	CHECK_EQ_U((uint64_t)sb.st_size, h.files[0].len);
	snprintf(path, sizeof(path), "%s", h.dir);
	calib_handover_remove(&h);
	CHECK(stat(path, &sb) != 0);
	calib_handover_free(&h);

	/* one table named: calib=DIR/NAME */
	snprintf(path, sizeof(path), "%s/t.txt", dir);
	CHECK_EQ_I(calib_handover_read(&h, path, strlen(path), err, sizeof(err)), 0);
	CHECK(h.one_file && h.n == 1);
	CHECK_EQ_I(calib_handover_write(&h, "", err, sizeof(err)), 0);
	CHECK(strlen(h.target) > 6 && !strcmp(h.target + strlen(h.target) - 6, "/t.txt"));
	calib_handover_remove(&h);
	calib_handover_free(&h);

	/* a path that is not there; no directory of the caller's at all */
	snprintf(path, sizeof(path), "%s/none.txt", dir);
	CHECK_EQ_I(calib_handover_read(&h, path, strlen(path), err, sizeof(err)), -1);
	CHECK(strstr(err, "none.txt: No such file or directory") != NULL);
	tmp_path(path, sizeof(path), "nobody-calibrated");
	setenv("JCAL_CALIB_DIR", path, 1);
	CHECK_EQ_I(calib_handover_read(&h, NULL, 0, err, sizeof(err)), 0);
	CHECK_EQ_U(h.n, 0);
	calib_handover_free(&h);
}

int main(void)
{
	make_tmpdir();
	RUN(test_wanted);
	RUN(test_options);
	RUN(test_read_write);
	cleanup();
	return test_summary("calib-handover");
}
