#!/bin/sh
# install-deps.sh [--tests] - installs the Debian 12 packages jcal needs to
# build (and with --tests, what `make lint` needs, clang-format and
# clang-tidy, and the tools its end-to-end checks use: Chromium for the HTML
# flame graph, Go's pprof, H2 and xalan, real programs for the live-profiling
# and install tests, man-db to render the man pages; fop, batik and groovy
# beside xalan and H2, whose classes the bci rewriter's jar test rewrites;
# ASM for the -javaagent of the other-agents test; Tomcat 10 with its
# examples, attached to by the live tests),
# when they are missing. A no-op when
# everything is there; needs root (or sudo) only when something must be
# installed. The test tools are optional: when they cannot be installed the
# checks that need them print SKIP.
set -eu

PACKAGES="make gcc libc6-dev openjdk-17-jdk-headless libpfm4-dev uthash-dev zlib1g-dev libisal-dev"
LINT_PACKAGES="clang-format clang-tidy"
TEST_PACKAGES="chromium golang-go libh2-java libxalan2-java man-db libasm-java"
TEST_PACKAGES="$TEST_PACKAGES fop libbatik-java groovy checkstyle tomcat10 tomcat10-examples"

want_tests=0
[ "${1:-}" = "--tests" ] && want_tests=1

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

missing_tests=""
if [ $want_tests = 1 ]; then
	for p in $TEST_PACKAGES; do
		installed "$p" || missing_tests="$missing_tests $p"
	done
fi

missing=""
[ $want_tests = 1 ] && PACKAGES="$PACKAGES $LINT_PACKAGES"
for p in $PACKAGES; do
	installed "$p" || missing="$missing $p"
done
[ -z "$missing" ] && [ -z "$missing_tests" ] && exit 0

echo "install-deps: missing Debian packages:$missing$missing_tests"
if [ "$(id -u)" = 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1; then
	SUDO="sudo"
else
	echo "install-deps: error: run as root or install them: apt-get install$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if [ -n "$missing" ]; then
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $missing
fi
if [ -n "$missing_tests" ]; then
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $missing_tests ||
		echo "install-deps: warning: could not install$missing_tests; the checks that need them will SKIP"
fi
