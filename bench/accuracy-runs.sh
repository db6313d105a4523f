#!/bin/bash
# accuracy-runs.sh RUNS [events|bci] [JVMS ROUNDS SCALE [WARMUP]]
# accuracy-runs.sh --summary FILE...
#
# The accuracy benchmark (docs/accuracy.md) RUNS times in a row, each run
# with its own calibration: bench/accuracy.sh (events, the default) or
# bench/accuracy-bci.sh (bci, which also takes WARMUP), with JVMS ROUNDS
# SCALE passed on (the script's defaults when absent). Each run's table is
# printed as it comes, with the machine's load average before it; then
# bench/accuracy-summary.awk summarises the runs: per estimator and workload
# the median over the runs of each run's median error (lowest..highest),
# each estimator's mean absolute error per run and overall, and the
# estimator with the lowest. TSV=FILE keeps the runs' figures (lines "run
# workload column median low high"); --summary summarises such files again.
# WORKLOADS and AGENT_OPTS pass through to the script. Never fails on
# accuracy.
set -eu
cd "$(dirname "$0")/.."
if [ "${1:-}" = --summary ]; then
	shift
	[ $# -gt 0 ] || {
		echo "usage: accuracy-runs.sh --summary FILE..." >&2
		exit 2
	}
	exec awk -f bench/accuracy-summary.awk "$@"
fi
RUNS=${1:?usage: accuracy-runs.sh RUNS [events|bci] [JVMS ROUNDS SCALE [WARMUP]]}
MODE=${2:-events}
shift $(($# < 2 ? $# : 2))
case $MODE in
events) script=bench/accuracy.sh ;;
bci) script=bench/accuracy-bci.sh ;;
*)
	echo "accuracy-runs.sh: mode must be events or bci, not '$MODE'" >&2
	exit 2
	;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${TSV:-$tmp/runs.tsv}
: >"$out"
for r in $(seq "$RUNS"); do
	echo "== run $r of $RUNS ($MODE): $(uptime | sed 's/.*load/load/')"
	TSV=$tmp/run.tsv "$script" "$@"
	awk -v r="$r" -v OFS='\t' '{print r, $0}' "$tmp/run.tsv" >>"$out"
	rm -f "$tmp/run.tsv"
done
echo "== $RUNS runs of $script $*, done $(date -u '+%Y-%m-%d %H:%M') UTC: $(uptime | sed 's/.*load/load/')"
echo
awk -f bench/accuracy-summary.awk "$out"
