/*
 * log.h - the agent's messages: "jcal: " prefix, stderr or log=FILE, levels.
 */
#ifndef JCAL_LOG_H
#define JCAL_LOG_H

#include "agent/base/options.h"

/* Sets where messages go; returns 0 or -1 + message (the file cannot be
 * opened, or is another user's in a shared directory: common/safe_open.h;
 * a FIFO is waited for). Appends to an existing file. */
int jcal_log_init(const char *path, enum jcal_loglevel level, char *err, size_t errlen);
void jcal_log_close(void);

/* While buf is set, every message up to info (whatever loglevel= says) is
 * also appended to buf, one "jcal: ..." line each: a command's reply. NULL
 * ends it. Commands run one at a time (session.c). */
void jcal_log_capture(char *buf, size_t len);
int jcal_log_enabled(enum jcal_loglevel level);

void jcal_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void jcal_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void jcal_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void jcal_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
