/*
 * test-minheap.c - the binary min-heap of common/minheap.c: keeping the N
 * largest of random values (with many equal ones) in elements of an odd
 * size gives exactly the N largest, the first of equal ones kept, and the
 * smallest kept always at index 0.
 */
#include "common/minheap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "native-tests/test.h"
#include "native-tests/xorshift.h"

/* An element of 13 bytes: not a size the swap could take in words. */
struct elem {
	uint64_t v;
	uint32_t seq;
	uint8_t pad;
} __attribute__((packed));

/* a is less: smaller, or of equal ones the later (so the first stays). */
static int less(const void *pa, const void *pb)
{
	const struct elem *a = pa, *b = pb;

	return a->v != b->v ? a->v < b->v : a->seq > b->seq;
}

static int longer_first(const void *pa, const void *pb)
{
	return less(pa, pb) ? 1 : less(pb, pa) ? -1 : 0;
}

static void test_keeps_the_largest(void)
{
	uint64_t rng = 5;

	for (size_t top = 1; top <= 40; top += 13) {
		struct elem h[40], all[2000];
		size_t n = 0;

		for (uint32_t i = 0; i < 2000; i++) {
			struct elem e = {xorshift_next(&rng) % 300, i, 0};

			all[i] = e;
			if (n < top) {
				h[n] = e;
				minheap_up(h, sizeof(h[0]), n++, less);
			} else if (less(&h[0], &e)) {
				h[0] = e;
				minheap_down(h, n, sizeof(h[0]), 0, less);
			}
			for (size_t k = 1; k < n; k++)
				CHECK(!less(&h[k], &h[0]));
		}
		qsort(all, 2000, sizeof(all[0]), longer_first);
		qsort(h, n, sizeof(h[0]), longer_first);
		CHECK_EQ_U(n, top);
		for (size_t k = 0; k < n; k++)
			CHECK(h[k].v == all[k].v && h[k].seq == all[k].seq);
	}
}

int main(void)
{
	RUN(test_keeps_the_largest);
	return test_summary("minheap");
}
