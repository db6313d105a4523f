#!/bin/bash
# accuracy.sh [RUNS] [SCALE] - SPEC §8 accuracy: for each workload of
# bench/java/jcalbench/Accuracy.java, the uninstrumented -Xint thread CPU
# time of its top method (truth) against the traced cum of that method:
# raw; calibrated per sequence key with each estimator of the table (min is
# seed 003's method; p10, median, mean of the same samples); and the older
# method of one global minimum subtracted from every delta. Truth and
# traced runs alternate; medians of RUNS runs; errors in % of truth.
# Prints a table; never fails on accuracy.
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-3}
SCALE=${2:-100000}
ESTIMATORS="min p10 median mean"
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
JAVA="$JAVA_HOME/bin/java"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
table=$tmp/table.txt

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
pct() { awk -v e="$1" -v t="$2" 'BEGIN{printf "%+.1f", (e-t)*100/t}'; }

echo "calibrating (metric=cputime) ..."
"$JAVA" "-agentpath:build/libjcal.so=calibrate,metric=cputime,table=$table,out=$tmp/calib.bin" >"$tmp/calib.log" 2>&1 || {
	cat "$tmp/calib.log" >&2
	exit 1
}
# The older method: the smallest delta of any key, subtracted from every delta.
gmin=$(awk '/^[IiJjNnO]:[EXT]:/ {if (m == "" || $2 + 0 < m + 0) m = $2} END {print m + 0}' "$table")

# cum_of TRACE TOP [jcal-post options]: calibrated cum, raw cum and calls
# in the top method's subtree, from the tree CSV of the main thread.
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
			if (p[n] == top) { cal = $6; raw = $8 }
			for (i = 1; i <= n; i++) if (p[i] == top) { calls += $4; break }
		}
		END { print cal, raw, calls }'
}

printf '%-11s %11s %9s' workload "truth ns" "raw %"
for e in $ESTIMATORS; do printf ' %9s' "$e %"; done
printf ' %9s\n' "global %"
for w in leaves recursion natives exceptions loops parser; do
	top="jcalbench.Accuracy\$$(echo "${w:0:1}" | tr a-z A-Z)${w:1}.run"
	rm -f "$tmp"/r.*
	for _ in $(seq "$RUNS"); do
		"$JAVA" -Xint -cp build/bench jcalbench.Accuracy "$w" "$SCALE" | awk '/^truth_ns/ {print $2}' >>"$tmp/r.truth"
		"$JAVA" "-agentpath:build/libjcal.so=trace,quiet,metric=cputime,out=$tmp/t.bin" \
			-cp build/bench jcalbench.Accuracy "$w" "$SCALE" >/dev/null
		read -r _ raw calls < <(cum_of "$tmp/t.bin" "$top" --raw)
		echo "$raw" >>"$tmp/r.raw"
		awk -v r="$raw" -v c="$calls" -v g="$gmin" 'BEGIN{v = r - (2*c - 1)*g; print (v < 0 ? 0 : v)}' >>"$tmp/r.global"
		for e in $ESTIMATORS; do
			read -r cal _ _ < <(cum_of "$tmp/t.bin" "$top" --calib "$table" --estimator "$e")
			echo "$cal" >>"$tmp/r.$e"
		done
	done
	t=$(median <"$tmp/r.truth")
	printf '%-11s %11.0f %9s' "$w" "$t" "$(pct "$(median <"$tmp/r.raw")" "$t")"
	for e in $ESTIMATORS; do printf ' %9s' "$(pct "$(median <"$tmp/r.$e")" "$t")"; done
	printf ' %9s\n' "$(pct "$(median <"$tmp/r.global")" "$t")"
done
echo
echo "table: $(grep -c '^[IiJjNnO]:' "$table") keys; single global minimum $gmin ns; $RUNS runs each, scale $SCALE"
echo "truth: thread CPU time of the top method, -Xint, no agent; traced: metric=cputime, mode=events"
