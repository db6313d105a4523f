#!/bin/bash
# rotation-pause.sh [ROTATIONS] - how long a continuous recording's rotation
# holds the event path (docs/live-profiling.md, "Continuous recordings"):
# starts jcaltest.work.LoopCalls (two threads calling leaf() as fast as they
# can), attaches with `jcal start` for each output= (trace, tree, both),
# sends the agent ROTATIONS `rotate` commands a second apart through the
# JDK's jcmd, and prints the pause each reported ("events held N ms") and
# their median, per output= and JDK (JDKS, default: the JDK 17 of the build
# and Temurin 25 under /usr/lib/jvm). docs/performance.md, "Continuous
# recordings". Never fails on the figures.
set -eu
cd "$(dirname "$0")/.."
N=${1:-5}
[ -x build/jcal ] && [ -f build/javatests.stamp ] || {
	echo "rotation-pause.sh: build first: make all build/javatests.stamp" >&2
	exit 1
}
JDKS=${JDKS:-"$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")") /usr/lib/jvm/temurin-25-jdk-amd64"}
work=$(mktemp -d "$(pwd)/build/rotation.XXXXXX")
trap 'rm -rf "$work"' EXIT
median() { sort -n | awk '{a[NR] = $1} END {if (NR == 0) print "-"; else printf "%.1f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
printf '%-40s %-6s %s\n' JDK output "events held, ms (median)"
for jdk in $JDKS; do
	[ -x "$jdk/bin/java" ] && [ -x "$jdk/bin/jcmd" ] || continue
	for out in trace tree both; do
		rm -f "$work"/go "$work"/stop "$work"/r-*
		"$jdk/bin/java" -cp build/javatests jcaltest.work.LoopCalls "$work/go" "$work/stop" \
			>"$work/app.out" 2>&1 &
		pid=$!
		until grep -q ready "$work/app.out" 2>/dev/null; do sleep 0.1; done
		build/jcal start "$pid" -o "$work/r-%n.bin" "output=$out" >/dev/null
		touch "$work/go"
		for _ in $(seq "$N"); do
			sleep 1
			"$jdk/bin/jcmd" "$pid" JVMTI.agent_load "$(pwd)/build/libjcal.so" "'rotate'" >/dev/null
		done
		touch "$work/stop"
		wait "$pid" || true
		held=$(sed -n 's/.*events held \([0-9.]*\) ms.*/\1/p' "$work/app.out")
		printf '%-40s %-6s %s (%s)\n' "$("$jdk/bin/java" -version 2>&1 | head -1)" "$out" \
			"$(echo $held)" "$(echo "$held" | median)"
	done
done
