#!/bin/sh
# run.sh [TEST...] - the Java tests (javatests/src) in one JVM: jcaltest.Main
# runs the suites (jcaltest.Runner's end-to-end tests, Stress, BciTests and
# the others listed in Main) against $BUILD/libjcal.so and $BUILD/jcal-post,
# counts them and ends with the line "java: N passed, N failed[, N skipped]".
# BUILD defaults to build; SUITES="Runner Stress" picks suites by class name;
# TEST names pick tests.
set -u
cd "$(dirname "$0")/.."
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
BUILD=${BUILD:-build}
exec "$JAVA_HOME/bin/java" -Djcal.build="$(pwd)/$BUILD" -Djcal.suites="${SUITES:-}" \
	-cp "$BUILD/javatests" jcaltest.Main "$BUILD/libjcal.so" "$BUILD/jcal-post" "$@"
