#!/bin/sh
# check.sh [NAME...] - the body of `make check [T=NAME]`: builds what one
# test needs and runs it, in seconds once the tree is built; installs no
# package and builds no sanitizer variant (make test does both).
#
#   (no NAME)            every native test, plain build
#   calltree             one native test binary: native-tests/test-calltree.c
#                        (test-calltree, test-calltree.c and a path work too)
#   calltree:test_rest_between_events
#                        one test function of it (test_ may be left out):
#                        RUN skips the others (JCAL_TEST_ONLY, native-tests/test.h)
#   SharedMachine        one Java suite: a class listed in jcaltest.Main
#   reattach             one Java test, run alone in its suite (the name its
#                        suite's tests() gives it: .add("reattach", ...))
#   Runner:reattach      the same, suite named
#
# Several names run one after the other. A name that is none of these is
# an error that says where it was looked for and which names come close;
# `scripts/check.sh --list` prints every name. Exit status: 0 when every
# test run passed.
#
# Environment: MAKE (the make to build with; the Makefile passes its own),
# BUILD (default build), JAVA_HOME (for the Java tests).
set -u
cd "$(dirname "$0")/.." || exit 1
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
export BUILD
JSRC=javatests/src/jcaltest

# The suites jcaltest.Main runs, one per line.
java_suites() {
	sed -n 's/.*new Suite("\([A-Za-z0-9_]*\)".*/\1/p' "$JSRC/Main.java"
}

# "Suite test" per line: the names each suite's tests() gives its tests.
java_tests() {
	for s in $(java_suites); do
		awk '/static (Runner\.)?Tests tests\(/ { on = 1 }
		     on { print }
		     on && /^\t}$/ { on = 0 }' "$JSRC/$s.java" |
			grep -oE '\.(add|addSkippable)\("[^"]+"' | sed "s/.*(\"//; s/\"\$//; s/^/$s /"
	done
}

native_tests() {
	for f in native-tests/test-*.c; do
		f=${f#native-tests/test-}
		echo "${f%.c}"
	done
}

list() {
	native_tests | sed 's/^/native  /'
	java_suites | sed 's/^/suite   /'
	java_tests | awk '{ printf "java    %s (%s)\n", $2, $1 }'
}

# The unit a native test name stands for, "" when there is no such file.
native_unit() {
	u=${1##*/}
	u=${u%.c}
	u=${u#test-}
	[ -n "$u" ] && [ -f "native-tests/test-$u.c" ] && echo "$u"
}

unknown() {
	{
		echo "check: no test named '$1'. Looked for:"
		if [ -n "${2:-}" ]; then
			echo "  a native test      native-tests/test-$2.c"
			echo "  a Java suite       new Suite(\"$2\", ...) in $JSRC/Main.java"
		else
			echo "  a native test      native-tests/test-$1.c"
			echo "  a Java suite       new Suite(\"$1\", ...) in $JSRC/Main.java"
			echo "  a Java test        .add(\"$1\", ...) in a suite's tests() in $JSRC/"
		fi
		near=$(list | grep -iF -- "${2:-$1}" | head -n 20)
		[ -n "$near" ] && printf 'Names that come close:\n%s\n' "$(printf '%s\n' "$near" | sed 's/^/  /')"
		echo "(scripts/check.sh --list prints every name)"
	} >&2
	exit 2
}

# Resolves NAME to one line "native UNIT [FUNCTION]" or "java SUITE [TEST]";
# exits with the error when it is nothing.
resolve() {
	name=$1
	case $name in
	*:*)
		left=${name%%:*}
		right=${name#*:}
		unit=$(native_unit "$left")
		if [ -n "$unit" ]; then
			fns=$right
			case $right in test_*) ;; *) fns="$right test_$right" ;; esac
			for fn in $fns; do
				if grep -q "^[[:space:]]*RUN($fn);" "native-tests/test-$unit.c"; then
					echo "native $unit $fn"
					return
				fi
			done
			echo "check: native-tests/test-$unit.c runs no test function $(echo "$fns" | sed 's/ / or /');" \
				"its tests: $(sed -n 's/^[[:space:]]*RUN(\(.*\));.*/\1/p' "native-tests/test-$unit.c" |
					tr '\n' ' ')" >&2
			exit 2
		fi
		if java_suites | grep -qx -- "$left"; then
			java_tests | grep -qx -- "$left $right" && { echo "java $left $right"; return; }
			echo "check: suite $left has no test $right; its tests:" \
				"$(java_tests | awk -v s="$left" '$1 == s { printf "%s ", $2 }')" >&2
			exit 2
		fi
		unknown "$name" "$left"
		;;
	esac
	unit=$(native_unit "$name")
	[ -n "$unit" ] && { echo "native $unit"; return; }
	java_suites | grep -qx -- "$name" && { echo "java $name"; return; }
	suite=$(java_tests | awk -v t="$name" '$2 == t { print $1; exit }')
	[ -n "$suite" ] && { echo "java $suite $name"; return; }
	unknown "$name"
}

if [ "${1:-}" = --list ]; then
	list
	exit 0
fi

# No name: every native test.
if [ $# = 0 ]; then
	$MAKE --no-print-directory "$BUILD/tests-all" || exit 1
	exec scripts/run-native-tests.sh "$BUILD/tests"
fi

# Every name resolved first: a typo fails before anything is built.
plan=$(for n in "$@"; do
	r=$(resolve "$n") || exit 2
	echo "$r"
done) || exit 2

targets=$(printf '%s\n' "$plan" | awk -v b="$BUILD" '$1 == "native" { print b "/tests/test-" $2 }' | sort -u)
printf '%s\n' "$plan" | grep -q '^java' && targets="$targets all"
# shellcheck disable=SC2086 # one target per word
$MAKE --no-print-directory $targets || exit 1

tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.rc" "$tmp.out"' EXIT
failed=0
ran=0
while read -r kind what only; do
	ran=$((ran + 1))
	if [ "$kind" = native ]; then
		echo "== native-tests/test-$what.c${only:+ ($only)}"
		if [ -z "$only" ]; then
			JCAL_TEST_ONLY='' "$BUILD/tests/test-$what"
			rc=$?
			[ "$rc" = 0 ] || failed=$((failed + 1))
			continue
		fi
		{
			JCAL_TEST_ONLY="$only" "$BUILD/tests/test-$what" 2>&1
			echo $? >"$tmp.rc"
		} | tee "$tmp.out"
		rc=$(cat "$tmp.rc")
		# A RUN under a condition main() did not meet runs nothing.
		if [ "$rc" = 0 ] && grep -q ' 0 passed, 0 failed' "$tmp.out"; then
			echo "check: $only did not run (main() of native-tests/test-$what.c runs it only under a condition)"
			rc=1
		elif [ "$rc" != 0 ]; then
			echo "check: $only failed alone; if it passes in the whole binary (make check" \
				"T=$what), it needs what an earlier test of it left behind"
		fi
	else
		echo "== jcaltest.$what${only:+ $only}"
		SUITES=$what javatests/run.sh ${only:+"$only"}
		rc=$?
	fi
	[ "$rc" = 0 ] || failed=$((failed + 1))
done <<EOF
$plan
EOF
[ "$ran" -gt 1 ] && echo "check: $((ran - failed)) of $ran passed"
[ "$failed" = 0 ]
