#!/bin/sh
# html-diff-check.sh - checks jcal-post diff's differential flame graph in a
# real browser, as html-check.sh does the flame graph: loads the page of two
# sample runs in headless Chromium, takes a screenshot (a PNG, not blank),
# then dumps the DOM of a copy of the page that ends with a probe script.
# The probe moves the mouse over the chart as a user would (mousemove events
# on the canvas, every 4 px of every row, then pixel by pixel at the edges)
# until the tooltip names p.Hot.tripled, and reads the tooltip there and the
# box's width in pixels; it does so with the value switch on cost, then on
# calls (clicking the switch), and looks for p.Gone.removed (only in BASE)
# in NEW's shape and in BASE's. The checks: the tooltip shows both runs'
# calls (10 and 30) and cost; the switch changes the width as the figures
# say (cost 6000 of NEW's 16589, calls 30 of its 333: about 4 times wider
# on cost); the removed frame is drawn only in BASE's shape; searching from
# the address matches.
#
# usage: javatests/html-diff-check.sh [JCAL_POST [BASE NEW]]
#   JCAL_POST   default build/jcal-post
#   BASE NEW    default: the sample runs build/tests/test-export-html-diff
#               writes (the figures above are theirs)
# Prints SKIP and exits 0 when chromium (Debian package chromium) is missing.
set -eu

POST=${1:-build/jcal-post}
BASE=${2:-}
NEW=${3:-}
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}

if [ -z "$CHROMIUM" ]; then
	echo "SKIP html-diff-check: chromium not installed (Debian package: chromium)"
	exit 0
fi
if [ ! -x "$POST" ]; then
	echo "html-diff-check: error: $POST not built" >&2
	exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

if [ -z "$BASE" ]; then
	TESTS=$(dirname "$POST")/tests
	if [ ! -x "$TESTS/test-export-html-diff" ]; then
		echo "html-diff-check: error: $TESTS/test-export-html-diff not built (it writes the sample runs)" >&2
		exit 1
	fi
	JCAL_HTML_DIFF_DIR="$work" "$TESTS/test-export-html-diff" >/dev/null
	BASE="$work/base.bin"
	NEW="$work/new.bin"
fi

fail() {
	echo "FAIL html-diff-check: $*" >&2
	exit 1
}

"$POST" diff "$BASE" "$NEW" --report html --raw -o "$work/diff.html" 2>"$work/post.err" ||
	fail "jcal-post diff --report html: $(cat "$work/post.err")"

# offline: the page must not reference anything outside itself
if grep -Eqi '(src|href)=["'"'"']?(https?:)?//' "$work/diff.html"; then
	fail "the page references external resources"
fi

chrome() {
	"$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d -p "$work")" --window-size=1200,700 "$@" \
		2>"$work/chromium.log"
}

chrome --screenshot="$work/shot.png" "file://$work/diff.html" >/dev/null || {
	tail -5 "$work/chromium.log" >&2
	fail "chromium --screenshot failed"
}
if [ "$(head -c 8 "$work/shot.png" | od -An -tx1 | tr -d ' \n')" != "89504e470d0a1a0a" ]; then
	fail "the screenshot is not a PNG"
fi
size=$(wc -c <"$work/shot.png")
[ "$size" -ge 10000 ] || fail "the screenshot is blank ($size bytes)"

# The probe: ends the page's copy, after the page's own script has drawn.
sed '$d' "$work/diff.html" >"$work/probe.html"
cat >>"$work/probe.html" <<'EOF'
<script>
(function () {
	var canvas = document.getElementById("c"), tip = document.getElementById("tip"), r;
	function hover(x, y) {
		canvas.dispatchEvent(new MouseEvent("mousemove",
			{clientX: r.left + x, clientY: r.top + y, bubbles: true}));
		var b = tip.querySelector("b");
		return tip.style.display === "block" && b ? b.textContent : null;
	}
	/* the widest box whose tooltip names frame, and the tooltip's rows there */
	function measure(frame) {
		r = canvas.getBoundingClientRect();
		var w = parseFloat(canvas.style.width), h = parseFloat(canvas.style.height);
		var best = {w: 0};
		for (var y = 9; y < h; y += 18)
			for (var x = 0; x < w; x += 4) {
				if (hover(x, y) !== frame) continue;
				var a = x, b = x;
				while (a > 0 && hover(a - 1, y) === frame) a--;
				while (b + 1 < w && hover(b + 1, y) === frame) b++;
				if (b - a + 1 > best.w) best = {w: b - a + 1, x: a, y: y};
				x = b;
			}
		if (!best.w) return {w: 0, rows: []};
		hover(best.x + best.w / 2, best.y);
		return {w: best.w, rows: Array.prototype.map.call(tip.querySelectorAll("tr"),
			function (tr) {
				return Array.prototype.map.call(tr.children,
					function (c) { return c.textContent; }).join("|");
			})};
	}
	var out = [];
	document.getElementById("v-cost").click();
	var cost = measure("p.Hot.tripled");
	out.push("width-cost=" + cost.w);
	document.getElementById("v-calls").click();
	var calls = measure("p.Hot.tripled");
	out.push("width-calls=" + calls.w);
	calls.rows.forEach(function (row) { out.push("tip-calls=" + row); });
	cost.rows.forEach(function (row) { out.push("tip-cost=" + row); });
	out.push("removed-in-new=" + measure("p.Gone.removed").w);
	document.getElementById("s-base").click();
	out.push("removed-in-base=" + measure("p.Gone.removed").w);
	var only = document.querySelector("#only-base summary");
	out.push("only-base=" + (only ? only.textContent : ""));
	var pre = document.createElement("pre");
	pre.id = "probe";
	pre.textContent = "\n" + out.join("\n") + "\n";
	document.body.appendChild(pre);
})();
</script>
</body></html>
EOF
chrome --dump-dom "file://$work/probe.html" >"$work/dom.html" || fail "chromium --dump-dom failed"
sed -n '/<pre id="probe">/,/<\/pre>/p' "$work/dom.html" >"$work/probe.txt"
[ -s "$work/probe.txt" ] || fail "the probe did not run (did the page's script fail?)"
val() { sed -n "s/^$1=//p" "$work/probe.txt" | head -1; }

grep -qx 'tip-calls=|BASE|NEW|change' "$work/probe.txt" ||
	fail "the tooltip has no BASE and NEW columns: $(cat "$work/probe.txt")"
grep -qx 'tip-calls=calls|10|30|+20 (+200.0%)' "$work/probe.txt" ||
	fail "the tooltip of p.Hot.tripled does not show calls 10 -> 30: $(cat "$work/probe.txt")"
grep -q '^tip-cost=self cputime|2\.000 [^|]*s|6\.000 [^|]*s|+4\.000 [^|]*s (+200\.0%)$' "$work/probe.txt" ||
	fail "the tooltip of p.Hot.tripled does not show its cost in both runs: $(cat "$work/probe.txt")"

wc=$(val width-cost)
wl=$(val width-calls)
[ "${wc:-0}" -gt 0 ] && [ "${wl:-0}" -gt 0 ] || fail "p.Hot.tripled not found on the chart (cost ${wc:-?} px, calls ${wl:-?} px)"
# 6000/16589 of the width on cost, 30/333 on calls: 4.01 times; within 10%
awk -v c="$wc" -v l="$wl" 'BEGIN { r = c / l; exit !(r > 3.6 && r < 4.4) }' ||
	fail "the calls/cost switch: p.Hot.tripled is $wc px on cost and $wl px on calls, not about 4 times"

[ "$(val removed-in-new)" = 0 ] || fail "p.Gone.removed (only in BASE) is drawn in NEW's shape"
[ "$(val removed-in-base)" -gt 0 ] || fail "p.Gone.removed is not drawn in BASE's shape"
val only-base | grep -q '^Only in BASE (removed): 1 stack of 1 frame' ||
	fail "the list of BASE's own stacks: '$(val only-base)'"

chrome --dump-dom "file://$work/diff.html#search=Hot&value=calls" >"$work/dom2.html" ||
	fail "chromium --dump-dom (search) failed"
matched=$(sed -n 's/.*id="jcal-rendered"[^>]*data-matched="\([0-9.e+]*\)".*/\1/p' "$work/dom2.html" | head -1)
[ "$matched" = 30 ] || fail "searching 'Hot' on calls matched '${matched:-nothing}', not NEW's 30 calls"

echo "ok   html-diff-check: screenshot $size bytes; p.Hot.tripled's tooltip shows calls 10 -> 30 and both costs; $wc px on cost, $wl px on calls; removed frame only in BASE's shape; search matched $matched calls"
