/*
 * launcher_io.h - the small helpers the launcher's files share: an error
 * message into a caller's buffer, reading a whole small file, and text
 * from the target process or its files made safe to print to a terminal.
 */
#ifndef JCAL_LAUNCHER_IO_H
#define JCAL_LAUNCHER_IO_H

#include <stddef.h>
#include <stdio.h>

/* Formats the message into err and returns -1 (for "return launcher_fail(...)"). */
int launcher_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Reads fd to its end or max bytes, whichever comes first, into a new
 * buffer with a NUL after the bytes read (*len of them); closes fd.
 * NULL when memory runs out. */
char *launcher_read_fd(int fd, size_t max, size_t *len);

/* Reads fd to its end (a /proc file: its size is not known before; at
 * most 64 MB) into a new NUL-terminated buffer; closes fd. NULL with
 * errno on a read error or when memory runs out. */
char *launcher_slurp_fd(int fd);

/* Copies s to out (outlen bytes, always NUL-terminated, cut before a
 * whole escape or character) with every control character written as
 * \xHH, one per byte: C0 (but '\n' when keep_newlines), DEL, the C1 bytes
 * 0x80-0x9f that are not part of valid UTF-8, and U+0080-U+009F written
 * in UTF-8 (0xc2 0x80-0x9f). Everything else, valid UTF-8 included, is
 * copied as it is. Returns the length the whole escaped text needs. */
size_t launcher_escape(const char *s, int keep_newlines, char *out, size_t outlen);

/* Writes s to f escaped as launcher_escape does. */
void launcher_put_escaped(FILE *f, const char *s, int keep_newlines);

#endif
