/*
 * log.h - the agent's messages: "jcal: " prefix, stderr or log=FILE, levels.
 */
#ifndef JCAL_LOG_H
#define JCAL_LOG_H

#include "options.h"

/* Sets where messages go; returns 0 or -1 (file cannot be opened). */
int jcal_log_init(const char *path, enum jcal_loglevel level);
void jcal_log_close(void);
int jcal_log_enabled(enum jcal_loglevel level);

void jcal_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void jcal_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void jcal_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void jcal_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
