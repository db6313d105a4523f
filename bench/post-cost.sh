#!/bin/bash
# post-cost.sh [EVENTS] [RUNS] - jcal-post's cost (docs/performance.md):
# (1) events per second of `--report tree` (raw and calibrated, one core,
#     the default --jobs and 2 jobs) on a synthetic trace of EVENTS
#     events (default 100 million, ~400 MB, bench/gen-trace.c) against
#     `cat FILE > /dev/null` and `cat FILE | wc -c` of the same file (page
#     cache warm: the read cost of the file without the disk); medians of
#     RUNS runs (default 3), wall and CPU (user+sys) time, and the wall time
#     as a multiple of the read's in the same runs;
# (2) peak memory (max RSS) of `--report tree` against the number of
#     calling contexts, from traces of 20 million events with more and more
#     callees per method;
# (3) the same throughput on a real program's trace: H2 (libh2-java)
#     running bench/shape-programs.sh's SQL script of H2_SIZE rows (default
#     4000: ~190 M events, ~750 MB) under mode=events, compensated as
#     jcal-post does by default; skipped, saying why, without java, the
#     agent or the jar.
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

# The table of jcal-post's runs: header, then row LABEL TIMES EVENTS
# PIPE_WALL for the runs in TIMES (timed's lines) against cat | wc's wall.
table_header() {
	printf '  %-32s %9s %12s %9s %16s %8s %10s\n' "options" "wall s" "M events/s" "CPU s" \
		"M events/s/core" "RSS MB" "x cat|wc"
}
row() {
	wall=$(cut -d' ' -f1 "$2" | median)
	cpu=$(cut -d' ' -f2 "$2" | median)
	rss=$(cut -d' ' -f3 "$2" | median)
	printf '  %-32s %9.2f %12.1f %9.2f %16.1f %8.1f %10.1f\n' "$1" "$wall" \
		"$(echo "$3 $wall" | awk '{print $1 / $2 / 1e6}')" "$cpu" \
		"$(echo "$3 $cpu" | awk '{print $1 / $2 / 1e6}')" "$(echo "$rss" | awk '{print $1 / 1024}')" \
		"$(echo "$wall $4" | awk '{print ($2 > 0) ? $1 / $2 : 0}')"
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
# the default compensation needs a table: $CALIB_TABLE, else one calibrated
# now with clock=raw (gen-trace's traces name no clock, which jcal-post reads
# as raw; a table of another clock would not be applied)
table=${CALIB_TABLE:-}
if [ -z "$table" ] && command -v java >/dev/null && [ -f "$BUILD/libjcal.so" ]; then
	table=$tmp/table.txt
	java "-agentpath:$BUILD/libjcal.so=calibrate,clock=raw,table=$table,out=$tmp/calib.bin" >/dev/null 2>&1 || table=
fi
# variants: name and jcal-post options; each run of each in turn
# (2 jobs: the workers decode the chunks of the trace's four threads too)
variants=("raw, 1 core|--raw -j 0" "raw, default jobs|--raw" "raw, 2 jobs|--raw -j 2")
[ -n "$table" ] && variants+=("calibrated (cond), 1 core|--calib $table -j 0"
	"calibrated (cond), default jobs|--calib $table" "calibrated (cond), 2 jobs|--calib $table -j 2")
for i in "${!variants[@]}"; do : >"$tmp/v$i"; done
for _ in $(seq "$RUNS"); do
	timed "$tmp/cat" cat "$t"
	timed "$tmp/pipe" sh -c 'cat "$1" | wc -c' sh "$t"
	for i in "${!variants[@]}"; do
		# shellcheck disable=SC2086 # the options are words
		timed "$tmp/v$i" "$POST" "$t" ${variants[$i]#*|} --report tree -o /dev/null
	done
done
cat_wall=$(cut -d' ' -f1 "$tmp/cat" | median)
pipe_wall=$(cut -d' ' -f1 "$tmp/pipe" | median)
printf '%-34s %s\n' "events" "$EVENTS"
printf '%-34s %s (%.2f bytes/event)\n' "file bytes" "$bytes" "$(echo "$bytes $EVENTS" | awk '{print $1/$2}')"
printf '%-34s %s\n' "calling contexts" "$ctx"
printf '%-34s %s\n' "--jobs by default" "$(nproc | awk '{j = $1 - 1; if (j > 4) j = 4; print j}')"
printf '%-34s %8.2f s  %8.0f MB/s\n' "cat FILE > /dev/null, wall" "$cat_wall" \
	"$(echo "$bytes $cat_wall" | awk '{print ($2 > 0) ? $1 / $2 / 1e6 : 0}')"
printf '%-34s %8.2f s  %8.0f MB/s\n' "cat FILE | wc -c, wall" "$pipe_wall" \
	"$(echo "$bytes $pipe_wall" | awk '{print ($2 > 0) ? $1 / $2 / 1e6 : 0}')"
[ -n "$table" ] || echo "(no calibration table: set CALIB_TABLE or put java on PATH for the calibrated rows)"
echo "jcal-post FILE OPTIONS --report tree -o /dev/null:"
table_header
for i in "${!variants[@]}"; do
	row "${variants[$i]%%|*}" "$tmp/v$i" "$EVENTS" "$pipe_wall"
done
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

echo
H2_SIZE=${H2_SIZE:-4000}
echo "(3) a real program's trace: H2, bench/shape-programs.sh size $H2_SIZE, mode=events, $RUNS runs, medians"
# shellcheck source=bench/shape-programs.sh
. bench/shape-programs.sh
mkdir -p "$tmp/h2"
if ! command -v java >/dev/null || [ ! -f "$BUILD/libjcal.so" ]; then
	echo "skipped: needs java on PATH and $BUILD/libjcal.so"
elif ! program_setup h2 "$H2_SIZE" "$tmp/h2"; then
	echo "skipped: $SKIP_REASON"
else
	t=$tmp/h2/h2.bin
	agent=$(readlink -f "$BUILD/libjcal.so")
	(cd "$tmp/h2" && java "-agentpath:$agent=trace,quiet,out=$t" ${JVM_FLAGS[@]+"${JVM_FLAGS[@]}"} \
		-cp "$CP" "${ARGS[@]}" >/dev/null 2>"$tmp/h2/err") || { cat "$tmp/h2/err" >&2; exit 1; }
	bytes=$(stat -c %s "$t")
	"$POST" "$t" --report summary >"$tmp/h2/sum" 2>/dev/null
	events=$(awk -F: '/^  events:/ {split($2, a, " "); print a[1]}' "$tmp/h2/sum")
	printf '%-34s %s\n' "events" "$events"
	printf '%-34s %s\n' "file bytes" "$bytes"
	printf '%-34s %s\n' "calling contexts" "$(awk -F: '/calling contexts/ {gsub(/ /, "", $2); print $2}' "$tmp/h2/sum")"
	printf '%-34s %s\n' "compensation" "$(grep -q 'calibration table:' "$tmp/h2/sum" && echo "its calibration table" || echo "none found: raw")"
	: >"$tmp/pipe"
	: >"$tmp/h0"
	: >"$tmp/hd"
	for _ in $(seq "$RUNS"); do
		timed "$tmp/pipe" sh -c 'cat "$1" | wc -c' sh "$t"
		timed "$tmp/h0" "$POST" "$t" -j 0 --report tree -o /dev/null
		timed "$tmp/hd" "$POST" "$t" --report tree -o /dev/null
	done
	pipe_wall=$(cut -d' ' -f1 "$tmp/pipe" | median)
	printf '%-34s %8.2f s\n' "cat FILE | wc -c, wall" "$pipe_wall"
	table_header
	row "1 core (-j 0)" "$tmp/h0" "$events" "$pipe_wall"
	row "default jobs" "$tmp/hd" "$events" "$pipe_wall"
	rm -f "$t"
fi
