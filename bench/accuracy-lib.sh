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
WORKLOADS=${WORKLOADS:-leaves recursion natives exceptions loops parser}

# pct ESTIMATE TRUTH: the error in % of the truth, one line
pct() { awk -v e="$1" -v t="$2" 'BEGIN{printf "%.2f\n", (e-t)*100/t}'; }
# a column of numbers on stdin -> "median (low..high)"
spread() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%+.1f (%+.0f..%+.0f)", m, a[1], a[NR]}'; }
# median of a column of numbers on stdin
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}'; }

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
