#!/bin/bash
# calls-cost.sh [EVENTS] [RUNS] - what the reports of single calls cost
# (docs/performance.md, section 3b): --report flat (the trees only),
# --report slow and --report latency, which read the trace a second time
# call by call (docs/jcal-post.md, latency), on a synthetic trace of EVENTS
# events (default 20 million, bench/gen-trace.c: 4 threads, fanout 4);
# medians of RUNS runs (default 3) of the CPU time (user + sys) and the max
# RSS, one core (-j 0), raw figures. Prints a table; never fails on timing.
# BUILD (default build) holds jcal-post and gen-trace; TMPDIR where the
# trace goes (deleted at the end).
set -eu
cd "$(dirname "$0")/.."
EVENTS=${1:-20000000}
RUNS=${2:-3}
BUILD=${BUILD:-build}
POST=$BUILD/jcal-post
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jcal-calls-cost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

t=$tmp/big.bin
"$BUILD/gen-trace" "$t" "$EVENTS" >/dev/null
calls=$("$POST" "$t" --raw --report summary --format csv 2>/dev/null | awk -F, '$1 == "transition.E" {print $2}')
echo "machine: $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r)"
echo "events $EVENTS, calls $calls, $RUNS runs, medians"
printf '  %-10s %9s %20s %10s\n' "report" "CPU s" "M events/s per core" "RSS MB"
for report in flat slow latency; do
	: >"$tmp/$report"
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f '%U %S %M' -o "$tmp/time" "$POST" "$t" --raw -j 0 --report "$report" \
			-o /dev/null 2>"$tmp/stderr" || { cat "$tmp/stderr" >&2; exit 1; }
		awk '{printf "%.2f %s\n", $1 + $2, $3}' "$tmp/time" >>"$tmp/$report"
	done
	cpu=$(cut -d' ' -f1 "$tmp/$report" | median)
	rss=$(cut -d' ' -f2 "$tmp/$report" | median)
	printf '  %-10s %9.2f %20.1f %10.1f\n' "$report" "$cpu" \
		"$(echo "$EVENTS $cpu" | awk '{print $1 / $2 / 1e6}')" "$(echo "$rss" | awk '{print $1 / 1024}')"
done
