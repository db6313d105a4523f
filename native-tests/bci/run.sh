#!/bin/sh
# run.sh BUILD - the verifier tests of the bci rewriter: compiles the subject
# classes (src/, plus the generated Big.java) in several configurations,
# rewrites them with BUILD/jcal-bci-rewrite, and runs bcicheck.BciCheck under
# -Xverify:all, which loads the rewritten classes through their own class
# loader and compares results and probe counts with the originals.
# Native methods get the agent's wrappers (-p, agent/bci/bci_native.h).
# Configurations: JDK 17 javac (class version 61), --release 8 (52), method
# ids above 32767 (ldc_w probes), every other method only counted (-c, the
# probe of a throttled method) with small and large ids, every tiny method
# only counted (-t, tiny=count's probe), switchable probes (-i, invokedynamic
# call sites), and Temurin 25
# (69) when installed.
# Ends with "bci: N passed, N failed" over all configurations.
set -u
cd "$(dirname "$0")/../.."
build=${1:-build}
jh=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
jh25=${JCAL_JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}
tool=$build/jcal-bci-rewrite
base=$build/bci
passed=0
failed=0
all="Basics Switches Ctors Exceptions Lambdas Wide Big Modern Natives"
java8="Basics Switches Ctors Exceptions Lambdas Wide Big Natives"

mkdir -p "$base/gen/bcitest"
native-tests/bci/gen-big.sh "$base/gen/bcitest/Big.java" || exit 1

# config NAME JDK FIRST_ID "JAVAC OPTIONS" CLASSES [REWRITER OPTION]
config() {
	name=$1 jdk=$2 first=$3 opts=$4 classes=$5 ropt=${6:-}
	dir=$base/$name
	rm -rf "$dir"
	mkdir -p "$dir/orig" "$dir/rewritten" "$dir/harness"
	srcs=""
	for c in $classes; do
		if [ "$c" = Big ]; then
			srcs="$srcs $base/gen/bcitest/Big.java"
		else
			srcs="$srcs native-tests/bci/src/bcitest/$c.java"
		fi
	done
	names=""
	for c in $classes; do names="$names bcitest/$c"; done
	echo "== bci $name"
	# shellcheck disable=SC2086
	if ! "$jdk/bin/javac" $opts -d "$dir/orig" $srcs ||
		! "$jdk/bin/javac" -d "$dir/harness" $(find native-tests/bci/harness -name '*.java') ||
		! "$tool" $ropt -s "$first" -p 'jcal$' -m "$dir/map.txt" -d "$dir/rewritten" $(find "$dir/orig" -name '*.class') \
			>"$dir/tool.txt" 2>"$dir/notes.txt"; then
		echo "FAIL $name: build or rewrite failed"
		cat "$dir/notes.txt"
		failed=$((failed + 1))
		return
	fi
	sed 's/^/  /' "$dir/notes.txt"
	case " $ropt " in *" -i "*)
		if ! grep -Eq ', [1-9][0-9]* switchable' "$dir/tool.txt"; then
			echo "FAIL $name: no method got switchable probes: $(cat "$dir/tool.txt")"
			failed=$((failed + 1))
			return
		fi ;;
	esac
	# shellcheck disable=SC2086
	"$jdk/bin/java" -Xverify:all -Xshare:off -cp "$dir/harness" bcicheck.BciCheck \
		"$dir/map.txt" "$dir/orig" "$dir/rewritten" $names >"$dir/out.txt" 2>&1
	cat "$dir/out.txt"
	line=$(grep -E '^bci: [0-9]+ passed' "$dir/out.txt" | tail -n 1)
	p=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9][0-9]*\) passed.*/\1/p')
	f=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p')
	[ -n "$p" ] || { p=0; f=1; }
	passed=$((passed + p))
	failed=$((failed + f))
}

config jdk17 "$jh" 1 "" "$all"
config jdk17-bigids "$jh" 40000 "" "$all"
config release8 "$jh" 1 "--release 8" "$java8"
config jdk17-count "$jh" 1 "" "$all" -c
config release8-count-bigids "$jh" 40001 "--release 8" "$java8" -c
config jdk17-tiny "$jh" 1 "" "$all" -t
config jdk17-sites "$jh" 1 "" "$all" -i
config release8-sites-count-bigids "$jh" 40001 "--release 8" "$java8" "-i -c"
if [ -x "$jh25/bin/javac" ]; then
	config jdk25 "$jh25" 1 "" "$all"
	config jdk25-sites-tiny "$jh25" 1 "" "$all" "-i -t"
else
	echo "SKIP jdk25: $jh25 not installed"
fi
echo "bci: $passed passed, $failed failed"
[ "$failed" = 0 ]
