#!/bin/sh
# run.sh [TEST...] - the Java end-to-end tests (javatests/src): jcaltest.Runner,
# then the stress tests of jcaltest.Stress, the mode=bci tests of
# jcaltest.BciTests and the suites added after them (the default list below),
# against $BUILD/libjcal.so and $BUILD/jcal-post (BUILD
# defaults to build; SUITES picks some of them). Ends with one combined
# line "java: N passed, N failed[, N skipped]".
set -u
cd "$(dirname "$0")/.."
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
BUILD=${BUILD:-build}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
passed=0
failed=0
skipped=0
for main in ${SUITES:-Runner Stress BciTests OutputSafety CalibrationSafety PostSafety TraceIntegrity}; do
	[ -f "$BUILD/javatests/jcaltest/$main.class" ] || continue
	"$JAVA_HOME/bin/java" -Djcal.build="$(pwd)/$BUILD" -cp "$BUILD/javatests" "jcaltest.$main" \
		"$BUILD/libjcal.so" "$BUILD/jcal-post" "$@" 2>&1 | tee "$log"
	line=$(grep -E '^[a-z]+: [0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n 1)
	p=$(printf '%s\n' "$line" | sed -n 's/^[a-z]*: \([0-9][0-9]*\) passed.*/\1/p')
	f=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p')
	s=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9][0-9]*\) skipped$/\1/p')
	if [ -z "$p" ]; then
		echo "jcaltest.$main: no summary line (crashed?)"
		p=0
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + ${s:-0}))
done
if [ "$skipped" -gt 0 ]; then
	echo "java: $passed passed, $failed failed, $skipped skipped"
else
	echo "java: $passed passed, $failed failed"
fi
[ "$failed" = 0 ]
