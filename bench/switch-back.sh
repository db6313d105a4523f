#!/bin/bash
# switch-back.sh [RUNS] [JAVA_HOME...] - whether a loop running in the class
# of the method whose probes go gets its speed back (docs/agent-internals.md,
# "Switchable probes"): jcalbench.SwitchBack (a main() that never returns,
# looping over a small method of its own class that has a loop) without
# agent, then under mode=bci with the recording ended after 1 s (duration=1s:
# the probes go at stop) and with throttle=10000:200 (the method's probes go
# after 10,000 calls), each with switchable probes (the default) and with
# probes=static (the classes retransformed). Prints, per JDK and case,
# the median over RUNS JVMs (taken in turns) of the loop's speed in the
# windows after 2.5 s, in calls per microsecond, and its ratio to the speed
# without agent. Never fails on timing.
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-3}
shift || true
BUILD=${BUILD:-build}
JDKS=("$@")
[ ${#JDKS[@]} -gt 0 ] || JDKS=("${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}")
[ -f "$BUILD/bench/jcalbench/SwitchBack.class" ] || {
	echo "switch-back.sh: build first: make all build/bench.stamp" >&2
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {if (NR) print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# speed JAVA [AGENT OPTIONS]: the median window after 2.5 s of one JVM
speed() {
	local java=$1 opts=$2 agent=()
	[ -n "$opts" ] && agent=("-agentpath:$BUILD/libjcal.so=trace,quiet,mode=bci,$opts,out=$tmp/t.bin")
	"$java" "${agent[@]}" -cp "$BUILD/bench" jcalbench.SwitchBack 5 250 |
		awk '{ split($2, t, "="); split($4, c, "="); if (t[2] >= 2.5) print c[2] }' | median
}
cases=("none|" "stop, switched|duration=1s" "stop, static|duration=1s,probes=static"
	"throttle, switched|throttle=10000:200" "throttle, static|throttle=10000:200,probes=static")
echo "load average at the start: $(cut -d" " -f1-3 /proc/loadavg)"
for jdk in "${JDKS[@]}"; do
	java=$jdk/bin/java
	rm -f "$tmp"/s.*
	for _ in $(seq "$RUNS"); do
		for i in "${!cases[@]}"; do
			IFS='|' read -r _ opts <<<"${cases[$i]}"
			speed "$java" "$opts" >>"$tmp/s.$i"
		done
	done
	base=$(median <"$tmp/s.0")
	echo "== $("$java" -version 2>&1 | head -1)"
	printf '%-20s %14s %10s\n' case "calls/us" "ratio"
	for i in "${!cases[@]}"; do
		IFS='|' read -r name _ <<<"${cases[$i]}"
		v=$(median <"$tmp/s.$i")
		printf '%-20s %14s %10s\n' "$name" "$v" "$(awk -v a="$v" -v b="$base" 'BEGIN { printf "%.2f", a / b }')"
	done
done
echo "$RUNS JVMs per case, in turns; the windows after 2.5 s of 5 s"
echo "load average at the end: $(cut -d" " -f1-3 /proc/loadavg)"
