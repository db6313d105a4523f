/*
 * trace_file.c - owns the trace file descriptor and the shared definitions
 * buffer; every write to the file goes through here, under one mutex.
 *
 * A failed write (ENOSPC, EFBIG...) is reported once; the file keeps its
 * complete chunks and the agent stops tracing without disturbing the JVM.
 */
#include "trace_file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static pthread_mutex_t file_mutex = PTHREAD_MUTEX_INITIALIZER;
static int file_fd = -1;
static char file_path[1024];
static struct trace_recbuf defs;
static uint64_t file_bytes;
static atomic_int file_failed;

static int write_all_locked(const uint8_t *p, size_t n)
{
	if (file_fd < 0 || atomic_load_explicit(&file_failed, memory_order_relaxed))
		return -1;
	while (n > 0) {
		ssize_t w = write(file_fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : ENOSPC;
			atomic_store(&file_failed, 1);
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

static int flush_defs_locked(void)
{
	size_t n = trace_recbuf_finish(&defs);
	int rc = 0;

	if (n)
		rc = write_all_locked(defs.buf, n);
	trace_recbuf_clear(&defs);
	return rc;
}

int trace_file_open(const char *path, char *err, size_t errlen)
{
	uint8_t hdr[TRACE_FILE_HEADER_LEN];

	snprintf(file_path, sizeof(file_path), "%s", path);
	file_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (file_fd < 0) {
		snprintf(err, errlen, "cannot create trace file out=%s: %s", path,
			 strerror(errno));
		return -1;
	}
	trace_recbuf_init(&defs);
	trace_file_header(hdr);
	if (write_all_locked(hdr, sizeof(hdr))) {
		snprintf(err, errlen, "cannot write trace file out=%s", path);
		close(file_fd);
		file_fd = -1;
		return -1;
	}
	return 0;
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
		if (flush_defs_locked() || write_all_locked(enc->buf, n))
			rc = -1;
		pthread_mutex_unlock(&file_mutex);
	}
	trace_events_reset(enc);
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
	return file_path;
}
