/*
 * launcher_io.h - the small helpers the launcher's files share: an error
 * message into a caller's buffer, and reading a whole small file.
 */
#ifndef JCAL_LAUNCHER_IO_H
#define JCAL_LAUNCHER_IO_H

#include <stddef.h>

/* Formats the message into err and returns -1 (for "return launcher_fail(...)"). */
int launcher_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Reads fd to its end or max bytes, whichever comes first, into a new
 * buffer with a NUL after the bytes read (*len of them); closes fd.
 * NULL when memory runs out. */
char *launcher_read_fd(int fd, size_t max, size_t *len);

#endif
