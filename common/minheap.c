/*
 * minheap.c - the binary min-heap of minheap.h.
 */
#include "common/minheap.h"

/* Swaps elements a and b of size bytes, a byte at a time (no buffer). */
static void swap(unsigned char *a, unsigned char *b, size_t size)
{
	for (size_t k = 0; k < size; k++) {
		unsigned char t = a[k];

		a[k] = b[k];
		b[k] = t;
	}
}

void minheap_up(void *base, size_t size, size_t i, minheap_less_fn less)
{
	unsigned char *h = base;

	for (; i && less(h + i * size, h + (i - 1) / 2 * size); i = (i - 1) / 2)
		swap(h + i * size, h + (i - 1) / 2 * size, size);
}

void minheap_down(void *base, size_t n, size_t size, size_t i, minheap_less_fn less)
{
	unsigned char *h = base;

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, min = i;

		if (l < n && less(h + l * size, h + min * size))
			min = l;
		if (r < n && less(h + r * size, h + min * size))
			min = r;
		if (min == i)
			return;
		swap(h + i * size, h + min * size, size);
		i = min;
	}
}
