# accuracy-summary.awk - the five-run summary of bench/accuracy-runs.sh
# (docs/accuracy.md). Input: tab-separated lines "run workload column median
# low high", one per figure of one run's table (bench/accuracy-lib.sh,
# TSV=); column is truth_ns, raw or an estimator, median the median error in
# % over that run's JVMs. Prints per column and workload the median of the
# runs' medians (lowest..highest), then per column the mean absolute error
# over the workloads of each run, its mean over every figure, the mean
# absolute error of the medians over runs and how many of those are within
# 10%, and names the estimator (not raw) with the lowest overall mean.
BEGIN { FS = "\t" }

function add(list, key, x) {
	if (!(key in list)) {
		list[key] = 1
		return 1
	}
	return 0
}

# median, lowest and highest of the space-separated numbers in s, as "m lo hi"
function mlh(s,    a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			t = a[j]
			a[j] = a[j - 1]
			a[j - 1] = t
		}
	return ((n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) " " a[1] " " a[n]
}

NF >= 4 {
	if (add(wseen, $2)) wl[++nw] = $2
	if (add(rseen, $1)) rl[++nr] = $1
	if ($3 != "truth_ns" && add(cseen, $3)) cl[++nc] = $3
	v[$3, $2] = v[$3, $2] " " $4
	if ($3 == "truth_ns")
		next
	x = $4 < 0 ? -$4 : $4
	sum[$3, $1] += x
	cnt[$3, $1]++
	tot[$3] += x
	tn[$3]++
}

END {
	if (nc == 0) {
		print "accuracy-summary: no figures" > "/dev/stderr"
		exit 1
	}
	# the cells first, so the columns can be as wide as their widest cell
	width = 10
	for (i = 1; i <= nw; i++) {
		cell["truth_ns", i] = "-"
		if (("truth_ns", wl[i]) in v) {
			split(mlh(v["truth_ns", wl[i]]), m, " ")
			cell["truth_ns", i] = sprintf("%.3g (%.3g..%.3g)", m[1] / 1e6, m[2] / 1e6, m[3] / 1e6)
		}
		for (c = 1; c <= nc; c++) {
			cell[cl[c], i] = "-"
			if ((cl[c], wl[i]) in v) {
				split(mlh(v[cl[c], wl[i]]), m, " ")
				cell[cl[c], i] = sprintf("%+.0f (%+.0f..%+.0f)", m[1], m[2], m[3])
			}
		}
	}
	for (k in cell)
		if (length(cell[k]) > width)
			width = length(cell[k])
	printf "%-14s", "error %"
	for (i = 1; i <= nw; i++)
		printf "  %-*s", width, wl[i]
	printf "\n%-14s", "truth ms"
	for (i = 1; i <= nw; i++)
		printf "  %-*s", width, cell["truth_ns", i]
	printf "\n"
	for (c = 1; c <= nc; c++) {
		printf "%-14s", cl[c]
		for (i = 1; i <= nw; i++)
			printf "  %-*s", width, cell[cl[c], i]
		printf "\n"
	}
	printf "\nmean absolute error %% over the workloads, per run (%s", rl[1]
	for (r = 2; r <= nr; r++)
		printf " %s", rl[r]
	printf "); overall; of the medians over runs; those within 10%%:\n"
	best = ""
	for (c = 1; c <= nc; c++) {
		printf "%-14s", cl[c]
		for (r = 1; r <= nr; r++)
			if ((cl[c], rl[r]) in cnt)
				printf " %5.0f", sum[cl[c], rl[r]] / cnt[cl[c], rl[r]]
			else
				printf " %5s", "-"
		mae = tot[cl[c]] / tn[cl[c]]
		mm = 0
		k = 0
		within = 0
		for (i = 1; i <= nw; i++) {
			if (!((cl[c], wl[i]) in v))
				continue
			split(mlh(v[cl[c], wl[i]]), m, " ")
			a = m[1] < 0 ? -m[1] : m[1]
			mm += a
			k++
			if (a <= 10)
				within++
		}
		printf "   (mean %.1f; medians %.1f; within 10%%: %d of %d)\n", mae, mm / k, within, k
		if (cl[c] != "raw" && (best == "" || mae < bestmae)) {
			best = cl[c]
			bestmae = mae
		}
	}
	printf "\nlowest overall mean absolute error: %s (%.1f%%)\n", best, bestmae
}
