#!/bin/bash
# shape.sh [--verbose] [RUNS] [SCALE] - profile shape against a sampler
# (docs/accuracy.md, "Profile shape against a sampler"): for real programs
# from Debian (bench/shape-programs.sh), compares jcal's self-time shares of
# the top methods with JFR's execution samples of the same program and input
# run without jcal, in each mode against its own reference:
#   mode=events (traced threads interpreted): jcal under -Xint against JFR
#     under -Xint, the table from `calibrate` under -Xint;
#   mode=bci: jcal against JFR on the JIT-compiled program, the table from
#     `calibrate,mode=bci`; a JFR sample counts for its topmost frame of a
#     class bci instruments (the JDK's classes are not, by default: their
#     time is their caller's base in jcal too); JFR runs with
#     -XX:+DebugNonSafepoints, so that a sample in compiled code names the
#     inlined method it was in, not the nearest call site's.
# Per program and mode, RUNS rounds of one JFR run and one jcal run; the
# reference is the JFR samples of all rounds pooled (jcalbench.JfrShape: the
# main thread's samples under the program's main method, by top frame); per
# jcal run, the sum over the reference's TOP methods of |jcal share - JFR
# share| in percentage points, raw (--raw) and calibrated (the default
# estimator), printed as median (low..high) over the runs. "sampler" is the
# same distance of each JFR run from the pool of the other runs: the noise
# floor of the reference itself. --verbose adds the per-method shares.
#
# SCALE multiplies the workload sizes (default 1: about 12 minutes with
# RUNS=3 on a 2-vCPU VM shared with other jobs). Environment: PROGRAMS
# (xalan fop h2; "calls" runs jcalbench.ShapeCalls, mode=events only),
# MODES (events bci), TOP (20), PERIOD (JFR's sampling period, 1 ms),
# AGENT_OPTS (extra agent options), JAVA_HOME.
set -eu
cd "$(dirname "$0")/.."
VERBOSE=0
if [ "${1:-}" = --verbose ]; then
	VERBOSE=1
	shift
fi
RUNS=${1:-3}
SCALE=${2:-1}
PROGRAMS=${PROGRAMS:-xalan fop h2}
MODES=${MODES:-events bci}
TOP=${TOP:-20}
PERIOD=${PERIOD:-1 ms}
. bench/accuracy-lib.sh
. bench/shape-programs.sh

for f in build/libjcal.so build/jcal-post build/bench/jcalbench/JfrShape.class; do
	[ -f "$f" ] || {
		echo "shape.sh: $f missing: run make all build/bench.stamp" >&2
		exit 1
	}
done
agent=$PWD/build/libjcal.so
# the classes mode=bci leaves without probes by default
# (docs/agent-internals.md, "What is instrumented"); an include=/exclude= in
# AGENT_OPTS needs the same change here
BCI_EXCLUDES=${BCI_EXCLUDES:-java.*,javax.*,jdk.*,sun.*,com.sun.*}

# size PROGRAM MODE: the workload size, SCALE times the base (events runs
# interpreted, so their inputs are smaller)
size() {
	case $1.$2 in
	xalan.events) n=1500 ;;
	xalan.bci) n=6000 ;;
	fop.events) n=10 ;;
	fop.bci) n=40 ;;
	h2.events) n=1000 ;;
	h2.bci) n=4000 ;;
	calls.events) n=3000 ;;
	calls.bci) n=0 ;; # compiled, its calls are inlined: nothing to compare
	esac
	awk -v n="$n" -v s="$SCALE" 'BEGIN { m = int(n * s + 0.5); print (n > 0 && m < 1) ? 1 : m }'
}

# JFR's profile settings with the execution sampler's period set to PERIOD
awk -v period="$PERIOD" '
	/<event name="jdk.ExecutionSample">/ { in_ev = 1 }
	in_ev && /<setting name="period"/ { sub(/>[^<]*</, ">" period "<"); done = 1 }
	/<\/event>/ { in_ev = 0 }
	{ print }
	END { if (!done) exit 1 }' "$JAVA_HOME/lib/jfr/profile.jfc" >"$tmp/shape.jfc" || {
	echo "shape.sh: no jdk.ExecutionSample period in $JAVA_HOME/lib/jfr/profile.jfc" >&2
	exit 1
}

for m in $MODES; do
	case $m in
	events) calibrate "-Xint, metric=cputime" -Xint "-agentpath:$agent=calibrate,metric=cputime${AGENT_OPTS:+,$AGENT_OPTS},table=$tmp/events.txt,out=$tmp/calib.bin" ;;
	bci) calibrate "mode=bci, metric=cputime" "-agentpath:$agent=calibrate,mode=bci,metric=cputime${AGENT_OPTS:+,$AGENT_OPTS},table=$tmp/bci.txt,out=$tmp/calib.bin" ;;
	*)
		echo "shape.sh: unknown mode $m (events, bci)" >&2
		exit 2
		;;
	esac
	rm -f "$tmp/calib.bin"
done

# run DIR LOG CMD...: runs CMD in DIR, its output to LOG; exits on failure
run() {
	dir=$1 log=$2
	shift 2
	(cd "$dir" && "$@") >"$log" 2>&1 || {
		echo "shape.sh: failed in $dir: $*" >&2
		tail -n 20 "$log" >&2
		exit 1
	}
}

# profile TRACE [jcal-post options]: "BASE NAME" per method of the main
# thread under $UNDER (bench/shape-flat.awk)
profile() {
	t=$1
	shift
	build/jcal-post "$t" "$@" --report flat --format csv --thread main --include "$UNDER" 2>>"$tmp/post.log" |
		awk -f bench/shape-flat.awk
}

# a column of numbers on stdin -> "median (low..high)"
range() { sort -g | awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.1f (%.1f..%.1f)", m, a[1], a[NR] }'; }

# compare REF PROFILE...: the distances, one "GROUP D" line per profile
# (bench/shape-compare.awk; the groups of the profiles in $cmp_groups, the
# per-method table with cmp_verbose=1)
compare() { awk -v top="$TOP" -v groups="${cmp_groups:-}" -v verbose="${cmp_verbose:-0}" -f bench/shape-compare.awk "$@"; }

echo "JDK: $("$JAVA" -version 2>&1 | head -n 2 | tail -n 1); $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "$RUNS runs, scale $SCALE, top $TOP, JFR period $PERIOD; distances: sum of |share - JFR share| over JFR's top $TOP methods, percentage points"
echo
printf '%-7s %-7s %6s %8s %6s  %-18s %-18s %-18s\n' program mode size samples "top %" "sampler" "raw" "calibrated"
start=$SECONDS
for p in $PROGRAMS; do
	for m in $MODES; do
		d=$tmp/$p.$m
		mkdir -p "$d"
		n=$(size "$p" "$m")
		if ! program_setup "$p" "$n" "$d"; then
			printf '%-7s %-7s SKIP: %s\n' "$p" "$m" "$SKIP_REASON"
			continue
		fi
		if [ "$m" = events ]; then
			xint=(-Xint)
			jfrflags=()
			opts=trace,quiet,metric=cputime
			excludes=()
		else
			xint=()
			jfrflags=(-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints)
			opts=trace,quiet,mode=bci,metric=cputime
			excludes=("$BCI_EXCLUDES")
		fi
		for r in $(seq "$RUNS"); do
			run "$d" "$d/jfr.log" "$JAVA" "${xint[@]}" "${jfrflags[@]}" "-XX:StartFlightRecording=filename=$d/r.jfr,settings=$tmp/shape.jfc" \
				-XX:FlightRecorderOptions:stackdepth=2048 "${JVM_FLAGS[@]}" -cp "$CP" "${ARGS[@]}"
			"$JAVA" -cp build/bench jcalbench.JfrShape "$d/r.jfr" main "$UNDER" "${excludes[@]}" >"$d/samples.$r"
			rm -f "$d/r.jfr"
			run "$d" "$d/jcal.log" "$JAVA" "${xint[@]}" "-agentpath:$agent=$opts${AGENT_OPTS:+,$AGENT_OPTS},out=$d/t.bin" \
				"${JVM_FLAGS[@]}" -cp "$CP" "${ARGS[@]}"
			profile "$d/t.bin" --raw >"$d/raw.$r"
			profile "$d/t.bin" --calib "$tmp/$m.txt" >"$d/cal.$r"
			rm -f "$d/t.bin"
		done
		cat "$d"/samples.* >"$d/ref"
		samples=$(awk '$2 == "samples" { s += $3 } END { print s }' "$d"/samples.*)
		: >"$d/floor"
		if [ "$RUNS" -gt 1 ]; then
			for r in $(seq "$RUNS"); do
				for o in $(seq "$RUNS"); do [ "$o" = "$r" ] || cat "$d/samples.$o"; done >"$d/others"
				compare "$d/others" "$d/samples.$r" | awk '$1 == "p" { print $2 }' >>"$d/floor"
			done
		fi
		groups=""
		files=()
		for r in $(seq "$RUNS"); do
			groups="$groups raw"
			files+=("$d/raw.$r")
		done
		for r in $(seq "$RUNS"); do
			groups="$groups calibrated"
			files+=("$d/cal.$r")
		done
		cmp_groups=$groups compare "$d/ref" "${files[@]}" >"$d/dist"
		floor="-"
		[ -s "$d/floor" ] && floor=$(range <"$d/floor")
		printf '%-7s %-7s %6s %8s %6s  %-18s %-18s %-18s\n' "$p" "$m" "$n" "$samples" \
			"$(awk '$1 == "top" { printf "%.1f", $2 }' "$d/dist")" "$floor" \
			"$(awk '$1 == "raw" { print $2 }' "$d/dist" | range)" \
			"$(awk '$1 == "calibrated" { print $2 }' "$d/dist" | range)"
		if [ $VERBOSE = 1 ]; then
			cmp_groups=$groups cmp_verbose=1 compare "$d/ref" "${files[@]}" | awk 'NF && $1 !~ /^(top|raw|calibrated)$/'
			for k in raw cal; do
				for r in $(seq "$RUNS"); do awk '{ s += $1 } END { print s / 1e6 }' "$d/$k.$r"; done | median >"$d/total.$k"
			done
			echo "jcal's total under $UNDER (median): raw $(cat "$d/total.raw") ms, calibrated $(cat "$d/total.cal") ms"
			echo
		fi
	done
done
echo
echo "$((SECONDS - start)) s; tables: $(grep -c '^[IiJjNnO]:' "$tmp/events.txt" 2>/dev/null || echo 0) keys (events, -Xint), $(grep -c '^[IiJjNnO]:' "$tmp/bci.txt" 2>/dev/null || echo 0) keys (bci)"
