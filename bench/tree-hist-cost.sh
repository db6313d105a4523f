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
BASE_OPTS=
if [ "$BASE" = hists=off ]; then
	BASE=$BUILD/libjcal.so
	BASE_OPTS=,hists=off
fi
. bench/callheavy-lib.sh
calls=$(callheavy_calls)
for r in $(seq "$RUNS"); do
	for mode in events bci; do
		callheavy_ms "$BASE" "$mode" "$BASE_OPTS" >>"$tmp/base.$mode"
		callheavy_ms "$BUILD/libjcal.so" "$mode" >>"$tmp/hist.$mode"
	done
done
echo "CallHeavy $N: $calls calls of jcalbench.*, output=tree,metric=tsc, medians of $RUNS runs${BASE_OPTS:+; base$BASE_OPTS}"
printf '%-8s %12s %12s %14s\n' mode "base ms" "hists ms" "ns per event"
for mode in events bci; do
	b=$(median <"$tmp/base.$mode")
	h=$(median <"$tmp/hist.$mode")
	printf '%-8s %12s %12s %14.1f\n' "$mode" "$b" "$h" "$(echo "($h - $b) * 1000000 / (2 * $calls)" | bc -l)"
done
