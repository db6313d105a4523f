# shape-compare.awk - the arithmetic of bench/shape.sh (docs/accuracy.md,
# "Profile shape against a sampler"): how far profiles' self-time shares are
# from a reference profile's, over the reference's top methods.
#
# awk -v top=20 [-v groups="raw raw cal cal"] [-v verbose=1] \
#     -f bench/shape-compare.awk REFERENCE PROFILE...
#
# Every file has lines "VALUE NAME" (samples, or base in the metric's unit;
# lines starting with # are skipped). A NAME's parameter list, if any, is
# cut off, so overloads merge; values of equal names add up. Shares are per
# file: VALUE / the file's total. The compared methods are the reference's
# top N by share (ties by name; none without a share). First a line "top SHARE": the reference's
# share of those methods, in percent; then per PROFILE, in order, one line
# "GROUP DISTANCE": the sum over those methods of |share - reference share|
# in percentage points (GROUP from groups, one word per PROFILE, default
# "p"). With verbose=1, a table follows: per method its reference share and
# the median share of each group's profiles, then each group's median
# distance.

function norm(s, i) {
	i = index(s, "(")
	return i ? substr(s, 1, i - 1) : s
}

# median of the n numbers v[1..n] (sorted in place)
function median(v, n, i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}

BEGIN {
	if (top == "")
		top = 20
}

FNR == 1 { nf++ }
/^#/ || NF < 2 { next }
{
	name = norm($2)
	val[nf, name] += $1
	total[nf] += $1
	if (nf == 1 && !((1, name) in seen)) {
		seen[1, name] = 1
		names[++nnames] = name
	}
}

END {
	if (nf < 2 || total[1] <= 0) {
		print "shape-compare: need a non-empty reference and at least one profile" > "/dev/stderr"
		exit 1
	}
	# the reference's top methods: selection by share, ties by name
	for (k = 1; k <= top && k <= nnames; k++) {
		best = ""
		for (i = 1; i <= nnames; i++) {
			n = names[i]
			if (n in picked)
				continue
			if (best == "" || val[1, n] > val[1, best] || (val[1, n] == val[1, best] && n < best))
				best = n
		}
		if (val[1, best] <= 0)
			break
		picked[best] = 1
		topn[k] = best
	}
	ntop = k - 1
	cover = 0
	for (k = 1; k <= ntop; k++)
		cover += val[1, topn[k]]
	printf "top %.2f\n", 100 * cover / total[1]
	ng = split(groups, g)
	ngroups = 0
	for (f = 2; f <= nf; f++) {
		gname = (f - 1 <= ng) ? g[f - 1] : "p"
		grp[f] = gname
		if (!(gname in gseen)) {
			gseen[gname] = 1
			gorder[++ngroups] = gname
		}
		d = 0
		for (k = 1; k <= ntop; k++) {
			n = topn[k]
			s = total[f] > 0 ? 100 * val[f, n] / total[f] : 0
			x = s - 100 * val[1, n] / total[1]
			d += x < 0 ? -x : x
		}
		dist[f] = d
		printf "%s %.2f\n", gname, d
	}
	if (!verbose)
		exit 0
	printf "\n%-72s %9s", "method (top " ntop " of the reference)", "ref %"
	for (j = 1; j <= ngroups; j++)
		printf " %9s", gorder[j] " %"
	printf "\n"
	for (k = 1; k <= ntop; k++) {
		n = topn[k]
		printf "%-72s %9.2f", n, 100 * val[1, n] / total[1]
		for (j = 1; j <= ngroups; j++) {
			m = 0
			for (f = 2; f <= nf; f++)
				if (grp[f] == gorder[j])
					v[++m] = total[f] > 0 ? 100 * val[f, n] / total[f] : 0
			printf " %9.2f", median(v, m)
		}
		printf "\n"
	}
	printf "%-72s %9s", "sum of |share - ref share|, pp (median)", ""
	for (j = 1; j <= ngroups; j++) {
		m = 0
		for (f = 2; f <= nf; f++)
			if (grp[f] == gorder[j])
				v[++m] = dist[f]
		printf " %9.2f", median(v, m)
	}
	printf "\n"
}
