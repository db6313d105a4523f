/*
 * launcher_io.c - the launcher's shared helpers (see launcher_io.h).
 */
#include "agent/launcher/launcher_io.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLURP_MAX (64u << 20)

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

char *launcher_slurp_fd(int fd)
{
	size_t cap = 8192, len = 0;
	char *buf = malloc(cap);
	int e = ENOMEM;
	while (buf) {
		if (cap - len < 4096) {
			char *nb = cap < SLURP_MAX ? realloc(buf, cap * 2) : NULL;
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			break;
		}
		if (n == 0) {
			buf[len] = '\0';
			close(fd);
			return buf;
		}
		len += (size_t)n;
	}
	free(buf);
	close(fd);
	errno = e;
	return NULL;
}

/* The length of the valid UTF-8 sequence s starts with (1 to 4; 1 for
 * ASCII), 0 when s starts none. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0], cp, min;
	size_t n;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* the NUL at the end too */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* How many bytes at s make one unit (a byte or a character), and in *esc
 * whether they are written escaped. */
static size_t unit_at(const unsigned char *s, int keep_newlines, int *esc)
{
	size_t n = utf8_len(s);
	if (n == 0) {
		*esc = s[0] <= 0x9f; /* a C1 byte out of UTF-8; 0xa0-0xff stay */
		return 1;
	}
	if (n == 1)
		*esc = (s[0] < 0x20 && !(keep_newlines && s[0] == '\n')) || s[0] == 0x7f;
	else
		*esc = n == 2 && s[0] == 0xc2 && s[1] <= 0x9f;
	return n;
}

size_t launcher_escape(const char *s, int keep_newlines, char *out, size_t outlen)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t need = 0, o = 0;
	int full = outlen == 0;
	while (*p) {
		int esc;
		size_t n = unit_at(p, keep_newlines, &esc), w = esc ? 4 * n : n;
		if (!full && o + w < outlen) {
			for (size_t i = 0; i < n; i++)
				if (esc)
					o += (size_t)snprintf(out + o, 5, "\\x%02x", p[i]);
				else
					out[o++] = (char)p[i];
		} else {
			full = 1;
		}
		need += w;
		p += n;
	}
	if (outlen)
		out[o] = '\0';
	return need;
}

void launcher_put_escaped(FILE *f, const char *s, int keep_newlines)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		int esc;
		size_t n = unit_at(p, keep_newlines, &esc);
		for (size_t i = 0; i < n; i++)
			if (esc)
				fprintf(f, "\\x%02x", p[i]);
			else
				fputc(p[i], f);
		p += n;
	}
}
