/*
 * export_html_diff_internal.h - what the files of the differential flame
 * graph share: the page around its data (export_html_diff_page.c), written
 * by export_html_diff.c.
 */
#ifndef JCAL_EXPORT_HTML_DIFF_INTERNAL_H
#define JCAL_EXPORT_HTML_DIFF_INTERNAL_H

#include <stdio.h>

/* The page up to its data: head, style, body, and "const DATA =". */
void html_diff_page_open(FILE *f);
/* The page after its data: the script and the end. */
void html_diff_page_close(FILE *f);

#endif
