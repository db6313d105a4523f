#!/bin/sh
# run.sh - `make lint`'s include check (scripts/check-includes.sh) fails on
# what it is there to catch, shown on the deliberate faults of this folder,
# and passes on the real tree:
#   cycle/    two headers that include each other
#   modules/  two modules whose .c files include each other's header (no
#             file includes itself through the others: only modules cycle)
#   rooms/    folder up/ includes down/ and down/ includes up/ through
#             different modules (only folders cycle)
#   paths/    an #include by a name that is not a path from the root
# None of these files is compiled, and the real tree's check does not see
# them (it takes agent/, calibrator/, common/ and postproc/ only).
# Prints a line per case and "lint-fixtures: N passed, N failed"; exit 1
# when a case failed. Part of make test (scripts/run-all-tests.sh, tools).
set -u
cd "$(dirname "$0")/../.." || exit 1
dir=native-tests/lint
passed=0
failed=0

# expect NAME STATUS PATTERN FILE...: check-includes.sh on FILE... exits
# with STATUS and prints a line matching the extended regex PATTERN.
expect() {
	name=$1
	want=$2
	pattern=$3
	shift 3
	out=$(scripts/check-includes.sh "$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && printf '%s\n' "$out" | grep -Eq -- "$pattern"; then
		echo "ok   $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name: exit $rc (expected $want), output:"
		printf '%s\n' "$out" | sed 's/^/    /'
		echo "    (expected a line matching: $pattern)"
		failed=$((failed + 1))
	fi
}

# A cycle may be printed from any of its nodes.
c=$dir/cycle
expect "a cycle of two headers fails" 1 \
	"cycle: ($c/a -> $c/b -> $c/a|$c/b -> $c/a -> $c/b)\$" \
	$c/a.h $c/b.h
m=$dir/modules
expect "a cycle between modules fails" 1 \
	"cycle: ($m/x -> $m/y -> $m/x|$m/y -> $m/x -> $m/y)\$" \
	$m/x.c $m/x.h $m/y.c $m/y.h
r=$dir/rooms
expect "a cycle between folders fails" 1 \
	"cycle: ($r/up -> $r/down -> $r/up|$r/down -> $r/up -> $r/down)\$" \
	$r/up/u.c $r/up/v.h $r/down/d.c $r/down/d.h
expect "the folders' cycle is not one between modules" 1 \
	'^ok   no include cycle between modules$' \
	$r/up/u.c $r/up/v.h $r/down/d.c $r/down/d.h
expect "an include not from the root fails" 1 \
	"$dir/paths/flat.c: #include \"flat.h\" is not a path from the repository root" \
	$dir/paths/flat.c $dir/paths/flat.h
expect "the real tree passes" 0 '^includes: 3 passed, 0 failed$'

echo "lint-fixtures: $passed passed, $failed failed"
[ "$failed" = 0 ]
