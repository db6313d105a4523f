/*
 * log.c - writes agent messages, one line each, prefixed "jcal: " (errors
 * "jcal: error: ", warnings "jcal: warning: ").
 *
 * Errors always go to stderr too, so a bad log= file never hides them.
 * A later start may give log= and loglevel= again (docs/live-profiling.md,
 * "A later start"): the file is swapped under log_mutex, which every
 * message to it takes (messages are rare; never on the event path).
 */
#include "agent/base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/safe_open.h"

static pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_file; /* under log_mutex */
static atomic_int log_level = JCAL_LOG_INFO;

/* path opened for appending, as the load and a later start do: a FIFO that
 * no process reads yet is waited for (how) or refused. */
static FILE *open_log(const char *path, unsigned how, char *err, size_t errlen)
{
	int created,
	    fd = safe_open_in_place(path, O_WRONLY | O_APPEND, 0644, how, &created, err, errlen);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "a");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

int jcal_log_init(const char *path, enum jcal_loglevel level, char *err, size_t errlen)
{
	atomic_store(&log_level, (int)level);
	if (path && *path) {
		FILE *f = open_log(path, SAFE_OPEN_WAIT, err, errlen);

		if (!f)
			return -1;
		pthread_mutex_lock(&log_mutex);
		log_file = f;
		pthread_mutex_unlock(&log_mutex);
	}
	return 0;
}

FILE *jcal_log_open(const char *path, char *err, size_t errlen)
{
	return open_log(path, 0, err, errlen);
}

void jcal_log_switch(FILE *f)
{
	FILE *old;

	pthread_mutex_lock(&log_mutex);
	old = log_file;
	log_file = f;
	pthread_mutex_unlock(&log_mutex);
	if (old)
		fclose(old);
}

void jcal_log_set_level(enum jcal_loglevel level)
{
	atomic_store(&log_level, (int)level);
}

void jcal_log_close(void)
{
	pthread_mutex_lock(&log_mutex);
	if (log_file)
		fclose(log_file);
	log_file = NULL;
	pthread_mutex_unlock(&log_mutex);
}

int jcal_log_enabled(enum jcal_loglevel level)
{
	return (int)level <= atomic_load(&log_level);
}

/* A command to the running agent collects its messages for the reply. */
static char *capture;
static size_t capture_len;

void jcal_log_capture(char *buf, size_t len)
{
	capture = buf;
	capture_len = len;
	if (buf && len)
		buf[0] = '\0';
}

static void vlog(enum jcal_loglevel level, const char *tag, const char *fmt, va_list ap)
{
	char line[2048];

	int shown = jcal_log_enabled(level), to_file;

	if (!shown && !(capture && level <= JCAL_LOG_INFO))
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	if (capture) {
		size_t n = strlen(capture);
		if (n < capture_len)
			snprintf(capture + n, capture_len - n, "jcal: %s%s\n", tag, line);
	}
	if (!shown)
		return;
	pthread_mutex_lock(&log_mutex);
	to_file = log_file != NULL;
	if (to_file)
		fprintf(log_file, "jcal: %s%s\n", tag, line);
	pthread_mutex_unlock(&log_mutex);
	if (!to_file || level == JCAL_LOG_ERROR) {
		fprintf(stderr, "jcal: %s%s\n", tag, line);
		fflush(stderr);
	}
}

#define LOG_FN(fn, level, tag)                                                                     \
	void fn(const char *fmt, ...)                                                              \
	{                                                                                          \
		va_list ap;                                                                        \
		va_start(ap, fmt);                                                                 \
		vlog(level, tag, fmt, ap);                                                         \
		va_end(ap);                                                                        \
	}

LOG_FN(jcal_error, JCAL_LOG_ERROR, "error: ")
LOG_FN(jcal_warn, JCAL_LOG_WARN, "warning: ")
LOG_FN(jcal_info, JCAL_LOG_INFO, "")
LOG_FN(jcal_debug, JCAL_LOG_DEBUG, "debug: ")
