/*
 * log.h - the agent's messages: "jcal: " prefix, stderr or log=FILE, levels.
 */
#ifndef JCAL_LOG_H
#define JCAL_LOG_H

#include <stdio.h>

#include "agent/base/options.h"

/* Sets where messages go; returns 0 or -1 + message (the file cannot be
 * opened, or is another user's in a shared directory: common/safe_open.h;
 * a FIFO is waited for). Appends to an existing file. */
int jcal_log_init(const char *path, enum jcal_loglevel level, char *err, size_t errlen);
void jcal_log_close(void);

/* A later start's log=: path opened for appending as the load opens it,
 * but a FIFO that no process reads is refused (the start holds the
 * recording's lock). NULL + message. jcal_log_switch(f) then sends the
 * messages to f, closing the file before; the start calls it once it
 * cannot fail any more (fclose(f) otherwise). */
FILE *jcal_log_open(const char *path, char *err, size_t errlen);
void jcal_log_switch(FILE *f);

/* A later start's loglevel= (or quiet). */
void jcal_log_set_level(enum jcal_loglevel level);

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
