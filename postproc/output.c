/*
 * output.c - CSV and JSON string output (see output.h).
 */
#include "output.h"

#include <string.h>

void csv_field(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
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
		} else if (c < 0x80) {
			fputc(c, f);
			p++;
		} else if ((n = utf8_len(p)) > 0) {
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
