#!/bin/bash
# probe-cost-real.sh [RUNS] - what mode=bci's probes cost per call on real
# programs from Debian (xalan and fop, the workloads of
# bench/shape-programs.sh), on each JDK, against the program without agent
# and against JFR's jdk.MethodTiming (docs/performance.md, "mode=bci
# probe calls").
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
# Each round also runs every configuration on an input SMALL_DIV (4) times
# smaller: the difference between the two sizes, over the difference of
# their calls, is the marginal cost of a call ("marginal"), without the
# costs that do not grow with the calls (start-up, the rewriting of each
# class, JFR's own set-up); SMALL_DIV=1 leaves it out.
#
# PARTS=1 adds, in the same turns, what makes up bci's cost: the agent
# loaded with every class looked at and none rewritten ("scan": include=
# of a class that does not exist); the probes in place and called, with
# nothing recorded ("probes only": start=manual, and the program never
# starts a region, so each probe returns at once); clock=raw (one metric
# read per event instead of two); output=tree (trees built in the agent,
# no trace file).
#
# Environment: JDKS (JDK homes; default /usr/lib/jvm/java-17-openjdk-amd64
# and the first /usr/lib/jvm/*25* found), PROGRAMS (xalan fop), XALAN_SIZE
# (orders, 2000), FOP_SIZE (sections, 10), SMALL_DIV, PARTS, BUILD (build).
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-5}
BUILD=${BUILD:-build}
PROGRAMS=${PROGRAMS:-xalan fop}
XALAN_SIZE=${XALAN_SIZE:-2000}
FOP_SIZE=${FOP_SIZE:-10}
SMALL_DIV=${SMALL_DIV:-4}
PARTS=${PARTS:-0}
parts=""
[ "$PARTS" = 1 ] && parts="scan idle raw tree"
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
echo "$RUNS rounds per program and JDK; ns/call = (time with - time without) / calls; marginal: the same between two input sizes; median (low..high) over the rounds"
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
		rm -rf "$d" "$d.S"
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
		small=$((n / SMALL_DIV))
		sizes=L
		if [ "$SMALL_DIV" -gt 1 ] && [ "$small" -ge 1 ]; then
			sizes="L S"
			mkdir -p "$d.S"
			program_setup "$p" "$small" "$d.S"
		fi
		rm -f "$tmp"/r.* "$tmp"/o.* "$tmp"/m.*
		filter=""
		for r in $(seq "$RUNS"); do
			for z in $sizes; do
				dz=$d
				[ "$z" = S ] && dz=$d.S
				timed "$dz" "$tmp/r.none.$z" "$java" "${JVM_FLAGS[@]}" -cp "$CP" "${ARGS[@]}"
				timed "$dz" "$tmp/r.bci.$z" "$java" "${JVM_FLAGS[@]}" "-agentpath:$agent=trace,quiet,mode=bci,metric=tsc,out=$tmp/t.bin" -cp "$CP" "${ARGS[@]}"
				for c in $parts; do
					case $c in
					scan) o=include=jcalbench.NoSuchClass ;;
					idle) o=start=manual ;;
					raw) o=clock=raw ;;
					tree) o=output=tree ;;
					esac
					timed "$dz" "$tmp/r.$c.$z" "$java" "${JVM_FLAGS[@]}" "-agentpath:$agent=trace,quiet,mode=bci,metric=tsc,$o,out=$tmp/p.bin" -cp "$CP" "${ARGS[@]}"
				done
				entries "$tmp/t.bin" >>"$tmp/r.calls.$z"
				[ "$jfr" = 1 ] || continue
				[ -n "$filter" ] || filter=$(classes "$tmp/t.bin")
				timed "$dz" "$tmp/r.jfr.$z" "$java" "${JVM_FLAGS[@]}" "-XX:StartFlightRecording:jdk.MethodTiming#filter=$filter,filename=$tmp/rec.jfr" -cp "$CP" "${ARGS[@]}"
				# the calls JFR timed, from its last jdk.MethodTiming event per method
				"$jh/bin/jfr" print --events jdk.MethodTiming "$tmp/rec.jfr" 2>/dev/null |
					awk '/method = / { m = $0 } /invocations = / { v = $3; gsub(/[^0-9]/, "", v); c[m] = v }
						END { for (k in c) s += c[k]; print s + 0 }' >>"$tmp/r.jfrcalls.$z"
			done
			echo "  $p round $r done" >&2
		done
		printf '  %s (size %s' "$p" "$n"
		[ "$sizes" = L ] || printf ', and %s for the marginal cost' "$small"
		printf '): jcal calls per run %s' "$(range %.0f <"$tmp/r.calls.L")"
		[ "$sizes" = L ] || printf ' (%s)' "$(range %.0f <"$tmp/r.calls.S")"
		[ "$jfr" = 1 ] && printf ', JFR timed calls %s over %s classes' "$(range %.0f <"$tmp/r.jfrcalls.L")" "$(echo "$filter" | tr ';' '\n' | grep -c .)"
		printf '\n'
		printf '    %-26s %-20s %-20s %-20s %-20s %-20s %-20s\n' configuration "wall s" "cpu s" "ns/call wall" "ns/call cpu" \
			"marginal wall" "marginal cpu"
		for c in none $parts bci jfr; do
			[ -s "$tmp/r.$c.L" ] || continue
			# per round: overhead per call over the same round's no-agent run
			paste -d' ' "$tmp/r.$c.L" "$tmp/r.none.L" "$tmp/r.calls.L" |
				awk '{ printf "%.2f %.2f\n", ($1 - $3) * 1e9 / $5, ($2 - $4) * 1e9 / $5 }' >"$tmp/o.$c"
			# the same between the two sizes: what each further call costs
			# (start-up, class rewriting and JFR's set-up cancel out)
			[ "$sizes" = L ] || paste -d' ' "$tmp/r.$c.L" "$tmp/r.none.L" "$tmp/r.calls.L" \
				"$tmp/r.$c.S" "$tmp/r.none.S" "$tmp/r.calls.S" |
				awk '{ d = ($5 - $10) / 1e9; printf "%.2f %.2f\n", (($1 - $3) - ($6 - $8)) / d, (($2 - $4) - ($7 - $9)) / d }' >"$tmp/m.$c"
			case $c in
			none) label="no agent (JIT)" ;;
			bci) label="jcal mode=bci,metric=tsc" ;;
			scan) label="bci, no class rewritten" ;;
			idle) label="bci, probes only" ;;
			raw) label="bci, clock=raw" ;;
			tree) label="bci, output=tree" ;;
			jfr) label="JFR jdk.MethodTiming" ;;
			esac
			ow=- oc=- mw=- mc=-
			if [ "$c" != none ]; then
				ow=$(cut -d' ' -f1 "$tmp/o.$c" | range)
				oc=$(cut -d' ' -f2 "$tmp/o.$c" | range)
				if [ -s "$tmp/m.$c" ]; then
					mw=$(cut -d' ' -f1 "$tmp/m.$c" | range)
					mc=$(cut -d' ' -f2 "$tmp/m.$c" | range)
				fi
			fi
			printf '    %-26s %-20s %-20s %-20s %-20s %-20s %-20s\n' "$label" "$(cut -d' ' -f1 "$tmp/r.$c.L" | range %.2f)" \
				"$(cut -d' ' -f2 "$tmp/r.$c.L" | range %.2f)" "$ow" "$oc" "$mw" "$mc"
		done
		if [ -s "$tmp/r.jfr.L" ]; then
			# bci / JFR overhead of the same round
			for k in o m; do
				[ -s "$tmp/$k.bci" ] || continue
				paste -d' ' "$tmp/$k.bci" "$tmp/$k.jfr" | awk '{ print ($3 > 0 ? $1 / $3 : "nan") }' >"$tmp/q.wall"
				paste -d' ' "$tmp/$k.bci" "$tmp/$k.jfr" | awk '{ print ($4 > 0 ? $2 / $4 : "nan") }' >"$tmp/q.cpu"
				lab="bci / JFR, same round"
				[ "$k" = m ] && lab="bci / JFR marginal"
				printf '    %-26s wall %s, cpu %s\n' "$lab" \
					"$(grep -v nan "$tmp/q.wall" | range %.2f)" "$(grep -v nan "$tmp/q.cpu" | range %.2f)"
			done
		fi
	done
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
