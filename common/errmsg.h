/*
 * errmsg.h - formats a message into a caller's (err, len) buffer, the way
 * shared library code hands errors back without printing them.
 */
#ifndef JCAL_ERRMSG_H
#define JCAL_ERRMSG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

static inline void errmsg_set(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline void errmsg_set(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

#endif
