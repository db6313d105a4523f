/*
 * output.h - field quoting for machine-readable reports: CSV (RFC 4180)
 * and JSON strings.
 */
#ifndef JCAL_OUTPUT_H
#define JCAL_OUTPUT_H

#include <stdio.h>

/* Writes s as one CSV field: quoted, with quotes doubled, when it holds a
 * comma, a double quote, CR or LF; as is otherwise. NULL writes nothing. */
void csv_field(FILE *f, const char *s);

/* Writes s as a JSON string literal, quotes included. Valid UTF-8 passes
 * through; control characters, '"' and '\' are escaped; Java's modified
 * UTF-8 (C0 80 for NUL, surrogates coded one by one) becomes \u escapes;
 * any other invalid byte becomes U+FFFD. NULL writes null. */
void json_string(FILE *f, const char *s);

#endif
