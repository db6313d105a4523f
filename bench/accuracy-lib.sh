# shellcheck shell=bash
# accuracy-lib.sh - sourced by bench/accuracy.sh and bench/accuracy-bci.sh:
# the JDK, a temporary directory, the error arithmetic and calibration.

JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
JAVA="$JAVA_HOME/bin/java"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
table=$tmp/table.txt
# AGENT_OPTS: extra agent options for every calibrating and traced JVM,
# e.g. AGENT_OPTS=loglevel=debug; WORKLOADS: the workloads run (all by default).
AGENT_OPTS=${AGENT_OPTS:-}
WORKLOADS=${WORKLOADS:-leaves recursion natives exceptions loops parser collections strings interp}
# TSV=FILE: every figure of the table is also appended to FILE, one
# tab-separated line each: workload, column (truth_ns, raw, an estimator),
# median, lowest, highest over the JVMs (bench/accuracy-runs.sh reads them).
TSV=${TSV:-}

# pct ESTIMATE TRUTH: the error in % of the truth, one line
pct() { awk -v e="$1" -v t="$2" 'BEGIN{printf "%.2f\n", (e-t)*100/t}'; }
# a column of numbers on stdin -> "median lowest highest"
stats() { sort -g | awk '{a[NR]=$1} END {print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2, a[1], a[NR]}'; }
# a column of numbers on stdin -> "median (low..high)"
spread() { stats | awk '{printf "%+.1f (%+.0f..%+.0f)", $1, $2, $3}'; }
# median of a column of numbers on stdin
median() { stats | awk '{print $1}'; }
# record WORKLOAD COLUMN FILE: FILE's figures as one line of $TSV (if set)
record() {
	[ -z "$TSV" ] || stats <"$3" | awk -v w="$1" -v c="$2" -v OFS='\t' '{print w, c, $1, $2, $3}' >>"$TSV"
}
# figure WORKLOAD COLUMN FILE: "median (low..high)" of FILE for the table, recorded
figure() {
	record "$@"
	spread <"$3"
}

# calibrate LABEL JVM-FLAGS... AGENT-OPTIONS: writes $table or exits
calibrate() {
	label=$1
	shift
	echo "calibrating ($label) ..."
	"$JAVA" "$@" >"$tmp/calib.log" 2>&1 || {
		cat "$tmp/calib.log" >&2
		exit 1
	}
}
