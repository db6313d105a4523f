#!/bin/bash
# soak.sh [MINUTES] [RUN...] - jcalbench.Soak (classes loaded and unloaded,
# threads started and ended, methods called) under the agent for MINUTES
# (default 10) per RUN: events (mode=events), bci (mode=bci), tree
# (mode=bci,output=tree), none (no agent: the JVM's own figures under the
# same churn), and the floors of the two modes: count (bench/count_agent.c,
# method events counted, nothing else) and copy (bench/copy_agent.c, every
# class's bytes copied in ClassFileLoadHook by a retransform-capable agent,
# nothing else; copyc: the same taking CompiledMethodLoad events, as
# mode=bci does); default events bci tree, one after the other. Every
# 30 s it prints the JVM's resident memory, its open file descriptors and
# threads (/proc/PID), and what `jcal status PID` reports: live thread
# states and kernel-thread states of the agent, methods and jmethodIDs in
# its table, events and trace bytes (contexts with output=tree). At the end
# of each run, a verdict per figure: it levels off when its highest value
# over the second half of the run is at most 10% (plus a small slack) above
# its highest over the first half; the resident memory also when it grew
# by less than 5% from mid-run to the end (its rate is printed); trace
# bytes grow by design and are judged per event (bytes/event of the second
# half within 10% of the first's). A benchmark: never fails on its figures (exit 1 only when a run
# could not be made). The trace goes to /dev/null unless SOAK_OUT names a
# directory. BUILD (default build) holds the agent, jcal and the classes
# (make all build/bench.stamp); AGENT_OPTS adds agent options.
set -eu
cd "$(dirname "$0")/.."
MINUTES=${1:-10}
SECS=$(awk -v m="$MINUTES" 'BEGIN {printf "%d", m * 60}')
shift || true
RUNS=${*:-events bci tree}
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
JAVA="$JAVA_HOME/bin/java"
BUILD=${BUILD:-build}
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT

# field NAME FILE: the first number after "NAME: " in a status reply
field() { sed -n "s/^$1: \([0-9]*\).*/\1/p" "$2" | head -1; }

# verdict NAME SLACK FILE: column NAME of the samples file, second half's
# highest against first half's
verdict() {
	awk -v name="$1" -v slack="$2" '
	NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
	{ v[n++] = $c }
	END {
		h = int(n / 2); a = 0; b = 0
		for (i = 0; i < h; i++) if (v[i] > a) a = v[i]
		for (i = h; i < n; i++) if (v[i] > b) b = v[i]
		printf "  %-10s first half max %12s, second half max %12s: %s\n", name, a, b,
			(b <= a * 1.10 + slack) ? "levels off" : "GROWS"
	}' "$3"
}

run() {
	local name=$1 opts
	case $name in
	events) opts="mode=events" ;;
	bci) opts="mode=bci" ;;
	tree) opts="mode=bci,output=tree" ;;
	none | count | copy | copyc) opts= ;;
	*) echo "soak: unknown run '$name' (events, bci, tree, none, count, copy, copyc)" >&2; return 1 ;;
	esac
	# the runs without jcal: only the JVM's figures
	local bare=0
	case $name in none | count | copy | copyc) bare=1 ;; esac
	local out=/dev/null
	[ -n "${SOAK_OUT:-}" ] && out="$SOAK_OUT/soak-$name.bin"
	[ "$name" = tree ] && out="$tmp/soak-$name.tree"
	local agent=()
	case $name in
	none) ;;
	count | copy) agent=("-agentpath:$BUILD/lib$name.so") ;;
	copyc) agent=("-agentpath:$BUILD/libcopy.so=compiled") ;;
	*) agent=("-agentpath:$BUILD/libjcal.so=trace,metric=cputime,$opts${AGENT_OPTS:+,$AGENT_OPTS},out=$out") ;;
	esac
	echo "== $name: $JAVA -Xmx256m ${agent[*]} -cp $BUILD/bench jcalbench.Soak $SECS"
	"$JAVA" -Xmx256m "${agent[@]}" -cp "$BUILD/bench" jcalbench.Soak $SECS \
		>"$tmp/$name.out" 2>"$tmp/$name.err" &
	pid=$!
	local start samples="$tmp/$name.samples" st="$tmp/status"
	start=$(date +%s)
	echo "seconds rss_kib fds tasks states kstates methods mids events bytes contexts" >"$samples"
	printf '%7s %8s %5s %5s %6s %7s %7s %6s %12s %12s %9s %8s\n' seconds "RSS MiB" fds tasks states kstates \
		methods mids events "trace bytes" "bytes/ev" contexts
	local pe=0 pb=0
	while sleep 30; do
		kill -0 "$pid" 2>/dev/null || break
		if [ $bare = 1 ]; then
			printf 'live: 0 thread states, 0 kernel-thread states\nmethods: 0 (jmethodIDs 0)\nevents: 0\nbytes: 0\n' >"$st"
		else
			"$BUILD/jcal" status "$pid" >"$st" 2>&1 || { cat "$st" >&2; break; }
		fi
		local rss fds tasks states kstates methods mids events bytes contexts now
		now=$(($(date +%s) - start))
		rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
		fds=$(ls "/proc/$pid/fd" | wc -l)
		tasks=$(ls "/proc/$pid/task" | wc -l)
		states=$(sed -n 's/^live: \([0-9]*\) thread states.*/\1/p' "$st")
		kstates=$(sed -n 's/^live: .*, \([0-9]*\) kernel-thread states.*/\1/p' "$st")
		methods=$(field methods "$st")
		mids=$(sed -n 's/^methods: .*(jmethodIDs \([0-9]*\).*/\1/p' "$st")
		events=$(field events "$st")
		bytes=$(field bytes "$st")
		contexts=$(field contexts "$st")
		echo "$now $rss $fds $tasks $states $kstates $methods $mids $events $bytes ${contexts:-0}" >>"$samples"
		printf '%7d %8.1f %5d %5d %6d %7d %7d %6d %12d %12d %9s %8s\n' "$now" "$(awk -v r="$rss" 'BEGIN {print r / 1024}')" \
			"$fds" "$tasks" "$states" "$kstates" "$methods" "$mids" "$events" "$bytes" \
			"$(awk -v e="$events" -v b="$bytes" -v pe="$pe" -v pb="$pb" 'BEGIN {if (e > pe) printf "%.3f", (b - pb) / (e - pe); else print "-"}')" \
			"${contexts:--}"
		pe=$events
		pb=$bytes
	done
	wait "$pid" || echo "soak: the JVM of run $name exited with status $?" >&2
	pid=
	cat "$tmp/$name.out"
	grep '^jcal: \(wrote\|tree snapshot\)' "$tmp/$name.err" || tail -5 "$tmp/$name.err"
	grep -i 'error\|warning' "$tmp/$name.err" | grep -v 'metric=auto' | head -5 || true
	echo "verdict ($name):"
	verdict rss_kib 8192 "$samples"
	awk 'NR > 1 { t[n] = $1; v[n++] = $2 }
	END {
		h = int(n / 2); if (n < 2) exit
		g = v[n - 1] - v[h]
		printf "  %-10s mid-run to end %.1f -> %.1f MiB (%+.1f%%, %+.0f KiB/min): %s\n", "rss growth",
			v[h] / 1024, v[n - 1] / 1024, 100 * g / v[h], g * 60 / (t[n - 1] - t[h] + 1e-9),
			(g < 0.05 * v[h]) ? "levels off" : "GROWS"
	}' "$samples"
	verdict fds 2 "$samples"
	verdict tasks 4 "$samples"
	[ $bare = 1 ] && return 0
	verdict states 4 "$samples"
	verdict kstates 4 "$samples"
	verdict methods 0 "$samples"
	verdict mids 4096 "$samples" # saw-tooth: swept when it doubles
	if [ "$name" = tree ]; then
		verdict contexts 0 "$samples"
	else
		awk 'NR > 1 { e[n] = $9; b[n] = $10; n++ }
		END {
			h = int(n / 2)
			if (h < 1 || e[h] <= e[0] || e[n - 1] <= e[h]) { print "  bytes/ev   too few samples"; exit }
			x = (b[h] - b[0]) / (e[h] - e[0]); y = (b[n - 1] - b[h]) / (e[n - 1] - e[h])
			printf "  %-10s first half %.3f, second half %.3f: %s\n", "bytes/ev", x, y,
				(y <= x * 1.10) ? "levels off" : "GROWS"
		}' "$samples"
	fi
}

echo "soak: $MINUTES min per run ($RUNS); $(nproc) cpus, $("$JAVA" -version 2>&1 | head -1)"
for r in $RUNS; do
	run "$r"
done
