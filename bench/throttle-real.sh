#!/bin/bash
# throttle-real.sh [RUNS] [RULE] - what throttle=CALLS:NS does to real
# programs from Debian (xalan, fop and h2, the workloads of
# bench/shape-programs.sh) in mode=bci (docs/agent-internals.md,
# "Throttling").
#
# Per program, RUNS rounds, each running in turn: the program without
# agent; with trace,quiet,mode=bci,metric=cputime; with the same and
# throttle=RULE (default 10000:200). Prints per configuration the median
# wall time over the rounds (low..high), the wall time as a multiple of the
# no-agent run's in the same round (median), the trace's events and, with
# throttling, how many methods lost their probes (median over the rounds;
# which ones depends on their timing). Checks that each traced run wrote the
# same output as the run without agent (fop's PDF carries its creation time:
# not compared) and that every trace is balanced. Never fails on timing.
#
# Environment: PROGRAMS (xalan fop h2), XALAN_SIZE (orders, 2000), FOP_SIZE
# (sections, 200), H2_SIZE (rows, 20000), BUILD (build), JAVA (java).
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-3}
RULE=${2:-10000:200}
BUILD=${BUILD:-build}
JAVA=${JAVA:-java}
PROGRAMS=${PROGRAMS:-xalan fop h2}
. bench/shape-programs.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s..%s", lo, hi }'; }

# one CONFIG DIR: runs the program in DIR under CONFIG (plain, bci,
# throttle); appends its wall time to $tmp/CONFIG.wall
one() {
	local config=$1 dir=$2 agent=()
	case $config in
	bci) agent=("-agentpath:$PWD/$BUILD/libjcal.so=trace,quiet,mode=bci,metric=cputime,out=$tmp/t.bin") ;;
	throttle) agent=("-agentpath:$PWD/$BUILD/libjcal.so=trace,quiet,mode=bci,metric=cputime,throttle=$RULE,out=$tmp/t.bin") ;;
	esac
	rm -f "$tmp/t.bin"
	(cd "$dir" && /usr/bin/time -f %e -o "$tmp/time" "$JAVA" "${JVM_FLAGS[@]}" "${agent[@]}" \
		-cp "$CP" "${ARGS[@]}" >stdout.txt 2>stderr.txt) || {
		echo "throttle-real.sh: $name ($config) failed: $(tail -3 "$dir/stderr.txt")" >&2
		exit 1
	}
	cat "$tmp/time" >>"$tmp/$config.wall"
	[ "$config" = plain ] && return 0
	"$BUILD/jcal-post" "$tmp/t.bin" --report summary --format csv 2>/dev/null >"$tmp/sum.csv"
	awk -F, '$1 == "events" { print $2 }' "$tmp/sum.csv" >>"$tmp/$config.events"
	awk -F, '$1 == "throttled" { n = $2 } END { print n + 0 }' "$tmp/sum.csv" >>"$tmp/$config.thr"
	awk -F, '$1 == "unmatched_exits" || $1 == "mismatched_exits" { s += $2 } END { exit s != 0 }' "$tmp/sum.csv" ||
		echo "throttle-real.sh: $name ($config): the trace is not balanced" >&2
	for f in out.html stdout.txt; do
		[ -f "$tmp/p/$f" ] && ! cmp -s "$tmp/p/$f" "$dir/$f" &&
			echo "throttle-real.sh: $name ($config): $f differs from the run without agent" >&2
	done
	return 0
}

echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %-10s %-22s %-8s %14s %10s\n' program config "wall s" "x plain" events throttled
for name in $PROGRAMS; do
	case $name in
	xalan) size=${XALAN_SIZE:-2000} ;;
	fop) size=${FOP_SIZE:-200} ;;
	h2) size=${H2_SIZE:-20000} ;;
	*) size=0 ;;
	esac
	rm -rf "${tmp:?}"/p "$tmp"/r "$tmp"/*.wall "$tmp"/*.events "$tmp"/*.thr "$tmp"/*.ratio
	mkdir -p "$tmp/p" "$tmp/r"
	if ! program_setup "$name" "$size" "$tmp/p" || ! program_setup "$name" "$size" "$tmp/r"; then
		echo "$name: skipped: $SKIP_REASON"
		continue
	fi
	for _ in $(seq "$RUNS"); do
		for config in plain bci throttle; do
			# the same directory name length for every run: paths show in outputs
			one "$config" "$tmp/$([ "$config" = plain ] && echo p || echo r)"
		done
		p=$(tail -1 "$tmp/plain.wall")
		for config in bci throttle; do
			awk -v a="$(tail -1 "$tmp/$config.wall")" -v b="$p" 'BEGIN { printf "%.2f\n", a / b }' >>"$tmp/$config.ratio"
		done
	done
	for config in plain bci throttle; do
		w="$(median <"$tmp/$config.wall") ($(range <"$tmp/$config.wall"))"
		if [ "$config" = plain ]; then
			printf '%-7s %-10s %-22s %-8s %14s %10s\n' "$name" "$config" "$w" 1 - -
		else
			printf '%-7s %-10s %-22s %-8s %14s %10s\n' "$name" "$config" "$w" "$(median <"$tmp/$config.ratio")" \
				"$(median <"$tmp/$config.events")" \
				"$([ "$config" = throttle ] && median <"$tmp/$config.thr" || echo -)"
		fi
	done
done
echo "rule throttle=$RULE; sizes: xalan ${XALAN_SIZE:-2000} orders, fop ${FOP_SIZE:-200} sections, h2 ${H2_SIZE:-20000} rows"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
