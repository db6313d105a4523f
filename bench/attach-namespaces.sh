#!/bin/bash
# attach-namespaces.sh [RUNS] - how long jcal takes to reach a JVM that does
# not share its files: none (the same /tmp), a private /tmp (unshare --mount
# and a tmpfs, as systemd's PrivateTmp=) and a container (unshare --mount
# --pid --fork --mount-proc: its own /tmp, the JVM pid 1 there), on each JDK
# named in JDKS (default: the JDK 17 of the build and Temurin 25 under
# /usr/lib/jvm). Per JDK and setting it starts jcaltest.work.Hold twice:
# on the first it times the first `jcal start -o FILE` (the trigger file,
# SIGQUIT, the attach listener starting, the load of libjcal.so and the
# retransformation of the loaded classes), then `jcal status` (the listener
# up) and `jcal stop` (with the copy of a staged file, docs/live-profiling.md,
# "Namespaces, containers and other users"); on the second, the JDK's own
# `jcmd PID VM.version` as the first attach. Prints the median of RUNS in
# seconds (docs/performance.md, "Attaching in namespaces"). Needs root
# (unshare); never fails on the figures.
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-5}
[ -x build/jcal ] && [ -f build/javatests.stamp ] || {
	echo "attach-namespaces.sh: build first: make all build/javatests.stamp" >&2
	exit 1
}
JDKS=${JDKS:-"$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")") /usr/lib/jvm/temurin-25-jdk-amd64"}
# the go files and outputs: outside /tmp, which the namespaces replace
work=$(mktemp -d "$(pwd)/build/attach-ns.XXXXXX")
trap 'rm -rf "$work"' EXIT
median() { sort -n | awk '{a[NR] = $1} END {if (NR == 0) print "-"; else printf "%.2f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN {printf "%.3f\n", b - a}'; }

# Starts Hold behind the unshare of setting $1 with java $2; prints the JVM's pid.
start_hold() {
	local go=$work/go.$RANDOM$RANDOM java=$2
	case $1 in
	none) set -- "$java" ;;
	private-tmp) set -- unshare --mount sh -c 'mount -t tmpfs tmpfs /tmp && exec "$0" "$@"' "$java" ;;
	container) set -- unshare --mount --pid --fork --mount-proc sh -c 'mount -t tmpfs tmpfs /tmp && exec "$0" "$@"' "$java" ;;
	esac
	"$@" -cp build/javatests jcaltest.work.Hold "$go" >"$go.out" 2>&1 &
	local top=$! pid=
	for _ in $(seq 200); do
		grep -q holding "$go.out" 2>/dev/null && break
		sleep 0.05
	done
	pid=$top
	[ "$(readlink /proc/$top/exe)" = "$(readlink -f "$java")" ] || pid=$(pgrep -P "$top" | head -1)
	echo "$pid $go"
}

printf '%-40s %-12s %8s %8s %8s %8s\n' JDK setting start status stop jcmd
for jdk in $JDKS; do
	for setting in none private-tmp container; do
		: >"$work/t.start" >"$work/t.status" >"$work/t.stop" >"$work/t.jcmd"
		for run in $(seq "$RUNS"); do
			read -r pid go < <(start_hold "$setting" "$jdk/bin/java")
			t=$(now)
			build/jcal start "$pid" -o "$work/r$run.bin" >/dev/null && since "$t" >>"$work/t.start"
			t=$(now)
			build/jcal status "$pid" >/dev/null && since "$t" >>"$work/t.status"
			t=$(now)
			build/jcal stop "$pid" >/dev/null && since "$t" >>"$work/t.stop"
			touch "$go"
			read -r pid go < <(start_hold "$setting" "$jdk/bin/java")
			t=$(now)
			"$jdk/bin/jcmd" "$pid" VM.version >/dev/null 2>&1 && since "$t" >>"$work/t.jcmd"
			touch "$go"
			wait
		done
		printf '%-40s %-12s %8s %8s %8s %8s\n' "$jdk" "$setting" "$(median <"$work/t.start")" \
			"$(median <"$work/t.status")" "$(median <"$work/t.stop")" "$(median <"$work/t.jcmd")"
	done
done
