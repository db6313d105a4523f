#!/bin/sh
# run-all-tests.sh - the body of `make test`: native tests (plain, under
# ASan+UBSan, and those that run threads under TSan), then the Java
# end-to-end and stress tests (the end-to-end ones also on a JDK >= 21
# when there is one), then checks with
# outside tools and the ASan-built agent, and that make lint's include
# check fails on an include cycle; ends with one line
# "N passed, N failed" over all of them.
set -u
cd "$(dirname "$0")/.."
total_p=0
total_f=0
total_s=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run_suite() {
	name=$1
	shift
	echo "== $name"
	"$@" 2>&1 | tee "$log"
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	p=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9][0-9]*\) passed.*/\1/p')
	f=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p')
	sk=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9][0-9]*\) skipped.*/\1/p')
	[ -n "$p" ] || { p=0; f=1; echo "$name: no summary line (crashed?)"; }
	total_p=$((total_p + p))
	total_f=$((total_f + f))
	total_s=$((total_s + ${sk:-0}))
}

run_suite native scripts/run-native-tests.sh build/tests
run_suite native-asan env ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	scripts/run-native-tests.sh build/asan/tests
run_suite native-tsan env TSAN_OPTIONS=halt_on_error=1 scripts/run-native-tests.sh build/tsan/tests
run_suite java javatests/run.sh
# The end-to-end tests again on the JDK >= 21 the virtual-thread tests use,
# when there is one: the event path differs there (JVMTI 21, carriers;
# Object.wait goes through wait0, which WaitTests looks past).
if [ -f build/javatests21/JAVA_HOME ]; then
	run_suite java-jdk21 env JAVA_HOME="$(cat build/javatests21/JAVA_HOME)" SUITES="Runner Live LaterStart WaitTests" javatests/run.sh
else
	echo "== java-jdk21"
	echo "SKIP: no JDK >= 21 found (set JAVA21_HOME): the end-to-end tests ran on $JAVA_HOME only"
	total_s=$((total_s + 1))
fi
# mode=bci: rewritten classes under -Xverify:all with exact probe counts.
run_suite bci native-tests/bci/run.sh build
# ... and a sample of the classes of real jars (all of them: make test-long).
run_suite bci-jars native-tests/bci/jars.sh build sample
# make install into a temporary DESTDIR; the installed copies on xalan.
run_suite install javatests/install-check.sh build

# Checks with outside tools: one test each, SKIP when the tool is missing;
# the smoke check of bench/shape.sh's arithmetic; and make lint's include
# check failing on deliberate include cycles (native-tests/lint/).
echo "== tools"
for check in "scripts/check-exports.sh build/libjcal.so" \
	"javatests/html-check.sh build/jcal-post" "javatests/html-diff-check.sh build/jcal-post" \
	"javatests/pprof-check.sh build" \
	"javatests/asan-check.sh build/asan/libjcal.so build/jcal-post build/javatests" \
	bench/shape-check.sh native-tests/lint/run.sh; do
	out=$($check 2>&1)
	rc=$?
	printf '%s\n' "$out" | tail -n 3
	if printf '%s\n' "$out" | grep -q '^SKIP'; then
		total_s=$((total_s + 1))
	elif [ $rc = 0 ]; then
		total_p=$((total_p + 1))
	else
		total_f=$((total_f + 1))
	fi
done
echo
echo "$total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" = 0 ]
