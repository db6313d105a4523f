/*
 * export_html.c - a self-contained HTML flame graph: one file with inline
 * CSS, JavaScript and data, no external scripts, fonts or images, so it
 * works offline. Per thread and, with several threads, all threads side
 * by side under one root (with --merge-threads: the one merged tree); a
 * thread selector, regex search that highlights matching frames and sums
 * their share, click to zoom (Escape or "Reset zoom" to go back), a
 * tooltip with cum, self and calls. Frames are drawn root at the top
 * (icicle), widths by cum of the shown metric (calibrated unless --raw).
 *
 * Data: for each thread a nested array per calling context
 * [name index, cum, base, calls, children...]; contexts with cum 0 are
 * left out. After drawing, the script adds a hidden element
 * <div id="jcal-rendered" data-frames="N"> (used by javatests/html-check.sh).
 * The page's own parts are here; those the differential flame graph uses
 * too (export_html_diff_page.c) are in html_page.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "postproc/html_page.h"
#include "postproc/report.h"
#include "postproc/report_util.h"
#include "common/u64map.h"

/* The page's own body up to the data: bar with a thread selector, title, chart, tooltip. */
static const char html_bar[] =
    "</style></head><body>\n"
    "<div id=\"bar\"><b>jcal</b><label>Thread <select id=\"thread\"></select></label>\n"
    "<input id=\"search\" type=\"search\" placeholder=\"Search methods (regex)\">\n"
    "<button id=\"reset\">Reset zoom</button><span id=\"info\"></span></div>\n"
    "<div id=\"title\"></div>\n"
    "<div id=\"chart\"><canvas id=\"c\"></canvas></div><div id=\"tip\"></div>\n";

/* The script's state and its tree of nodes. */
static const char html_nodes[] =
    "var ROW = 18, names = DATA.names, views = [], view = null, zoom = null, rows = [];\n"
    "var canvas = document.getElementById(\"c\"), ctx = canvas.getContext(\"2d\");\n"
    "var tip = document.getElementById(\"tip\"), sel = document.getElementById(\"thread\");\n"
    "var search = document.getElementById(\"search\"), info = document.getElementById(\"info\");\n"
    "var re = null;\n"
    "/* a node: {n: name, v: cum, s: self, c: calls, k: children, p: parent} */\n"
    "function build(a, parent) {\n"
    "	var node = {n: names[a[0]], v: a[1], s: a[2], c: a[3], k: [], p: parent};\n"
    "	for (var i = 4; i < a.length; i++) node.k.push(build(a[i], node));\n"
    "	node.k.sort(function (x, y) { return y.v - x.v || (x.n < y.n ? -1 : 1); });\n"
    "	return node;\n"
    "}\n"
    "function depth(node) {\n"
    "	var d = 0, st = [[node, 1]];\n"
    "	while (st.length) {\n"
    "		var e = st.pop();\n"
    "		if (e[1] > d) d = e[1];\n"
    "		for (var i = 0; i < e[0].k.length; i++) st.push([e[0].k[i], e[1] + 1]);\n"
    "	}\n"
    "	return d;\n"
    "}\n";

/* Colours by name; draw() up to the canvas. */
static const char html_colour[] =
    "function color(name, hit) {\n"
    "	if (re && hit) return \"rgb(230,80,200)\";\n"
    "	var h = 0;\n"
    "	for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;\n"
    "	var r = 205 + (h % 50), g = 80 + ((h >>> 8) % 130), b = 40 + ((h >>> 16) % 50);\n"
    "	if (re) { r = (r + 510) / 3 | 0; g = (g + 510) / 3 | 0; b = (b + 510) / 3 | 0; }\n"
    "	return \"rgb(\" + r + \",\" + g + \",\" + b + \")\";\n"
    "}\n"
    "function matches(node) { return re !== null && re.test(node.n); }\n"
    "function draw() {\n"
    "	var w = Math.max(200, document.getElementById(\"chart\").clientWidth - 20);\n"
    "	var anc = [];\n"
    "	for (var a = zoom.p; a; a = a.p) anc.unshift(a);\n"
    "	var h = (anc.length + depth(zoom)) * ROW + 2, dpr = window.devicePixelRatio || 1;\n";

/* draw(): the boxes, root at the top, widths by cum. */
static const char html_boxes[] =
    "	var matched = 0, drawn = 0;\n"
    "	function box(node, x, y, bw, faded) {\n"
    "		var row = y / ROW | 0, hit = matches(node);\n"
    "		(rows[row] = rows[row] || []).push({x: x, w: bw, node: node});\n"
    "		ctx.fillStyle = faded ? \"#ddd\" : color(node.n, hit);\n"
    "		ctx.fillRect(x, y, Math.max(bw - 1, 0.5), ROW - 1);\n"
    "		drawn++;\n"
    "		if (bw > 28) {\n"
    "			var label = node.n, max = Math.floor((bw - 6) / 6.5);\n"
    "			if (label.length > max) label = label.slice(0, Math.max(max - 1, 1)) + "
    "\"\\u2026\";\n"
    "			ctx.fillStyle = \"#000\";\n"
    "			ctx.fillText(label, x + 3, y + ROW / 2);\n"
    "		}\n"
    "	}\n"
    "	anc.forEach(function (a, i) { box(a, 0, i * ROW, w, true); });\n"
    "	var st = [[zoom, 0, anc.length * ROW, w, false]], total = zoom.v || 1;\n"
    "	while (st.length) {\n"
    "		var e = st.pop(), node = e[0], x = e[1], y = e[2], bw = e[3], under = e[4];\n"
    "		var hit = matches(node);\n"
    "		if (hit && !under) matched += node.v;\n"
    "		box(node, x, y, bw, false);\n"
    "		var cx = x;\n"
    "		for (var i = 0; i < node.k.length; i++) {\n"
    "			var c = node.k[i], cw = bw * c.v / (node.v || 1);\n"
    "			if (cw >= 0.4) st.push([c, cx, y + ROW, cw, under || hit]);\n"
    "			cx += cw;\n"
    "		}\n"
    "	}\n"
    "	info.textContent = zoom.n + \": \" + fmt(zoom.v) + (re ? \"  \\u2014  matched \" +\n"
    "		(100 * matched / total).toFixed(2) + \"% (\" + fmt(matched) + \")\" : \"\");\n";

/* draw(): what the marker says. */
static const char html_marked[] = "	mark.setAttribute(\"data-frames\", String(drawn));\n"
				  "	mark.setAttribute(\"data-view\", view.n);\n"
				  "	mark.setAttribute(\"data-zoom\", zoom.n);\n"
				  "	mark.setAttribute(\"data-matched\", String(matched));\n"
				  "}\n";

/* The tooltip: cum, self and calls. */
static const char html_tooltip[] =
    "canvas.addEventListener(\"mousemove\", function (ev) {\n"
    "	var n = pick(ev);\n"
    "	if (!n) { tip.style.display = \"none\"; return; }\n"
    "	var root = view, pct = root.v ? (100 * n.v / root.v).toFixed(2) : \"0.00\";\n"
    "	tip.textContent = \"\";\n"
    "	var t = document.createElement(\"b\"); t.textContent = n.n; tip.appendChild(t);\n"
    "	tip.appendChild(document.createTextNode(\"\\ncum \" + fmt(n.v) + \" (\" + pct + \"%)  self "
    "\" +\n"
    "		fmt(n.s) + \"  calls \" + n.c));\n"
    "	tip.style.whiteSpace = \"pre-wrap\";\n"
    "	tip.style.display = \"block\";\n"
    "	tip.style.left = Math.min(ev.clientX + 12, window.innerWidth - 300) + \"px\";\n"
    "	tip.style.top = (ev.clientY + 14) + \"px\";\n"
    "});\n";

/* One view per thread, all threads side by side, the selector. */
static const char html_threads[] =
    "DATA.threads.forEach(function (t) {\n"
    "	var root = build(t.tree, null);\n"
    "	root.n = t.name;\n"
    "	views.push(root);\n"
    "});\n"
    "if (views.length > 1 && !DATA.merged) {\n"
    "	var all = {n: \"all threads\", v: 0, s: 0, c: 0, k: [], p: null};\n"
    "	views.forEach(function (v) { v.p = all; all.k.push(v); all.v += v.v; });\n"
    "	all.k.sort(function (x, y) { return y.v - x.v; });\n"
    "	views.forEach(function (v) { v.p = null; });\n"
    "	views.unshift(all);\n"
    "}\n"
    "views.forEach(function (v, i) {\n"
    "	var o = document.createElement(\"option\");\n"
    "	o.value = i; o.textContent = v.n + \" (\" + fmt(v.v) + \")\";\n"
    "	sel.appendChild(o);\n"
    "});\n"
    "function show(i) {\n"
    "	view = views[i];\n"
    "	if (view.n === \"all threads\") view.k.forEach(function (v) { v.p = view; });\n"
    "	else if (views[0].n === \"all threads\") views.slice(1).forEach(function (v) { v.p = null; "
    "});\n"
    "	zoom = view;\n"
    "	draw();\n"
    "}\n"
    "sel.addEventListener(\"change\", function () { show(+sel.value); });\n"
    "document.getElementById(\"title\").textContent = DATA.title;\n"
    "/* \"#search=REGEX&zoom=NAME\" in the address: start searched and zoomed */\n";

/* The first draw, searched and zoomed from the address. */
static const char html_start[] =
    "if (views.length) { show(0); fromHash(); draw(); }\n"
    "else {\n"
    "	info.textContent = \"No thread recorded an event.\";\n"
    "	var m = document.createElement(\"div\");\n"
    "	m.id = \"jcal-rendered\"; m.hidden = true; m.setAttribute(\"data-frames\", \"0\");\n"
    "	document.body.appendChild(m);\n"
    "}\n";

/* The page's script: its own parts between the shared ones. */
static const char *const html_script[] = {
    html_page_script_open,
    html_nodes,
    html_page_js_fmt,
    html_colour,
    html_page_js_canvas,
    html_boxes,
    html_page_js_mark,
    html_marked,
    html_page_js_pick,
    html_tooltip,
    html_page_js_events,
    html_threads,
    html_page_js_hash_args,
    html_page_js_hash_view,
    html_start,
    html_page_end,
};

/* Name indices: method id -> position in the "names" array. */
static int names_write(const struct model *m, const struct report_view *views, size_t n,
		       struct u64map *idx, FILE *f)
{
	uint32_t k = 0;

	fputs(",\"names\":[", f);
	for (size_t i = 0; i < n; i++) {
		const struct calltree *t = views[i].t;

		for (uint32_t j = 0; j < t->nnodes; j++) {
			uint32_t method = t->nodes[j].method;

			if (u64map_find(idx, method))
				continue;
			if (u64map_put(idx, method, k))
				return -1;
			if (k++)
				fputc(',', f);
			report_json_html(f, model_method_name(m, method));
		}
	}
	fputc(']', f);
	return 0;
}

static void tree_write(const struct model *m, unsigned mi, const struct calltree *t,
		       const struct u64map *idx, FILE *f)
{
	uint32_t prev = 0;
	int first = 1;

	for (uint32_t i = 0; i < t->nnodes; i++) {
		const struct calltree_node *n = &t->nodes[t->order[i]];
		const struct calltree_fig *nf = calltree_fig(t, t->order[i], 0);

		if (!nf[mi].cum && i)
			continue;
		if (!first) {
			for (uint32_t k = n->level; k <= prev; k++)
				fputc(']', f);
			fputc(',', f);
		}
		fprintf(f, "[%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
			*u64map_find(idx, n->method), model_value(m, mi, nf[mi].cum),
			model_value(m, mi, nf[mi].base), n->calls);
		prev = n->level;
		first = 0;
	}
	for (uint32_t k = 0; k <= prev; k++)
		fputc(']', f);
}

int export_html(const struct model *m, const struct report_opts *o)
{
	const struct model_thread **list;
	struct report_view *views;
	struct u64map idx;
	size_t n;
	unsigned mi = o->metric;
	int err = 0;
	char title[512], label[128];

	if (report_threads(m, o, &list, &n))
		return -1;
	views = calloc(n ? n : 1, sizeof(*views));
	if (!views || u64map_init(&idx, 256)) {
		free(views);
		free(list);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (report_view_get(&views[i], list[i], o)) {
			err = -1;
			goto out;
		}
	report_metric_label(m, mi, label, sizeof(label));
	snprintf(title, sizeof(title), "%s  metric %s%s", o->trace_path ? o->trace_path : "", label,
		 o->calibrated ? " (calibrated)" : "");
	html_page_head(o->out, "jcal flame graph");
	fputs(html_bar, o->out);
	fputs(html_page_data_open, o->out);
	fputs("{\"title\":", o->out);
	report_json_html(o->out, title);
	fputs(",\"metric\":", o->out);
	report_json_html(o->out, m->metric[mi].name);
	fputs(",\"unit\":", o->out);
	report_json_html(o->out, report_metric_is_time(m, mi) ? "ns" : m->metric[mi].unit);
	fprintf(o->out, ",\"merged\":%s", o->shaped && o->shaped->merged ? "true" : "false");
	if (names_write(m, views, n, &idx, o->out)) {
		err = -1;
		goto out;
	}
	fputs(",\"threads\":[", o->out);
	for (size_t i = 0; i < n; i++) {
		char tl[300];

		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", o->out);
		report_thread_label(list[i], tl, sizeof(tl));
		report_json_html(o->out, o->shaped && o->shaped->merged ? list[i]->name : tl);
		fputs(",\"tree\":", o->out);
		tree_write(m, mi, views[i].t, &idx, o->out);
		fputc('}', o->out);
	}
	fputs("]}\n", o->out);
	for (size_t i = 0; i < sizeof(html_script) / sizeof(html_script[0]); i++)
		fputs(html_script[i], o->out);
out:
	for (size_t i = 0; i < n; i++)
		report_view_free(&views[i]);
	free(views);
	u64map_free(&idx);
	free(list);
	return err;
}
