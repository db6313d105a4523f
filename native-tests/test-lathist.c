/*
 * test-lathist.c - the log-linear histogram (common/lathist.c): every
 * bucket's bounds, the error bound of percentiles on random and
 * adversarial values against the exact nearest rank, exact count, sum,
 * min and max, and merging equal to adding every value to one histogram.
 */
#include "common/lathist.h"

#include <errno.h>

#include "native-tests/test.h"
#include "native-tests/xorshift.h"

static const unsigned permilles[] = {0, 1, 10, 100, 250, 500, 900, 990, 999, 1000};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether got is within 1/32 of want. */
static int within(uint64_t got, uint64_t want)
{
	unsigned __int128 d = got > want ? got - want : want - got;

	return d * LATHIST_ERROR_DIV <= want;
}

/* Adds v[0..n) to a histogram and checks its exact figures and every
 * percentile of permilles[] against the sorted values. */
static void check_values(uint64_t *v, size_t n)
{
	struct lathist *h = NULL;
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++) {
		CHECK(lathist_add(&h, v[i]) == 0);
		sum = sum > UINT64_MAX - v[i] ? UINT64_MAX : sum + v[i];
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	CHECK(lathist_valid(h));
	CHECK_EQ_U(h->count, n);
	CHECK_EQ_U(h->sum, sum);
	CHECK_EQ_U(h->min, v[0]);
	CHECK_EQ_U(h->max, v[n - 1]);
	for (size_t k = 0; k < sizeof(permilles) / sizeof(permilles[0]); k++) {
		size_t rank = (size_t)(((unsigned __int128)n * permilles[k] + 999) / 1000);
		uint64_t want = v[rank ? rank - 1 : 0], got = lathist_percentile(h, permilles[k]);

		if (!within(got, want)) {
			fprintf(stderr, "  p%u of %zu values: %" PRIu64 ", exact %" PRIu64 "\n",
				permilles[k], n, got, want);
			CHECK(0);
		}
	}
	lathist_free(h);
}

static void test_buckets(void)
{
	CHECK_EQ_U(lathist_bucket(UINT64_MAX), LATHIST_BUCKETS - 1);
	for (unsigned i = 0; i < LATHIST_BUCKETS; i++) {
		uint64_t lo = lathist_bucket_low(i), w = lathist_bucket_width(i);

		CHECK_EQ_U(lathist_bucket(lo), i);
		CHECK_EQ_U(lathist_bucket(lo + w - 1), i);
		if (i)
			CHECK_EQ_U(lathist_bucket(lo - 1), i - 1);
		CHECK(w == 1 || w * LATHIST_SUB <= lo); /* width <= low / 16 */
	}
	for (uint64_t v = 0; v < 32; v++)
		CHECK_EQ_U(lathist_bucket_low(lathist_bucket(v)), v); /* exact below 32 */
}

static void test_random(void)
{
	uint64_t s = 0x9e3779b97f4a7c15ull, v[5000];

	for (int round = 0; round < 200; round++) {
		size_t n = 1 + xorshift_next(&s) % 5000;
		unsigned shift = (unsigned)(xorshift_next(&s) % 64);

		for (size_t i = 0; i < n; i++)
			v[i] = xorshift_next(&s) >> shift;
		check_values(v, n);
	}
}

/* The values a bucketing gets wrong first: bucket edges, a bucket's last
 * value beside the next's first, powers of two and their neighbours, the
 * range's ends, many equal values. */
static void test_adversarial(void)
{
	uint64_t v[3 * 64 + 4 * LATHIST_BUCKETS], one[7] = {0, 0, 0, 0, 0, 0, 0};
	size_t n = 0;

	for (unsigned k = 0; k < 64; k++) {
		v[n++] = 1ull << k;
		v[n++] = (1ull << k) - 1;
		v[n++] = (1ull << k) + 1;
	}
	for (unsigned i = 0; i < LATHIST_BUCKETS; i++) {
		uint64_t lo = lathist_bucket_low(i), w = lathist_bucket_width(i);

		v[n++] = lo;
		v[n++] = lo + w - 1;
		v[n++] = lo + w / 2;
		v[n++] = UINT64_MAX - i;
	}
	check_values(v, n);
	check_values(one, 1);
	check_values(one, 7);
	for (unsigned i = 0; i < LATHIST_BUCKETS; i++) {
		uint64_t pair[2] = {lathist_bucket_low(i) + lathist_bucket_width(i) - 1,
				    lathist_bucket_low(i)};

		check_values(pair, 2); /* one bucket's both ends */
		check_values(&pair[0], 1);
	}
}

static int same(const struct lathist *a, const struct lathist *b)
{
	if (a->count != b->count || a->sum != b->sum || a->min != b->min || a->max != b->max ||
	    a->n != b->n)
		return 0;
	return memcmp(a->b, b->b, a->n * sizeof(a->b[0])) == 0;
}

static void test_merge(void)
{
	uint64_t s = 42;

	for (int round = 0; round < 100; round++) {
		struct lathist *all = NULL, *part[3] = {NULL, NULL, NULL}, *m = NULL;
		size_t n = xorshift_next(&s) % 3000;

		for (size_t i = 0; i < n; i++) {
			uint64_t v = xorshift_next(&s) >> (xorshift_next(&s) % 64);

			CHECK(lathist_add(&all, v) == 0);
			CHECK(lathist_add(&part[xorshift_next(&s) % 3], v) == 0);
		}
		for (int k = 0; k < 3; k++)
			CHECK(lathist_merge(&m, part[k]) == 0);
		CHECK((m == NULL) == (all == NULL));
		if (m && all) {
			CHECK(same(m, all));
			CHECK(lathist_valid(m));
		}
		lathist_free(all);
		lathist_free(m);
		for (int k = 0; k < 3; k++)
			lathist_free(part[k]);
	}
}

static void test_small_and_empty(void)
{
	struct lathist *h = NULL;

	CHECK_EQ_U(lathist_percentile(NULL, 500), 0);
	CHECK(lathist_valid(NULL));
	CHECK(lathist_add(&h, 123456789) == 0);
	CHECK_EQ_U(h->n, 1);
	CHECK_EQ_U(lathist_bytes(h), 48);		   /* one call: 40 + 8 bytes */
	CHECK_EQ_U(lathist_percentile(h, 500), 123456789); /* kept within [min, max] */
	CHECK(lathist_merge(&h, NULL) == 0);
	CHECK_EQ_U(h->count, 1);
	CHECK(lathist_add_bucket(&h, LATHIST_BUCKETS, 1) == -EINVAL);
	h->b[0] = (uint64_t)(lathist_bucket(123456789) + 1) << 54 | 1; /* wrong bucket for min */
	CHECK(!lathist_valid(h));
	lathist_free(h);
}

int main(void)
{
	RUN(test_buckets);
	RUN(test_random);
	RUN(test_adversarial);
	RUN(test_merge);
	RUN(test_small_and_empty);
	return test_summary("lathist");
}
