#!/bin/sh
# pprof-check.sh - optional check of jcal-post's pprof export with the real
# reader: `go tool pprof -top` (Debian package golang-go) must read the file
# and show the fig4a vector's methods and total. The default tests do not
# need Go: test-exports decodes the profile with a decoder of its own.
#
# usage: javatests/pprof-check.sh [BUILD_DIR]   (default: build)
# Prints SKIP and exits 0 when go is missing.
set -eu

BUILD=${1:-build}
if ! command -v go >/dev/null 2>&1; then
	echo "SKIP pprof-check: go not installed (Debian package: golang-go)"
	exit 0
fi
if [ ! -x "$BUILD/tests/test-exports" ]; then
	echo "pprof-check: error: $BUILD/tests/test-exports not built" >&2
	exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
JCAL_PPROF_OUT="$work/fig4a.pb.gz" JCAL_PPROF_ROOT_OUT="$work/root.pb.gz" \
	"$BUILD/tests/test-exports" >/dev/null
# go wants a writable cache and home
HOME=$work GOCACHE=$work/cache GOPATH=$work/gopath GOFLAGS=-mod=mod \
	go tool pprof -top "$work/fig4a.pb.gz" >"$work/top.txt" 2>&1 || {
	echo "FAIL pprof-check: go tool pprof cannot read the profile:" >&2
	cat "$work/top.txt" >&2
	exit 1
}
for want in "Type: ticks" "of 19 total" " B$" " A$" " C$" " X$"; do
	if ! grep -q "$want" "$work/top.txt"; then
		echo "FAIL pprof-check: '$want' not in go tool pprof -top:" >&2
		cat "$work/top.txt" >&2
		exit 1
	fi
done
# time outside any traced method: "[thread root]", never pprof's "<unknown>"
HOME=$work GOCACHE=$work/cache GOPATH=$work/gopath GOFLAGS=-mod=mod \
	go tool pprof -top "$work/root.pb.gz" >"$work/root.txt" 2>&1 || true
if ! grep -q " 4 .* \[thread root\]$" "$work/root.txt" || grep -q "<unknown>" "$work/root.txt"; then
	echo "FAIL pprof-check: '[thread root]' (4 ticks) and no '<unknown>' in go tool pprof -top:" >&2
	cat "$work/root.txt" >&2
	exit 1
fi
echo "ok   pprof-check: go tool pprof reads the profile (total 19 ticks; [thread root])"
