#!/bin/bash
# diff-cost.sh [EVENTS] [RUNS] - what `jcal-post diff` costs
# (docs/performance.md, "jcal-post diff"): two synthetic traces of EVENTS
# events each (default 100 million, ~390 MB each; bench/gen-trace.c, the
# shape of bench/post-cost.sh: 4 threads, depth around 16), A with 2 callees
# per method and B with 3 (so that B has contexts A lacks and the other way
# round), then the wall time, CPU time and peak memory (max RSS) of
#   jcal-post A --raw --report flat   +   jcal-post B --raw --report flat
#     (building both trees, one after the other: the floor)
#   jcal-post diff A B --raw                     (flat, the default)
#   jcal-post diff A B --raw --report tree --format csv
#   jcal-post diff A A2 --raw                    (A2 a copy of A: two runs of one build)
#   jcal-post A --raw --report flat  +  jcal-post A2 ...  (A2's floor)
# each -o /dev/null, medians of RUNS runs (default 3), in turn; and the
# memory of the comparison per calling context: (max RSS of diff A B - that
# of the larger input's flat report) / the contexts of A and B's union (the
# tree report's rows but the thread groups'). Prints a table; never fails
# on timing. The traces are deleted at the end. BUILD
# (default build) holds jcal-post and gen-trace; TMPDIR where traces go.
set -eu
cd "$(dirname "$0")/.."
EVENTS=${1:-100000000}
RUNS=${2:-3}
BUILD=${BUILD:-build}
POST=$BUILD/jcal-post
GEN=$BUILD/gen-trace
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jcal-diff-cost.XXXXXX")
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

# both OUT X Y: the flat reports of X and Y one after the other, as one
# line (times added, the larger RSS).
both() {
	: >"$tmp/one"
	timed "$tmp/one" "$POST" "$2" --raw --report flat -o /dev/null
	timed "$tmp/one" "$POST" "$3" --raw --report flat -o /dev/null
	awk '{w += $1; c += $2; if ($3 > r) r = $3} END {printf "%.2f %.2f %d\n", w, c, r}' \
		"$tmp/one" >>"$1"
}

echo "machine: $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r)"
A=$tmp/a.bin
B=$tmp/b.bin
A2=$tmp/a2.bin
"$GEN" "$A" "$EVENTS" 2 4 48 >/dev/null
"$GEN" "$B" "$EVENTS" 3 4 48 >/dev/null
cp "$A" "$A2"
ctx() { "$POST" "$1" --raw --report summary 2>/dev/null | awk -F: '/calling contexts/ {gsub(/ /, "", $2); print $2}'; }
union=$("$POST" diff "$A" "$B" --raw --report tree --format csv | awk -F, 'NR > 1 && $2 != 0' | wc -l)
echo "A: $EVENTS events, $(stat -c %s "$A") bytes, $(ctx "$A") contexts; B: $(stat -c %s "$B") bytes, $(ctx "$B") contexts; A and B: $union contexts"
printf '%-44s %8s %8s %8s\n' "$RUNS runs, medians" "wall s" "CPU s" "RSS MB"
variants=("flat A + flat B (both trees)" "diff A B (flat)" "diff A B --report tree --format csv"
	"flat A + flat A2 (both trees)" "diff A A2 (flat)")
for i in 0 1 2 3 4; do : >"$tmp/v$i"; done
for _ in $(seq "$RUNS"); do
	both "$tmp/v0" "$A" "$B"
	timed "$tmp/v1" "$POST" diff "$A" "$B" --raw -o /dev/null
	timed "$tmp/v2" "$POST" diff "$A" "$B" --raw --report tree --format csv -o /dev/null
	both "$tmp/v3" "$A" "$A2"
	timed "$tmp/v4" "$POST" diff "$A" "$A2" --raw -o /dev/null
done
for i in 0 1 2 3 4; do
	printf '%-44s %8.2f %8.2f %8.1f\n' "${variants[$i]}" "$(cut -d' ' -f1 "$tmp/v$i" | median)" \
		"$(cut -d' ' -f2 "$tmp/v$i" | median)" \
		"$(cut -d' ' -f3 "$tmp/v$i" | median | awk '{print $1 / 1024}')"
done
rss() { cut -d' ' -f3 "$1" | median; }
echo "diff A B: $(echo "$(rss "$tmp/v1") $(rss "$tmp/v0") $union" |
	awk '{printf "%.0f", ($1 - $2) * 1024 / $3}') bytes per context of A and B beyond the larger input's own load"
