/*
 * output.c - CSV and JSON string output, and names escaped for text
 * reports and messages (see output.h).
 */
#include "postproc/output.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether s holds a byte text_escape() may write otherwise: a control
 * character, DEL, or any byte of a multi-byte character (most names have
 * none, and are looked at no further). */
static int maybe_escaped(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p >= 0x7f)
			return 1;
	return 0;
}

void csv_field(FILE *f, const char *s)
{
	char *esc = NULL;

	if (!s)
		return;
	/* on a terminal, names as the text reports show them */
	if (maybe_escaped(s) && isatty(fileno(f)) && (esc = text_escaped(s)))
		s = esc;
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
	} else {
		fputc('"', f);
		for (const char *c = s; *c; c++) {
			if (*c == '"')
				fputc('"', f);
			fputc(*c, f);
		}
		fputc('"', f);
	}
	free(esc);
}

static int cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

/* Length of the valid UTF-8 sequence at p (1-4), or 0. */
static int utf8_len(const unsigned char *p)
{
	unsigned char c = p[0];

	if (c >= 0xc2 && c <= 0xdf)
		return cont(p[1]) ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if (!cont(p[1]) || !cont(p[2]))
			return 0;
		if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0))
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (!cont(p[1]) || !cont(p[2]) || !cont(p[3]))
			return 0;
		if ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

void json_string(FILE *f, const char *str)
{
	const unsigned char *p = (const unsigned char *)str;
	int n;

	if (!str) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	while (*p) {
		unsigned char c = *p;

		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
			p++;
		} else if (c < 0x20) {
			switch (c) {
			case '\n':
				fputs("\\n", f);
				break;
			case '\r':
				fputs("\\r", f);
				break;
			case '\t':
				fputs("\\t", f);
				break;
			case '\b':
				fputs("\\b", f);
				break;
			case '\f':
				fputs("\\f", f);
				break;
			default:
				fprintf(f, "\\u%04x", c);
				break;
			}
			p++;
		} else if (c == 0x7f) {
			fputs("\\u007f", f);
			p++;
		} else if (c < 0x80) {
			fputc(c, f);
			p++;
		} else if ((n = utf8_len(p)) == 2 && c == 0xc2 && p[1] < 0xa0) {
			/* a C1 control: legal in JSON, but escaped like the C0 ones */
			fprintf(f, "\\u%04x", (unsigned)p[1]);
			p += 2;
		} else if (n > 0) {
			fwrite(p, 1, (size_t)n, f);
			p += n;
		} else if (c == 0xc0 && p[1] == 0x80) {
			fputs("\\u0000", f); /* modified UTF-8 NUL */
			p += 2;
		} else if (c == 0xed && p[1] >= 0xa0 && p[1] <= 0xbf && cont(p[2])) {
			/* modified UTF-8 surrogate, one code unit */
			fprintf(f, "\\u%04x",
				0xd000u | (unsigned)(p[1] & 0x3f) << 6 | (p[2] & 0x3fu));
			p += 3;
		} else {
			fputs("\\ufffd", f);
			p++;
		}
	}
	fputc('"', f);
}

/* Code point of the UTF-8 sequence at p of length n (2-4). */
static unsigned utf8_cp(const unsigned char *p, int n)
{
	if (n == 2)
		return (p[0] & 0x1fu) << 6 | (p[1] & 0x3fu);
	if (n == 3)
		return (p[0] & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu);
	return (p[0] & 0x07u) << 18 | (p[1] & 0x3fu) << 12 | (p[2] & 0x3fu) << 6 | (p[3] & 0x3fu);
}

/* A surrogate half in Java's modified UTF-8 (ED A0..BF xx): its code unit,
 * else 0. */
static unsigned surrogate(const unsigned char *p)
{
	if (p[0] != 0xed || p[1] < 0xa0 || p[1] > 0xbf || !cont(p[2]))
		return 0;
	return 0xd000u | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu);
}

/* How escape() writes a name: for a terminal, and also as a frame of a
 * folded stack (';' as ','). */
#define ESC_FOLDED 1u

/* The one escaping of names (output.h, text_escape), to f; returns the
 * columns written before padding up to width. */
static size_t escape(FILE *f, const char *str, size_t width, unsigned how)
{
	const unsigned char *p = (const unsigned char *)(str ? str : "");
	size_t cols = 0;
	int n;

	while (*p) {
		unsigned char c = *p;
		unsigned hi, lo;

		if (c >= 0x20 && c < 0x7f) {
			fputc(c == ';' && (how & ESC_FOLDED) ? ',' : c, f);
			cols++;
			p++;
		} else if (c == '\n' || c == '\r' || c == '\t') {
			fputc('\\', f);
			fputc(c == '\n' ? 'n' : c == '\r' ? 'r' : 't', f);
			cols += 2;
			p++;
		} else if ((n = utf8_len(p)) > 0 && !(n == 2 && utf8_cp(p, n) < 0xa0)) {
			/* valid UTF-8 other than the C1 controls U+0080..U+009F */
			fwrite(p, 1, (size_t)n, f);
			cols++;
			p += n;
		} else if ((hi = surrogate(p)) >= 0xd800 && hi < 0xdc00 &&
			   (lo = surrogate(p + 3)) >= 0xdc00) {
			/* a surrogate pair of modified UTF-8: the character itself */
			unsigned cp = 0x10000u + ((hi - 0xd800u) << 10) + (lo - 0xdc00u);

			fputc((int)(0xf0u | cp >> 18), f);
			fputc((int)(0x80u | ((cp >> 12) & 0x3fu)), f);
			fputc((int)(0x80u | ((cp >> 6) & 0x3fu)), f);
			fputc((int)(0x80u | (cp & 0x3fu)), f);
			cols++;
			p += 6;
		} else {
			/* other controls, DEL, C1 controls, invalid bytes */
			n = utf8_len(p) > 0 ? 2 : 1;
			for (int i = 0; i < n; i++)
				fprintf(f, "\\x%02x", p[i]);
			cols += 4 * (size_t)n;
			p += n;
		}
	}
	for (; cols < width; cols++)
		fputc(' ', f);
	return cols;
}

size_t text_escape_n(FILE *f, const char *s, size_t width)
{
	return escape(f, s, width, 0);
}

void text_escape(FILE *f, const char *s)
{
	escape(f, s, 0, 0);
}

void text_escape_folded(FILE *f, const char *s)
{
	escape(f, s, 0, ESC_FOLDED);
}

char *text_escaped(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	if (!maybe_escaped(s ? s : ""))
		return strdup(s ? s : "");
	mem = open_memstream(&buf, &len);
	if (!mem)
		return NULL;
	escape(mem, s, 0, 0);
	if (fclose(mem)) {
		free(buf);
		return NULL;
	}
	return buf;
}

void text_vescapef(FILE *f, const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0) {
		fputs("(out of memory while formatting)", f);
		return;
	}
	text_escape(f, s);
	free(s);
}

void text_escapef(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	text_vescapef(f, fmt, ap);
	va_end(ap);
}
