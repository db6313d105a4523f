#!/bin/bash
# accuracy.sh [JVMS] [ROUNDS] [SCALE] - accuracy (docs/accuracy.md), same-JVM A/B.
#
# Calibrates once (-Xint, metric=cputime, table in a temporary file), then
# for each workload of bench/java/jcalbench/Accuracy.java starts JVMS JVMs
# with -Xint and trace,start=manual. Each JVM alternates ROUNDS untraced
# rounds of the workload's top method (the truth: thread CPU time) with
# ROUNDS traced ones (inside a jcal.Control region), so truth and traced run
# in the same JVM, interleaved. Per JVM the error of the traced cum of the
# top method against the summed truth is computed raw, per sequence key with
# each estimator of the table (min = the per-key minimum; p10, median, mean of
# the same samples; cond, the default; fit, the overhead fitted against the
# step's own work; cfit, cond within a key's empty-body deltas and the fit
# past them), the same with the table the agent
# measured in that very JVM (recalibrate=start, jcal-post --calib inrun),
# and with one global minimum subtracted from every delta (the older
# method). Prints the median error over the JVMs and its spread
# (lowest..highest); TSV=FILE also appends them to FILE (bench/accuracy-lib.sh).
# WORKLOADS and AGENT_OPTS from the environment choose the workloads and add
# agent options. Never fails on accuracy.
set -eu
cd "$(dirname "$0")/.."
JVMS=${1:-5}
ROUNDS=${2:-4}
SCALE=${3:-100000}
ESTIMATORS="min p10 median mean cond fit cfit"
INRUN="min median cond"
. bench/accuracy-lib.sh

calibrate "-Xint, metric=cputime" -Xint "-agentpath:build/libjcal.so=calibrate,metric=cputime${AGENT_OPTS:+,$AGENT_OPTS},table=$table,out=$tmp/calib.bin"
gmin=$(awk '/^[IiJjNnO]:[EXT]:/ {if (m == "" || $2 + 0 < m + 0) m = $2} END {print m + 0}' "$table")

# cum_of TRACE TOP [jcal-post options]: "calibrated-cum raw-cum calls-in-subtree"
cum_of() {
	t=$1
	top=$2
	shift 2
	build/jcal-post "$t" "$@" --report tree --format csv --thread main 2>/dev/null |
		awk -F, -v top="$top" '
		NR > 1 {
			path = $0; sub(/^[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,/, "", path)
			gsub(/"/, "", path)
			n = split(path, p, ";")
			if (p[n] == top) { cal += $6; raw += $8 }
			for (i = 1; i <= n; i++) if (p[i] == top) { calls += $4; break }
		}
		END { print cal + 0, raw + 0, calls + 0 }'
}

printf '%-11s %11s  %-20s' workload "truth ns" "raw %"
for e in $ESTIMATORS; do printf '  %-20s' "$e %"; done
for e in $INRUN; do printf '  %-20s' "in-run $e %"; done
printf '  %-20s\n' "global-min %"
for w in $WORKLOADS; do
	top="jcalbench.Accuracy\$$(echo "${w:0:1}" | tr a-z A-Z)${w:1}.run"
	rm -f "$tmp"/r.*
	for _ in $(seq "$JVMS"); do
		truth=$("$JAVA" -Xint "-agentpath:build/libjcal.so=trace,quiet,start=manual,recalibrate=start,metric=cputime${AGENT_OPTS:+,$AGENT_OPTS},out=$tmp/t.bin" \
			-cp build/bench jcalbench.Accuracy ab "$w" "$SCALE" "$ROUNDS" | awk '/^truth_ns/ {print $2}')
		echo "$truth" >>"$tmp/r.truth"
		read -r _ raw calls < <(cum_of "$tmp/t.bin" "$top" --raw)
		pct "$raw" "$truth" >>"$tmp/r.raw"
		awk -v r="$raw" -v c="$calls" -v g="$gmin" -v t="$truth" \
			'BEGIN{v = r - (2*c - 1)*g; if (v < 0) v = 0; printf "%.2f\n", (v-t)*100/t}' >>"$tmp/r.global"
		for e in $ESTIMATORS; do
			read -r cal _ _ < <(cum_of "$tmp/t.bin" "$top" --calib "$table" --estimator "$e")
			pct "$cal" "$truth" >>"$tmp/r.$e"
		done
		for e in $INRUN; do
			read -r cal _ _ < <(cum_of "$tmp/t.bin" "$top" --calib inrun --estimator "$e")
			pct "$cal" "$truth" >>"$tmp/r.in-$e"
		done
	done
	t=$(median <"$tmp/r.truth")
	record "$w" truth_ns "$tmp/r.truth"
	printf '%-11s %11.0f  %-20s' "$w" "$t" "$(figure "$w" raw "$tmp/r.raw")"
	for e in $ESTIMATORS; do printf '  %-20s' "$(figure "$w" "$e" "$tmp/r.$e")"; done
	for e in $INRUN; do printf '  %-20s' "$(figure "$w" "in-run-$e" "$tmp/r.in-$e")"; done
	printf '  %-20s\n' "$(figure "$w" global-min "$tmp/r.global")"
done
echo
echo "$JVMS JVMs x $ROUNDS rounds each, scale $SCALE; table $(grep -c '^[IiJjNnO]:' "$table") keys, single global minimum $gmin ns"
echo "truth: thread CPU time of the top method in the same -Xint JVM, untraced rounds; traced: metric=cputime, mode=events"
