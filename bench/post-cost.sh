#!/bin/bash
# post-cost.sh [EVENTS] [RUNS] - jcal-post's cost (docs/performance.md):
# (1) events per second of `--report tree` on a synthetic trace of EVENTS
#     events (default 100 million, ~400 MB, bench/gen-trace.c) against
#     `cat FILE > /dev/null` and `cat FILE | wc -c` of the same file (page
#     cache warm: the read cost of the file without the disk); medians of
#     RUNS runs (default 3), wall and CPU (user+sys) time;
# (2) peak memory (max RSS) of `--report tree` against the number of
#     calling contexts, from traces of 20 million events with more and more
#     callees per method.
# Prints tables; never fails on timing. The traces are deleted at the end.
# BUILD (default build) holds jcal-post and gen-trace; TMPDIR where traces go.
set -eu
cd "$(dirname "$0")/.."
EVENTS=${1:-100000000}
RUNS=${2:-3}
BUILD=${BUILD:-build}
POST=$BUILD/jcal-post
GEN=$BUILD/gen-trace
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jcal-post-cost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# timed OUT CMD...: appends "wall cpu maxrss_kb" of one run to OUT.
timed() {
	out=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/stderr" ||
		{ cat "$tmp/stderr" >&2; exit 1; }
	awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$tmp/time" >>"$out"
}

echo "machine: $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r)"
echo
echo "(1) jcal-post --report tree throughput, $RUNS runs, medians"
t=$tmp/big.bin
"$GEN" "$t" "$EVENTS" 2 4 48 >/dev/null
bytes=$(stat -c %s "$t")
ctx=$("$POST" "$t" --raw --report summary 2>/dev/null | awk -F: '/calling contexts/ {gsub(/ /, "", $2); print $2}')
: >"$tmp/cat"
: >"$tmp/pipe"
: >"$tmp/tree"
for _ in $(seq "$RUNS"); do
	timed "$tmp/cat" cat "$t"
	timed "$tmp/pipe" sh -c 'cat "$1" | wc -c' sh "$t"
	timed "$tmp/tree" "$POST" "$t" --raw --report tree -o /dev/null
done
cat_wall=$(cut -d' ' -f1 "$tmp/cat" | median)
pipe_wall=$(cut -d' ' -f1 "$tmp/pipe" | median)
wall=$(cut -d' ' -f1 "$tmp/tree" | median)
cpu=$(cut -d' ' -f2 "$tmp/tree" | median)
rss=$(cut -d' ' -f3 "$tmp/tree" | median)
printf '%-34s %s\n' "events" "$EVENTS"
printf '%-34s %s (%.2f bytes/event)\n' "file bytes" "$bytes" "$(echo "$bytes $EVENTS" | awk '{print $1/$2}')"
printf '%-34s %s\n' "calling contexts" "$ctx"
printf '%-34s %8.2f s  %8.0f MB/s\n' "cat FILE > /dev/null, wall" "$cat_wall" \
	"$(echo "$bytes $cat_wall" | awk '{print ($2 > 0) ? $1 / $2 / 1e6 : 0}')"
printf '%-34s %8.2f s  %8.0f MB/s\n' "cat FILE | wc -c, wall" "$pipe_wall" \
	"$(echo "$bytes $pipe_wall" | awk '{print ($2 > 0) ? $1 / $2 / 1e6 : 0}')"
printf '%-34s %8.2f s  %8.1f M events/s\n' "jcal-post --report tree, wall" "$wall" \
	"$(echo "$EVENTS $wall" | awk '{print $1 / $2 / 1e6}')"
printf '%-34s %8.2f s  %8.1f M events/s per core\n' "jcal-post --report tree, CPU" "$cpu" \
	"$(echo "$EVENTS $cpu" | awk '{print $1 / $2 / 1e6}')"
printf '%-34s %8.1f MB\n' "jcal-post max RSS" "$(echo "$rss" | awk '{print $1 / 1024}')"
rm -f "$t"

echo
echo "(2) jcal-post --report tree peak memory vs calling contexts (20 M events each)"
printf '%8s %8s %12s %10s %14s\n' "fanout" "depth" "contexts" "max RSS MB" "bytes/context"
for shape in "1 48" "2 48" "4 48" "16 64" "64 96" "1024 160"; do
	set -- $shape
	"$GEN" "$tmp/m.bin" 20000000 "$1" 4 "$2" >/dev/null
	ctx=$("$POST" "$tmp/m.bin" --raw --report summary 2>/dev/null |
		awk -F: '/calling contexts/ {gsub(/ /, "", $2); print $2}')
	: >"$tmp/mem"
	timed "$tmp/mem" "$POST" "$tmp/m.bin" --raw --report tree -o /dev/null
	rss=$(cut -d' ' -f3 "$tmp/mem")
	printf '%8s %8s %12s %10.1f %14.0f\n' "$1" "$2" "$ctx" "$(echo "$rss" | awk '{print $1 / 1024}')" \
		"$(echo "$rss $ctx" | awk '{print $1 * 1024 / $2}')"
	rm -f "$tmp/m.bin"
done
