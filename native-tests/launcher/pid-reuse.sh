#!/bin/sh
# pid-reuse.sh JAVA CLASSES JCAL LIB DIR - jcal record of a JVM whose pid
# is taken by another process while jcal waits: run as pid 1 of a new pid
# namespace (unshare --pid --fork --mount-proc, as root), where no other
# process takes pids, so that writing /proc/sys/kernel/ns_last_pid gives
# the JVM's pid to the next process. jcal is stopped (SIGSTOP) while the
# JVM ends and `sleep` (which does not catch SIGQUIT) gets its pid, so
# that jcal's next status request finds the impostor, whatever the timing.
# (A shell starts background commands with SIGQUIT ignored: env gives it
# back its default action, which ends the process.)
# Prints "record rc=N", "impostor: alive" or "impostor: died rc=N", and
# jcal's stderr after "stderr:"; or one line "SKIP: ..." when the pid could
# not be reused. Run by jcaltest.LauncherSafety.
set -u
java=$1 classes=$2 jcal=$3 lib=$4 dir=$5

# Waits (up to 30 s) until file contains text.
wait_for() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 300 ] && { echo "FAIL: no '$2' in $1: $(cat "$1")"; exit 1; }
		sleep 0.1
	done
}

"$java" -cp "$classes" jcaltest.work.Hold "$dir/go" >"$dir/jvm.out" 2>&1 &
jvm=$!
wait_for "$dir/jvm.out" holding
"$jcal" record "$jvm" -d 1 --lib "$lib" >"$dir/rec.out" 2>"$dir/rec.err" &
rec=$!
wait_for "$dir/rec.out" started
kill -STOP $rec
touch "$dir/go"
wait $jvm
echo $((jvm - 1)) >/proc/sys/kernel/ns_last_pid || {
	echo "SKIP: cannot write /proc/sys/kernel/ns_last_pid"
	kill -CONT $rec
	wait $rec
	exit 0
}
env --default-signal=QUIT sleep 300 &
imp=$!
if [ "$imp" != "$jvm" ]; then
	echo "SKIP: the JVM's pid $jvm went to no new process (got $imp)"
	kill $imp
	kill -CONT $rec
	wait $rec
	exit 0
fi
kill -CONT $rec
wait $rec
echo "record rc=$?"
# Still alive, it ends of this SIGTERM (143); dead of SIGQUIT, it was 131.
kill -TERM $imp 2>/dev/null
wait $imp
rc=$?
if [ $rc = 143 ]; then
	echo "impostor: alive"
else
	echo "impostor: died rc=$rc"
fi
echo "stderr:"
cat "$dir/rec.err"
