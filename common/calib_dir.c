/*
 * calib_dir.c - the calibration directory: its default place, creation,
 * and finding the table of a fingerprint (docs/calibration-format.md).
 * A directory or table that is there but cannot be read is an error that
 * says which file and why (errno left set for calib_dir_explain), never
 * "no table": the agent may run as another user than whoever calibrated.
 */
#include "common/calib_dir.h"

#include "common/errmsg.h"
#include "common/calib_table.h"
#include "common/calib_table_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int calib_dir_exists(const char *dir, char *err, size_t errlen)
{
	struct stat sb;

	if (!stat(dir, &sb)) {
		if (S_ISDIR(sb.st_mode))
			return 1;
		errmsg_set(err, errlen, "the calibration directory %s is %s, not a directory", dir,
			   calib_file_kind(sb.st_mode));
		errno = ENOTDIR;
		return -1;
	}
	if (errno == ENOENT)
		return 0;
	int e = errno;
	errmsg_set(err, errlen, "cannot read the calibration directory %s: %s", dir, strerror(e));
	errno = e;
	return -1;
}

/* Whether path can be opened for reading; if not, errno says why. */
static int readable(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* The first file of the directory that could not be read, for the error
 * when no other table matches. */
struct unread {
	char name[256];
	int err;
};

/* list[i..n) freed. */
static void free_from(struct dirent **list, int i, int n)
{
	for (; i < n; i++)
		free(list[i]);
}

/* The scan of dir's *.txt files but the stable name: 1 with path set, 0,
 * or -1 with err (dir unreadable). */
static int scan(const char *dir, const char *stable, const struct calib_fingerprint *fp,
		struct calib_table *scratch, char *path, size_t len, char *skipped,
		size_t skippedlen, struct unread *u, char *err, size_t errlen)
{
	struct dirent **list = NULL;
	int n = scandir(dir, &list, txt_file, alphasort), found = 0;

	if (n < 0) {
		int e = errno;
		errmsg_set(err, errlen, "cannot read the calibration directory %s: %s", dir,
			   strerror(e));
		errno = e;
		return -1;
	}
	for (int i = 0; i < n && !found; i++) {
		int w = snprintf(path, len, "%s/%s", dir, list[i]->d_name);

		if (w <= 0 || (size_t)w >= len || !strcmp(list[i]->d_name, stable) ||
		    !regular(path, list[i]->d_name, skipped, skippedlen))
			continue;
		if (!readable(path)) {
			if (!u->err) {
				u->err = errno;
				snprintf(u->name, sizeof(u->name), "%s", list[i]->d_name);
			}
			continue;
		}
		found = file_matches(path, fp, scratch);
	}
	free_from(list, 0, n);
	free(list);
	return found;
}

int calib_dir_find(const char *dir, const struct calib_fingerprint *fp, char *path, size_t len,
		   char *skipped, size_t skippedlen, char *err, size_t errlen)
{
	struct calib_table scratch;
	struct unread u = {"", 0};
	char stable[64];
	int found;

	if (skipped && skippedlen)
		skipped[0] = '\0';
	if (calib_table_init(&scratch)) {
		errmsg_set(err, errlen, "%s: out of memory", dir);
		errno = ENOMEM;
		return -1;
	}
	calib_fingerprint_filename(fp, stable, sizeof(stable));
	if (!calib_dir_path(dir, fp, path, len) && regular(path, stable, skipped, skippedlen)) {
		/* the name of this very fingerprint: its table, unless it cannot be read */
		if (!readable(path)) {
			int e = errno;
			errmsg_set(err, errlen, "cannot read the calibration table %s: %s", path,
				   strerror(e));
			calib_table_free(&scratch);
			errno = e;
			return -1;
		}
		if (file_matches(path, fp, &scratch)) {
			calib_table_free(&scratch);
			return 1;
		}
	}
	found = scan(dir, stable, fp, &scratch, path, len, skipped, skippedlen, &u, err, errlen);
	calib_table_free(&scratch);
	if (!found && len)
		path[0] = '\0';
	if (!found && u.err) {
		errmsg_set(
		    err, errlen,
		    "cannot read the calibration table %s/%s: %s (no other table in %s is for "
		    "this host/JVM/metric)",
		    dir, u.name, strerror(u.err), dir);
		errno = u.err;
		return -1;
	}
	return found;
}

void calib_dir_explain(char *err, size_t errlen, int e, const char *who, const char *fix)
{
	char buf[1024];
	struct passwd pw, *res = NULL;
	size_t n = strlen(err);

	if ((e != EACCES && e != EPERM) || n >= errlen)
		return;
	if (getpwuid_r(geteuid(), &pw, buf, sizeof(buf), &res) || !res)
		res = NULL;
	snprintf(err + n, errlen - n, " (%s runs as user %s, uid %u, which may not read it: %s)",
		 who, res ? res->pw_name : "?", (unsigned)geteuid(), fix);
}

int calib_dir_load(const char *dir, const struct calib_fingerprint *fp, enum calib_estimator est,
		   struct calib_table *t, char *path, size_t len, char *skipped, size_t skippedlen,
		   char *err, size_t errlen)
{
	int r = calib_dir_find(dir, fp, path, len, skipped, skippedlen, err, errlen);

	if (r <= 0)
		return r;
	if (calib_table_read_file(t, path, err, errlen)) {
		errno = EINVAL; /* not a permission error: calib_dir_explain adds nothing */
		return -1;
	}
	calib_table_use_estimator(t, est);
	if (calib_table_prepare(t)) {
		errmsg_set(err, errlen, "%s: out of memory", path);
		errno = ENOMEM;
		return -1;
	}
	return 1;
}
