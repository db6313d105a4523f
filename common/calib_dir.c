/*
 * calib_dir.c - the calibration directory: its default place, creation,
 * and finding the table of a fingerprint (docs/calibration-format.md).
 */
#include "common/calib_dir.h"

#include "common/errmsg.h"
#include "common/calib_table.h"
#include "common/calib_table_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int calib_dir_default(char *buf, size_t len)
{
	const char *dir = getenv("JCAL_CALIB_DIR"), *home = getenv("HOME");
	int n;

	if (dir && *dir)
		n = snprintf(buf, len, "%s", dir);
	else if (home && *home)
		n = snprintf(buf, len, "%s/.local/share/jcal/calib", home);
	else
		return -1;
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int calib_dir_create(const char *dir, char *err, size_t errlen)
{
	char *p, *s = strdup(dir);
	struct stat sb;

	if (!s) {
		errmsg_set(err, errlen, "%s: out of memory", dir);
		return -1;
	}
	for (p = s + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(s, 0700) && errno != EEXIST) {
			errmsg_set(err, errlen, "cannot create %s: %s", s, strerror(errno));
			free(s);
			return -1;
		}
		*p = c;
		if (!c)
			break;
	}
	free(s);
	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode)) {
		errmsg_set(err, errlen, "%s: not a directory", dir);
		return -1;
	}
	return 0;
}

int calib_dir_path(const char *dir, const struct calib_fingerprint *fp, char *buf, size_t len)
{
	char name[64];
	int n;

	calib_fingerprint_filename(fp, name, sizeof(name));
	n = snprintf(buf, len, "%s/%s", dir, name);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Whether path holds a table whose fingerprint is fp. */
static int file_matches(const char *path, const struct calib_fingerprint *fp,
			struct calib_table *scratch)
{
	return !calib_table_read_file(scratch, path, NULL, 0) &&
	       !calib_fingerprint_diff(&scratch->fp, fp);
}

static int txt_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 4 && !strcmp(d->d_name + n - 4, ".txt");
}

/* Appends "name (a FIFO)" to the list of skipped entries. */
static void note_skipped(char *skipped, size_t len, const char *name, mode_t mode)
{
	size_t pos;

	if (!skipped || !len)
		return;
	pos = strlen(skipped);
	if (pos < len)
		snprintf(skipped + pos, len - pos, "%s%s (%s)", pos ? ", " : "", name,
			 calib_file_kind(mode));
}

/* Whether path is a regular file; a FIFO, device or directory there goes
 * to the skipped list (name is what the list shows). */
static int regular(const char *path, const char *name, char *skipped, size_t skippedlen)
{
	struct stat sb;

	if (stat(path, &sb))
		return 0;
	if (S_ISREG(sb.st_mode))
		return 1;
	note_skipped(skipped, skippedlen, name, sb.st_mode);
	return 0;
}

int calib_dir_find(const char *dir, const struct calib_fingerprint *fp, char *path, size_t len,
		   char *skipped, size_t skippedlen, char *err, size_t errlen)
{
	struct calib_table scratch;
	struct dirent **list = NULL;
	char stable[64];
	int n, found = 0;

	if (skipped && skippedlen)
		skipped[0] = '\0';
	if (calib_table_init(&scratch)) {
		errmsg_set(err, errlen, "%s: out of memory", dir);
		return -1;
	}
	calib_fingerprint_filename(fp, stable, sizeof(stable));
	if (!calib_dir_path(dir, fp, path, len) && regular(path, stable, skipped, skippedlen) &&
	    file_matches(path, fp, &scratch)) {
		calib_table_free(&scratch);
		return 1;
	}
	n = scandir(dir, &list, txt_file, alphasort);
	if (n < 0) {
		errmsg_set(err, errlen, "%s: %s", dir, strerror(errno));
		calib_table_free(&scratch);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		int w;

		w = snprintf(path, len, "%s/%s", dir, list[i]->d_name);
		if (!found && w > 0 && (size_t)w < len && strcmp(list[i]->d_name, stable) &&
		    regular(path, list[i]->d_name, skipped, skippedlen) &&
		    file_matches(path, fp, &scratch))
			found = 1;
		free(list[i]);
		if (found) {
			for (int k = i + 1; k < n; k++)
				free(list[k]);
			break;
		}
	}
	free(list);
	calib_table_free(&scratch);
	if (!found && len)
		path[0] = '\0';
	return found;
}

int calib_dir_load(const char *dir, const struct calib_fingerprint *fp, enum calib_estimator est,
		   struct calib_table *t, char *path, size_t len, char *skipped, size_t skippedlen,
		   char *err, size_t errlen)
{
	int r = calib_dir_find(dir, fp, path, len, skipped, skippedlen, err, errlen);

	if (r <= 0)
		return r;
	if (calib_table_read_file(t, path, err, errlen))
		return -1;
	calib_table_use_estimator(t, est);
	if (calib_table_prepare(t)) {
		errmsg_set(err, errlen, "%s: out of memory", path);
		return -1;
	}
	return 1;
}
