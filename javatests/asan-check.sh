#!/bin/sh
# asan-check.sh AGENT JCAL_POST CLASSES - a short Java run with libjcal.so
# built with ASan+UBSan (make asan-agent): the ASan runtime is preloaded
# into the JVM, which must exit 0 with no sanitizer report, and the trace
# must hold the workloads' exact call counts. One check for
# scripts/run-all-tests.sh: prints "ok ..." or "FAIL ..." last, exit 0/1.
set -u
agent=$(readlink -f "${1:-build/asan/libjcal.so}")
post=${2:-build/jcal-post}
classes=${3:-build/javatests}
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
asan=$(gcc -print-file-name=libasan.so)
[ -f "$agent" ] || { echo "FAIL asan-agent: $agent not built (make asan-agent)"; exit 1; }
[ -f "$asan" ] || { echo "FAIL asan-agent: no ASan runtime from gcc -print-file-name"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
W=jcaltest.work
fail=0

# flat_calls TRACE METHOD: calls of METHOD in the flat CSV report.
flat_calls() {
	"$post" "$1" --report flat --format csv 2>/dev/null | awk -F, -v m="$2" '$1 == m { print $2 }'
}

# run NAME CLASS EXPECT...: EXPECT is METHOD=CALLS. OPTS: more agent options.
OPTS=
run() {
	name=$1 cls=$2
	shift 2
	# handle_segv=0: HotSpot uses SIGSEGV itself (implicit null checks,
	# safepoint polls); detect_leaks=0: the JVM never frees at exit.
	LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0:handle_segv=0:abort_on_error=0:exitcode=86 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$JAVA_HOME/bin/java" "-agentpath:$agent=trace,quiet,metric=tsc$OPTS,out=$tmp/$name.bin" \
		-cp "$classes" "$W.$cls" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	if [ $rc != 0 ] || grep -qE 'AddressSanitizer|runtime error|LeakSanitizer' "$tmp/$name.err"; then
		echo "$name: JVM exit $rc with the ASan agent:"
		head -n 40 "$tmp/$name.err"
		fail=1
		return
	fi
	for e in "$@"; do
		got=$(flat_calls "$tmp/$name.bin" "$W.${e%=*}")
		if [ "$got" != "${e#*=}" ]; then
			echo "$name: $W.${e%=*}: ${e#*=} calls expected, got '${got}'"
			fail=1
		fi
	done
}

run basic Basic Basic.main=1 Basic.a=3 Basic.b=6 Basic.leaf=12
run threads Threads Threads.step=4 Threads.leaf=1000 'Threads$Worker.run=4'
run exceptions Exceptions Exceptions.thrower=5 Exceptions.after=5
# the monitor events' callbacks: 5 contended enters of a Contend$Lock in take
run contend Contend Contend.take=5 Contend.pause=1
got=$("$post" "$tmp/contend.bin" --report waits --format csv 2>/dev/null |
	awk -F, '$1 == "monitor" && $3 == "jcaltest.work.Contend$Lock" { n += $4 } END { print n + 0 }')
if [ "$got" != 5 ]; then
	echo "contend: 5 contended enters of jcaltest.work.Contend\$Lock expected, got '$got'"
	fail=1
fi
# the trees with slow= (each call's callees kept, folded often), beside the trace
OPTS=,output=both,slow=15ms:1000,maxcontexts=1000
run slow Latency Latency.request=100 Latency.nap=13
OPTS=
got=$("$post" "$tmp/slow.bin.tree" --report slow --include "$W.Latency.nap" --top 100 --format csv 2>/dev/null |
	awk -F, -v m="$W.Latency.nap" '$2 == m { n++ } END { print n + 0 }')
if [ "$got" != 13 ]; then
	echo "slow: the 13 naps of jcaltest.work.Latency among the calls kept expected, got '$got'"
	fail=1
fi
if [ $fail = 0 ]; then
	echo "ok   asan-agent: Basic, Threads, Exceptions, Contend, Latency with slow= under libjcal.so built with ASan+UBSan"
else
	echo "FAIL asan-agent"
fi
exit $fail
