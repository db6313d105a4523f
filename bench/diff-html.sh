#!/bin/bash
# diff-html.sh [EVENTS] - what jcal-post diff's differential flame graph
# costs (docs/performance.md, "jcal-post diff --report html"): two synthetic
# traces of EVENTS events each (default 60 million, ~230 MB each;
# bench/gen-trace.c: 4 threads, depth up to 48), A with 6 callees per method
# and B with 8, so that the union of their contexts is large; then, for the
# page by default (cut to the flame graphs' 32 MB when it would pass them)
# and with --all:
#   jcal-post diff A B --raw --report html: wall time, CPU time, max RSS,
#     the page's bytes and contexts (the note of the cut);
#   with chromium (Debian package chromium), the page loaded in headless
#   Chromium with a probe script at its end that times, in the page:
#   the load (parse and first draw, to the probe), a switch of the value
#   (calls), a switch of the shape (BASE) and 100 tooltips.
# Prints a table; never fails on timing. The traces are deleted at the end.
# BUILD (default build) holds jcal-post and gen-trace; TMPDIR where traces
# go; CHROMIUM the browser (default: chromium on PATH).
set -eu
cd "$(dirname "$0")/.."
EVENTS=${1:-60000000}
BUILD=${BUILD:-build}
POST=$BUILD/jcal-post
GEN=$BUILD/gen-trace
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jcal-diff-html.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "machine: $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r)"
"$GEN" "$tmp/a.bin" "$EVENTS" 6 4 48 >/dev/null
"$GEN" "$tmp/b.bin" "$EVENTS" 8 4 48 >/dev/null
echo "A, B: $EVENTS events each, $(stat -c %s "$tmp/a.bin") and $(stat -c %s "$tmp/b.bin") bytes"

# The probe: after the page's own script, times what a user does.
probe='<script>
(function () {
	var t0 = performance.now();
	document.getElementById("v-calls").click();
	var t1 = performance.now();
	document.getElementById("s-base").click();
	var t2 = performance.now();
	var c = document.getElementById("c"), r = c.getBoundingClientRect();
	for (var i = 0; i < 100; i++)
		c.dispatchEvent(new MouseEvent("mousemove",
			{clientX: r.left + 10 + i * 10, clientY: r.top + 60, bubbles: true}));
	var t3 = performance.now(), pre = document.createElement("pre");
	pre.id = "timing";
	pre.textContent = [t0, t1 - t0, t2 - t1, t3 - t2].map(function (v) {
		return v.toFixed(0);
	}).join(" ");
	document.body.appendChild(pre);
})();
</script>
</body></html>'

printf '%-8s %8s %8s %8s %10s %10s %9s %9s %9s %10s\n' page "wall s" "CPU s" "RSS MB" "bytes" contexts \
	"load ms" "value ms" "shape ms" "100 tips ms"
for mode in default all; do
	args=(--raw --report html -o "$tmp/page.html")
	[ $mode = all ] && args+=(--all)
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$POST" diff "$tmp/a.bin" "$tmp/b.bin" "${args[@]}" \
		2>"$tmp/stderr" || { cat "$tmp/stderr" >&2; exit 1; }
	read -r wall user sys rss <"$tmp/time"
	# contexts: the cut's note says how many were left; else every one
	ctx=$(sed -n 's/.*(\([0-9]*\) -> \([0-9]*\) contexts).*/\2/p' "$tmp/stderr")
	[ -n "$ctx" ] || ctx=$(grep -o '\[[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*' "$tmp/page.html" | wc -l)
	times="- - - -"
	if [ -n "$CHROMIUM" ]; then
		sed '$d' "$tmp/page.html" >"$tmp/probe.html"
		printf '%s\n' "$probe" >>"$tmp/probe.html"
		times=$("$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --disable-sync \
			--disable-background-networking --user-data-dir="$tmp/profile-$mode" \
			--window-size=1400,900 --dump-dom "file://$tmp/probe.html" 2>/dev/null |
			sed -n 's/.*<pre id="timing">\([0-9 ]*\)<.*/\1/p')
		[ -n "$times" ] || times="? ? ? ?"
	fi
	read -r load value shape tips <<<"$times"
	printf '%-8s %8.2f %8.2f %8.1f %10d %10d %9s %9s %9s %10s\n' $mode "$wall" \
		"$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" \
		"$(awk -v r="$rss" 'BEGIN { print r / 1024 }')" \
		"$(stat -c %s "$tmp/page.html")" "$ctx" "$load" "$value" "$shape" "$tips"
	grep '^jcal-post: note: html' "$tmp/stderr" || true
done
[ -n "$CHROMIUM" ] || echo "(no chromium: the browser's times are not measured)"
