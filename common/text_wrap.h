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

#endif
