/*
 * msg.c - prints jcal-post's one-line messages (errors, warnings, notes).
 */
#include "msg.h"

#include <stdarg.h>
#include <stdio.h>

void msg(const char *level, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "jcal-post: %s: ", level);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
