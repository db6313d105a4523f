/*
 * msg.c - prints jcal-post's one-line messages (errors, warnings, notes).
 * The text is escaped (output.h): thread names, method names, file names
 * and table values in a message cannot break the line or reach the
 * terminal as control characters.
 */
#include "msg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "output.h"

void msg(const char *level, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	fprintf(stderr, "jcal-post: %s: ", level);
	if (n < 0)
		fputs("(out of memory while formatting the message)", stderr);
	else
		text_escape(stderr, text);
	fputc('\n', stderr);
	free(text);
}
