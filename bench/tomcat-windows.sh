#!/bin/bash
# tomcat-windows.sh [SEGMENT] [WINDOWS] [AGENT_OPTS...] - how Debian's Tomcat
# 10 gets its speed back while a recording runs: one fresh Tomcat as user
# tomcat (as bench/tomcat-overhead.sh starts it), warmed with 50,000
# requests, then ab's requests/s of consecutive SEGMENT-request windows
# (default 10,000): 3 before, WINDOWS (default 24) while `jcal start PID
# [AGENT_OPTS]` records, with the seconds they took, and 6 after `jcal
# stop` (with the time the stop command took); then the throttled methods by the second they lost their probes
# (docs/performance.md, "A real server"). JAVA_HOME picks the JDK. Needs
# root and tomcat10, tomcat10-examples, apache2-utils (installed when
# missing). Never fails on the figures.
set -eu
cd "$(dirname "$0")/.."
SEG=${1:-10000}
WINDOWS=${2:-24}
shift $(($# < 2 ? $# : 2))
NAME=tomcat-windows.sh
# shellcheck source=bench/tomcat-lib.sh
. bench/tomcat-lib.sh

echo "JDK: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1); agent options: ${*:-(default)}"
tomcat_start
rate 50000 >/dev/null
printf 'before:'
for _ in 1 2 3; do printf ' %s' "$(rate "$SEG")"; done
echo
build/jcal start "$PID" -o "$OUT/rec.bin" "$@" >/dev/null
t0=$(date +%s%N)
printf 'during:'
for _ in $(seq "$WINDOWS"); do printf ' %s' "$(rate "$SEG")"; done
echo " ($(( ($(date +%s%N) - t0) / 1000000 )) ms)"
t0=$(date +%s%N)
build/jcal stop "$PID" >/dev/null
stop_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
printf 'after:'
for _ in $(seq 6); do printf ' %s' "$(rate "$SEG")"; done
echo " (jcal stop took $stop_ms ms)"
printf 'throttled (methods@second):'
build/jcal-post "$OUT/rec.bin" --report summary 2>/dev/null | awk '/^    at / {print int($2)}' |
	sort -n | uniq -c | awk '{printf " %d@%ds", $1, $2} END {print ""}'
