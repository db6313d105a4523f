/*
 * xorshift.h - the tests' pseudo-random numbers: xorshift64*, fast and
 * deterministic for a given seed, good enough for random traces.
 */
#ifndef JCAL_TEST_XORSHIFT_H
#define JCAL_TEST_XORSHIFT_H

#include <stdint.h>

static inline uint64_t xorshift_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

#endif
