#!/bin/bash
# after-event.sh [ROUNDS] [JVMS] - what a method event costs the code that
# runs after it (docs/history/accuracy.md, "What an event costs the code after it").
#
# bench/java/jcalbench/AfterEvent.java runs loops that call an empty method
# and then run a few bytecodes of one kind (locals, fields, statics, arrays,
# a loop, a switch); every call has the same sequence keys. In each of JVMS
# -Xint JVMs (the mode mode=events forces) it times each pattern:
#   - with no agent (ns per iteration: the work);
#   - with the count-only agent of bench/count_agent.c, whose callbacks do
#     nothing but count (what the JVM's method events cost by themselves);
#   - with jcal (metric=cputime, untraced and traced rounds alternating in
#     one JVM), and the error of jcal-post's calibrated cum of the pattern
#     (a calibration table from this JVM's kind, default estimator) against
#     the untraced rounds of the same JVM.
# Prints the medians over the JVMs. Never fails on the figures.
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
JVMS=${2:-3}
. bench/accuracy-lib.sh
[ -f build/bench.stamp ] && [ -f build/libcount.so ] || {
	echo "after-event.sh: build first: make all build/bench.stamp build/libcount.so" >&2
	exit 1
}
calibrate "-Xint, metric=cputime" -Xint "-agentpath:build/libjcal.so=calibrate,metric=cputime${AGENT_OPTS:+,$AGENT_OPTS},table=$table,out=$tmp/calib.bin"

for j in $(seq "$JVMS"); do
	"$JAVA" -Xint -cp build/bench jcalbench.AfterEvent plain "$ROUNDS" >"$tmp/none.$j"
	"$JAVA" -Xint -agentpath:build/libcount.so -cp build/bench jcalbench.AfterEvent plain "$ROUNDS" \
		2>/dev/null >"$tmp/count.$j"
	"$JAVA" -Xint "-agentpath:build/libjcal.so=trace,quiet,start=manual,metric=cputime${AGENT_OPTS:+,$AGENT_OPTS},out=$tmp/t.bin" \
		-cp build/bench jcalbench.AfterEvent ab "$ROUNDS" >"$tmp/ab.$j"
	build/jcal-post "$tmp/t.bin" --calib "$table" --report flat --format csv --thread main \
		2>/dev/null >"$tmp/flat.$j"
	# per pattern: work, count adds, jcal adds, raw %, calibrated %
	awk -v c="$tmp/count.$j" -v a="$tmp/ab.$j" -v f="$tmp/flat.$j" '
		BEGIN {
			while ((getline l < c) > 0) { split(l, x, " "); cnt[x[1]] = x[3] }
			while ((getline l < a) > 0) { split(l, x, " "); un[x[1]] = x[3]; tr[x[1]] = x[4]; sum[x[1]] = x[5] }
			FS = ","
			while ((getline l < f) > 0) {
				split(l, x, ","); m = x[1]; sub(/.*\./, "", m); cal[m] = x[4]; raw[m] = x[6]
			}
			FS = " "
		}
		{
			p = $1
			printf "%s %d %.1f %.1f %.1f %.1f %.1f\n", p, $2, $3, cnt[p] - $3, tr[p] - un[p],
				(raw[p] - sum[p]) * 100 / sum[p], (cal[p] - sum[p]) * 100 / sum[p]
		}' "$tmp/none.$j" >"$tmp/row.$j"
done

printf '%-13s %5s %9s %12s %11s %9s %9s\n' pattern calls "work ns" "count adds" "jcal adds" "raw %" "cal %"
while read -r p calls _; do
	printf '%-13s %5s' "$p" "$calls"
	for col in 3 4 5 6 7; do
		v=$(for j in $(seq "$JVMS"); do awk -v p="$p" -v c="$col" '$1 == p {print $c}' "$tmp/row.$j"; done | median)
		case $col in
		3) printf ' %9.1f' "$v" ;;
		4 | 5) printf ' %+12.1f' "$v" ;;
		*) printf ' %+9.1f' "$v" ;;
		esac
	done
	echo
done <"$tmp/none.1"
echo "ns per iteration; medians of $JVMS JVMs, each the median of $ROUNDS rounds (cal %: sums of the rounds)"
echo "work: no agent; count adds: bench/count_agent.c over no agent; jcal adds: traced - untraced rounds of one JVM"
echo "cal %: jcal-post's calibrated cum (default estimator, table of a -Xint calibration) against the untraced rounds"
echo "-Xint, metric=cputime, $("$JAVA" -version 2>&1 | head -1)"
