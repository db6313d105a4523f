/*
 * pb_writer.c - protocol buffers wire-format encoder (see pb_writer.h).
 */
#include "postproc/pb_writer.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"

void pb_free(struct pb *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

void pb_clear(struct pb *b)
{
	b->len = 0;
}

void pb_raw(struct pb *b, const void *p, size_t n)
{
	if (b->oom || !n)
		return;
	if (b->len + n < b->len || grow(&b->buf, &b->cap, b->len + n)) {
		b->oom = 1;
		return;
	}
	memcpy(b->buf + b->len, p, n);
	b->len += n;
}

void pb_varint(struct pb *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	pb_raw(b, tmp, n);
}

void pb_tag(struct pb *b, unsigned field, enum pb_wire wire)
{
	pb_varint(b, (uint64_t)field << 3 | (unsigned)wire);
}

void pb_uint(struct pb *b, unsigned field, uint64_t v)
{
	pb_tag(b, field, PB_VARINT);
	pb_varint(b, v);
}

void pb_int(struct pb *b, unsigned field, int64_t v)
{
	pb_uint(b, field, (uint64_t)v);
}

void pb_bytes(struct pb *b, unsigned field, const void *p, size_t n)
{
	pb_tag(b, field, PB_LEN);
	pb_varint(b, n);
	pb_raw(b, p, n);
}

void pb_string(struct pb *b, unsigned field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

void pb_message(struct pb *b, unsigned field, const struct pb *sub)
{
	if (sub->oom)
		b->oom = 1;
	pb_bytes(b, field, sub->buf, sub->len);
}

void pb_packed(struct pb *b, unsigned field, const uint64_t *v, size_t n)
{
	struct pb tmp = {0};

	for (size_t i = 0; i < n; i++)
		pb_varint(&tmp, v[i]);
	pb_message(b, field, &tmp);
	pb_free(&tmp);
}
