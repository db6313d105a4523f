#!/bin/bash
# clock-cost.sh [N] [RUNS] - the agent-free clock against the raw one
# (docs/accuracy.md, "The agent-free clock"; docs/performance.md) on
# jcalbench.CallHeavy N (15.5 calls per iteration), metric=cputime (METRIC=tsc for another).
#
# mode=events (-Xint, as the mode runs every traced thread): per call,
# what the agent adds to the loop's thread CPU time (cpu_ms) for
# the count-only agent (the floor: the JVM's dispatch into an empty
# callback) and for jcal with clock=raw and clock=agentfree (its second
# read at every event, and with JCAL_CLOCK_EVERY=256 in bursts of 8 in
# 256); and what is
# left in the traced figures: the traced cum of all step() calls less the
# untraced loop time. mode=bci (JIT): the same for the probes, against the
# untraced JIT run; on JAVA25 (default: the JDK >= 22 of the build, if any)
# the probes are critical downcalls. Configurations run in turns, RUNS
# rounds; medians. Never fails on the figures.
set -eu
cd "$(dirname "$0")/.."
N=${1:-100000}
RUNS=${2:-5}
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
JAVA="$JAVA_HOME/bin/java"
JAVA25=${JAVA25:-$(cat build/javatests21/JAVA_HOME 2>/dev/null || true)}
BUILD=${BUILD:-build}
METRIC=${METRIC:-cputime}
CP="-cp $BUILD/bench jcalbench.CallHeavy $N"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -f "$BUILD/libcount.so" ] && [ -f "$BUILD/bench.stamp" ] || {
	echo "clock-cost.sh: build first: make bench" >&2
	exit 1
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR) print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# one LABEL JAVA ARGS...: one run; appends its loop ms to $tmp/LABEL.ms and,
# when it wrote $tmp/t.bin, the traced cum of step() (ms) to $tmp/LABEL.cum
one() {
	label=$1
	java=$2
	shift 2
	rm -f "$tmp/t.bin"
	"$java" "$@" $CP 2>"$tmp/err" | sed -n 's/.*cpu_ms=\([0-9.]*\).*/\1/p' >>"$tmp/$label.ms" || {
		cat "$tmp/err" >&2
		exit 1
	}
	if [ -f "$tmp/t.bin" ]; then
		"$BUILD/jcal-post" "$tmp/t.bin" --raw --report flat --format csv 2>/dev/null |
			awk -F, '$1 == "jcalbench.CallHeavy.step" {printf "%.3f\n", $4 / 1e6}' >>"$tmp/$label.cum"
	fi
}

jcal() { echo "-agentpath:$BUILD/libjcal.so=trace,quiet,metric=$METRIC,out=$tmp/t.bin,$1"; }

for _ in $(seq "$RUNS"); do
	one xint "$JAVA" -Xint
	one count "$JAVA" -Xint "-agentpath:$BUILD/libcount.so"
	one ev-raw "$JAVA" -Xint "$(jcal clock=raw)"
	one ev-af "$JAVA" -Xint "$(jcal clock=agentfree)"
	JCAL_CLOCK_EVERY=256 one ev-afb "$JAVA" -Xint "$(jcal clock=agentfree)"
	one jit "$JAVA"
	one bci-raw "$JAVA" "$(jcal mode=bci,clock=raw)"
	one bci-af "$JAVA" "$(jcal mode=bci,clock=agentfree)"
	JCAL_CLOCK_EVERY=256 one bci-afb "$JAVA" "$(jcal mode=bci,clock=agentfree)"
	if [ -n "$JAVA25" ]; then
		one jit25 "$JAVA25/bin/java"
		one bci25-raw "$JAVA25/bin/java" "$(jcal mode=bci,clock=raw)"
		one bci25-af "$JAVA25/bin/java" "$(jcal mode=bci,clock=agentfree)"
	fi
done

calls=$(awk -v n="$N" 'BEGIN {print n * 15.5}')
m() { median <"$tmp/$1.$2"; }
# per LABEL BASE: ns per call added to the loop time, and left in the figures
row() {
	label=$1
	base=$(m "$2" ms)
	ms=$(m "$label" ms)
	cum=$([ -s "$tmp/$label.cum" ] && m "$label" cum || echo -)
	awk -v l="$3" -v ms="$ms" -v b="$base" -v cum="$cum" -v c="$calls" 'BEGIN {
		left = cum == "-" ? "-" : sprintf("%.1f", (cum - b) * 1e6 / c)
		printf "%-34s %10.1f %10s %12.1f %14s\n", l, ms, cum, (ms - b) * 1e6 / c, left }'
}
echo "jcalbench.CallHeavy $N ($calls calls), metric=$METRIC, $RUNS runs in turns, medians"
echo "machine: $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $("$JAVA" -version 2>&1 | head -1)"
printf '%-34s %10s %10s %12s %14s\n' configuration "loop cpu ms" "step cum ms" "adds ns/call" "in figures ns/call"
printf '%-34s %10.1f %10s %12s %14s\n' "-Xint, no agent" "$(m xint ms)" - - -
row count xint "-Xint, count-only agent (floor)"
row ev-raw xint "-Xint, mode=events clock=raw"
row ev-af xint "-Xint, mode=events clock=agentfree"
row ev-afb xint "  same, second read in bursts"
printf '%-34s %10.1f %10s %12s %14s\n' "JIT, no agent" "$(m jit ms)" - - -
row bci-raw jit "mode=bci clock=raw"
row bci-af jit "mode=bci clock=agentfree"
row bci-afb jit "  same, second read in bursts"
if [ -n "$JAVA25" ]; then
	printf '%-34s %10.1f %10s %12s %14s\n' "JDK 25 JIT, no agent" "$(m jit25 ms)" - - -
	row bci25-raw jit25 "JDK 25 mode=bci clock=raw"
	row bci25-af jit25 "JDK 25 mode=bci clock=agentfree"
fi
