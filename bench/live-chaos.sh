#!/bin/bash
# live-chaos.sh [MINUTES] - three `jcal` launchers drive one busy JVM at
# random for MINUTES (default 30): each picks start (trace or tree output,
# now and then with duration= or maxsize=), stop, dump or status, one after
# the other with no pause, all against the same agent. The JVM runs
# jcalbench.Soak (classes loaded and unloaded, threads started and ended,
# methods called all along), started without an agent: the first start
# attaches. At the end every file the recordings and dumps produced is read
# with `jcal-post --report summary`; the script prints how many commands of
# each kind ran and with which exit codes, and how many files read clean,
# with a warning, or not at all (each of the last named with jcal-post's
# message). It exits 1 when a file does not read or the JVM died: a
# correctness run, like make test's, only too long for it. The figures of a
# run are in the closing notes of the work that asked for it; docs/live-
# profiling.md says what the agent guarantees under concurrent commands.
#
# BUILD (default build) holds jcal, jcal-post, libjcal.so and the bench
# classes (make all build/bench.stamp). KEEP=1 keeps the files.
set -u
cd "$(dirname "$0")/.."
MINUTES=${1:-30}
SECS=$(awk -v m="$MINUTES" 'BEGIN {printf "%d", m * 60}')
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
BUILD=${BUILD:-build}
JCAL=$BUILD/jcal
POST=$BUILD/jcal-post
dir=$(mktemp -d /tmp/jcal-chaos-XXXXXX)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	[ "${KEEP:-0}" = 1 ] && echo "files kept in $dir" || rm -rf "$dir"
}
trap cleanup EXIT
for f in "$JCAL" "$POST" "$BUILD/libjcal.so" "$BUILD/bench/jcalbench/Soak.class"; do
	[ -e "$f" ] || { echo "live-chaos: $f missing (make all $BUILD/bench.stamp)" >&2; exit 1; }
done

# The busy JVM: a little longer than the run, so that it is still there
# for the final stop.
"$JAVA_HOME/bin/java" -Xmx256m -XX:+EnableDynamicAgentLoading -cp "$BUILD/bench" jcalbench.Soak \
	$((SECS + 120)) >"$dir/jvm.out" 2>"$dir/jvm.err" &
pid=$!
sleep 2

# launcher N: random commands until the deadline; one line per command
# ("command exit") in $dir/log-N.
launcher() {
	local n=$1 end=$(($(date +%s) + SECS)) k=0 opts rc
	RANDOM=$((n * 7919 + $$))
	while [ "$(date +%s)" -lt $end ]; do
		k=$((k + 1))
		case $((RANDOM % 8)) in
		0 | 1 | 2)
			opts="output=trace"
			[ $((RANDOM % 2)) = 0 ] && opts="output=tree"
			[ $((RANDOM % 5)) = 0 ] && opts="$opts,duration=$((1 + RANDOM % 3))s"
			[ $((RANDOM % 7)) = 0 ] && [ "${opts#output=trace}" != "$opts" ] && opts="$opts,maxsize=$((1 + RANDOM % 20))M"
			timeout 60 "$JCAL" start "$pid" -o "$dir/rec-$n-$k.bin" "$opts" >/dev/null 2>>"$dir/err-$n"
			rc=$?
			echo "start $rc" >>"$dir/log-$n"
			;;
		3 | 4)
			timeout 60 "$JCAL" stop "$pid" >/dev/null 2>>"$dir/err-$n"
			rc=$?
			echo "stop $rc" >>"$dir/log-$n"
			;;
		5 | 6)
			timeout 60 "$JCAL" dump "$pid" -o "$dir/dump-$n-$k.bin" >/dev/null 2>>"$dir/err-$n"
			rc=$?
			echo "dump $rc" >>"$dir/log-$n"
			;;
		7)
			timeout 60 "$JCAL" status "$pid" >/dev/null 2>>"$dir/err-$n"
			rc=$?
			echo "status $rc" >>"$dir/log-$n"
			;;
		esac
		kill -0 "$pid" 2>/dev/null || return
	done
}

echo "live-chaos: JVM $pid, three launchers for $MINUTES min, files in $dir"
launcher 1 &
l1=$!
launcher 2 &
l2=$!
launcher 3 &
l3=$!
wait $l1 $l2 $l3
alive=1
kill -0 "$pid" 2>/dev/null || alive=0
[ $alive = 1 ] && timeout 60 "$JCAL" stop "$pid" >/dev/null 2>&1
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
pid=

echo "commands (exit code: count):"
cat "$dir"/log-* | sort | uniq -c | awk '{printf "  %-7s exit %-3s %6d\n", $2, $3, $1}'
clean=0 warned=0 bad=0 files=0
for f in "$dir"/rec-*.bin "$dir"/dump-*.bin "$dir"/rec-*.bin.part "$dir"/dump-*.part; do
	[ -e "$f" ] || continue
	files=$((files + 1))
	case $f in
	*.part)
		bad=$((bad + 1))
		echo "  left under a temporary name: $f"
		continue
		;;
	esac
	"$POST" "$f" --raw --report summary >/dev/null 2>"$dir/post.err"
	rc=$?
	if [ $rc != 0 ]; then
		bad=$((bad + 1))
		echo "  does not read: $(basename "$f"): $(head -n 1 "$dir/post.err")"
	elif grep -q 'warning' "$dir/post.err"; then
		warned=$((warned + 1))
		grep -q 'no END record' "$dir/post.err" ||
			echo "  warning: $(basename "$f"): $(grep -m 1 warning "$dir/post.err")"
	else
		clean=$((clean + 1))
	fi
done
echo "disk used by the files: $(du -sh "$dir" | cut -f1)"
echo "files: $files, read clean $clean, with a warning $warned, not read $bad"
echo "JVM alive at the end: $([ $alive = 1 ] && echo yes || echo NO: $(tail -n 3 "$dir/jvm.err"))"
[ $bad = 0 ] && [ $alive = 1 ]
