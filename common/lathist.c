/*
 * lathist.c - the log-linear histogram of a context's call durations (see
 * lathist.h): buckets, adding, merging, percentiles.
 */
#include "common/lathist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define COUNT_MASK ((1ull << 54) - 1)

unsigned lathist_bucket(uint64_t v)
{
	unsigned k;

	if (v < LATHIST_SUB)
		return (unsigned)v;
	k = 63u - (unsigned)__builtin_clzll(v); /* >= 4 */
	return LATHIST_SUB + (k - 4) * LATHIST_SUB + (unsigned)((v >> (k - 4)) & (LATHIST_SUB - 1));
}

uint64_t lathist_bucket_low(unsigned i)
{
	unsigned k, sub;

	if (i < LATHIST_SUB)
		return i;
	k = (i - LATHIST_SUB) / LATHIST_SUB + 4;
	sub = (i - LATHIST_SUB) % LATHIST_SUB;
	return (uint64_t)(LATHIST_SUB + sub) << (k - 4);
}

uint64_t lathist_bucket_width(unsigned i)
{
	if (i < LATHIST_SUB)
		return 1;
	return 1ull << ((i - LATHIST_SUB) / LATHIST_SUB);
}

static uint64_t sat_add(uint64_t a, uint64_t b, uint64_t top)
{
	return a > top - b || b > top ? top : a + b;
}

/* The place of bucket i in h: where it is, or where it would go. The
 * last place found first; then a search without branches on the data
 * (a context's buckets are few, and which way a step goes is random). */
static uint32_t find(const struct lathist *h, unsigned i, int *found)
{
	const uint64_t key = (uint64_t)i << 54;
	const uint64_t *b;
	uint32_t lo = 0, n;

	if (!h || !h->n) {
		*found = 0;
		return 0;
	}
	b = h->b;
	/* the last bucket used and its neighbours: a context's calls jitter
	 * around their usual time */
	for (uint32_t k = h->hint ? h->hint - 1u : 0; k <= h->hint + 1u && k < h->n; k++)
		if ((b[k] & ~COUNT_MASK) == key) {
			*found = 1;
			return k;
		}
	/* the first bucket whose index is >= i: lo + (the half below it) */
	for (n = h->n; n > 1; n -= n / 2)
		lo = (b[lo + n / 2 - 1] & ~COUNT_MASK) < key ? lo + n / 2 : lo;
	lo += (b[lo] & ~COUNT_MASK) < key;
	*found = lo < h->n && (b[lo] & ~COUNT_MASK) == key;
	return lo;
}

/* Room in *h for need buckets (made when *h is NULL, empty). */
static int reserve(struct lathist **h, uint32_t need)
{
	struct lathist *p = *h;
	uint32_t cap = p ? p->cap : 0; /* uint16_t's doubling would wrap */

	if (p && need <= cap)
		return 0;
	while (cap < need)
		cap = cap ? cap * 2 : 1;
	if (cap > LATHIST_BUCKETS)
		cap = LATHIST_BUCKETS;
	p = realloc(p, sizeof(*p) + (size_t)cap * sizeof(p->b[0]));
	if (!p)
		return -ENOMEM;
	if (!*h) {
		memset(p, 0, sizeof(*p));
		p->min = UINT64_MAX;
	}
	p->cap = (uint16_t)cap;
	*h = p;
	return 0;
}

int lathist_add_bucket(struct lathist **h, unsigned i, uint64_t count)
{
	struct lathist *p;
	uint32_t at;
	int found;

	if (i >= LATHIST_BUCKETS)
		return -EINVAL;
	at = find(*h, i, &found);
	if (!found && reserve(h, (*h ? (*h)->n : 0) + 1))
		return -ENOMEM;
	p = *h;
	p->hint = (uint16_t)at;
	if (found) {
		p->b[at] = (uint64_t)i << 54 | sat_add(p->b[at] & COUNT_MASK, count, COUNT_MASK);
	} else {
		memmove(&p->b[at + 1], &p->b[at], (size_t)(p->n - at) * sizeof(p->b[0]));
		p->b[at] = (uint64_t)i << 54 | (count > COUNT_MASK ? COUNT_MASK : count);
		p->n++;
	}
	p->count = sat_add(p->count, count, UINT64_MAX);
	return 0;
}

int lathist_add_slow(struct lathist **h, uint64_t v)
{
	if (lathist_add_bucket(h, lathist_bucket(v), 1))
		return -ENOMEM;
	(*h)->sum = sat_add((*h)->sum, v, UINT64_MAX);
	if (v < (*h)->min)
		(*h)->min = v;
	if (v > (*h)->max)
		(*h)->max = v;
	return 0;
}

int lathist_merge(struct lathist **dst, const struct lathist *src)
{
	struct lathist *d;
	uint32_t i = 0, j = 0, k = 0, n, room;
	uint64_t *b;

	if (!src || !src->count)
		return 0;
	room = (*dst ? (*dst)->n : 0) + src->n;
	if (room > LATHIST_BUCKETS)
		room = LATHIST_BUCKETS;
	if (reserve(dst, room))
		return -ENOMEM;
	d = *dst;
	n = d->n;
	b = malloc(((size_t)n + src->n) * sizeof(*b));
	if (!b)
		return -ENOMEM;
	while (i < n || j < src->n) {
		unsigned a = i < n ? lathist_index_at(d, i) : LATHIST_BUCKETS;
		unsigned c = j < src->n ? lathist_index_at(src, j) : LATHIST_BUCKETS;

		if (a == c)
			b[k++] =
			    (uint64_t)a << 54 | sat_add(lathist_count_at(d, i++),
							lathist_count_at(src, j++), COUNT_MASK);
		else if (a < c)
			b[k++] = d->b[i++];
		else
			b[k++] = src->b[j++];
	}
	memcpy(d->b, b, (size_t)k * sizeof(*b));
	free(b);
	d->n = (uint16_t)k;
	d->count = sat_add(d->count, src->count, UINT64_MAX);
	d->sum = sat_add(d->sum, src->sum, UINT64_MAX);
	if (src->min < d->min)
		d->min = src->min;
	if (src->max > d->max)
		d->max = src->max;
	return 0;
}

uint64_t lathist_percentile(const struct lathist *h, unsigned permille)
{
	uint64_t rank, seen = 0, v;

	if (!h || !h->count)
		return 0;
	if (permille == 0)
		return h->min;
	if (permille >= 1000)
		return h->max;
	rank = (uint64_t)(((unsigned __int128)h->count * permille + 999) / 1000);
	for (uint32_t k = 0; k < h->n; k++) {
		seen += lathist_count_at(h, k);
		if (seen >= rank) {
			unsigned i = lathist_index_at(h, k);

			v = lathist_bucket_low(i) + lathist_bucket_width(i) / 2;
			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max; /* counts saturated */
}

int lathist_valid(const struct lathist *h)
{
	uint64_t total = 0;

	if (!h)
		return 1;
	if (!h->count)
		return h->n == 0;
	if (h->n == 0 || h->n > LATHIST_BUCKETS || h->min > h->max)
		return 0;
	for (uint32_t k = 0; k < h->n; k++) {
		if (lathist_index_at(h, k) >= LATHIST_BUCKETS || !lathist_count_at(h, k) ||
		    (k && lathist_index_at(h, k) <= lathist_index_at(h, k - 1)))
			return 0;
		total = sat_add(total, lathist_count_at(h, k), UINT64_MAX);
	}
	return total == h->count && lathist_index_at(h, 0) == lathist_bucket(h->min) &&
	       lathist_index_at(h, h->n - 1) == lathist_bucket(h->max);
}

size_t lathist_bytes(const struct lathist *h)
{
	return h ? sizeof(*h) + (size_t)h->cap * sizeof(h->b[0]) : 0;
}

void lathist_free(struct lathist *h)
{
	free(h);
}
