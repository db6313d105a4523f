#!/bin/sh
# shape-check.sh - a smoke check of bench/shape.sh's arithmetic (make test):
# bench/shape-flat.awk on a flat CSV with quoted overloads, and
# bench/shape-compare.awk's top selection, overload merging, shares and
# distances on fixed inputs, compared exactly. Prints one ok/FAIL line and
# "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
check() {
	if [ "$2" = "$3" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		printf 'FAIL %s\n  want: %s\n  got:  %s\n' "$1" "$3" "$2"
	fi
}

cat >"$tmp/flat.csv" <<'CSV'
method,calls,base,cum,raw_base,raw_cum
p.A.run,3,500,900,600,1000
"p.A.add(int, int)",2,300,300,350,350
"p.A.add(long, long)",1,100,100,120,120
p.B.<init>,1,100,100,110,110
CSV
got=$(awk -f bench/shape-flat.awk "$tmp/flat.csv" | tr '\n' ';')
check "flat CSV to VALUE NAME" "$got" "500 p.A.run;300 p.A.add(int, int);100 p.A.add(long, long);100 p.B.<init>;"

# reference: A.add 40% (overloads merged), A.run 30%, B.<init> 20%, C.x 10%
printf '# samples 10\n3 p.A.run\n2 p.A.add\n2 p.A.add\n2 p.B.<init>\n1 p.C.x\n' >"$tmp/ref"
awk -f bench/shape-flat.awk "$tmp/flat.csv" >"$tmp/p1"
printf '1 p.C.x\n1 p.D.y\n' >"$tmp/p2"
got=$(awk -v top=3 -v groups="a b" -f bench/shape-compare.awk "$tmp/ref" "$tmp/p1" "$tmp/p2" | tr '\n' ';')
# p1: run 50, add 40, B 10 -> |50-30| + |40-40| + |10-20| = 30
# p2: none of the top 3 -> 30 + 40 + 20 = 90; top 3 hold 90% of the reference
check "distances over the top 3" "$got" "top 90.00;a 30.00;b 90.00;"
got=$(awk -v top=3 -v verbose=1 -f bench/shape-compare.awk "$tmp/ref" "$tmp/p1" "$tmp/p1" |
	awk '$1 == "p.A.add" || $1 == "p.B.<init>" { print $1, $2, $3 }' | tr '\n' ';')
check "per-method table, overloads merged" "$got" "p.A.add 40.00 40.00;p.B.<init> 20.00 10.00;"
printf '3 p.A\n0 p.B\n' >"$tmp/ref0"
got=$(awk -v top=2 -v verbose=1 -f bench/shape-compare.awk "$tmp/ref0" "$tmp/p2" | awk '$1 ~ /^(top|p\.)/ { print $1 }' | tr '\n' ';')
check "no method without a share among the top" "$got" "top;p.A;"
awk -f bench/shape-compare.awk "$tmp/ref" 2>/dev/null
check "a reference alone is refused" "$?" "1"

if [ $fail = 0 ]; then echo "ok   bench/shape.sh arithmetic ($pass checks)"; fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
