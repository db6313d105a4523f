#!/bin/sh
# install-check.sh - jcal as a user installs it: `make install` into a
# temporary DESTDIR, then the installed copies (never the build tree) run
# on a real program from Debian (xalan's command-line XSLT processor):
# trace in both modes, the calibration hint and the command it prints,
# calibrate, the launcher, the man pages; then `make uninstall` and
# `make deb`. Ends with "install: N passed, N failed, N skipped".
#
# usage: javatests/install-check.sh [BUILD]   (default build; run from anywhere)
set -u
cd "$(dirname "$0")/.."
build=${1:-build}
passed=0
failed=0
skipped=0
work=$(mktemp -d /tmp/jcal-install-XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
prefix=/opt/jcal-test
root=$work/root
bin=$root$prefix/bin
lib=$root$prefix/lib/jcal
java=${JAVA_HOME:+$JAVA_HOME/bin/}java

ok() {
	echo "ok   $1"
	passed=$((passed + 1))
}
fail() {
	echo "FAIL $1"
	shift
	for l in "$@"; do echo "     $l"; done
	failed=$((failed + 1))
}
skip() {
	echo "SKIP $1"
	skipped=$((skipped + 1))
}
# check NAME COMMAND...: ok when COMMAND succeeds, else FAIL with its output
check() {
	name=$1
	shift
	if out=$("$@" 2>&1); then ok "$name"; else fail "$name" "$(printf '%s\n' "$out" | tail -n 5)"; fi
}

# 1. make install puts every file where docs/install.md says.
if make --no-print-directory -s install BUILD="$build" PREFIX=$prefix DESTDIR="$root" \
	>"$work/install.log" 2>&1; then
	missing=""
	for f in bin/jcal-post bin/jcal lib/jcal/libjcal.so lib/jcal/jcal-agent.jar \
		lib/jcal/jcal-calibrator.jar share/man/man1/jcal-post.1 share/man/man1/jcal.1 \
		share/man/man7/libjcal.7 share/doc/jcal/README.md share/doc/jcal/docs/performance.md \
		share/doc/jcal/docs/history/performance.md; do
		[ -f "$root$prefix/$f" ] || missing="$missing $f"
	done
	if [ -z "$missing" ]; then ok "install-layout"; else fail "install-layout" "missing:$missing"; fi
else
	fail "install-layout" "$(tail -n 5 "$work/install.log")"
fi

# 2. Each man page renders without a warning.
if command -v man >/dev/null 2>&1; then
	for page in share/man/man1/jcal-post.1 share/man/man1/jcal.1 share/man/man7/libjcal.7; do
		w=$(MANWIDTH=80 man --warnings -l "$root$prefix/$page" 2>&1 >"$work/page.txt")
		if [ -z "$w" ] && grep -q "^NAME" "$work/page.txt" && grep -q "OPTIONS" "$work/page.txt"; then
			ok "man $(basename "$page")"
		else
			fail "man $(basename "$page")" "$w"
		fi
	done
	# The agent's page lists every option its help prints.
	"$java" -agentpath:"$lib/libjcal.so=help" -version 2>/dev/null |
		sed -n 's/^  \([a-z][a-z]*\)[= ].*/\1/p' | sort -u >"$work/help-keys"
	absent=""
	MANWIDTH=200 man -l "$root$prefix/share/man/man7/libjcal.7" 2>/dev/null >"$work/page7.txt"
	for k in $(cat "$work/help-keys"); do
		grep -Eq "^ +$k(=| |$)" "$work/page7.txt" || absent="$absent $k"
	done
	if [ -s "$work/help-keys" ] && [ -z "$absent" ]; then
		ok "man libjcal.7 has every option of help"
	else
		fail "man libjcal.7 has every option of help" "absent:$absent"
	fi
else
	skip "man pages: man is not installed (Debian package man-db)"
fi

# 3. The installed agent on a real program, both modes, exact counts.
xalan=/usr/share/java/xalan2.jar
if [ ! -f "$xalan" ]; then
	skip "real program: $xalan missing (Debian package libxalan2-java)"
else
	printf '<list><item n="1">a</item><item n="2">b</item><item n="3">c</item></list>\n' >"$work/in.xml"
	cat >"$work/t.xsl" <<'EOF'
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
<xsl:template match="/"><ul><xsl:for-each select="list/item"><li><xsl:value-of select="@n"/>=<xsl:value-of select="."/></li></xsl:for-each></ul></xsl:template>
</xsl:stylesheet>
EOF
	want='<li>1=a</li><li>2=b</li><li>3=c</li>'
	cal=$work/calib
	for mode in events bci; do
		t=$work/$mode.bin
		out=$(cd "$work" && JCAL_CALIB_DIR=$cal "$java" -agentpath:"$lib/libjcal.so=trace,mode=$mode,out=$t" \
			-cp "$xalan" org.apache.xalan.xslt.Process -IN in.xml -XSL t.xsl 2>"$work/err")
		calls=$(JCAL_CALIB_DIR=$cal "$bin/jcal-post" "$t" --report flat --format csv 2>/dev/null |
			grep '^org\.apache\.xalan\.xslt\.Process\.main,' | cut -d, -f2)
		jl=$(grep -c '^jcal: ' "$work/err")
		if printf '%s' "$out" | grep -q "$want" && [ "$calls" = 1 ] && [ "$jl" -le 2 ]; then
			ok "installed agent, mode=$mode, on xalan (Process.main 1 call, $jl jcal lines)"
		else
			fail "installed agent, mode=$mode, on xalan" "output: $out" "Process.main calls: '$calls'" \
				"$(cat "$work/err")"
		fi
	done
	# The hint names the installed agent and this trace's mode; run as
	# printed, it writes the table that makes the hint go away.
	hint=$(JCAL_CALIB_DIR=$cal "$bin/jcal-post" "$work/bci.bin" --report summary 2>&1 >/dev/null |
		sed -n 's/.*(calibrate with: \(.*\))$/\1/p')
	case "$hint" in
	*"$lib/libjcal.so=calibrate,mode=bci")
		# shellcheck disable=SC2086
		if (cd "$work" && JCAL_CALIB_DIR=$cal $hint >"$work/cal.log" 2>&1) &&
			! JCAL_CALIB_DIR=$cal "$bin/jcal-post" "$work/bci.bin" --report summary 2>&1 >/dev/null |
			grep -q "calibrate with"; then
			ok "bci hint, run as printed, calibrates (installed calibrate)"
		else
			fail "bci hint, run as printed, calibrates" "$hint" "$(tail -n 3 "$work/cal.log")"
		fi
		;;
	*) fail "bci hint names the installed agent and mode=bci" "hint: '$hint'" ;;
	esac
	# calibrate in mode=events with the installed copy.
	check "installed calibrate, mode=events" sh -c "cd '$work' && JCAL_CALIB_DIR='$cal' \
		'$java' -agentpath:'$lib/libjcal.so=calibrate' && ls '$cal'/calib-*.txt"
fi

# 4. The installed launcher finds the installed agent.
check "installed jcal --help and list" sh -c "'$bin/jcal' --help | grep -q 'jcal record' && '$bin/jcal' list"

# 5. make uninstall leaves nothing behind.
make --no-print-directory -s uninstall BUILD="$build" PREFIX=$prefix DESTDIR="$root" >/dev/null 2>&1
left=$(find "$root" -type f | sed "s|$root||")
if [ -z "$left" ]; then ok "uninstall removes every file"; else fail "uninstall removes every file" "$left"; fi

# 6. make deb: a package with the same files under /usr.
if command -v dpkg-deb >/dev/null 2>&1; then
	if make --no-print-directory -s deb BUILD="$build" >"$work/deb.log" 2>&1; then
		deb=$(ls "$build"/jcal_*.deb 2>/dev/null | tail -n 1)
		list=$(dpkg-deb -c "$deb" | awk '{print $6}')
		if dpkg-deb -f "$deb" Package | grep -qx jcal &&
			printf '%s\n' "$list" | grep -qx './usr/lib/jcal/libjcal.so' &&
			printf '%s\n' "$list" | grep -qx './usr/bin/jcal-post' &&
			printf '%s\n' "$list" | grep -qx './usr/share/man/man7/libjcal.7.gz'; then
			ok "make deb ($(basename "$deb"))"
		else
			fail "make deb" "$list"
		fi
	else
		fail "make deb" "$(tail -n 5 "$work/deb.log")"
	fi
else
	skip "make deb: dpkg-deb missing"
fi

# 6b. Under umask 000 too (a root shell with a careless umask): make deb
# still builds, and neither the package nor `make install` has a file or
# directory that others may write.
if [ -n "${deb:-}" ]; then
	rm -f "$deb"
	if (umask 000 && make --no-print-directory -s deb BUILD="$build") >"$work/deb0.log" 2>&1; then
		writable=$(dpkg-deb -c "$deb" | awk 'substr($1, 6, 1) == "w" || substr($1, 9, 1) == "w" {print $1, $6}')
		if [ -z "$writable" ]; then
			ok "make deb under umask 000: nothing group- or world-writable"
		else
			fail "make deb under umask 000: nothing group- or world-writable" "$writable"
		fi
	else
		fail "make deb under umask 000" "$(tail -n 5 "$work/deb0.log")"
	fi
	root0=$work/root0
	if (umask 000 && make --no-print-directory -s install PREFIX=$prefix DESTDIR="$root0" \
		BUILD="$build") >"$work/install0.log" 2>&1; then
		writable=$(find "$root0" -perm /022 | sed "s|$root0||")
		if [ -z "$writable" ]; then
			ok "make install under umask 000: nothing group- or world-writable"
		else
			fail "make install under umask 000: nothing group- or world-writable" "$writable"
		fi
	else
		fail "make install under umask 000" "$(tail -n 5 "$work/install0.log")"
	fi
fi

# 7. The package depends on the package of every shared library its
# programs and agent link (the ones ldd finds through dpkg -S).
if [ -n "${deb:-}" ] && command -v dpkg >/dev/null 2>&1; then
	deps=" $(dpkg-deb -f "$deb" Depends | sed 's/([^)]*)//g; s/,/ /g') "
	missing=""
	for lib in $(ldd "$build/jcal-post" "$build/jcal" "$build/libjcal.so" 2>/dev/null |
		awk '/=>/ {print $3}' | sort -u); do
		pkg=$(dpkg -S "$lib" 2>/dev/null || dpkg -S "$(readlink -f "$lib")" 2>/dev/null ||
			dpkg -S "/usr$lib" 2>/dev/null) || continue
		pkg=${pkg%%:*}
		case "$deps" in *" $pkg "*) ;; *) missing="$missing $pkg ($lib)" ;; esac
	done
	if [ -z "$missing" ]; then
		ok "deb depends on every linked library's package"
	else
		fail "deb depends on every linked library's package" "missing:$missing"
	fi
fi

echo "install: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
