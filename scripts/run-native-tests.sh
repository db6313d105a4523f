#!/bin/sh
# run-native-tests.sh DIR - runs every test binary in DIR; prints each
# suite's result and a closing "native: N passed, N failed, N skipped"
# line (a suite may end its own line with ", N skipped": its SKIP lines
# are printed). A binary whose native-tests/test-*.c is gone (a test
# renamed or removed since DIR was built) is left out, with a note.
dir=${1:-build/tests}
src=$(dirname "$0")/../native-tests
passed=0
failed=0
skipped=0
for t in "$dir"/test-*; do
	[ -x "$t" ] || continue
	if [ ! -f "$src/$(basename "$t").c" ]; then
		echo "note: $t has no native-tests/$(basename "$t").c (renamed or removed): not run"
		continue
	fi
	out=$("$t" 2>&1)
	rc=$?
	line=$(printf '%s\n' "$out" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	p=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9][0-9]*\) passed.*/\1/p')
	f=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p')
	sk=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9][0-9]*\) skipped.*/\1/p')
	if [ -z "$p" ]; then
		# Crashed before its summary: count the whole binary as one failure.
		p=0
		f=1
	elif [ $rc -ne 0 ] && [ "$f" = 0 ]; then
		f=1
	fi
	if [ "$f" != 0 ]; then
		printf '%s\n' "$out" | grep -v '^ok ' >&2
		echo "FAIL $(basename "$t") (exit $rc)"
	else
		printf '%s\n' "$out" | grep '^SKIP'
		note=""
		[ "${sk:-0}" = 0 ] || note=", $sk skipped"
		echo "ok   $(basename "$t"): $p tests$note"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + ${sk:-0}))
done
echo "native: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
