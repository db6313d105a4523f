/*
 * test-calib-dir.c - the calibration directory (common/calib_dir.c): made
 * twice, a table found by its fingerprint whatever its file's name,
 * garbage and tables of another metric passed over, a missing directory,
 * and the default directory from JCAL_CALIB_DIR or HOME.
 */
#include <stdlib.h>

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

int main(void)
{
	make_tmpdir();
	RUN(test_files_and_dir);
	cleanup();
	return test_summary("calib-dir");
}
