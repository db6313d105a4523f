#!/bin/bash
# probe-cost-real.sh [RUNS] - what mode=bci's probes cost per call on real
# programs from Debian (xalan and fop, the workloads of
# bench/shape-programs.sh), on each JDK, against the program without agent
# and against JFR's jdk.MethodTiming (docs/performance.md, "Probe cost on
# real programs").
#
# Per program and JDK, RUNS rounds, each running in turn: the program
# without agent; with trace,quiet,mode=bci,metric=tsc (the default classes:
# the JDK's own are left without probes); on a JDK with jdk.MethodTiming
# (25 and later; JDK 17 has no such event), with JFR timing the classes
# jcal's first trace saw called (one filter entry per class: JFR's filter
# takes class names, not packages). Each run's wall and CPU time (user +
# sys of the whole JVM, /usr/bin/time); calls = the entries of the round's
# own jcal trace. Per-call overhead = (time with - time without) / calls,
# per round (the runs of one round follow each other), and the ratio bci /
# JFR of the same round; printed as the median over the rounds (low..high).
# Never fails on timing; prints the load average at the start and the end.
#
# Environment: JDKS (JDK homes; default /usr/lib/jvm/java-17-openjdk-amd64
# and the first /usr/lib/jvm/*25* found), PROGRAMS (xalan fop), XALAN_SIZE
# (orders, 2000), FOP_SIZE (sections, 10), BUILD (build).
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-5}
BUILD=${BUILD:-build}
PROGRAMS=${PROGRAMS:-xalan fop}
XALAN_SIZE=${XALAN_SIZE:-2000}
FOP_SIZE=${FOP_SIZE:-10}
if [ -z "${JDKS:-}" ]; then
	JDKS=/usr/lib/jvm/java-17-openjdk-amd64
	for j in /usr/lib/jvm/*25*; do
		[ -x "$j/bin/java" ] && JDKS="$JDKS $j" && break
	done
fi
. bench/shape-programs.sh
agent=$PWD/$BUILD/libjcal.so
for f in "$agent" "$BUILD/jcal-post" /usr/bin/time; do
	[ -e "$f" ] || {
		echo "probe-cost-real.sh: $f missing (make; /usr/bin/time: Debian's time package)" >&2
		exit 1
	}
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# a column of numbers on stdin -> "median (low..high)" with FMT
range() { sort -g | awk -v f="${1:-%.1f}" '{ a[NR] = $1 } END { if (!NR) { print "-"; exit }
	m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
	printf f " (" f ".." f ")", m, a[1], a[NR] }'; }

# timed DIR OUT CMD...: runs CMD in DIR; appends "wall_s cpu_s" to OUT
timed() {
	dir=$1 out=$2
	shift 2
	(cd "$dir" && /usr/bin/time -f '%e %U %S' -o "$tmp/time" "$@" >"$tmp/log" 2>&1) || {
		echo "probe-cost-real.sh: failed in $dir: $*" >&2
		tail -n 20 "$tmp/log" >&2
		exit 1
	}
	awk '{ print $1, $2 + $3 }' "$tmp/time" >>"$out"
}

# entries TRACE: the calls the trace recorded (its E events)
entries() { "$BUILD/jcal-post" "$1" --report summary --format csv 2>/dev/null | awk -F, '$1 == "transition.E" { print $2 }'; }

# classes TRACE: the classes whose methods the trace recorded, ";"-separated
# (a JFR method filter)
classes() {
	"$BUILD/jcal-post" "$1" --raw --report flat --format csv 2>/dev/null |
		awk -F, 'NR > 1 { n = $1; gsub(/"/, "", n); sub(/\(.*/, "", n); sub(/\.[^.]*$/, "", n)
			if (n !~ /\$\$|\/|Lambda/ && !(n in seen)) { seen[n] = 1; out = out (out ? ";" : "") n } }
			END { print out }'
}

echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "$RUNS rounds per program and JDK; ns per call = (time with - time without) / calls; median (low..high) over the rounds"
for jh in $JDKS; do
	java=$jh/bin/java
	feature=$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
	jfr=0
	[ "${feature%%.*}" -ge 25 ] 2>/dev/null && jfr=1
	echo
	echo "JDK $feature: $("$java" -version 2>&1 | sed -n 2p)"
	[ "$jfr" = 1 ] || echo "  (no jdk.MethodTiming before JDK 25: no JFR column)"
	for p in $PROGRAMS; do
		d=$tmp/$p
		rm -rf "$d"
		mkdir -p "$d"
		case $p in
		xalan) n=$XALAN_SIZE ;;
		fop) n=$FOP_SIZE ;;
		*) n=1 ;;
		esac
		if ! program_setup "$p" "$n" "$d"; then
			echo "  $p: SKIP: $SKIP_REASON"
			continue
		fi
		rm -f "$tmp"/r.*
		filter=""
		for r in $(seq "$RUNS"); do
			timed "$d" "$tmp/r.none" "$java" "${JVM_FLAGS[@]}" -cp "$CP" "${ARGS[@]}"
			timed "$d" "$tmp/r.bci" "$java" "${JVM_FLAGS[@]}" "-agentpath:$agent=trace,quiet,mode=bci,metric=tsc,out=$tmp/t.bin" -cp "$CP" "${ARGS[@]}"
			entries "$tmp/t.bin" >>"$tmp/r.calls"
			if [ "$jfr" = 1 ]; then
				[ -n "$filter" ] || filter=$(classes "$tmp/t.bin")
				timed "$d" "$tmp/r.jfr" "$java" "${JVM_FLAGS[@]}" "-XX:StartFlightRecording:jdk.MethodTiming#filter=$filter,filename=$tmp/rec.jfr" -cp "$CP" "${ARGS[@]}"
				# the calls JFR timed, from its last jdk.MethodTiming event per method
				"$jh/bin/jfr" print --events jdk.MethodTiming "$tmp/rec.jfr" 2>/dev/null |
					awk '/method = / { m = $0 } /invocations = / { v = $3; gsub(/[^0-9]/, "", v); c[m] = v }
						END { for (k in c) s += c[k]; print s + 0 }' >>"$tmp/r.jfrcalls"
			fi
			echo "  $p round $r done" >&2
		done
		calls=$(sort -n "$tmp/r.calls" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
		printf '  %s (size %s): jcal calls per run %s' "$p" "$n" "$(range %.0f <"$tmp/r.calls")"
		[ "$jfr" = 1 ] && printf ', JFR timed calls %s over %s classes' "$(range %.0f <"$tmp/r.jfrcalls")" "$(echo "$filter" | tr ';' '\n' | grep -c .)"
		printf '\n'
		printf '    %-34s %-22s %-22s %-22s %-22s\n' configuration "wall s" "cpu s" "ns/call (wall)" "ns/call (cpu)"
		for c in none bci jfr; do
			[ -s "$tmp/r.$c" ] || continue
			# per round: overhead per call over the same round's no-agent run
			paste -d' ' "$tmp/r.$c" "$tmp/r.none" "$tmp/r.calls" |
				awk '{ printf "%.2f %.2f\n", ($1 - $3) * 1e9 / $5, ($2 - $4) * 1e9 / $5 }' >"$tmp/o.$c"
			case $c in
			none) label="no agent (JIT)" ;;
			bci) label="jcal mode=bci,metric=tsc" ;;
			jfr) label="JFR jdk.MethodTiming" ;;
			esac
			ow=-
			oc=-
			[ "$c" = none ] || {
				ow=$(cut -d' ' -f1 "$tmp/o.$c" | range)
				oc=$(cut -d' ' -f2 "$tmp/o.$c" | range)
			}
			printf '    %-34s %-22s %-22s %-22s %-22s\n' "$label" "$(cut -d' ' -f1 "$tmp/r.$c" | range %.2f)" \
				"$(cut -d' ' -f2 "$tmp/r.$c" | range %.2f)" "$ow" "$oc"
		done
		if [ -s "$tmp/r.jfr" ]; then
			# bci / JFR overhead of the same round
			paste -d' ' "$tmp/o.bci" "$tmp/o.jfr" | awk '{ print ($3 > 0 ? $1 / $3 : "nan") }' >"$tmp/q.wall"
			paste -d' ' "$tmp/o.bci" "$tmp/o.jfr" | awk '{ print ($4 > 0 ? $2 / $4 : "nan") }' >"$tmp/q.cpu"
			printf '    %-34s wall %s, cpu %s\n' "bci / JFR per call, same round" "$(grep -v nan "$tmp/q.wall" | range %.2f)" \
				"$(grep -v nan "$tmp/q.cpu" | range %.2f)"
		fi
		echo "    (median calls $calls)"
	done
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
