/*
 * text_wrap.h - the word wrapping of the programs' --help (jcal-post and
 * the jcal launcher): one rule for both.
 */
#ifndef JCAL_TEXT_WRAP_H
#define JCAL_TEXT_WRAP_H

#include <stdio.h>
#include <string.h>

/* Writes text's words from column col (the cursor's), a space between two
 * words (and before the first when col is past indent), wrapping before a
 * word that would pass column width onto a new line indented by indent;
 * ends with a newline. */
static inline void text_wrap(FILE *f, const char *text, int col, int indent, int width)
{
	const char *w = text;

	while (*w) {
		size_t len = strcspn(w, " ");

		if (col > indent && col + 1 + (int)len > width) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fwrite(w, 1, len, f);
		col += (int)len;
		w += len;
		while (*w == ' ')
			w++;
	}
	fputc('\n', f);
}

/* text_wrap() of a help text whose label ended at column col: from column
 * indent of this line, or of the next when col is past it. */
static inline void text_wrap_after(FILE *f, int col, const char *text, int indent, int width)
{
	if (col > indent) {
		fputc('\n', f);
		col = 0;
	}
	fprintf(f, "%*s", indent - col, "");
	text_wrap(f, text, indent, indent, width);
}

/* One option of a --help: "  -s, --name ARG" (no "-s, " without a short
 * name, no ARG without one), then its help with " (default: DEF)" when def
 * is given, wrapped by text_wrap_after(). */
static inline void text_help_option(FILE *f, char short_name, const char *name, const char *arg,
				    const char *help, const char *def, int indent, int width)
{
	char text[1024];
	int col =
	    short_name ? fprintf(f, "  -%c, --%s", short_name, name) : fprintf(f, "  --%s", name);

	if (arg)
		col += fprintf(f, " %s", arg);
	if (def)
		snprintf(text, sizeof(text), "%s (default: %s)", help, def);
	text_wrap_after(f, col, def ? text : help, indent, width);
}

#endif
