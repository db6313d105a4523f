/*
 * msg.c - prints jcal-post's one-line messages (errors, warnings, notes).
 * The text is escaped (output.h): thread names, method names, file names
 * and table values in a message cannot break the line or reach the
 * terminal as control characters.
 */
#include "postproc/msg.h"

#include <stdarg.h>
#include <stdio.h>

#include "postproc/output.h"

void msg(const char *level, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "jcal-post: %s: ", level);
	va_start(ap, fmt);
	text_vescapef(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
