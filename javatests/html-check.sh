#!/bin/sh
# html-check.sh - checks jcal-post's HTML flame graph in a real browser:
# loads the page in headless Chromium, takes a screenshot and checks it is
# a PNG that is not blank, and dumps the DOM to check that the page's
# script ran (it adds <div id="jcal-rendered" data-frames="N">, N > 0).
#
# usage: javatests/html-check.sh [JCAL_POST [TRACE [SCREENSHOT]]]
#   JCAL_POST   default build/jcal-post
#   TRACE       a trace to draw; default: a synthetic one written by
#               build/tests/test-exports (JCAL_HTML_TRACE=... to keep it)
#   SCREENSHOT  where to keep the screenshot (default: a temporary file)
# Prints SKIP and exits 0 when chromium (Debian package chromium) is missing.
set -eu

POST=${1:-build/jcal-post}
TRACE=${2:-}
SHOT=${3:-}
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}

if [ -z "$CHROMIUM" ]; then
	echo "SKIP html-check: chromium not installed (Debian package: chromium)"
	exit 0
fi
if [ ! -x "$POST" ]; then
	echo "html-check: error: $POST not built" >&2
	exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

if [ -z "$TRACE" ]; then
	TESTS=$(dirname "$POST")/tests
	if [ ! -x "$TESTS/test-exports" ]; then
		echo "html-check: error: $TESTS/test-exports not built (it writes the sample trace)" >&2
		exit 1
	fi
	JCAL_HTML_TRACE="$work/sample.bin" "$TESTS/test-exports" >/dev/null
	TRACE="$work/sample.bin"
fi
[ -n "$SHOT" ] || SHOT="$work/shot.png"

"$POST" "$TRACE" --report html -o "$work/flame.html"

# offline: the page must not reference anything outside itself
if grep -Eqi '(src|href)=["'"'"']?(https?:)?//' "$work/flame.html"; then
	echo "FAIL html-check: the page references external resources" >&2
	exit 1
fi

chrome() {
	"$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d -p "$work")" --window-size=1200,700 "$@" \
		2>"$work/chromium.log"
}

chrome --screenshot="$SHOT" "file://$work/flame.html" >/dev/null || {
	echo "FAIL html-check: chromium --screenshot failed:" >&2
	tail -5 "$work/chromium.log" >&2
	exit 1
}
# a PNG: the signature, and not blank: more distinct bytes than a flat
# image compresses to (a blank 1200x700 PNG is a few kB at most)
if [ "$(head -c 8 "$SHOT" | od -An -tx1 | tr -d ' \n')" != "89504e470d0a1a0a" ]; then
	echo "FAIL html-check: $SHOT is not a PNG" >&2
	exit 1
fi
size=$(wc -c <"$SHOT")
if [ "$size" -lt 10000 ]; then
	echo "FAIL html-check: screenshot is blank ($size bytes)" >&2
	exit 1
fi

chrome --dump-dom "file://$work/flame.html" >"$work/dom.html" || {
	echo "FAIL html-check: chromium --dump-dom failed" >&2
	exit 1
}
frames=$(sed -n 's/.*id="jcal-rendered"[^>]*data-frames="\([0-9]*\)".*/\1/p' "$work/dom.html" | head -1)
if [ -z "$frames" ] || [ "$frames" -eq 0 ]; then
	echo "FAIL html-check: the page's script did not draw (no jcal-rendered marker)" >&2
	exit 1
fi
# search and zoom from the address: "#search=REGEX&zoom=NAME"
zoom=$(sed -n 's/.*id="jcal-rendered"[^>]*data-view="\([^"]*\)".*/\1/p' "$work/dom.html" | head -1)
chrome --dump-dom "file://$work/flame.html#search=.&zoom=$zoom" >"$work/dom2.html" || {
	echo "FAIL html-check: chromium --dump-dom (search) failed" >&2
	exit 1
}
matched=$(sed -n 's/.*id="jcal-rendered"[^>]*data-matched="\([0-9.e+]*\)".*/\1/p' "$work/dom2.html" | head -1)
if [ -z "$matched" ] || [ "$matched" = 0 ]; then
	echo "FAIL html-check: searching '.' matched nothing" >&2
	exit 1
fi
echo "ok   html-check: screenshot $size bytes, $frames frames drawn, search matched $matched"
