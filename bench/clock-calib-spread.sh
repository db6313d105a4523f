#!/bin/bash
# clock-calib-spread.sh [RUNS] - the calibration samples under clock=raw
# and clock=agentfree (docs/accuracy.md, "The agent-free clock"): RUNS
# calibrations of each (-Xint, metric=cputime, in turns), and per table the
# median over its keys of the minimum, of the middle quantile (q8, 53%) and
# of the spread between the 9% and 91% quantiles (q[1]..q[14]), absolute
# and relative to q8. EXTRA_OPTS adds agent options (mode=bci: drop -Xint
# with XINT=). Never fails on the figures.
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-3}
XINT=${XINT--Xint}
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
JAVA="$JAVA_HOME/bin/java"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# stats TABLE: "keys min q8 spread rel%" (medians over the keys with q=)
stats() {
	awk '/^[IiJjNnO]:[EXT]:/ {
		for (i = 3; i <= NF; i++) if ($i ~ /^q=/) {
			split(substr($i, 3), q, ",")
			n++; mn[n] = $2; mid[n] = q[9]; sp[n] = q[15] - q[2]
			rel[n] = q[9] > 0 ? 100 * (q[15] - q[2]) / q[9] : 0
		}
	}
	function med(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END { if (n) printf "%d %.0f %.0f %.0f %.1f\n", n, med(mn, n), med(mid, n), med(sp, n), med(rel, n) }' "$1"
}

echo "calibration tables, $XINT metric=cputime ${EXTRA_OPTS:-}, $RUNS runs per clock in turns"
echo "machine: $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $("$JAVA" -version 2>&1 | head -1)"
printf '%-10s %4s %6s %10s %10s %14s %10s\n' clock run keys "min ns" "q8 ns" "q14-q1 ns" "/q8 %"
for r in $(seq "$RUNS"); do
	for c in raw agentfree; do
		t="$tmp/$c-$r.txt"
		# shellcheck disable=SC2086
		"$JAVA" $XINT "-agentpath:build/libjcal.so=calibrate,metric=cputime,clock=$c${EXTRA_OPTS:+,$EXTRA_OPTS},table=$t,out=$tmp/c-$c-$r.bin" \
			>/dev/null 2>"$tmp/err" || {
			cat "$tmp/err" >&2
			exit 1
		}
		printf '%-10s %4s %6s %10s %10s %14s %10s\n' "$c" "$r" $(stats "$t")
	done
done
