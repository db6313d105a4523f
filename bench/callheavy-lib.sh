# callheavy-lib.sh - sourced by bench/tree-hist-cost.sh and tree-slow-cost.sh:
# a scratch directory removed at exit ($tmp), median (of numbers on stdin),
# callheavy_ms LIB MODE [OPTS] (the loop's CPU time jcalbench.CallHeavy N
# prints under LIB with output=tree,metric=tsc,mode=MODE and OPTS) and
# callheavy_calls (the calls of jcalbench.* a run makes, from a trace).
# Needs BUILD, JAVA and N.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
callheavy_ms() {
	"$JAVA" -agentpath:"$1=trace,quiet,output=tree,metric=tsc,mode=$2${3:-},out=$tmp/t.tree" \
		-cp "$BUILD/bench" jcalbench.CallHeavy "$N" 2>"$tmp/err" |
		sed -n "s/.*cpu_ms=\([0-9.]*\).*/\1/p" || { cat "$tmp/err" >&2; exit 1; }
}
callheavy_calls() {
	"$JAVA" -agentpath:"$BUILD/libjcal.so=trace,quiet,mode=bci,include=jcalbench.*,out=$tmp/c.bin" \
		-cp "$BUILD/bench" jcalbench.CallHeavy "$N" >/dev/null
	"$BUILD/jcal-post" "$tmp/c.bin" --raw --report flat --format csv 2>/dev/null |
		awk -F, 'NR > 1 && $1 ~ /^jcalbench\./ {s += $2} END {print s}'
}
