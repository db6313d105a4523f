/*
 * diff_stats.c - medians, relative spreads and the noise rule of
 * jcal-post diff's sets of runs (see diff_stats.h).
 */
#include "postproc/diff_stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t diff_stats_median(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), by_value);
	return v[(n - 1) / 2];
}

double diff_stats_spread(const uint64_t *sorted, size_t n)
{
	uint64_t med;

	if (n < 2 || sorted[0] == sorted[n - 1])
		return 0;
	med = sorted[(n - 1) / 2];
	if (!med)
		return INFINITY;
	return (double)(sorted[n - 1] - sorted[0]) / (double)med * 100.0;
}

int diff_stats_beyond(const uint64_t *base, size_t nb, const uint64_t *new_, size_t nn)
{
	uint64_t mb, mn;
	double spread, change;

	if (nb < 2 || nn < 2)
		return 0;
	/* separated: no run of one side within the range of the other */
	if (!(new_[0] > base[nb - 1] || new_[nn - 1] < base[0]))
		return 0;
	mb = base[(nb - 1) / 2];
	mn = new_[(nn - 1) / 2];
	spread = fmax(diff_stats_spread(base, nb), diff_stats_spread(new_, nn));
	change = mb ? fabs((double)mn - (double)mb) / (double)mb * 100.0 : INFINITY;
	return change > spread;
}

void diff_stats_pct(char *buf, size_t len, uint64_t from, uint64_t to)
{
	double p;

	if (!from) {
		snprintf(buf, len, "%s", to ? "new" : "0.0%");
		return;
	}
	p = (double)(to > from ? to - from : from - to) / (double)from * 100.0;
	if (to == from)
		snprintf(buf, len, "0.0%%");
	else if (p < 0.1)
		snprintf(buf, len, "%c%.2g%%", to > from ? '+' : '-', p);
	else
		snprintf(buf, len, "%c%.1f%%", to > from ? '+' : '-', p);
}
