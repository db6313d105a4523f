#!/bin/bash
# tree-hist-cost.sh BASE_LIB [N] [RUNS] - what the histograms of output=tree
# (each context's call durations, docs/agent-internals.md) add per event:
# the call-heavy loop (jcalbench.CallHeavy N, the loop time it prints) with
# output=tree,metric=tsc in mode=events and mode=bci, under BASE_LIB (a
# libjcal.so built without the histograms, e.g. from the commit before
# them) and under build/libjcal.so, taken in turns; medians of RUNS runs,
# ns per event of the difference (a call is two events). BASE_LIB
# "hists=off" compares build/libjcal.so with and without its agent option
# hists=off instead. Prints a table; never fails on timing.
set -eu
cd "$(dirname "$0")/.."
BASE=${1:?usage: bench/tree-hist-cost.sh BASE_LIB [N] [RUNS]}
N=${2:-300000}
RUNS=${3:-5}
BUILD=${BUILD:-build}
JAVA=${JAVA:-java}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
BASE_OPTS=
if [ "$BASE" = hists=off ]; then
	BASE=$BUILD/libjcal.so
	BASE_OPTS=,hists=off
fi
loop_ms() { # loop_ms LIB MODE [OPTS]: the loop's CPU time CallHeavy prints
	"$JAVA" -agentpath:"$1=trace,quiet,output=tree,metric=tsc,mode=$2${3:-},out=$tmp/t.tree" \
		-cp "$BUILD/bench" jcalbench.CallHeavy "$N" 2>"$tmp/err" |
		sed -n "s/.*cpu_ms=\([0-9.]*\).*/\1/p" || { cat "$tmp/err" >&2; exit 1; }
}
# Calls per run, from a trace: (events) / 2 of the bench class's methods.
"$JAVA" -agentpath:"$BUILD/libjcal.so=trace,quiet,mode=bci,include=jcalbench.*,out=$tmp/c.bin" \
	-cp "$BUILD/bench" jcalbench.CallHeavy "$N" >/dev/null
calls=$("$BUILD/jcal-post" "$tmp/c.bin" --raw --report flat --format csv 2>/dev/null |
	awk -F, 'NR > 1 && $1 ~ /^jcalbench\./ {s += $2} END {print s}')
for r in $(seq "$RUNS"); do
	for mode in events bci; do
		loop_ms "$BASE" "$mode" "$BASE_OPTS" >>"$tmp/base.$mode"
		loop_ms "$BUILD/libjcal.so" "$mode" >>"$tmp/hist.$mode"
	done
done
echo "CallHeavy $N: $calls calls of jcalbench.*, output=tree,metric=tsc, medians of $RUNS runs${BASE_OPTS:+; base$BASE_OPTS}"
printf '%-8s %12s %12s %14s\n' mode "base ms" "hists ms" "ns per event"
for mode in events bci; do
	b=$(median <"$tmp/base.$mode")
	h=$(median <"$tmp/hist.$mode")
	printf '%-8s %12s %12s %14.1f\n' "$mode" "$b" "$h" "$(echo "($h - $b) * 1000000 / (2 * $calls)" | bc -l)"
done
