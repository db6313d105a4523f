#!/bin/bash
# tree-slow-cost.sh [N] [RUNS] - what slow=DURATION (the slowest calls kept
# by output=tree, docs/agent-internals.md "Slow calls") adds per event: the
# call-heavy loop (jcalbench.CallHeavy N, the loop time it prints) with
# output=tree,metric=tsc in mode=events and mode=bci, without slow=, with
# slow=1s (every call watched, none that long: the watcher's own cost) and
# with slow=2us (calls offered to the keeper too), taken in turns; medians of
# RUNS runs, ns per event of each difference to the run without (a call is
# two events). Prints a table; never fails on timing.
set -eu
cd "$(dirname "$0")/.."
N=${1:-300000}
RUNS=${2:-5}
BUILD=${BUILD:-build}
JAVA=${JAVA:-java}
. bench/callheavy-lib.sh
calls=$(callheavy_calls)
for r in $(seq "$RUNS"); do
	for mode in events bci; do
		callheavy_ms "$BUILD/libjcal.so" "$mode" >>"$tmp/none.$mode"
		callheavy_ms "$BUILD/libjcal.so" "$mode" ,slow=1s >>"$tmp/watch.$mode"
		callheavy_ms "$BUILD/libjcal.so" "$mode" ,slow=2us >>"$tmp/keep.$mode"
	done
done
echo "CallHeavy $N: $calls calls of jcalbench.*, output=tree,metric=tsc, medians of $RUNS runs"
printf '%-8s %10s %12s %12s %16s %16s\n' mode "none ms" "slow=1s ms" "slow=2us ms" "1s ns/event" "2us ns/event"
for mode in events bci; do
	a=$(median <"$tmp/none.$mode")
	b=$(median <"$tmp/watch.$mode")
	c=$(median <"$tmp/keep.$mode")
	printf '%-8s %10s %12s %12s %16.1f %16.1f\n' "$mode" "$a" "$b" "$c" \
		"$(echo "($b - $a) * 1000000 / (2 * $calls)" | bc -l)" \
		"$(echo "($c - $a) * 1000000 / (2 * $calls)" | bc -l)"
done
