#!/bin/bash
# dilation.sh [ROUNDS] [JVMS] - what the agent adds to a call, by what the
# callee does (docs/history/accuracy.md, "Where and why it falls short").
#
# The callee of bench/java/jcalbench/Dilation.java runs a loop of K
# iterations. In each of JVMS -Xint JVMs (the mode mode=events forces),
# untraced and traced rounds alternate (start=manual + jcal.Control), so
# both halves of every pair share one JVM. Per K it prints the untraced ns
# per call and what tracing adds per call (traced - untraced), each the
# median of ROUNDS rounds, one column per JVM. A per-key compensation
# assumes the added cost does not depend on K. Never fails on the figures.
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${1:-7}
JVMS=${2:-3}
. bench/accuracy-lib.sh
[ -f build/bench.stamp ] || {
	echo "dilation.sh: build first: make all build/bench.stamp" >&2
	exit 1
}
for j in $(seq "$JVMS"); do
	"$JAVA" -Xint "-agentpath:build/libjcal.so=trace,quiet,start=manual,metric=cputime,out=$tmp/t.bin" \
		-cp build/bench jcalbench.Dilation ab "$ROUNDS" |
		awk '{printf "%d %.1f %+.1f\n", $1, $2, $3 - $2}' >"$tmp/ab.$j"
done
printf '%5s' K
for j in $(seq "$JVMS"); do printf ' %12s %11s' "untraced ns" "adds ns"; done
echo
paste $(for j in $(seq "$JVMS"); do echo "$tmp/ab.$j"; done) |
	awk '{printf "%5d", $1; for (i = 1; i <= NF; i += 3) printf " %12.1f %11s", $(i + 1), $(i + 2); print ""}'
echo "ns per call, median of $ROUNDS rounds per JVM, -Xint, metric=cputime, $("$JAVA" -version 2>&1 | head -1)"
