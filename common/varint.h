/*
 * varint.h - LEB128 unsigned varints and zigzag signed mapping.
 *
 * Used by the trace encoder (agent hot path, hence inline) and the reader.
 */
#ifndef JCAL_VARINT_H
#define JCAL_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define VARINT_MAX_LEN 10

/* Writes v at p (room for VARINT_MAX_LEN bytes needed); returns bytes written. */
static inline size_t varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* Reads a varint from [p, end); returns bytes consumed, 0 when the input ends
 * inside the varint or the value does not fit in 64 bits. */
static inline size_t varint_get(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;
	unsigned shift = 0;
	size_t n = 0;
	while (p + n < end) {
		uint8_t b = p[n++];
		if (shift == 63 && (b & 0x7e))
			return 0;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return n;
		}
		shift += 7;
		if (shift > 63)
			return 0;
	}
	return 0;
}

static inline uint64_t zigzag_enc(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t zigzag_dec(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

#endif
