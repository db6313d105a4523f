#!/bin/bash
# probe-cost.sh [JAVA_HOME] [N] [RUNS] - what a mode=bci probe pair costs per
# call on one JDK: the call-heavy loop (jcalbench.CallHeavy N, the time it
# prints for its loop) without agent, with mode=bci,metric=tsc as built
# (critical foreign downcalls on JDK 22+ when jcal-agent.jar has them; the
# default agent-free clock, its second read at every event),
# the same with JCAL_CLOCK_EVERY=256 (the second read in bursts of 8 in 256),
# with
# clock=raw (one metric read an event), the
# same with JCAL_PROBE_CALL=jni (JNI probes only), on JDK 17 the same with
# -XX:+CriticalJNINatives (critical natives, no transition), and, on JDK 25+, JFR's
# jdk.MethodTiming on the same class; medians of RUNS runs (taken in
# turns), ns per call over the no-agent run, and the ratio to JFR. Prints a
# table; never fails on timing.
set -eu
cd "$(dirname "$0")/.."
JH=${1:-${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}}
N=${2:-300000}
RUNS=${3:-5}
BUILD=${BUILD:-build}
JAVA="$JH/bin/java"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
feature=$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
loop_ms() { # loop_ms ARGS... : the loop time CallHeavy prints
	"$@" -cp "$BUILD/bench" jcalbench.CallHeavy "$N" 2>"$tmp/err" | sed -n 's/.*time_ms=\([0-9.]*\).*/\1/p' ||
		{ cat "$tmp/err" >&2; exit 1; }
}
# Calls per run, from a trace: (events) / 2 of the bench class's methods.
"$JAVA" -agentpath:"$BUILD/libjcal.so=trace,quiet,mode=bci,include=jcalbench.*,out=$tmp/c.bin" \
	-cp "$BUILD/bench" jcalbench.CallHeavy "$N" >/dev/null
calls=$("$BUILD/jcal-post" "$tmp/c.bin" --raw --report flat --format csv 2>/dev/null |
	awk -F, 'NR > 1 && $1 ~ /^jcalbench\./ {s += $2} END {print s}')
configs="none ffm bursts raw jni"
# HotSpot before 18 can call JavaCritical_ natives from compiled code
[ "${feature%%.*}" -lt 18 ] 2>/dev/null && configs="$configs crit"
[ "${feature%%.*}" -ge 25 ] 2>/dev/null && configs="$configs jfr"
for r in $(seq "$RUNS"); do
	for c in $configs; do
		case $c in
		none) t=$(loop_ms "$JAVA") ;;
		ffm) t=$(loop_ms "$JAVA" -agentpath:"$BUILD/libjcal.so=trace,quiet,mode=bci,metric=tsc,out=$tmp/t.bin") ;;
		bursts) t=$(JCAL_CLOCK_EVERY=256 loop_ms "$JAVA" -agentpath:"$BUILD/libjcal.so=trace,quiet,mode=bci,metric=tsc,out=$tmp/t.bin") ;;
		raw) t=$(loop_ms "$JAVA" -agentpath:"$BUILD/libjcal.so=trace,quiet,mode=bci,metric=tsc,clock=raw,out=$tmp/t.bin") ;;
		jni) t=$(JCAL_PROBE_CALL=jni loop_ms "$JAVA" -agentpath:"$BUILD/libjcal.so=trace,quiet,mode=bci,metric=tsc,out=$tmp/t.bin") ;;
		crit) t=$(loop_ms "$JAVA" -XX:+CriticalJNINatives -agentpath:"$BUILD/libjcal.so=trace,quiet,mode=bci,metric=tsc,out=$tmp/t.bin") ;;
		jfr) t=$(loop_ms "$JAVA" "-XX:StartFlightRecording:jdk.MethodTiming#filter=jcalbench.CallHeavy,filename=$tmp/r.jfr") ;;
		esac
		echo "$t" >>"$tmp/$c"
	done
done
echo "probe cost: jcalbench.CallHeavy $N ($calls calls), $RUNS runs each in turns, median loop ms"
echo "machine: $(nproc) cpus, $("$JAVA" -version 2>&1 | head -1)"
base=$(median <"$tmp/none")
jfr_ns=""
[ -f "$tmp/jfr" ] && jfr_ns=$(awk -v t="$(median <"$tmp/jfr")" -v b="$base" -v c="$calls" 'BEGIN {printf "%.1f", (t - b) * 1e6 / c}')
printf '%-40s %10s %10s %10s\n' configuration "loop ms" "ns/call" "vs JFR"
for c in $configs; do
	m=$(median <"$tmp/$c")
	ns=$(awk -v t="$m" -v b="$base" -v c="$calls" 'BEGIN {printf "%.1f", (t - b) * 1e6 / c}')
	vs=-
	[ -n "$jfr_ns" ] && vs=$(awk -v a="$ns" -v j="$jfr_ns" 'BEGIN {printf "%.2fx", a / j}')
	case $c in
	none) label="no agent (JIT)"; ns=-; vs=- ;;
	ffm) label="mode=bci,metric=tsc (as built)" ;;
	bursts) label="same, second read in bursts (256)" ;;
	raw) label="same, clock=raw (one read an event)" ;;
	jni) label="mode=bci,metric=tsc, JNI probes only" ;;
	crit) label="same, -XX:+CriticalJNINatives" ;;
	jfr) label="JFR jdk.MethodTiming" ;;
	esac
	printf '%-40s %10s %10s %10s\n' "$label" "$m" "$ns" "$vs"
done
