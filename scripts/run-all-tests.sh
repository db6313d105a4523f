#!/bin/sh
# run-all-tests.sh - the body of `make test`: native tests (plain and under
# ASan+UBSan), then the Java end-to-end tests; ends with one line
# "N passed, N failed" over all of them.
set -u
cd "$(dirname "$0")/.."
total_p=0
total_f=0
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
	[ -n "$p" ] || { p=0; f=1; echo "$name: no summary line (crashed?)"; }
	total_p=$((total_p + p))
	total_f=$((total_f + f))
}

run_suite native scripts/run-native-tests.sh build/tests
run_suite native-asan env ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	scripts/run-native-tests.sh build/asan/tests
run_suite java javatests/run.sh
echo
echo "$total_p passed, $total_f failed"
[ "$total_f" = 0 ]
