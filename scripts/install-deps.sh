#!/bin/sh
# install-deps.sh - installs the Debian 12 packages jcal needs to build and
# test, when they are missing. A no-op when everything is there; needs root
# (or sudo) only when something must be installed.
set -eu

PACKAGES="make gcc libc6-dev openjdk-17-jdk-headless libpfm4-dev uthash-dev zlib1g-dev"

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

echo "install-deps: missing Debian packages:$missing"
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
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
