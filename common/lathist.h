/*
 * lathist.h - a log-linear histogram of values (the durations of a
 * context's calls, in the metric's unit), after HdrHistogram's idea.
 *
 * Values below 16 have a bucket each; a value v >= 16 with 2^k <= v <
 * 2^(k+1) falls in one of LATHIST_SUB (16) equal sub-buckets of
 * [2^k, 2^(k+1)), each 2^(k-4) wide. A bucket is represented by its
 * middle, so a value read back (lathist_percentile) is within
 * 1/(2 * LATHIST_SUB) = 1/32 (3.125%) of the true one (exact below 32);
 * count, sum, min and max are kept exact. There are LATHIST_BUCKETS
 * buckets in all (976), but only those that hold a value take room:
 * a histogram is one allocation of 40 bytes plus 8 per occupied bucket,
 * made at its first value (a context with one call: 48 bytes; a NULL
 * histogram is an empty one).
 */
#ifndef JCAL_LATHIST_H
#define JCAL_LATHIST_H

#include <stddef.h>
#include <stdint.h>

#define LATHIST_SUB 16u	     /* linear sub-buckets per power of two */
#define LATHIST_BUCKETS 976u /* 16 + 60 * 16: every uint64_t value has one */
/* the relative error of a value read back, as a fraction: 1/32 */
#define LATHIST_ERROR_DIV (2u * LATHIST_SUB)
#define LATHIST_ERROR_PCT "3.2" /* 100 / LATHIST_ERROR_DIV = 3.125, rounded up */

struct lathist {
	uint64_t count, sum; /* sum saturates at UINT64_MAX */
	uint64_t min, max;
	uint16_t n, cap; /* buckets in use, room in b (at most LATHIST_BUCKETS) */
	uint16_t hint;	 /* where the last value went: calls of a context are alike */
	uint16_t unused;
	/* the buckets in use, in rising order: index << 54 | count (a bucket's
	 * count saturates at 2^54 - 1) */
	uint64_t b[];
};

/* The bucket of value v, and the lowest value and width of bucket i. */
unsigned lathist_bucket(uint64_t v);
uint64_t lathist_bucket_low(unsigned i);
uint64_t lathist_bucket_width(unsigned i);

/* Bucket k (< h->n) of h: its index, its count. */
static inline unsigned lathist_index_at(const struct lathist *h, uint32_t k)
{
	return (unsigned)(h->b[k] >> 54);
}
static inline uint64_t lathist_count_at(const struct lathist *h, uint32_t k)
{
	return h->b[k] & ((1ull << 54) - 1);
}

/* lathist_add's way for a value whose bucket is not the last one used. */
int lathist_add_slow(struct lathist **h, uint64_t v);

/* Adds value v to *h (allocated at the first value). Returns 0 or
 * -ENOMEM (*h unchanged). Inline for the common case, a value in the
 * bucket of the one before (a context's calls take alike times): the
 * tree builder adds one at the end of every call. */
static inline int lathist_add(struct lathist **h, uint64_t v)
{
	struct lathist *p = *h;

	if (__builtin_expect(p != NULL && p->hint < p->n, 1)) {
		uint64_t *b = &p->b[p->hint];
		unsigned k = 63u - (unsigned)__builtin_clzll(v | 1);
		unsigned i = v < LATHIST_SUB ? (unsigned)v
					     : LATHIST_SUB + (k - 4) * LATHIST_SUB +
						   (unsigned)((v >> (k - 4)) & (LATHIST_SUB - 1));

		if ((unsigned)(*b >> 54) == i && (*b & ((1ull << 54) - 1)) != (1ull << 54) - 1 &&
		    p->count != UINT64_MAX && p->sum <= UINT64_MAX - v) {
			(*b)++;
			p->count++;
			p->sum += v;
			p->min = v < p->min ? v : p->min;
			p->max = v > p->max ? v : p->max;
			return 0;
		}
	}
	return lathist_add_slow(h, v);
}

/* Adds count values to bucket i of *h without touching min, max and sum
 * (a reader rebuilding a histogram sets those itself). Returns 0, -EINVAL
 * (i out of range) or -ENOMEM. */
int lathist_add_bucket(struct lathist **h, unsigned i, uint64_t count);

/* Adds every value of src (may be NULL) to *dst: the same histogram as if
 * they had been added one by one. Returns 0 or -ENOMEM (*dst unchanged). */
int lathist_merge(struct lathist **dst, const struct lathist *src);

/*
 * The value of nearest rank permille/1000 (rank ceil(count * permille /
 * 1000), at least 1): the middle of its bucket, kept within [min, max],
 * so within 1/32 of the exact value; 0 permille gives min, 1000 max.
 * 0 for an empty histogram.
 */
uint64_t lathist_percentile(const struct lathist *h, unsigned permille);

/* Whether h is consistent (buckets rising and in range, counts adding up
 * to count, min <= max in the buckets of min and max): for readers of
 * histograms from files. */
int lathist_valid(const struct lathist *h);

/* The bytes h takes (0 for NULL), for the docs' memory figures. */
size_t lathist_bytes(const struct lathist *h);

void lathist_free(struct lathist *h);

#endif
