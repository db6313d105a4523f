#!/bin/bash
# tomcat-first.sh [RUNS] [OPTS_A] [OPTS_B] - where the first seconds of an
# attach go on Debian's Tomcat 10, two sets of agent options taken in turns
# (docs/performance.md, "Methods the JIT inlined"): per run a fresh Tomcat
# as user tomcat (as bench/tomcat-overhead.sh starts it), warmed with
# 50,000 requests, 30,000 before; `jcal start PID OPTS`; the first 90,000
# requests and the next 90,000, then `jcal stop`. For each part: the rate
# as a fraction of the rate before, Tomcat's CPU time a request (us, user +
# system, every thread's), its JIT compiler threads' CPU seconds, and the
# methods HotSpot compiled (jstat -compiler). RUNS pairs (default 3);
# OPTS_A and OPTS_B comma-separated agent options (default: none, and
# inlined=count). JAVA_HOME picks the JDK. Needs root and tomcat10,
# tomcat10-examples, apache2-utils (installed when missing). Never fails on
# the figures.
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-3}
A=${2:-}
B=${3-inlined=count}
NAME=tomcat-first.sh
# shellcheck source=bench/tomcat-lib.sh
. bench/tomcat-lib.sh
SEG=10000

# Tomcat's CPU ticks: all threads, and its JIT compiler threads'
ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
jit_ticks() {
	local t n s=0
	for t in /proc/"$PID"/task/*; do
		n=$(cat "$t/comm" 2>/dev/null) || continue
		case $n in C1\ Compiler* | C2\ Compiler*) s=$((s + $(awk '{print $14 + $15}' "$t/stat"))) ;; esac
	done
	echo "$s"
}
compiled() { runuser -u tomcat -- "$JAVA_HOME/bin/jstat" -compiler "$PID" | awk 'NR == 2 {print $1}'; }
# milliseconds that N windows of SEG requests take
took_ms() {
	local t0
	t0=$(date +%s%N)
	for _ in $(seq "$1"); do rate "$SEG" >/dev/null; done
	echo $((($(date +%s%N) - t0) / 1000000))
}

echo "JDK: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1)"
for _ in $(seq "$RUNS"); do
	for opts in "$A" "$B"; do
		tomcat_start
		rate 50000 >/dev/null
		before=$(took_ms 3)
		c0=$(ticks) j0=$(jit_ticks) m0=$(compiled)
		# shellcheck disable=SC2086 # OPTS: one word of comma-separated options, or none
		build/jcal start "$PID" -o "$OUT/rec.bin" $opts >/dev/null
		first=$(took_ms 9)
		c1=$(ticks) j1=$(jit_ticks) m1=$(compiled)
		next=$(took_ms 9)
		c2=$(ticks) j2=$(jit_ticks) m2=$(compiled)
		build/jcal stop "$PID" >/dev/null
		tomcat_stop
		hz=$(getconf CLK_TCK)
		awk -v o="${opts:-(default)}" -v b="$before" -v f="$first" -v n="$next" -v hz="$hz" \
			-v c0="$c0" -v c1="$c1" -v c2="$c2" -v j0="$j0" -v j1="$j1" -v j2="$j2" \
			-v m0="$m0" -v m1="$m1" -v m2="$m2" 'BEGIN {
			printf "%-18s first 90000: %.2f of before, %4.0f us CPU a request, JIT %4.1f s, %4d compiled" \
				" | next 90000: %.2f, %4.0f us, JIT %4.1f s, %4d compiled\n", o,
				(b / 3) / (f / 9), (c1 - c0) / hz * 1e6 / 90000, (j1 - j0) / hz, m1 - m0,
				(b / 3) / (n / 9), (c2 - c1) / hz * 1e6 / 90000, (j2 - j1) / hz, m2 - m1 }'
	done
done
