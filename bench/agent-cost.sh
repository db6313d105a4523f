#!/bin/bash
# agent-cost.sh [N] [RUNS] - wall time of the call-heavy workload under: no
# agent (JIT), -Xint, the count-only agent, and libjcal.so trace with each
# time metric; medians of RUNS runs, ratios against the count-only agent
# (docs/performance.md floor: 1.5), and trace bytes per event. Prints a table; never
# fails on timing. BUILD (default build) holds the agents and classes.
set -eu
cd "$(dirname "$0")/.."
N=${1:-300000}
RUNS=${2:-5}
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
JAVA="$JAVA_HOME/bin/java"
BUILD=${BUILD:-build}
CP="-cp $BUILD/bench jcalbench.CallHeavy $N"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# time_ms LABEL ARGS... : median wall ms of RUNS runs of the JVM.
time_ms() {
	label=$1
	shift
	for _ in $(seq "$RUNS"); do
		t0=$(date +%s%N)
		"$JAVA" "$@" $CP >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000000))
	done | median >"$tmp/$label"
	cat "$tmp/$label"
}

echo "call-heavy workload: jcalbench.CallHeavy $N, $RUNS runs each, median wall ms"
echo "machine: $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $("$JAVA" -version 2>&1 | head -1)"
printf '%-28s %10s %8s\n' "configuration" "wall ms" "ratio"
base_jit=$(time_ms jit)
printf '%-28s %10s %8s\n' "no agent (JIT)" "$base_jit" "-"
base_int=$(time_ms xint -Xint)
printf '%-28s %10s %8s\n' "no agent, -Xint" "$base_int" "-"
count=$(time_ms count -agentpath:$BUILD/libcount.so)
printf '%-28s %10s %8s\n' "count-only agent" "$count" "1.00"
for m in tsc cputime; do
	ms=$(time_ms "$m" "-agentpath:$BUILD/libjcal.so=trace,quiet,metric=$m,out=$tmp/t-$m.bin")
	printf '%-28s %10s %8s\n' "jcal trace metric=$m" "$ms" "$(awk -v a="$ms" -v b="$count" 'BEGIN{printf "%.2f", a/b}')"
done
echo
for m in tsc cputime; do
	"$JAVA" "-agentpath:$BUILD/libjcal.so=trace,metric=$m,out=$tmp/t-$m.bin" $CP 2>&1 >/dev/null |
		grep 'wrote' | sed "s/^/metric=$m: /"
done
