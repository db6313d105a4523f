/*
 * calib_handover.c - the caller's calibration tables handed over to an
 * attached recording with trees (calib_handover.h): read as the caller,
 * kept in memory while jcal becomes the JVM's user, written as copies into
 * a mkdtemp directory of the JVM's /tmp, passed as calib=, removed after
 * the agent answered.
 */
#include "agent/launcher/calib_handover.h"

#include "agent/launcher/launcher_io.h"
#include "common/calib_dir.h"
#include "common/calib_table.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The value of key= among the comma-separated options (the last one). */
static const char *option_value(const char *opts, const char *key, size_t *len)
{
	size_t k = strlen(key);
	const char *found = NULL;

	for (const char *p = opts; p && *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n > k && !strncmp(p, key, k) && p[k] == '=') {
			found = p + k + 1;
			*len = n - k - 1;
		}
		p = end ? end + 1 : NULL;
	}
	return found;
}

int calib_handover_wanted(const char *opts, const char **given, size_t *given_len)
{
	size_t n = 0;
	const char *out = option_value(opts, "output", &n);

	*given = option_value(opts, "calib", given_len);
	return out && n == 4 && (!strncmp(out, "tree", 4) || !strncmp(out, "both", 4));
}

/* Reads path (a regular file, at most CALIB_HANDOVER_MAX_BYTES) into f.
 * 0, or -1 with errno (EFBIG: too large; EINVAL: not a regular file). */
static int read_table(const char *path, struct calib_handover_file *f)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat sb;

	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size > CALIB_HANDOVER_MAX_BYTES) {
		int e = errno;
		if (!fstat(fd, &sb))
			e = S_ISREG(sb.st_mode) ? EFBIG : EINVAL;
		close(fd);
		errno = e;
		return -1;
	}
	f->data = launcher_read_fd(fd, CALIB_HANDOVER_MAX_BYTES, &f->len);
	if (!f->data) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* Whether f's bytes parse as a calibration table. */
static int is_table(const struct calib_handover_file *f)
{
	struct calib_table t;
	FILE *m;
	int ok;

	if (!f->len || calib_table_init(&t))
		return 0;
	m = fmemopen(f->data, f->len, "r");
	ok = m && !calib_table_parse(&t, m, f->name, NULL, 0);
	if (m)
		fclose(m);
	calib_table_free(&t);
	return ok;
}

static int txt(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 4 && n < 256 && !strcmp(d->d_name + n - 4, ".txt");
}

/* The tables of directory h->src. 0, or -1 + err (it cannot be read). */
static int read_dir(struct calib_handover *h, char *err, size_t errlen)
{
	struct dirent **list = NULL;
	int n = scandir(h->src, &list, txt, alphasort);

	if (n < 0)
		return launcher_fail(err, errlen, "cannot read the calibration directory %s: %s",
				     h->src, strerror(errno));
	for (int i = 0; i < n; i++) {
		struct calib_handover_file *f = &h->files[h->n];
		char path[sizeof(h->src) + 260];

		snprintf(path, sizeof(path), "%s/%s", h->src, list[i]->d_name);
		snprintf(f->name, sizeof(f->name), "%s", list[i]->d_name);
		free(list[i]);
		if (h->n == CALIB_HANDOVER_MAX_FILES || read_table(path, f)) {
			h->skipped += h->n == CALIB_HANDOVER_MAX_FILES;
			continue;
		}
		if (is_table(f)) {
			h->n++;
		} else {
			free(f->data);
			f->data = NULL;
		}
	}
	free(list);
	return 0;
}

int calib_handover_read(struct calib_handover *h, const char *given, size_t given_len, char *err,
			size_t errlen)
{
	struct stat sb;
	char why[512];

	memset(h, 0, sizeof(*h));
	if (given) {
		if (given_len >= sizeof(h->src))
			return launcher_fail(err, errlen, "calib=: path too long");
		memcpy(h->src, given, given_len);
		h->src[given_len] = '\0';
		if (stat(h->src, &sb))
			return launcher_fail(err, errlen, "calib=%s: %s", h->src, strerror(errno));
		if (S_ISDIR(sb.st_mode))
			return read_dir(h, err, errlen);
		h->one_file = 1;
		snprintf(h->files[0].name, sizeof(h->files[0].name), "%.255s",
			 strrchr(h->src, '/') ? strrchr(h->src, '/') + 1 : h->src);
		if (read_table(h->src, &h->files[0]))
			return launcher_fail(err, errlen, "calib=%s: %s", h->src,
					     errno == EFBIG    ? "too large for a calibration table"
					     : errno == EINVAL ? "not a regular file"
							       : strerror(errno));
		h->n = 1;
		return 0;
	}
	if (calib_dir_default(h->src, sizeof(h->src)))
		return 0; /* no directory of the caller's: the agent looks in its own */
	int r = calib_dir_exists(h->src, why, sizeof(why));
	if (r < 0)
		return launcher_fail(err, errlen, "%s", why);
	return r ? read_dir(h, err, errlen) : 0;
}

/* Writes one copy, 0600, into the new directory. 0 or -1 with errno. */
static int write_copy(const char *dir, const struct calib_handover_file *f)
{
	char path[512];
	int fd;
	size_t done = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, f->name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	while (done < f->len) {
		ssize_t w = write(fd, f->data + done, f->len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;
			close(fd);
			errno = e;
			return -1;
		}
		done += (size_t)w;
	}
	return close(fd);
}

int calib_handover_write(struct calib_handover *h, const char *root, char *err, size_t errlen)
{
	snprintf(h->dir, sizeof(h->dir), "%s/tmp/jcal-calib-XXXXXX", root);
	if (!mkdtemp(h->dir)) {
		int e = errno;
		h->dir[0] = '\0';
		return launcher_fail(err, errlen,
				     "cannot create a directory for the calibration "
				     "tables in %s/tmp: %s",
				     root, strerror(e));
	}
	for (size_t i = 0; i < h->n; i++)
		if (write_copy(h->dir, &h->files[i])) {
			int e = errno;
			calib_handover_remove(h);
			return launcher_fail(err, errlen,
					     "cannot copy the calibration table %s: %s",
					     h->files[i].name, strerror(e));
		}
	snprintf(h->target, sizeof(h->target), "%s%s%s", h->dir + strlen(root),
		 h->one_file ? "/" : "", h->one_file ? h->files[0].name : "");
	return 0;
}

void calib_handover_remove(struct calib_handover *h)
{
	char path[512];

	if (!h->dir[0])
		return;
	for (size_t i = 0; i < h->n; i++) {
		snprintf(path, sizeof(path), "%s/%s", h->dir, h->files[i].name);
		unlink(path);
	}
	rmdir(h->dir);
	h->dir[0] = '\0';
}

void calib_handover_free(struct calib_handover *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->files[i].data);
	h->n = 0;
}

int calib_handover_options(const struct calib_handover *h, const char *opts, char *out,
			   size_t outlen)
{
	size_t o = 0;
	int n;

	for (const char *p = opts; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (!(len > 6 && !strncmp(p, "calib=", 6))) {
			if (o + len + 2 > outlen)
				return -1;
			o += (size_t)snprintf(out + o, outlen - o, "%s%.*s", o ? "," : "", (int)len,
					      p);
		}
		p = end ? end + 1 : NULL;
	}
	n = snprintf(out + o, outlen - o, "%scalib=%s", o ? "," : "", h->target);
	return n < 0 || (size_t)n >= outlen - o ? -1 : 0;
}
