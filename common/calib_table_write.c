/*
 * calib_table_write.c - writes a calibration table in its text format, to
 * a stream or atomically to a file (docs/calibration-format.md).
 */
#include "common/errmsg.h"
#include "common/calib_table.h"
#include "common/calib_table_internal.h"
#include "common/safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* "name value", or "name" alone for an empty value. */
static void header(FILE *f, const char *name, const char *value)
{
	if (value && *value)
		fprintf(f, "%s %s\n", name, value);
	else
		fprintf(f, "%s\n", name);
}

int calib_table_write(const struct calib_table *t, FILE *f)
{
	char key[SEQKEY_TEXT_LEN], clean[CALIB_VALUE_MAX];
	struct seqkey k;

	/* the oldest version that holds the table: readers of version 2 take
	 * every table without a fit */
	fputs(calib_table_keys_with_fit(t) ? VERSION_LINE "\n" : VERSION_LINE_2 "\n", f);
	fputs("# jcal calibration table (docs/calibration-format.md): per sequence key\n"
	      "# m1:t1:m2:t2:m3 the minimum delta of metric 0 in raw units, then samples,\n"
	      "# environment cost, compensation = max(0, min - env), and statistics of the\n"
	      "# samples. jcal-post subtracts comp from each delta with that key.\n",
	      f);
	for (unsigned i = 0; i < CALIB_FP_COUNT; i++)
		/* the raw clock is what a table without the line means */
		if (i != CALIB_FP_CLOCK || strcmp(t->fp.field[i], CALIB_CLOCK_DEFAULT))
			header(f, calib_fp_name(i), t->fp.field[i]);
	calib_clean_copy(clean, sizeof(clean), t->created);
	header(f, "created", clean);
	calib_clean_copy(clean, sizeof(clean), t->unit);
	header(f, "unit", clean);
	calib_clean_copy(clean, sizeof(clean), t->env_method);
	header(f, "env.method", clean);
	fprintf(f, "env.missing %u\n", calib_table_env_missing(t));
	fprintf(f, "keys %u\n", t->nkeys);
	fputs("# KEY MIN samples= env= comp= [mean= median= p10= [q=Q1,...,Q16]] [a= b=]\n", f);
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		const struct calib_entry *e = &t->e[i];

		if (!e->present)
			continue;
		seqkey_from_index(i, &k);
		fprintf(f, "%s %" PRIu64 " samples=%" PRIu64 " env=%" PRIu64 " comp=%" PRIu64,
			seqkey_format(&k, key), e->min, e->samples, e->env, e->comp);
		if (e->has_stats)
			fprintf(f, " mean=%.1f median=%" PRIu64 " p10=%" PRIu64, e->mean, e->median,
				e->p10);
		for (unsigned j = 0; e->has_stats && e->has_q && j < CALIB_NQ; j++)
			fprintf(f, "%s%" PRIu64, j ? "," : " q=", e->q[j]);
		if (e->has_fit)
			fprintf(f, " a=%.1f b=%.4f", e->fit_a, e->fit_b);
		fputc('\n', f);
	}
	return ferror(f) ? -1 : 0;
}

/* Writes t to fd (closed here) named name in messages. Returns 0 or -1. */
static int write_fd(const struct calib_table *t, int fd, const char *name, int sync, char *err,
		    size_t errlen)
{
	FILE *f = fdopen(fd, "w");
	int bad;

	if (!f) {
		errmsg_set(err, errlen, "%s: %s", name, strerror(errno));
		close(fd);
		return -1;
	}
	bad = calib_table_write(t, f);
	if (fflush(f) || ferror(f) || (sync && fsync(fileno(f))))
		bad = -1;
	if (bad)
		errmsg_set(err, errlen, "%s: write error: %s", name, strerror(errno));
	if (fclose(f) && !bad) {
		errmsg_set(err, errlen, "%s: %s", name, strerror(errno));
		bad = -1;
	}
	return bad;
}

/* Opens a new file "<path>.tmp.<16 random hex>" (O_EXCL, no symlink
 * followed, mode 0644 less the umask) into *tmp (malloc'ed). Returns the
 * descriptor or -1 with errno set. */
static int open_temp(const char *path, char **tmp)
{
	static unsigned counter;

	for (unsigned attempt = 0; attempt < 64; attempt++) {
		uint64_t r = 0;
		int fd;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
			r = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull ^
			    (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)tmp ^
			    (uint64_t)__atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) *
				0x2545f491ull;
		if (asprintf(tmp, "%s.tmp.%016" PRIx64, path, r) < 0) {
			*tmp = NULL;
			errno = ENOMEM;
			return -1;
		}
		fd = safe_open_new(*tmp, O_WRONLY, 0644, NULL, 0);
		if (fd >= 0 || errno != EEXIST)
			return fd;
		free(*tmp);
		*tmp = NULL;
	}
	errno = EEXIST;
	return -1;
}

int calib_table_write_file(const struct calib_table *t, const char *path, char *err, size_t errlen)
{
	struct stat sb;
	char *tmp = NULL, why[1200];
	int fd, bad, created;
	/* another user's entry in a shared directory: neither followed,
	 * written nor replaced (safe_open.h) */
	int found = safe_open_check(path, &sb, why, sizeof(why));

	if (found < 0) {
		errmsg_set(err, errlen, "%s", why);
		return -1;
	}
	if (found && !S_ISREG(sb.st_mode)) {
		/* a device (/dev/null, /dev/stdout), a FIFO or a symlink: written
		 * where it leads, never replaced */
		fd = safe_open_in_place(path, O_WRONLY, 0644, SAFE_OPEN_WAIT, &created, why,
					sizeof(why));
		if (fd < 0) {
			errmsg_set(err, errlen, "%s", why);
			return -1;
		}
		if (!fstat(fd, &sb) && S_ISREG(sb.st_mode) && ftruncate(fd, 0)) {
			errmsg_set(err, errlen, "%s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		return write_fd(t, fd, path, 0, err, errlen);
	}
	/* a regular file or nothing yet: a new file renamed over it, so that
	 * readers see the old table or the new one, never a part */
	fd = open_temp(path, &tmp);
	if (fd < 0) {
		errmsg_set(err, errlen, "%s: cannot create a temporary file beside it: %s", path,
			   strerror(errno));
		free(tmp);
		return -1;
	}
	bad = write_fd(t, fd, tmp, 1, err, errlen);
	if (!bad && rename(tmp, path)) {
		errmsg_set(err, errlen, "%s: cannot rename %s: %s", path, tmp, strerror(errno));
		bad = -1;
	}
	if (bad)
		unlink(tmp);
	free(tmp);
	return bad;
}
