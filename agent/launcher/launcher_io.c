/*
 * launcher_io.c - the launcher's shared helpers (see launcher_io.h).
 */
#include "launcher_io.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int launcher_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

char *launcher_read_fd(int fd, size_t max, size_t *len)
{
	char *buf = malloc(max + 1);
	size_t got = 0;

	while (buf && got < max) {
		ssize_t n = read(fd, buf + got, max - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (buf)
		buf[got] = '\0';
	if (len)
		*len = got;
	return buf;
}
