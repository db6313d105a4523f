#!/bin/bash
# tree-soak.sh [MINUTES] [AGENT OPTIONS] - output=tree on a busy program for
# MINUTES (default 10): the JVM's resident memory every 30 s, and the bytes
# a trace of the same run would have written (its events, from the
# snapshot, times the bytes per event of a short output=trace run of the
# same program; per sample at the run's average rate). Ends with a
# verdict: whether the memory levelled off (the last half of the run grew
# it by less than 10% and less than 16 MiB). A benchmark: never fails on
# its figures. AGENT OPTIONS are the agent's besides trace and
# output=tree (default mode=bci,metric=cputime; give them in full). BUILD (default build) holds the agent and
# classes (make build/bench.stamp); WORKLOAD=callheavy (default: few
# contexts, the most events per second) or contexts (jcalbench.Contexts:
# contexts keep growing; give maxcontexts=N in the options to bound them).
set -eu
cd "$(dirname "$0")/.."
MINUTES=${1:-10}
EXTRA=${2:-mode=bci,metric=cputime}
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
JAVA="$JAVA_HOME/bin/java"
BUILD=${BUILD:-build}
case ${WORKLOAD:-callheavy} in
callheavy) CP="-Xmx256m -cp $BUILD/bench jcalbench.CallHeavy 2000000000" ;;
contexts) CP="-Xmx256m -cp $BUILD/bench jcalbench.Contexts" ;;
*) echo "tree-soak: WORKLOAD=callheavy or contexts" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT

# 1. bytes per event and events per second of a short trace of the program
TRACE_EXTRA=$(echo "$EXTRA" | sed 's/\(^\|,\)maxcontexts=[0-9]*//; s/^,//')
timeout -s TERM 15 "$JAVA" -agentpath:"$BUILD/libjcal.so=trace${TRACE_EXTRA:+,$TRACE_EXTRA},out=$tmp/t.bin" $CP \
	>/dev/null 2>"$tmp/trace.err" || true
line=$(grep 'jcal: wrote' "$tmp/trace.err" || true)
[ -n "$line" ] || { cat "$tmp/trace.err" >&2; echo "tree-soak: the trace run wrote nothing" >&2; exit 1; }
bpe=$(echo "$line" | sed -n 's/.*(\([0-9.]*\) bytes\/event).*/\1/p')
tevents=$(echo "$line" | sed -n 's/.*: \([0-9]*\) events,.*/\1/p')
echo "workload: ${CP##* -cp $BUILD/bench }, agent options $EXTRA; $(nproc) cpus, $("$JAVA" -version 2>&1 | head -1)"
echo "trace run (15 s): $tevents events, $bpe bytes/event"
rm -f "$tmp/t.bin"

# 2. the same program with output=tree for MINUTES
"$JAVA" -agentpath:"$BUILD/libjcal.so=trace,$EXTRA,output=tree,out=$tmp/soak.tree" $CP \
	>/dev/null 2>"$tmp/tree.err" &
pid=$!
start=$(date +%s)
end=$((start + MINUTES * 60))
printf '%8s %10s\n' "seconds" "RSS MiB"
samples=()
times=()
while :; do
	sleep 30
	kill -0 "$pid" 2>/dev/null || { cat "$tmp/tree.err" >&2; echo "tree-soak: the JVM ended" >&2; exit 1; }
	now=$(date +%s)
	rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
	samples+=("$rss")
	times+=($((now - start)))
	printf '%8d %10.1f\n' $((now - start)) "$(awk -v r="$rss" 'BEGIN {print r / 1024}')"
	[ "$now" -lt "$end" ] || break
done
kill -TERM "$pid"
wait "$pid" || true
pid=
line=$(grep 'tree snapshot of' "$tmp/tree.err" || true)
echo "${line:-no snapshot line: $(tail -3 "$tmp/tree.err")}"
events=$(echo "$line" | sed -n 's/.*threads, \([0-9]*\) events,.*/\1/p')
total=$(($(date +%s) - start))
if [ -n "$events" ]; then
	awk -v e="$events" -v b="$bpe" -v s="$total" 'BEGIN {
	printf "a trace of these %.0f events (%.1f M/s) would have written %.2f GB at %s bytes/event\n", e, e / s / 1e6, e * b / 1e9, b }'
	# the same samples with the trace the run would have written by then
	# (at its average event rate)
	printf '%8s %10s %20s\n' "seconds" "RSS MiB" "trace by then (GB)"
	for i in "${!samples[@]}"; do
		awk -v t="${times[$i]}" -v r="${samples[$i]}" -v e="$events" -v s="$total" -v b="$bpe" \
			'BEGIN {printf "%8d %10.1f %20.2f\n", t, r / 1024, e / s * t * b / 1e9}'
	done
fi

# 3. verdict: growth over the last half of the samples
n=${#samples[@]}
half=${samples[$((n / 2))]}
last=${samples[$((n - 1))]}
awk -v h="$half" -v l="$last" 'BEGIN {
	g = l - h; printf "RSS from mid-run to the end: %.1f -> %.1f MiB (%+.1f%%): ", h / 1024, l / 1024, 100 * g / h
	if (g < 0.10 * h && g < 16384) print "levelled off"; else print "still growing" }'
