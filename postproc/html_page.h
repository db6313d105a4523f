/*
 * html_page.h - the pieces jcal-post's HTML flame graphs share: the flame
 * graph (export_html.c) and the differential one (export_html_diff.c).
 * Each page writes them in its own order around its own parts: the head
 * with the common style, the data script's frame, and the parts of the
 * page's script that both pages use as they are. The script pieces rely on
 * the names both scripts declare: DATA (with unit), ROW (px a row), canvas,
 * ctx, tip, search, re (the search, or null), view (the root shown), zoom,
 * rows (rows[row] = [{x, w, node}] of the last draw) and draw().
 */
#ifndef JCAL_HTML_PAGE_H
#define JCAL_HTML_PAGE_H

#include <stdio.h>

/* The page up to its common style: doctype, meta, <title>title</title>
 * (title is the program's own text, written as it is), <style> and the
 * rules of the bar, title, chart, canvas and tooltip. The page adds its
 * own rules, then closes the style. */
void html_page_head(FILE *f, const char *title);

/* Opens the data script: "const DATA =" and a newline; the JSON follows. */
extern const char html_page_data_open[];
/* Closes the data script and opens the page's own: strict, in a function. */
extern const char html_page_script_open[];
/* fmt(v): a value in DATA.unit for people (ns as s, ms, us or ns; other
 * units as integers with thousands separators and the unit). */
extern const char html_page_js_fmt[];
/* Inside draw(), once w (CSS px), h and dpr are set: sizes and clears the
 * canvas, sets the font and empties rows. */
extern const char html_page_js_canvas[];
/* Inside draw(): var mark, the hidden <div id="jcal-rendered"> that the
 * browser checks read, made at the first draw. */
extern const char html_page_js_mark[];
/* pick(ev): the node under the mouse, from rows. */
extern const char html_page_js_pick[];
/* The listeners: leaving the chart hides the tooltip, a click zooms,
 * "Reset zoom" and Escape go back to view, the search box sets re, a
 * resize draws. */
extern const char html_page_js_events[];
/* Opens fromHash(): h, the "k=v&..." arguments of the address; the page
 * reads its own from h, then ends the function with html_page_js_hash_view. */
extern const char html_page_js_hash_args[];
/* Ends fromHash(): h.search starts searched, h.zoom zoomed on the first
 * node of view with that name (breadth first). */
extern const char html_page_js_hash_view[];
/* Ends the page's script and the page. */
extern const char html_page_end[];

#endif
