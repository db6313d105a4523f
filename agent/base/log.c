/*
 * log.c - writes agent messages, one line each, prefixed "jcal: " (errors
 * "jcal: error: ", warnings "jcal: warning: ").
 *
 * Errors always go to stderr too, so a bad log= file never hides them.
 */
#include "agent/base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/safe_open.h"

static FILE *log_file;
static enum jcal_loglevel log_level = JCAL_LOG_INFO;

int jcal_log_init(const char *path, enum jcal_loglevel level, char *err, size_t errlen)
{
	int created, fd;

	log_level = level;
	if (path && *path) {
		fd = safe_open_in_place(path, O_WRONLY | O_APPEND, 0644, SAFE_OPEN_WAIT, &created,
					err, errlen);
		if (fd < 0)
			return -1;
		log_file = fdopen(fd, "a");
		if (!log_file) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		setvbuf(log_file, NULL, _IOLBF, 0);
	}
	return 0;
}

void jcal_log_close(void)
{
	if (log_file)
		fclose(log_file);
	log_file = NULL;
}

int jcal_log_enabled(enum jcal_loglevel level)
{
	return level <= log_level;
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

	if (level > log_level && !(capture && level <= JCAL_LOG_INFO))
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	if (capture) {
		size_t n = strlen(capture);
		if (n < capture_len)
			snprintf(capture + n, capture_len - n, "jcal: %s%s\n", tag, line);
	}
	if (level > log_level)
		return;
	if (log_file)
		fprintf(log_file, "jcal: %s%s\n", tag, line);
	if (!log_file || level == JCAL_LOG_ERROR) {
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
