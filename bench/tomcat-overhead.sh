#!/bin/bash
# tomcat-overhead.sh [REQUESTS] [RUNS] [AGENT_OPTS...] - what `jcal record`
# costs a real server: Debian's Apache Tomcat 10 with its examples, started
# without any agent as user tomcat, the HelloWorld servlet under `ab -c 4`
# on loopback; requests/s before, during and after a recording made by
# attaching to it (docs/performance.md, "Attaching to a running JVM").
#
# Per run: a fresh Tomcat; 10 x REQUESTS requests of warm-up (the JIT
# compiles Tomcat for longer than 3 x: the rate before would be low); REQUESTS
# before; `jcal start PID [AGENT_OPTS]`, then REQUESTS right after the
# start (the attach, the probes going in, throttling deciding) and
# SETTLED x REQUESTS more (SETTLED=8 by default: the recording settled),
# `jcal stop`; REQUESTS after.
# Prints ab's requests/s of each phase, the ratios to before (first,
# settled, and the whole recording: all its requests over all its time),
# and the servlet's calls in the recording (exactly 5 x REQUESTS: the
# recording counts what it saw: (1 + SETTLED) x REQUESTS), and Tomcat's CPU
# time a request (us, user + system, its JIT's included) before and in the
# settled part, with their ratio: the part of a CPU's work the recording
# leaves to requests, which the load of other processes on a shared machine
# sways less than it sways requests/s. JAVA_HOME picks the
# JDK Tomcat runs on; KEEP=DIR keeps each run's recording as
# DIR/tomcat-RUN.bin. Needs root (Tomcat runs as tomcat, as Debian's
# service does) and the packages tomcat10, tomcat10-examples and
# apache2-utils (installed when missing). Never fails on the figures.
set -eu
cd "$(dirname "$0")/.."
REQUESTS=${1:-5000}
SETTLED=${SETTLED:-8}
RUNS=${2:-3}
shift $(($# < 2 ? $# : 2))
SERVLET=HelloWorldExample.doGet
NAME=tomcat-overhead.sh
# shellcheck source=bench/tomcat-lib.sh
. bench/tomcat-lib.sh

echo "JDK: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1); agent options: ${*:-(default)}"
printf '%4s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n' run before first settled after \
	fst/bef set/bef rec/bef aft/bef calls cpu_bef cpu_set bef/set
for run in $(seq "$RUNS"); do
	tomcat_start
	rate $((REQUESTS * 10)) >/dev/null
	c0=$(cpu)
	before=$(rate "$REQUESTS")
	c1=$(cpu)
	build/jcal start "$PID" -o "$OUT/rec.bin" "$@" >/dev/null
	t1=$(took "$REQUESTS")
	c2=$(cpu)
	t2=$(took $((REQUESTS * SETTLED)))
	c3=$(cpu)
	build/jcal stop "$PID" >/dev/null
	after=$(rate "$REQUESTS")
	calls=$(build/jcal-post "$OUT/rec.bin" --raw --report flat --format csv 2>/dev/null |
		awk -F, -v m="$SERVLET" 'index($0, m) {print $2; exit}')
	awk -v r="$run" -v b="$before" -v t1="$t1" -v t2="$t2" -v n="$REQUESTS" -v a="$after" \
		-v k="$SETTLED" -v c="${calls:-?}" -v hz="$(getconf CLK_TCK)" \
		-v cb=$((c1 - c0)) -v cs=$((c3 - c2)) 'BEGIN {f = n / t1; s = k * n / t2; w = (k + 1) * n / (t1 + t2)
		ub = cb * 1e6 / hz / n; us = cs * 1e6 / hz / (k * n)
		printf "%4d %8.0f %8.0f %8.0f %8.0f %8.2f %8.2f %8.2f %8.2f %8s %8.1f %8.1f %8.2f\n",
			r, b, f, s, a, f / b, s / b, w / b, a / b, c, ub, us, ub / us}'
	tomcat_stop
	[ -n "${KEEP:-}" ] && cp "$OUT/rec.bin" "$KEEP/tomcat-$run.bin"
	rm -f "$OUT/rec.bin"
done
