#!/bin/sh
# find-jdk21.sh [MIN] - prints the home of a JDK >= MIN (default 21:
# $JAVA21_HOME when it is one, else the newest under /usr/lib/jvm), or
# nothing when there is none.
min=${1:-21}
check() {
	[ -x "$1/bin/javac" ] || return 1
	v=$("$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
	[ -n "$v" ] && [ "${v%%.*}" -ge "$min" ] 2>/dev/null
}
if [ -n "${JAVA21_HOME:-}" ] && check "$JAVA21_HOME"; then
	echo "$JAVA21_HOME"
	exit 0
fi
for d in $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -r); do
	d=${d%/}
	[ -L "$d" ] && continue
	if check "$d"; then
		echo "$d"
		exit 0
	fi
done
