#!/bin/sh
# lint.sh - the body of `make lint`: every C file the project keeps must be
# formatted by the repository's .clang-format, and pass a small clang-tidy
# set (bugprone checks, no function over 120 lines), and include only by
# paths from the repository root without cycles between modules or
# folders (scripts/check-includes.sh). Prints what is off and
# a closing "lint: N passed, N failed" line; exit 1 when anything failed.
#
# Usage: scripts/lint.sh [JAVA_HOME]
set -u
cd "$(dirname "$0")/.."
JAVA_HOME=${1:-${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}}
passed=0
failed=0

# Everything C that is ours: code, tests, benches, the JNI test library.
files=$(git ls-files '*.c' '*.h' | grep -v '^native-tests/fuzz/corpus/')

if ! command -v clang-format >/dev/null || ! command -v clang-tidy >/dev/null; then
	echo "lint: clang-format and clang-tidy are needed (scripts/install-deps.sh --tests installs them)"
	exit 1
fi

# 1. Layout.
bad=""
for f in $files; do
	clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad="$bad $f"
done
if [ -z "$bad" ]; then
	echo "ok   clang-format: $(echo "$files" | wc -w) files"
	passed=$((passed + 1))
else
	echo "FAIL clang-format: not formatted (run clang-format -i on them):$bad"
	failed=$((failed + 1))
fi

# 2. clang-tidy on the production code. The checks and why some bugprone
# ones are off are in .clang-tidy.
src=$(git ls-files 'agent/*.c' 'common/*.c' 'postproc/*.c' 'calibrator/*.c')
out=$(clang-tidy -quiet $src -- -std=c11 -D_GNU_SOURCE -I. \
	-I"$JAVA_HOME/include" -I"$JAVA_HOME/include/linux" 2>&1)
if printf '%s\n' "$out" | grep -q 'warning:\|error:'; then
	printf '%s\n' "$out" | grep -A3 'warning:\|error:'
	echo "FAIL clang-tidy: $(printf '%s\n' "$out" | grep -c 'warning:\|error:') findings"
	failed=$((failed + 1))
else
	echo "ok   clang-tidy: $(echo "$src" | wc -w) files"
	passed=$((passed + 1))
fi
# 3. Includes: paths from the repository root, no cycle between modules or
# folders (scripts/check-includes.sh).
if out=$(scripts/check-includes.sh); then
	echo "ok   includes: paths from the root, no cycles"
	passed=$((passed + 1))
else
	printf '%s\n' "$out" | grep -v '^includes:'
	echo "FAIL includes"
	failed=$((failed + 1))
fi
echo "lint: $passed passed, $failed failed"
[ "$failed" = 0 ]
