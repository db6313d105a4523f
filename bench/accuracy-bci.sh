#!/bin/bash
# accuracy-bci.sh [JVMS] [ROUNDS] [SCALE] [WARMUP] - the mode=bci column of
# the accuracy benchmark (docs/accuracy.md): in bci mode the truth is the
# uninstrumented JIT run, which cannot share a JVM with instrumented classes
# (their probes run even outside regions), so each JVM pair is: one JVM
# without agent (truth: WARMUP warm-up rounds, then ROUNDS measured), one with
# trace,mode=bci,start=manual where only the same measured rounds are inside
# a jcal.Control region. Calibrates once with calibrate,mode=bci. Prints the
# median error (low..high) over JVMS pairs, raw and per estimator; TSV=FILE
# also appends them to FILE, WORKLOADS and AGENT_OPTS as in bench/accuracy.sh.
# With AGENT_OPTS=throttle=CALLS:NS the warm-up rounds count toward the rule
# (docs/agent-internals.md, "Throttling"); each workload's line then ends
# with the methods throttled per JVM and how many of them lost their probes
# before the measured rounds (none of their calls recorded), from the
# traces' summaries.
#
# Besides the nine workloads of bench/accuracy.sh the default list has five
# shapes of bench/java/jcalbench/Accuracy.java met on held-out programs:
# hashmaps (the program's hashCode/equals called from HashMap), sort (a
# lambda comparator calling the program), bodies (a loop calling a small
# method with a loop), throttled (a method throttle= picks beside a long
# loop in the same class) and lambdas (a stream of lambdas).
set -eu
cd "$(dirname "$0")/.."
WORKLOADS=${WORKLOADS:-leaves recursion natives exceptions loops parser collections strings interp hashmaps sort bodies throttled lambdas}
JVMS=${1:-3}
ROUNDS=${2:-3}
SCALE=${3:-100000}
WARMUP=${4:-20}
ESTIMATORS="min p10 median mean cond fit cfit"
. bench/accuracy-lib.sh

echo "load average at the start: $(cut -d" " -f1-3 /proc/loadavg)"
calibrate "mode=bci, metric=cputime" "-agentpath:build/libjcal.so=calibrate,mode=bci,metric=cputime${AGENT_OPTS:+,$AGENT_OPTS},table=$table,out=$tmp/calib.bin"

cum_of() {
	build/jcal-post "$1" "${@:3}" --report flat --format csv --thread main 2>/dev/null |
		awk -F, -v top="$2" '$1 == top { print $4, $6 }'
}

printf '%-11s %11s  %-20s' workload "truth ns" "raw %"
for e in $ESTIMATORS; do printf '  %-20s' "$e %"; done
printf '\n'
for w in $WORKLOADS; do
	top="jcalbench.Accuracy\$$(echo "${w:0:1}" | tr a-z A-Z)${w:1}.run"
	rm -f "$tmp"/r.*
	for _ in $(seq "$JVMS"); do
		truth=$("$JAVA" -cp build/bench jcalbench.Accuracy warm "$w" "$SCALE" "$ROUNDS" "$WARMUP" | awk '/^truth_ns/ {print $2}')
		echo "$truth" >>"$tmp/r.truth"
		"$JAVA" "-agentpath:build/libjcal.so=trace,quiet,mode=bci,start=manual,metric=cputime${AGENT_OPTS:+,$AGENT_OPTS},out=$tmp/t.bin" \
			-cp build/bench jcalbench.Accuracy warm-region "$w" "$SCALE" "$ROUNDS" "$WARMUP" >/dev/null
		# throttled methods: all, and those with no recorded call (before the region)
		build/jcal-post "$tmp/t.bin" --report summary --format csv 2>/dev/null |
			awk -F, '$1 == "throttled" { n = $2 } $1 ~ /^throttled\.[0-9]+\.recorded_calls$/ && $2 == 0 { z++ }
				END { if (n != "") print n + 0, z + 0 }' >>"$tmp/r.thr"
		read -r _ raw < <(cum_of "$tmp/t.bin" "$top" --raw)
		pct "$raw" "$truth" >>"$tmp/r.raw"
		for e in $ESTIMATORS; do
			read -r cal _ < <(cum_of "$tmp/t.bin" "$top" --calib "$table" --estimator "$e")
			pct "$cal" "$truth" >>"$tmp/r.$e"
		done
	done
	t=$(median <"$tmp/r.truth")
	record "$w" truth_ns "$tmp/r.truth"
	printf '%-11s %11.0f  %-20s' "$w" "$t" "$(figure "$w" raw "$tmp/r.raw")"
	for e in $ESTIMATORS; do printf '  %-20s' "$(figure "$w" "$e" "$tmp/r.$e")"; done
	[ -s "$tmp/r.thr" ] && printf '  throttled %s' "$(awk '{ printf "%s%d (%d before)", (NR > 1 ? ", " : ""), $1, $2 }' "$tmp/r.thr")"
	printf '\n'
done
echo
echo "$JVMS JVM pairs x $ROUNDS measured rounds after $WARMUP warm-up rounds, scale $SCALE; table $(grep -c '^[IiJjNnO]:' "$table") keys (mode=bci)"
echo "truth: thread CPU time of the measured rounds in a JVM without agent (JIT); traced: mode=bci, metric=cputime${AGENT_OPTS:+,$AGENT_OPTS}"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
