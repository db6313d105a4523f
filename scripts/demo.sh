#!/bin/sh
# demo.sh - the body of `make demo`: profile the bundled example
# (javatests/src/jcaldemo/Demo.java) and print its per-thread call tree
# and flat profile.
set -eu
cd "$(dirname "$0")/.."
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
out=build/demo
mkdir -p "$out"

echo "\$ java -agentpath:build/libjcal.so=trace,out=$out/demo.bin -cp build/javatests jcaldemo.Demo"
"$JAVA_HOME/bin/java" "-agentpath:build/libjcal.so=trace,out=$out/demo.bin" \
	-cp build/javatests jcaldemo.Demo
# Calibrate once per host/JVM/metric: reuse a table whose fingerprint
# matches, unless it predates the quantiles the default estimator uses.
check=$(build/jcal-post "$out/demo.bin" --report summary --format json 2>&1 || true)
why=
case $check in
*'"calib":null'*) why="no table for this host/JVM/metric yet" ;;
*'has no quantiles'*) why="the table predates the quantiles of --estimator cond" ;;
esac
if [ -n "$why" ]; then
	echo
	echo "\$ java -agentpath:build/libjcal.so=calibrate    # $why"
	"$JAVA_HOME/bin/java" -agentpath:build/libjcal.so=calibrate
fi
echo
echo "\$ build/jcal-post $out/demo.bin --report tree --thread parser-2 | head -n 40"
build/jcal-post "$out/demo.bin" --report tree --thread parser-2 | head -n 40
echo
echo "\$ build/jcal-post $out/demo.bin --report flat --thread parser-1 | head -n 16"
build/jcal-post "$out/demo.bin" --report flat --thread parser-1 | head -n 16
echo
echo "\$ build/jcal-post $out/demo.bin --report summary"
build/jcal-post "$out/demo.bin" --report summary
