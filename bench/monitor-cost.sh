#!/bin/bash
# monitor-cost.sh [RUNS] [HANDOVERS] - what the JVM's monitor events cost a
# recording (docs/performance.md, "The monitor events"; docs/agent-internals.md,
# "Monitor events"), with monitors=off and monitors=on in turns, RUNS rounds
# (default 7), medians, in mode=bci and mode=events:
#  - jcalbench.PingPong HANDOVERS (default 100000): two threads hand a turn
#    to each other through Object.wait/notify, so each hand-over waits once
#    and the callbacks lie on its path: the difference of the wall time per
#    wait the trace holds is what a wait costs;
#  - jcalbench.Contention 2000000 4: four threads on one monitor, what heavy
#    lock contention does with the events on.
# Also prints the waits of the last monitors=on trace (jcal-post --report
# waits). Never fails on the figures.
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-7}
HANDOVERS=${2:-100000}
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
JAVA="$JAVA_HOME/bin/java"
BUILD=${BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -f "$BUILD/bench.stamp" ] || {
	echo "monitor-cost.sh: build first: make bench" >&2
	exit 1
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR) print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# one MODE MONITORS CLASS ARGS...: one run; appends wall and cpu ms to
# $tmp/MODE-MONITORS.{wall,cpu}
one() {
	mode=$1 mon=$2
	shift 2
	"$JAVA" "-agentpath:$BUILD/libjcal.so=trace,quiet,mode=$mode,monitors=$mon,out=$tmp/$mode-$mon.bin" \
		-cp "$BUILD/bench" "$@" >"$tmp/out" 2>"$tmp/err" || {
		cat "$tmp/err" >&2
		exit 1
	}
	sed -n 's/.*wall_ms=\([0-9.]*\).*/\1/p' "$tmp/out" >>"$tmp/$mode-$mon.wall"
	sed -n 's/.*cpu_ms=\([0-9.]*\).*/\1/p' "$tmp/out" >>"$tmp/$mode-$mon.cpu"
}

# workload CLASS ARGS...: the table of one workload
workload() {
	echo "$* - $RUNS runs each, medians; $("$JAVA" -version 2>&1 | head -1)"
	printf '%-7s %-9s %10s %10s %8s\n' mode monitors wall_ms cpu_ms waits
	for mode in bci events; do
		rm -f "$tmp"/*.wall "$tmp"/*.cpu
		for _ in $(seq "$RUNS"); do
			one "$mode" off "$@"
			one "$mode" on "$@"
		done
		waits=$("$BUILD/jcal-post" "$tmp/$mode-on.bin" --report waits --format csv 2>/dev/null |
			awk -F, 'NR > 1 && $2 !~ /^java\.lang\.Thread\.join/ { n += $4 } END { print n + 0 }')
		for m in off on; do
			printf '%-7s %-9s %10s %10s %8s\n' "$mode" "$m" "$(median <"$tmp/$mode-$m.wall")" \
				"$(median <"$tmp/$mode-$m.cpu")" "$([ $m = on ] && echo "$waits" || echo -)"
		done
		awk -v w="$(median <"$tmp/$mode-on.wall")" -v w0="$(median <"$tmp/$mode-off.wall")" \
			-v c="$(median <"$tmp/$mode-on.cpu")" -v c0="$(median <"$tmp/$mode-off.cpu")" \
			-v n="$waits" 'BEGIN { if (n) printf "%-7s on less off, per wait: wall %+.0f ns, cpu %+.0f ns\n", "", (w - w0) * 1e6 / n, (c - c0) * 1e6 / n }'
	done
}

workload jcalbench.PingPong "$HANDOVERS"
workload jcalbench.Contention 2000000 4
