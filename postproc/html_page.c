/*
 * html_page.c - the pieces of the HTML flame graphs that the flame graph
 * and the differential one share (see html_page.h).
 */
#include "postproc/html_page.h"

static const char head_open[] =
    "<!DOCTYPE html>\n"
    "<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";

static const char style[] =
    "<style>\n"
    "body{margin:0;font:12px/1.4 -apple-system,\"Segoe "
    "UI\",Helvetica,Arial,sans-serif;color:#222;background:#fff}\n"
    "#bar{position:sticky;top:0;z-index:2;display:flex;flex-wrap:wrap;gap:8px;align-items:center;"
    "padding:6px 10px;background:#f4f4f4;border-bottom:1px solid #ddd}\n"
    "#bar b{font-size:14px}#bar input{width:220px}#info{color:#555}\n"
    "#title{padding:6px 10px 2px;color:#444}\n"
    "#chart{position:relative;padding:0 10px 10px}\n"
    "canvas{display:block;cursor:pointer}\n"
    "#tip{position:fixed;display:none;pointer-events:none;background:#fffbe6;border:1px solid "
    "#bbb;padding:4px 6px;max-width:640px;word-break:break-all;box-shadow:0 1px 4px "
    "rgba(0,0,0,.2);z-index:3}\n";

void html_page_head(FILE *f, const char *title)
{
	fputs(head_open, f);
	fprintf(f, "<title>%s</title>\n", title);
	fputs(style, f);
}

const char html_page_data_open[] = "<script>\n"
				   "const DATA =\n";

const char html_page_script_open[] = ";\n"
				     "</script>\n"
				     "<script>\n"
				     "(function () {\n"
				     "\"use strict\";\n";

const char html_page_js_fmt[] =
    "function fmt(v) {\n"
    "	if (DATA.unit === \"ns\") {\n"
    "		if (v >= 1e9) return (v / 1e9).toFixed(3) + \" s\";\n"
    "		if (v >= 1e6) return (v / 1e6).toFixed(3) + \" ms\";\n"
    "		if (v >= 1e3) return (v / 1e3).toFixed(3) + \" \\u00b5s\";\n"
    "		return v + \" ns\";\n"
    "	}\n"
    "	return String(v).replace(/\\B(?=(\\d{3})+(?!\\d))/g, \",\") + (DATA.unit ? \" \" + "
    "DATA.unit : \"\");\n"
    "}\n";

const char html_page_js_canvas[] =
    "	canvas.width = w * dpr; canvas.height = h * dpr;\n"
    "	canvas.style.width = w + \"px\"; canvas.style.height = h + \"px\";\n"
    "	ctx.setTransform(dpr, 0, 0, dpr, 0, 0);\n"
    "	ctx.clearRect(0, 0, w, h);\n"
    "	ctx.font = \"12px -apple-system,Segoe UI,Helvetica,Arial,sans-serif\";\n"
    "	ctx.textBaseline = \"middle\";\n"
    "	rows = [];\n";

const char html_page_js_mark[] = "	var mark = document.getElementById(\"jcal-rendered\");\n"
				 "	if (!mark) {\n"
				 "		mark = document.createElement(\"div\");\n"
				 "		mark.id = \"jcal-rendered\";\n"
				 "		mark.hidden = true;\n"
				 "		document.body.appendChild(mark);\n"
				 "	}\n";

const char html_page_js_pick[] =
    "function pick(ev) {\n"
    "	var r = canvas.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;\n"
    "	var row = rows[y / ROW | 0];\n"
    "	if (!row) return null;\n"
    "	for (var i = 0; i < row.length; i++)\n"
    "		if (x >= row[i].x && x < row[i].x + row[i].w) return row[i].node;\n"
    "	return null;\n"
    "}\n";

const char html_page_js_events[] =
    "canvas.addEventListener(\"mouseleave\", function () { tip.style.display = \"none\"; });\n"
    "canvas.addEventListener(\"click\", function (ev) {\n"
    "	var n = pick(ev);\n"
    "	if (n) { zoom = n; draw(); }\n"
    "});\n"
    "document.getElementById(\"reset\").addEventListener(\"click\", function () { zoom = view; "
    "draw(); });\n"
    "document.addEventListener(\"keydown\", function (ev) {\n"
    "	if (ev.key === \"Escape\") { zoom = view; draw(); }\n"
    "});\n"
    "search.addEventListener(\"input\", function () {\n"
    "	try { re = search.value ? new RegExp(search.value, \"i\") : null; } catch (e) { re = null; "
    "}\n"
    "	draw();\n"
    "});\n"
    "window.addEventListener(\"resize\", draw);\n";

const char html_page_js_hash_args[] =
    "function fromHash() {\n"
    "	var h = {};\n"
    "	location.hash.replace(/^#/, \"\").split(\"&\").forEach(function (kv) {\n"
    "		var i = kv.indexOf(\"=\");\n"
    "		if (i > 0) h[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1));\n"
    "	});\n";

const char html_page_js_hash_view[] =
    "	if (h.search) {\n"
    "		search.value = h.search;\n"
    "		try { re = new RegExp(h.search, \"i\"); } catch (e) { re = null; }\n"
    "	}\n"
    "	if (h.zoom) {\n"
    "		var q = [view];\n"
    "		while (q.length) {\n"
    "			var n = q.shift();\n"
    "			if (n.n === h.zoom) { zoom = n; break; }\n"
    "			for (var i = 0; i < n.k.length; i++) q.push(n.k[i]);\n"
    "		}\n"
    "	}\n"
    "}\n";

const char html_page_end[] = "})();\n"
			     "</script>\n"
			     "</body></html>\n";
