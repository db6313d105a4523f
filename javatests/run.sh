#!/bin/sh
# run.sh [TEST...] - the Java end-to-end tests (javatests/src), against
# build/libjcal.so and build/jcal-post. Ends with "java: N passed, N failed".
set -eu
cd "$(dirname "$0")/.."
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
exec "$JAVA_HOME/bin/java" -Djcal.build="$(pwd)/build" -cp build/javatests jcaltest.Runner build/libjcal.so build/jcal-post "$@"
