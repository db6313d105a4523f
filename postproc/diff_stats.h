/*
 * diff_stats.h - the statistics of jcal-post diff over several runs of
 * each side (docs/jcal-post.md, "Comparing two runs", the noise rule):
 * the median of a side's runs, their relative spread, and whether a cost
 * changed beyond that spread. Pure functions on arrays of figures.
 */
#ifndef JCAL_DIFF_STATS_H
#define JCAL_DIFF_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Sorts v[0..n) in place and returns its median: the middle value, the
 * lower of the two middle values for an even n (a figure one of the runs
 * had); 0 for n = 0. */
uint64_t diff_stats_median(uint64_t *v, size_t n);

/* The relative spread of sorted[0..n) in percent: (max - min) / median *
 * 100; 0 when every value is equal (one value included); infinity when
 * the median is 0 and the largest is not. */
double diff_stats_spread(const uint64_t *sorted, size_t n);

/* The noise rule: 1 (beyond) when every new value is above every base
 * value, or every one below, and the medians differ by more than the
 * larger relative spread of the two sides (the difference relative to the
 * base median: infinite from a median of 0); else 0 (within). Both arrays
 * sorted; a side of fewer than two values is never beyond (no spread to
 * measure). */
int diff_stats_beyond(const uint64_t *base, size_t nb, const uint64_t *new_, size_t nn);

/* The change from -> to in percent as reports print it into buf (at
 * least 32 bytes): "+200.0%", "-12.5%", "+0.025%" (two significant digits
 * below 0.1%), "0.0%" for none, "new" from 0. */
void diff_stats_pct(char *buf, size_t len, uint64_t from, uint64_t to);

#endif
