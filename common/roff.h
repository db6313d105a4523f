/*
 * roff.h - text for man pages: the one escaping rule the generated pages
 * of jcal-post(1), jcal(1) and libjcal(7) share.
 */
#ifndef JCAL_ROFF_H
#define JCAL_ROFF_H

#include <stdio.h>

/* Writes s as troff text: backslashes and minus signs escaped, a leading
 * dot or quote made literal; a newline inside s starts a new output line
 * (".br" keeps the break where the help text has one). */
static inline void roff_text(FILE *f, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else if (*s == '\n') {
			fputs("\n.br\n", f);
			if (s[1] == '.' || s[1] == '\'')
				fputs("\\&", f);
		} else
			fputc(*s, f);
	}
}

/* One command-line option as a tagged paragraph: "-s, --name ARG" (short
 * and arg may be 0/NULL), its help and "(default: DEF)" when def is set. */
static inline void roff_option(FILE *f, char short_name, const char *name, const char *arg,
			       const char *help, const char *def)
{
	fputs(".TP\n", f);
	if (short_name)
		fprintf(f, "\\fB\\-%c\\fR, ", short_name);
	fputs("\\fB\\-\\-", f);
	roff_text(f, name);
	fputs("\\fR", f);
	if (arg) {
		fputs(" \\fI", f);
		roff_text(f, arg);
		fputs("\\fR", f);
	}
	fputc('\n', f);
	roff_text(f, help);
	if (def) {
		fputs(" (default: ", f);
		roff_text(f, def);
		fputc(')', f);
	}
	fputc('\n', f);
}

#endif
