#!/bin/bash
# count-probe.sh [THREADS] [RUNS] - what the probe a throttled method keeps
# (it counts its calls, jcal.Tracker.count; docs/agent-internals.md,
# "Throttling") costs a call: jcalbench.CountProbe (a static tiny(int)
# called from a compiled loop by THREADS threads) without agent, and with
# mode=bci,throttle=1000:500 (tiny() throttled in the warm-up); medians of
# RUNS JVMs each (taken in turns), ns a call, and whether the recording's
# flat report gives tiny()'s calls exactly. Never fails on timing.
set -eu
cd "$(dirname "$0")/.."
THREADS=${1:-1}
RUNS=${2:-5}
BUILD=${BUILD:-build}
JAVA=${JAVA_HOME:+$JAVA_HOME/bin/}java
[ -f "$BUILD/bench/jcalbench/CountProbe.class" ] || {
	echo "count-probe.sh: build first: make all build/bench.stamp" >&2
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
exact=yes
for r in $(seq "$RUNS"); do
	"$JAVA" -cp "$BUILD/bench" jcalbench.CountProbe "$THREADS" | field ns_per_call >>"$tmp/off"
	out=$("$JAVA" -agentpath:"$BUILD/libjcal.so=trace,mode=bci,throttle=1000:500,quiet,out=$tmp/t.bin" \
		-cp "$BUILD/bench" jcalbench.CountProbe "$THREADS")
	echo "$out" | field ns_per_call >>"$tmp/on"
	made=$(echo "$out" | field tiny_calls)
	got=$("$BUILD/jcal-post" "$tmp/t.bin" --report flat --format csv 2>/dev/null |
		awk -F, '$1 == "jcalbench.CountProbe.tiny" {print $2}')
	[ "$made" = "$got" ] || exact="no (run $r: made $made, flat report $got)"
done
printf 'threads %s, %s JVMs each: without agent %s ns a call, throttled with the counting probe %s ns; calls exact: %s\n' \
	"$THREADS" "$RUNS" "$(median <"$tmp/off")" "$(median <"$tmp/on")" "$exact"
