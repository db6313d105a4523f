#!/bin/sh
# jars.sh BUILD [sample|long] - real class files through the bci rewriter:
# every class of a set of Debian jars is rewritten by BUILD/jcal-bci-rewrite
# and linked under -Xverify:all by bcicheck.JarCheck, unmodified and
# rewritten, without initialising it (harness/bcicheck/JarCheck.java says
# what counts as failed). Sets: xalan; fop with batik, xmlgraphics-commons,
# fontbox, commons-io and commons-logging; h2; groovy. Then class files of
# version 69: the project's own Java sources compiled by Temurin 25 (when
# installed), checked on that JDK.
#
#   sample  (make test) every 40th class of each set on JDK 17, and the bci
#           test classes compiled by JDK 25: a few hundred classes
#   long    (make test-long) every class on JDK 17, again on JDK 25, and the
#           project's sources compiled by JDK 25
#
# Prints per set the classes rewritten / unchanged / refused by the rewriter
# / unloadable also unmodified / failed, the methods the rewriter skipped by
# reason, and ends with "bci-jars: N passed, N failed, N skipped" (one check
# per set and JDK). A jar that is not installed is a visible SKIP.
#
# Native methods get their wrappers as in the agent (jcal-bci-rewrite -p,
# agent/bci/bci_native.h); the jansi set, every class in both modes, has
# them (jansi, jansi-native and hawtjni-runtime, installed with groovy).
set -u
cd "$(dirname "$0")/../.."
build=${1:-build}
mode=${2:-sample}
jh=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
jh25=${JCAL_JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}
tool=$build/jcal-bci-rewrite
work=$build/bci-jars
J=/usr/share/java
passed=0
failed=0
skipped=0
case $mode in
sample) every=40 ;;
long) every=1 ;;
*)
	echo "usage: jars.sh BUILD [sample|long]" >&2
	exit 2
	;;
esac

rm -rf "$work"
mkdir -p "$work/harness"
if ! "$jh/bin/javac" --release 17 -d "$work/harness" $(find native-tests/bci/harness -name '*.java'); then
	echo "bci-jars: 0 passed, 1 failed"
	exit 1
fi

# count NAME PASSED FAILED: adds one set's result line to the totals.
count() {
	line=$(grep -E '^bci-jars: [0-9]+ passed' "$1" | tail -n 1)
	p=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9][0-9]*\) passed.*/\1/p')
	f=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p')
	[ -n "$p" ] || { p=0; f=1; echo "FAIL: no result from JarCheck"; }
	passed=$((passed + p))
	failed=$((failed + f))
}

# rewrite NAME FILES: rewrites the classes listed in FILES into
# $work/NAME/rw; prints the methods skipped, by reason.
rewrite() {
	d=$work/$1
	"$tool" -p 'jcal$' -d "$d/rw" -l "$d/list.txt" -f "$2" >"$d/tool.txt" 2>"$d/notes.txt"
	sed 's/^/  /' "$d/tool.txt"
	grep ': skipped: ' "$d/notes.txt" | sed 's/.*: skipped: //; s/[0-9][0-9]*/N/g' |
		sort | uniq -c | sort -rn | sed 's/^ */  skipped methods: /'
	n=$(grep -c 'no catch-all handler' "$d/notes.txt")
	[ "$n" = 0 ] || echo "  constructors without the catch-all handler: $n"
}

# check NAME JDK LABEL CLASSPATH: links the rewritten classes of NAME on JDK.
check() {
	d=$work/$1
	"$2/bin/java" -Xverify:all -Xshare:off -cp "$work/harness" bcicheck.JarCheck "$3" \
		"$d/list.txt" "$d/rw" "$4" >"$d/check-$3.txt" 2>&1
	grep -v '^bci-jars:' "$d/check-$3.txt" | sed 's/^/  /'
	count "$d/check-$3.txt"
}

# jarset NAME "JARS TO REWRITE" "OTHER JARS" [EVERY]: one set of Debian
# jars, every EVERY-th class (default: the mode's).
jarset() {
	name=$1 jars=$2 deps=$3 nth=${4:-$every}
	d=$work/$name
	echo "== bci-jars $name"
	for j in $jars; do
		if [ ! -f "$J/$j" ]; then
			echo "SKIP $name: $J/$j not installed (scripts/install-deps.sh --tests)"
			skipped=$((skipped + 1))
			return
		fi
	done
	mkdir -p "$d/x"
	cp=""
	for j in $jars; do
		mkdir -p "$d/x/$j"
		unzip -q -o "$J/$j" '*.class' -d "$d/x/$j"
		cp="$cp:$J/$j"
	done
	for j in $deps; do
		[ -f "$J/$j" ] && cp="$cp:$J/$j"
	done
	# not the versioned copies of multi-release jars, nor module-info
	find "$d/x" -name '*.class' ! -path '*/META-INF/*' ! -name module-info.class | sort |
		awk -v e="$nth" 'NR % e == 0' >"$d/files.txt"
	rewrite "$name" "$d/files.txt"
	check "$name" "$jh" jdk17 "$cp"
	if [ "$mode" = long ]; then
		if [ -x "$jh25/bin/java" ]; then
			check "$name" "$jh25" jdk25 "$cp"
		else
			echo "SKIP $name on jdk25: $jh25 not installed"
			skipped=$((skipped + 1))
		fi
	fi
}

# The project's own sources compiled by JDK 25 (class version 69).
jdk25set() {
	echo "== bci-jars jdk25-classes"
	if [ ! -x "$jh25/bin/javac" ]; then
		echo "SKIP jdk25-classes: $jh25 not installed"
		skipped=$((skipped + 1))
		return
	fi
	d=$work/jdk25
	mkdir -p "$d/orig" "$d/gen/bcitest"
	native-tests/bci/gen-big.sh "$d/gen/bcitest/Big.java" || exit 1
	srcs="$(find native-tests/bci/src -name '*.java') $d/gen/bcitest/Big.java"
	if [ "$mode" = long ]; then
		srcs="$srcs $(find agent/java javatests/src bench/java calibrator/java -name '*.java')"
	fi
	# shellcheck disable=SC2086
	if ! "$jh25/bin/javac" -nowarn -d "$d/orig" $srcs >"$d/javac.txt" 2>&1; then
		cat "$d/javac.txt"
		echo "FAIL jdk25-classes: javac failed"
		failed=$((failed + 1))
		return
	fi
	find "$d/orig" -name '*.class' | sort >"$d/files.txt"
	rewrite jdk25 "$d/files.txt"
	check jdk25 "$jh25" jdk25-v69 "$d/orig"
}

jarset xalan "xalan2.jar" "serializer.jar xercesImpl.jar xml-apis.jar"
jarset fop "fop.jar batik-all.jar xmlgraphics-commons.jar fontbox2.jar commons-io.jar commons-logging.jar" \
	"qdox.jar xalan2.jar serializer.jar xercesImpl.jar xml-apis.jar xml-apis-ext.jar"
jarset h2 "h2.jar" "slf4j-api.jar"
jarset groovy "groovy.jar" "antlr.jar asm.jar commons-cli.jar xstream.jar ivy.jar junit4.jar qdox.jar"
jarset jansi "jansi.jar jansi-native.jar hawtjni-runtime.jar" "" 1
jdk25set
echo "bci-jars: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
