/*
 * output.h - field quoting for machine-readable reports: CSV (RFC 4180)
 * and JSON strings; and the one escaping of names that come from a trace
 * or a table, which every text report, folded stack, pprof string, message
 * and CSV written to a terminal goes through, so that no control character
 * reaches a terminal (docs/jcal-post.md, "Names from the file").
 */
#ifndef JCAL_OUTPUT_H
#define JCAL_OUTPUT_H

#include <stdarg.h>
#include <stdio.h>

/* Writes s as one CSV field: quoted, with quotes doubled, when it holds a
 * comma, a double quote, CR or LF; as is otherwise: the exact name for the
 * programs that read CSV. On a terminal (f is a tty), a name holding what
 * text_escape() escapes is written escaped (then quoted as needed), as the
 * text reports show it. NULL writes nothing. */
void csv_field(FILE *f, const char *s);

/* Writes s as a JSON string literal, quotes included. Valid UTF-8 passes
 * through; control characters (C0, DEL, C1), '"' and '\' are escaped; Java's modified
 * UTF-8 (C0 80 for NUL, surrogates coded one by one) becomes \u escapes;
 * any other invalid byte becomes U+FFFD. NULL writes null. */
void json_string(FILE *f, const char *s);

/*
 * Writes s for a terminal: printable ASCII and valid UTF-8 as they are
 * (a surrogate pair of Java's modified UTF-8 as the character it codes);
 * LF, CR and TAB as \n, \r, \t; every other control character, DEL, the
 * C1 controls U+0080..U+009F and bytes that are not UTF-8 as \xNN (per
 * byte). Backslashes stay as they are. NULL writes nothing.
 */
void text_escape(FILE *f, const char *s);

/* text_escape() with ';' written as ',': a frame of a folded stack, whose
 * frames ';' separates ("--sig" names hold ';'). */
void text_escape_folded(FILE *f, const char *s);

/* text_escape() into a malloc'ed string (for formats that hold strings,
 * such as pprof's string table); NULL when out of memory. */
char *text_escaped(const char *s);

/* text_escape(), then blanks up to width columns (one per character).
 * Returns the columns written before the padding. */
size_t text_escape_n(FILE *f, const char *s, size_t width);

/* Formats like fprintf and writes the result through text_escape(). */
void text_escapef(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void text_vescapef(FILE *f, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

#endif
