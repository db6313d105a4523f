/*
 * pb_writer.h - a minimal protocol buffers encoder (wire format only: the
 * caller knows its field numbers) for the pprof export.
 *
 * A message is built in a growing byte buffer; a nested message is built
 * in its own buffer and appended with pb_message(). Out of memory is
 * sticky: the buffer's oom flag is set and further writes are ignored.
 */
#ifndef JCAL_PB_WRITER_H
#define JCAL_PB_WRITER_H

#include <stddef.h>
#include <stdint.h>

enum pb_wire {
	PB_VARINT = 0,
	PB_LEN = 2,
};

struct pb {
	uint8_t *buf;
	size_t len, cap;
	int oom;
};

void pb_free(struct pb *b);
/* Empties b, keeping its memory. */
void pb_clear(struct pb *b);

void pb_raw(struct pb *b, const void *p, size_t n);
void pb_varint(struct pb *b, uint64_t v);
void pb_tag(struct pb *b, unsigned field, enum pb_wire wire);

/* Field of type uint64/int64 (negative int64 as its two's complement). */
void pb_uint(struct pb *b, unsigned field, uint64_t v);
void pb_int(struct pb *b, unsigned field, int64_t v);
/* Field of type bytes/string. */
void pb_bytes(struct pb *b, unsigned field, const void *p, size_t n);
void pb_string(struct pb *b, unsigned field, const char *s);
/* Embedded message sub as field. */
void pb_message(struct pb *b, unsigned field, const struct pb *sub);
/* Packed repeated uint64 (or int64 >= 0). */
void pb_packed(struct pb *b, unsigned field, const uint64_t *v, size_t n);

#endif
