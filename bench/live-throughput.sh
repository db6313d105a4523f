#!/bin/bash
# live-throughput.sh [PHASE_SECONDS] [RUNS] - a server's request rate before,
# during and after a recording made by attaching to it (docs/performance.md,
# "Attaching to a running JVM").
#
# WORKLOAD=steady attaches to bench/java/jcalbench/Steady instead, a
# CPU-bound loop of small calls that prints its own iterations per second
# (less noisy than loopback HTTP on a shared machine); WORKLOAD=steady-inline
# does that work inside main's own loop, a frame that never returns.
#
# Starts jcaltest.work.LiveServer (an HTTP server on loopback, no agent) and
# bench/java/jcalbench/LiveClient (requests one after the other, a count per
# second); after PHASE seconds runs `jcal start`, after PHASE more `jcal
# stop`, then PHASE more. Per phase it prints the median requests/s of its
# seconds, leaving out the first third of each phase (JIT warm-up, attach,
# retransformation), and the ratios during/before and after/before, for
# RUNS servers. CONTROL=1 runs the same phases without attaching (how much
# the rate drifts by itself). Never fails on the figures.
set -eu
cd "$(dirname "$0")/.."
PHASE=${1:-30}
RUNS=${2:-3}
. bench/accuracy-lib.sh
[ -f build/bench.stamp ] && [ -f build/javatests.stamp ] && [ -x build/jcal ] || {
	echo "live-throughput.sh: build first: make all build/bench.stamp build/javatests.stamp" >&2
	exit 1
}
median() { sort -n | awk '{a[NR] = $1} END {if (NR == 0) print 0; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
printf '%4s %10s %10s %10s %8s %8s\n' run before during after dur/bef aft/bef
for run in $(seq "$RUNS"); do
	if [ "${WORKLOAD:-http}" != http ]; then
		"$JAVA" -cp build/bench jcalbench.Steady $((3 * PHASE)) "${WORKLOAD#steady-}" \
			>"$tmp/rate.$run" 2>/dev/null &
		server=$!
		client=$server
	else
		mkfifo "$tmp/in.$run"
		"$JAVA" -Dsun.net.httpserver.nodelay=true -cp build/javatests jcaltest.work.LiveServer \
			<"$tmp/in.$run" >"$tmp/port.$run" 2>"$tmp/server.$run" &
		server=$!
		exec 3>"$tmp/in.$run"
		for _ in $(seq 100); do grep -q port "$tmp/port.$run" && break; sleep 0.1; done
		port=$(awk '{print $2}' "$tmp/port.$run")
		"$JAVA" -cp build/bench jcalbench.LiveClient "$port" $((3 * PHASE)) >"$tmp/rate.$run" &
		client=$!
	fi
	t0=$(date +%s)
	sleep "$PHASE"
	t1=$(date +%s)
	[ -n "${CONTROL:-}" ] || build/jcal start "$server" -o "$tmp/live.$run.bin" >/dev/null 2>&1
	sleep "$PHASE"
	t2=$(date +%s)
	[ -n "${CONTROL:-}" ] || build/jcal stop "$server" >/dev/null 2>&1
	wait "$client" || true
	if [ "$client" != "$server" ]; then
		exec 3>&-
		wait "$server" || true
	fi
	skip=$((PHASE / 3))
	b=$(awk -v a=$((t0 + skip)) -v z="$t1" '$1 >= a && $1 < z {print $2}' "$tmp/rate.$run" | median)
	d=$(awk -v a=$((t1 + skip)) -v z="$t2" '$1 >= a && $1 < z {print $2}' "$tmp/rate.$run" | median)
	f=$(awk -v a=$((t2 + skip)) '$1 >= a {print $2}' "$tmp/rate.$run" | median)
	awk -v r="$run" -v b="$b" -v d="$d" -v f="$f" \
		'BEGIN {printf "%4d %10.0f %10.0f %10.0f %8.2f %8.2f\n", r, b, d, f, b ? d / b : 0, b ? f / b : 0}'
done
echo "${WORKLOAD:-http}: ${CONTROL:+CONTROL (no attach): }per second (median of each phase's seconds after its first third), phases of $PHASE s, $("$JAVA" -version 2>&1 | head -1)"
