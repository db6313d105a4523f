#!/bin/bash
# pfm-vs-perf-stat.sh [EVENT...] - jcal's metric= counters against perf stat
# (docs/metrics.md, "Checking a counter against perf stat"), in one command.
#
# For each EVENT and each mode (MODES, default "events bci"), one JVM runs
# jcalbench.PfmCompare under jcal with the matching metric=, and perf stat
# -t counts the same thread while the workload's one call of work() runs
# (a handshake on the JVM's stdin and stdout brackets the call). Printed
# side by side: perf stat's total, jcal's inclusive figure of work() (raw,
# no calibration), and their ratio. perf stat also counts the few lines of
# the handshake around the call: its figure is a little larger.
#
# EVENT (perf stat's name = jcal's metric, the workload):
#   instructions:u     = metric=instructions (user mode only, jcal's default
#                        for a hardware event), SPIN iterations of a loop
#   cycles:u           = metric=cycles, the same loop
#   context-switches   = metric=pfm:perf::CONTEXT-SWITCHES, SLEEPS sleeps
#   page-faults        = metric=pfm:perf::PAGE-FAULTS, TOUCH MiB written
#   task-clock         = metric=pfm:perf::TASK-CLOCK, the loop (ns)
# Default: instructions:u, cycles:u and context-switches where perf stat
# counts instructions here; else (no PMU: a VM without virtual PMU) it says
# so and compares the software events context-switches, page-faults and
# task-clock instead. Environment: MODES, SPIN (20000000), SLEEPS (50),
# TOUCH (32), JAVA_HOME, BUILD (build). Never fails on the figures.
set -eu
cd "$(dirname "$0")/.."
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
JAVA="$JAVA_HOME/bin/java"
BUILD=${BUILD:-build}
MODES=${MODES:-events bci}
SPIN=${SPIN:-20000000}
SLEEPS=${SLEEPS:-50}
TOUCH=${TOUCH:-32}
command -v perf >/dev/null || {
	echo "pfm-vs-perf-stat.sh: no perf here (Debian: apt-get install linux-perf)" >&2
	exit 1
}
if ! [ -f "$BUILD/libjcal.so" ] || ! [ -f "$BUILD/jcal-post" ] || ! [ -f "$BUILD/bench.stamp" ]; then
	echo "pfm-vs-perf-stat.sh: build first: make all $BUILD/bench.stamp" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# perf stat's name -> jcal's metric, the workload, its size, its words.
metric_of() {
	case $1 in
	instructions:u) echo instructions ;;
	cycles:u) echo cycles ;;
	context-switches) echo pfm:perf::CONTEXT-SWITCHES ;;
	page-faults) echo pfm:perf::PAGE-FAULTS ;;
	task-clock) echo pfm:perf::TASK-CLOCK ;;
	*) return 1 ;;
	esac
}
work_of() {
	case $1 in
	context-switches) echo "sleep $SLEEPS" ;;
	page-faults) echo "touch $TOUCH" ;;
	*) echo "spin $SPIN" ;;
	esac
}
words_of() {
	case $1 in
	sleep) echo "$2 sleeps of 2 ms" ;;
	touch) echo "$2 MiB written" ;;
	*) echo "$2 loop iterations" ;;
	esac
}

# perf stat -x, line of one event -> its value (task-clock's msec in ns).
perf_value() {
	awk -F, -v ev="$1" '$3 == ev {
		if ($2 == "msec") printf "%.0f\n", $1 * 1000000; else print $1 }' "$2"
}

for ev in "$@"; do
	metric_of "$ev" >/dev/null || {
		echo "pfm-vs-perf-stat.sh: unknown event '$ev' (instructions:u, cycles:u, context-switches," \
			"page-faults, task-clock)" >&2
		exit 1
	}
done

# The PMU: does perf stat count user-mode instructions of a process here?
pmu_line=$(perf stat -x, -e instructions:u true 2>&1 >/dev/null | grep ',instructions:u,' || true)
pmu_count=${pmu_line%%,*}
if [ -n "$pmu_count" ] && [ "${pmu_count#<}" = "$pmu_count" ]; then
	echo "PMU: yes (perf stat -e instructions:u true: $pmu_count)"
	default_events="instructions:u cycles:u context-switches"
else
	echo "no PMU here: perf stat -e instructions:u true says ${pmu_count:-nothing};" \
		"metric=instructions cannot be checked on this machine, comparing software events instead"
	default_events="context-switches page-faults task-clock"
fi
if [ $# -gt 0 ]; then events="$*"; else events=$default_events; fi
echo "kernel.perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo '?')"

# One JVM: perf stat -t on its main thread around work(); prints one row.
compare() {
	local mode=$1 ev=$2 metric kind n tid rest perfpid line jcal perfv
	metric=$(metric_of "$ev")
	read -r kind n <<<"$(work_of "$ev")"
	rm -f "$tmp/t.bin" "$tmp/perf.csv"
	coproc JVM { exec "$JAVA" "-agentpath:$BUILD/libjcal.so=trace,quiet,mode=$mode,metric=$metric,out=$tmp/t.bin" \
		-cp "$BUILD/bench" jcalbench.PfmCompare "$kind" "$n" 2>"$tmp/jvm.err"; }
	local jvmpid=$JVM_PID in=${JVM[1]} out=${JVM[0]}
	# a JVM whose agent refused the metric says so on stderr, exits 1
	if ! read -r rest tid <&"$out" || [ "$rest" != tid ] || ! [ "$tid" -gt 0 ] 2>/dev/null; then
		wait "$jvmpid" || true
		printf '%-7s %-17s %s\n' "$mode" "$ev" "jcal refused it: $(grep -m1 'jcal:' "$tmp/jvm.err")"
		return
	fi
	perf stat -x, -t "$tid" -e "$ev" -o "$tmp/perf.csv" &
	perfpid=$!
	sleep 0.5 # perf stat attaches
	echo go >&"$in"
	read -r line <&"$out" || line=
	kill -INT "$perfpid"
	wait "$perfpid" || true
	echo end >&"$in"
	wait "$jvmpid" || true
	jcal=$("$BUILD/jcal-post" "$tmp/t.bin" --raw --metric "$metric" --report flat --format csv 2>/dev/null |
		awk -F, '$1 == "jcalbench.PfmCompare.work" { print $4 }')
	perfv=$(perf_value "$ev" "$tmp/perf.csv")
	[ "$line" = "done" ] || jcal="(the JVM did not finish work(): $(tail -1 "$tmp/jvm.err"))"
	printf '%-7s %-17s %-22s %16s %16s %8s\n' "$mode" "$ev" "$(words_of "$kind" "$n")" "${perfv:-?}" \
		"${jcal:-?}" "$(awk -v a="${jcal:-0}" -v b="${perfv:-0}" \
			'BEGIN { if (b + 0 > 0) printf "%.3f", a / b; else print "-" }')"
}

printf '%-7s %-17s %-22s %16s %16s %8s\n' mode event work "perf stat -t" "jcal work()" jcal/perf
for ev in $events; do
	for mode in $MODES; do
		compare "$mode" "$ev"
	done
done
