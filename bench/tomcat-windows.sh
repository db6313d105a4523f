#!/bin/bash
# tomcat-windows.sh [SEGMENT] [WINDOWS] [AGENT_OPTS...] - how Debian's Tomcat
# 10 gets its speed back while a recording runs: one fresh Tomcat as user
# tomcat (as bench/tomcat-overhead.sh starts it), warmed with 50,000
# requests, then ab's requests/s of consecutive SEGMENT-request windows
# (default 10,000): 3 before, WINDOWS (default 24) while `jcal start PID
# [AGENT_OPTS]` records, with the seconds they took, and 6 after `jcal
# stop`; then the throttled methods by the second they lost their probes
# (docs/performance.md, "A real server"). JAVA_HOME picks the JDK. Needs
# root and tomcat10, tomcat10-examples, apache2-utils (installed when
# missing). Never fails on the figures.
set -eu
cd "$(dirname "$0")/.."
SEG=${1:-10000}
WINDOWS=${2:-24}
shift $(($# < 2 ? $# : 2))
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
URL=http://127.0.0.1:8080/examples/servlets/servlet/HelloWorldExample
[ -x build/jcal ] && [ -x build/jcal-post ] || {
	echo "tomcat-windows.sh: build first: make all" >&2
	exit 1
}
[ "$(id -u)" = 0 ] || {
	echo "tomcat-windows.sh: run as root (Tomcat runs as user tomcat)" >&2
	exit 1
}
if ! dpkg -s tomcat10 tomcat10-examples apache2-utils >/dev/null 2>&1; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q tomcat10 tomcat10-examples apache2-utils >/dev/null
fi
OUT=$(mktemp -d /tmp/jcal-tomcat.XXXXXX)
chmod 755 "$OUT"
TPID=
cleanup() {
	[ -n "$TPID" ] && kill "$TPID" 2>/dev/null && wait "$TPID" 2>/dev/null
	rm -rf "$OUT"
}
trap cleanup EXIT
rate() { ab -q -k -n "$1" -c 4 "$URL" 2>/dev/null | awk '/^Requests per second/ {printf "%.0f", $4}'; }

echo "JDK: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1); agent options: ${*:-(default)}"
runuser -u tomcat -- env JAVA_HOME="$JAVA_HOME" CATALINA_HOME=/usr/share/tomcat10 \
	CATALINA_BASE=/var/lib/tomcat10 CATALINA_TMPDIR=/var/cache/tomcat10 \
	/usr/share/tomcat10/bin/catalina.sh run >"$OUT/catalina.log" 2>&1 &
TPID=$!
for _ in $(seq 100); do
	curl -sf -o /dev/null "$URL" && break
	sleep 0.2
done
PID=$(pgrep -u tomcat -f org.apache.catalina.startup.Bootstrap | head -1)
rate 50000 >/dev/null
printf 'before:'
for _ in 1 2 3; do printf ' %s' "$(rate "$SEG")"; done
echo
build/jcal start "$PID" -o "$OUT/rec.bin" "$@" >/dev/null
t0=$(date +%s%N)
printf 'during:'
for _ in $(seq "$WINDOWS"); do printf ' %s' "$(rate "$SEG")"; done
echo " ($(( ($(date +%s%N) - t0) / 1000000 )) ms)"
build/jcal stop "$PID" >/dev/null
printf 'after:'
for _ in $(seq 6); do printf ' %s' "$(rate "$SEG")"; done
echo
printf 'throttled (methods@second):'
build/jcal-post "$OUT/rec.bin" --report summary 2>/dev/null | awk '/^    at / {print int($2)}' |
	sort -n | uniq -c | awk '{printf " %d@%ds", $1, $2} END {print ""}'
