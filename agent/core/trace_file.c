/*
 * trace_file.c - owns the trace file descriptor and the shared definitions
 * buffer; every write to the file goes through here, under one mutex.
 *
 * A failed write (ENOSPC, EFBIG...) is reported once; the file keeps its
 * complete chunks and the agent stops tracing without disturbing the JVM.
 *
 * Opening and writing are two steps, so that a start that fails later
 * (a metric that cannot be opened, a second load of the library, a JVM
 * that does not come up) leaves an existing file as it was: open takes an
 * exclusive lock but does not truncate; the first write (or
 * trace_file_begin at VMInit) truncates and writes the file header.
 *
 * A trace whose out= is a new name or a regular file is written to
 * "OUT.part" and renamed to OUT when it is closed, so that a complete file
 * is all a reader ever finds under OUT; the lock is taken on OUT.part, so
 * two recordings of the same out= still exclude each other. OUT.part is a
 * name the user never gave: only a new file or the user's own regular file
 * with one link is written there. A device, a FIFO or a symbolic link is
 * written in place, unless it is another user's in a shared directory
 * (common/safe_open.h). After a close the file can be opened again for the
 * next recording (docs/live-profiling.md).
 */
#include "agent/core/trace_file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/grow.h"
#include "agent/base/log.h"
#include "common/safe_open.h"

static pthread_mutex_t file_mutex = PTHREAD_MUTEX_INITIALIZER;
static int file_fd = -1;
static char file_path[1024];   /* the file being written (OUT.part or OUT) */
static char final_path[1024];  /* OUT */
static char closed_path[1024]; /* where the trace is after the close */
static int file_renamed;       /* written to OUT.part, renamed at close */
static uint64_t file_limit;    /* maxsize=: 0 = none */
static void (*limit_hit)(void);
static atomic_int file_at_limit;
static struct trace_recbuf defs;
static uint64_t file_bytes;
static atomic_int file_failed;
static int file_created;      /* this agent created the file (it did not exist) */
static int file_regular;      /* a regular file: locked, truncated at begin */
static int file_begun;	      /* truncated and header written */
static int file_ended;	      /* the END record is written: nothing may follow */
static uint64_t file_events;  /* method events in the chunks written so far */
static uint64_t file_threads; /* THREAD_START records in the chunks written */
/* output=tree|both: every definitions chunk is also kept here (complete
 * chunks, header and CRC included), for the snapshots of the trees. */
static int defs_keep;
static uint8_t *kept;
static size_t kept_len, kept_cap;

static int begin_locked(void);

static int write_all_locked(const uint8_t *p, size_t n)
{
	if (file_fd < 0 || file_ended || atomic_load_explicit(&file_failed, memory_order_relaxed))
		return -1;
	if (!file_begun && begin_locked())
		return -1;
	while (n > 0) {
		ssize_t w = write(file_fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : ENOSPC;
			atomic_store(&file_failed, 1);
			/* Say in the file header why it ends early (disk full, file
			 * size limit); not when the header itself failed. */
			if (file_bytes >= TRACE_FILE_HEADER_LEN)
				trace_header_mark_stopped(file_fd, e);
			/* A partial chunk stays behind; readers treat it as a cut tail. */
			jcal_warn("cannot write %s: %s; tracing stopped, the file keeps the "
				  "%llu bytes written so far",
				  file_path, strerror(e), (unsigned long long)file_bytes);
			return -1;
		}
		p += w;
		n -= (size_t)w;
		file_bytes += (uint64_t)w;
	}
	return 0;
}

/* Keeps a copy of a finished definitions chunk; a copy that cannot be
 * kept (out of memory) is said once, and the snapshots lack it. */
static void keep_locked(const uint8_t *p, size_t n)
{
	static int warned;

	if (grow(&kept, &kept_cap, kept_len + n)) {
		if (!warned++)
			jcal_warn("out of memory keeping the definitions for tree snapshots: "
				  "some methods or threads will be missing from them");
		return;
	}
	memcpy(kept + kept_len, p, n);
	kept_len += n;
}

/* Room kept below maxsize= for the definitions and the END record that
 * close a file. */
#define LIMIT_RESERVE (64 * 1024)

/* Whether n more bytes of events would pass maxsize=; the first time, tells
 * the owner of the limit (once). */
static int over_limit_locked(size_t n)
{
	if (!file_limit || file_bytes + n + LIMIT_RESERVE <= file_limit)
		return 0;
	if (!atomic_exchange(&file_at_limit, 1) && limit_hit)
		limit_hit();
	return 1;
}

static int flush_defs_locked(void)
{
	size_t n = trace_recbuf_finish(&defs);
	int rc = 0;

	if (n && defs_keep)
		keep_locked(defs.buf, n);
	/* output=tree has no trace file: the definitions are only kept */
	if (n && file_fd >= 0) {
		rc = write_all_locked(defs.buf, n);
		if (!rc)
			file_threads += defs.thread_starts;
	}
	trace_recbuf_clear(&defs);
	return rc;
}

/* Opens file_path for writing without truncating it; records whether it
 * was created. With TRACE_FILE_PRIVATE: a new file only, mode 0600. The
 * rules for a directory other users may write to are safe_open.h's. */
static int open_untruncated(unsigned flags, char *err, size_t errlen)
{
	int created = 0, fd;

	if (flags & TRACE_FILE_PRIVATE) {
		fd = safe_open_new(file_path, O_RDWR, 0600, err, errlen);
		created = fd >= 0;
	} else if (file_renamed) {
		/* OUT.part: a name the user never gave */
		fd = safe_open_own(file_path, O_RDWR, 0644, &created, err, errlen);
	} else {
		fd = safe_open_in_place(file_path, O_RDWR, 0644,
					flags & TRACE_FILE_NOWAIT ? 0 : SAFE_OPEN_WAIT, &created,
					err, errlen);
	}
	file_created = created;
	return fd;
}

int trace_file_open(const char *path, unsigned flags, char *err, size_t errlen)
{
	char why[1200];
	struct stat st;
	int found = 0;

	if (file_fd >= 0) {
		snprintf(err, errlen, "out=%s: a trace file is still open", path);
		return -1;
	}
	snprintf(final_path, sizeof(final_path), "%s", path);
	/* another user's entry at out= in a shared directory is refused before
	 * anything is opened (safe_open.h) */
	if (!(flags & TRACE_FILE_PRIVATE) &&
	    (found = safe_open_check(path, &st, why, sizeof(why))) < 0) {
		snprintf(err, errlen, "cannot write the trace to out=%s: %s", path, why);
		return -1;
	}
	file_renamed = !(flags & TRACE_FILE_PRIVATE) && (!found || S_ISREG(st.st_mode));
	if (file_renamed &&
	    snprintf(file_path, sizeof(file_path), "%s.part", path) >= (int)sizeof(file_path)) {
		snprintf(err, errlen, "file name too long in out=%s", path);
		return -1;
	}
	if (!file_renamed)
		snprintf(file_path, sizeof(file_path), "%s", path);
	snprintf(closed_path, sizeof(closed_path), "%s", final_path);
	file_begun = 0;
	file_ended = 0;
	file_bytes = 0;
	file_events = 0;
	file_threads = 0;
	file_limit = 0;
	kept_len = 0;  /* a new recording: its snapshots start afresh */
	defs_keep = 0; /* kept again only for output=both (trace_file_keep_definitions) */
	atomic_store(&file_failed, 0);
	atomic_store(&file_at_limit, 0);
	file_fd = open_untruncated(flags, why, sizeof(why));
	if (file_fd < 0) {
		snprintf(err, errlen, "cannot write the trace to out=%s: %s", path, why);
		return -1;
	}
	file_regular = fstat(file_fd, &st) == 0 && S_ISREG(st.st_mode);
	/* Two writers never share a file: a lock held by another agent (another
	 * JVM, or this one) refuses the second. A device or FIFO is not locked. */
	if (file_regular && flock(file_fd, LOCK_EX | LOCK_NB)) {
		int e = errno;
		snprintf(err, errlen,
			 e == EWOULDBLOCK ? "out=%s is being written by another jcal agent "
					    "(another JVM or an earlier load in this one); "
					    "give each recording its own file"
					  : "cannot lock trace file out=%s: %s",
			 file_path, strerror(e));
		close(file_fd);
		file_fd = -1;
		return -1;
	}
	trace_recbuf_init(&defs);
	return 0;
}

/* Truncates an existing regular file and writes the file header. */
static int begin_locked(void)
{
	uint8_t hdr[TRACE_FILE_HEADER_LEN];
	const uint8_t *p = hdr;
	size_t n = sizeof(hdr);

	file_begun = 1;
	if (file_regular && !file_created && ftruncate(file_fd, 0)) {
		atomic_store(&file_failed, 1);
		jcal_warn("cannot truncate %s: %s; nothing will be traced", file_path,
			  strerror(errno));
		return -1;
	}
	trace_header_encode(hdr);
	while (n > 0) {
		ssize_t w = write(file_fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			atomic_store(&file_failed, 1);
			jcal_warn("cannot write %s: %s; nothing will be traced", file_path,
				  strerror(w < 0 ? errno : ENOSPC));
			return -1;
		}
		p += w;
		n -= (size_t)w;
		file_bytes += (uint64_t)w;
	}
	return 0;
}

int trace_file_begin(void)
{
	int rc = 0;

	pthread_mutex_lock(&file_mutex);
	if (file_fd >= 0 && !file_begun)
		rc = begin_locked();
	pthread_mutex_unlock(&file_mutex);
	return rc;
}

int trace_file_open_none(const char *path)
{
	snprintf(file_path, sizeof(file_path), "%s", path);
	snprintf(final_path, sizeof(final_path), "%s", path);
	file_fd = -1;
	file_renamed = 0;
	file_ended = 0;
	file_bytes = file_events = file_threads = 0; /* an earlier recording's trace */
	kept_len = 0;
	defs_keep = 1;
	trace_recbuf_init(&defs);
	return 0;
}

void trace_file_keep_definitions(void)
{
	pthread_mutex_lock(&file_mutex);
	defs_keep = 1;
	pthread_mutex_unlock(&file_mutex);
}

int trace_file_definitions(int (*fn)(void *ctx, const uint8_t *chunks, size_t len), void *ctx)
{
	int rc;

	size_t n;

	pthread_mutex_lock(&file_mutex);
	/* the pending ones as a chunk of their own, left pending: nothing is
	 * written to the trace before its time (trace_file_begin) */
	n = trace_recbuf_finish(&defs);
	rc = fn(ctx, kept, kept_len);
	if (!rc && n)
		rc = fn(ctx, defs.buf, n);
	pthread_mutex_unlock(&file_mutex);
	return rc;
}

void trace_file_abandon(void)
{
	pthread_mutex_lock(&file_mutex);
	if (file_fd >= 0) {
		struct stat fst, pst;
		/* Only the file this agent created, and only while the path
		 * still names it. */
		if (file_created && fstat(file_fd, &fst) == 0 && lstat(file_path, &pst) == 0 &&
		    fst.st_dev == pst.st_dev && fst.st_ino == pst.st_ino)
			unlink(file_path);
		close(file_fd);
		file_fd = -1;
	}
	trace_recbuf_free(&defs);
	pthread_mutex_unlock(&file_mutex);
}

struct trace_recbuf *trace_file_lock(void)
{
	pthread_mutex_lock(&file_mutex);
	return &defs;
}

/* Definitions are written early once this much is pending, so that the
 * buffer stays small when many methods or threads appear at once. */
#define DEFS_FLUSH_BYTES (256 * 1024)

void trace_file_unlock(void)
{
	if (trace_recbuf_pending(&defs) >= DEFS_FLUSH_BYTES)
		flush_defs_locked();
	pthread_mutex_unlock(&file_mutex);
}

int trace_file_write_events(struct trace_events_enc *enc)
{
	int rc = 0;
	size_t n = trace_events_finish(enc);

	if (n) {
		pthread_mutex_lock(&file_mutex);
		if (over_limit_locked(n + trace_recbuf_pending(&defs)))
			rc = TRACE_FILE_AT_LIMIT;
		else if (flush_defs_locked() || write_all_locked(enc->buf, n))
			rc = -1;
		else
			file_events += enc->events - enc->controls;
		pthread_mutex_unlock(&file_mutex);
	}
	trace_events_reset(enc);
	return rc;
}

int trace_file_write_end(uint64_t lost_events)
{
	struct trace_recbuf end;
	int rc = -1;

	trace_recbuf_init(&end);
	pthread_mutex_lock(&file_mutex);
	if (!flush_defs_locked()) {
		trace_rec_end(&end, file_events, file_threads, lost_events);
		size_t n = trace_recbuf_finish(&end);
		rc = n ? write_all_locked(end.buf, n) : -1;
	}
	file_ended = 1;
	pthread_mutex_unlock(&file_mutex);
	trace_recbuf_free(&end);
	return rc;
}

void trace_file_flush(void)
{
	pthread_mutex_lock(&file_mutex);
	flush_defs_locked();
	pthread_mutex_unlock(&file_mutex);
}

uint64_t trace_file_close(void)
{
	uint64_t n;

	pthread_mutex_lock(&file_mutex);
	flush_defs_locked();
	if (file_fd >= 0) {
		if (close(file_fd) != 0 && !atomic_load(&file_failed))
			jcal_warn("closing %s: %s", file_path, strerror(errno));
		file_fd = -1;
		/* Complete (or as complete as a failed write left it): under its
		 * name now, or, when the name cannot be replaced (another user's
		 * file in a shared directory), where it is said. */
		if (file_renamed && !file_begun)
			snprintf(closed_path, sizeof(closed_path), "%s", file_path);
		if (file_renamed && file_begun && rename(file_path, final_path)) {
			jcal_warn("cannot rename %s to %s: %s; the trace stays at %s", file_path,
				  final_path, strerror(errno), file_path);
			snprintf(closed_path, sizeof(closed_path), "%s", file_path);
		}
	}
	trace_recbuf_free(&defs);
	n = file_bytes;
	pthread_mutex_unlock(&file_mutex);
	return n;
}

uint64_t trace_file_bytes(void)
{
	uint64_t n;
	pthread_mutex_lock(&file_mutex);
	n = file_bytes;
	pthread_mutex_unlock(&file_mutex);
	return n;
}

int trace_file_failed(void)
{
	return atomic_load_explicit(&file_failed, memory_order_relaxed);
}

const char *trace_file_path(void)
{
	return final_path;
}

const char *trace_file_written_path(void)
{
	return file_path;
}

const char *trace_file_closed_path(void)
{
	return closed_path;
}

void trace_file_set_limit(uint64_t maxsize, void (*hit)(void))
{
	pthread_mutex_lock(&file_mutex);
	file_limit = maxsize;
	limit_hit = hit;
	pthread_mutex_unlock(&file_mutex);
}

int trace_file_at_limit(void)
{
	return atomic_load(&file_at_limit);
}

uint64_t trace_file_events(void)
{
	uint64_t n;
	pthread_mutex_lock(&file_mutex);
	n = file_events;
	pthread_mutex_unlock(&file_mutex);
	return n;
}

uint64_t trace_file_threads(void)
{
	uint64_t n;
	pthread_mutex_lock(&file_mutex);
	n = file_threads;
	pthread_mutex_unlock(&file_mutex);
	return n;
}

/* Copies bytes [0, len) of fd to out. */
static int copy_prefix(int fd, int out, uint64_t len)
{
	char buf[1 << 16];
	uint64_t off = 0;

	while (off < len) {
		size_t want = len - off < sizeof(buf) ? (size_t)(len - off) : sizeof(buf);
		ssize_t r = pread(fd, buf, want, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		for (ssize_t done = 0; done < r;) {
			ssize_t w = write(out, buf + done, (size_t)(r - done));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return -1;
			done += w;
		}
		off += (uint64_t)r;
	}
	return 0;
}

/* Opens dst.part (tmp) for a dump: the agent's own file only, locked
 * against a dump of another JVM to the same name, emptied. Then checks that
 * dst will take the rename. fd, or -1 + message. */
static int open_copy(const char *dst, const char *tmp, char *err, size_t errlen)
{
	char why[1200];
	struct stat st;
	int created, out;

	if (safe_open_check(dst, &st, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", dst, why);
		return -1;
	}
	out = safe_open_own(tmp, O_WRONLY, 0644, &created, why, sizeof(why));
	if (out < 0) {
		snprintf(err, errlen, "cannot write %s: %s", dst, why);
		return -1;
	}
	if (flock(out, LOCK_EX | LOCK_NB) || (!created && ftruncate(out, 0))) {
		snprintf(err, errlen, "cannot write %s: %s", tmp,
			 errno == EWOULDBLOCK ? "another dump writes it" : strerror(errno));
		close(out);
		return -1;
	}
	return out;
}

int trace_file_copy(const char *dst, char *err, size_t errlen)
{
	struct trace_recbuf end;
	char tmp[1100];
	uint64_t len, events, threads;
	int fd, out, rc = -1, e = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.part", dst) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "file name too long: %s", dst);
		return -1;
	}
	/* The chunks written so far never change again: copy them without
	 * holding the mutex, up to the length they had. */
	pthread_mutex_lock(&file_mutex);
	flush_defs_locked();
	len = file_bytes;
	events = file_events;
	threads = file_threads;
	fd = file_fd >= 0 ? dup(file_fd) : -1;
	pthread_mutex_unlock(&file_mutex);
	if (fd < 0 || !file_begun) {
		snprintf(err, errlen, "nothing has been written yet");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	out = open_copy(dst, tmp, err, errlen);
	if (out < 0) {
		close(fd);
		return -1;
	}
	trace_recbuf_init(&end);
	trace_rec_end(&end, events, threads, 0);
	size_t n = trace_recbuf_finish(&end);
	if (copy_prefix(fd, out, len) == 0 && n && write(out, end.buf, n) == (ssize_t)n)
		rc = 0;
	else
		e = errno;
	trace_recbuf_free(&end);
	if (close(out) != 0 && !rc) {
		e = errno;
		rc = -1;
	}
	close(fd);
	if (rc) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(e ? e : EIO));
		unlink(tmp);
		return -1;
	}
	/* complete: a name that cannot be replaced keeps the copy at tmp */
	if (rename(tmp, dst) != 0) {
		snprintf(err, errlen, "cannot rename %s to %s: %s; the copy stays at %s", tmp, dst,
			 strerror(errno), tmp);
		return -1;
	}
	return 0;
}
