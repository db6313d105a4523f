/*
 * trace_encoder.c - builds EVENTS and RECORDS chunks in memory and the file
 * header (docs/trace-format.md). The per-event encoder is inline in
 * trace_encoder.h; this file owns chunk framing, the record encoders and
 * the stop field the agent writes in place when a write fails.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "common/grow.h"
#include "common/lathist.h"
#include "common/trace_encoder.h"

/* Longest string stored in a record; longer ones are cut (JVM names are at
 * most 65535 bytes of modified UTF-8 anyway). */
#define TRACE_STR_MAX 65535u
/* Room reserved for a record's length varint while its payload is built. */
#define REC_LEN_MAX 5

static void put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t zlib_crc32(uint32_t crc, const uint8_t *buf, size_t len)
{
	/* (zlib's crc32() returns 0 for a NULL buffer, whatever crc was) */
	return len ? (uint32_t)crc32_z(crc, buf, len) : crc;
}

static trace_crc32_fn crc_fn = zlib_crc32;

void trace_use_crc32(trace_crc32_fn fn)
{
	crc_fn = fn ? fn : zlib_crc32;
}

uint32_t trace_crc32(uint32_t crc, const uint8_t *buf, size_t len)
{
	return crc_fn(crc, buf, len);
}

uint32_t trace_chunk_crc(const uint8_t *header, const uint8_t *payload, size_t payload_len)
{
	return crc_fn(crc_fn(0, header, TRACE_CHUNK_CRC_OFFSET), payload, payload_len);
}

uint32_t trace_header_crc(const uint8_t *header)
{
	return crc_fn(0, header, TRACE_HEADER_CRC_OFFSET);
}

/* Writes the chunk header for the payload that follows it in buf. */
static void chunk_header(uint8_t *buf, unsigned kind, size_t payload_len)
{
	put_u32(buf, TRACE_CHUNK_MAGIC);
	buf[4] = (uint8_t)kind;
	buf[5] = buf[6] = buf[7] = 0;
	put_u32(buf + 8, (uint32_t)payload_len);
	put_u32(buf + TRACE_CHUNK_CRC_OFFSET,
		trace_chunk_crc(buf, buf + TRACE_CHUNK_HEADER_LEN, payload_len));
}

void trace_header_encode(uint8_t out[TRACE_FILE_HEADER_LEN])
{
	/* The magic is 8 bytes with no terminator in the file. */
	memcpy(out, TRACE_MAGIC, TRACE_MAGIC_LEN); /* NOLINT(bugprone-not-null-terminated-result) */
	put_u16(out + 8, TRACE_VERSION_MAJOR);
	put_u16(out + 10, TRACE_VERSION_MINOR);
	put_u32(out + 12, 0);
	put_u32(out + TRACE_HEADER_CRC_OFFSET, trace_header_crc(out));
	trace_stop_field(out + TRACE_STOP_OFFSET, TRACE_STOP_NONE);
}

/* ---- stop field ---- */

void trace_stop_field(uint8_t out[TRACE_STOP_LEN], unsigned reason)
{
	put_u16(out, (uint16_t)reason);
	put_u16(out + 2, (uint16_t)~reason);
}

unsigned trace_stop_reason(int err)
{
	switch (err) {
	case ENOSPC:
#ifdef EDQUOT
	case EDQUOT:
#endif
		return TRACE_STOP_NOSPACE;
	case EFBIG:
		return TRACE_STOP_FSIZE;
	default:
		return TRACE_STOP_WRITE;
	}
}

int trace_header_mark_stopped(int fd, int err)
{
	uint8_t f[TRACE_STOP_LEN];

	trace_stop_field(f, trace_stop_reason(err));
	return pwrite(fd, f, sizeof(f), TRACE_STOP_OFFSET) == (ssize_t)sizeof(f) ? 0 : -1;
}

/* ---- events ---- */

void trace_events_init(struct trace_events_enc *enc, uint8_t *buf, size_t cap, uint32_t serial,
		       unsigned nmetrics)
{
	enc->buf = buf;
	/* A chunk payload may not exceed TRACE_CHUNK_MAX_PAYLOAD. */
	if (cap > TRACE_CHUNK_HEADER_LEN + (size_t)TRACE_CHUNK_MAX_PAYLOAD)
		cap = TRACE_CHUNK_HEADER_LEN + (size_t)TRACE_CHUNK_MAX_PAYLOAD;
	enc->cap = cap;
	enc->serial = serial;
	if (nmetrics < 1)
		nmetrics = 1;
	if (nmetrics > JCAL_MAX_METRICS)
		nmetrics = JCAL_MAX_METRICS;
	enc->nmetrics = nmetrics;
	trace_events_reset(enc);
}

void trace_events_reset(struct trace_events_enc *enc)
{
	uint8_t *p = enc->buf + TRACE_CHUNK_HEADER_LEN;

	p += varint_put(p, enc->serial);
	*p++ = (uint8_t)enc->nmetrics;
	enc->len = (size_t)(p - enc->buf);
	enc->events = 0;
	enc->controls = 0;
	memset(enc->last, 0, sizeof(enc->last));
	enc->depth = 0;
}

size_t trace_events_finish(struct trace_events_enc *enc)
{
	if (enc->events == 0)
		return 0;
	chunk_header(enc->buf, TRACE_CHUNK_EVENTS, enc->len - TRACE_CHUNK_HEADER_LEN);
	return enc->len;
}

/* ---- records ---- */

void trace_recbuf_init(struct trace_recbuf *rb)
{
	rb->buf = NULL;
	rb->len = TRACE_CHUNK_HEADER_LEN;
	rb->cap = 0;
	rb->oom = 0;
	rb->thread_starts = 0;
}

void trace_recbuf_free(struct trace_recbuf *rb)
{
	free(rb->buf);
	trace_recbuf_init(rb);
}

size_t trace_recbuf_pending(const struct trace_recbuf *rb)
{
	return rb->len - TRACE_CHUNK_HEADER_LEN;
}

size_t trace_recbuf_finish(struct trace_recbuf *rb)
{
	size_t n = trace_recbuf_pending(rb);

	if (n == 0)
		return 0;
	chunk_header(rb->buf, TRACE_CHUNK_RECORDS, n);
	return rb->len;
}

void trace_recbuf_clear(struct trace_recbuf *rb)
{
	rb->len = TRACE_CHUNK_HEADER_LEN;
	rb->thread_starts = 0;
}

/*
 * Starts a record whose payload takes at most max bytes: returns where the
 * payload goes, or NULL (record dropped, rb->oom set) when memory is short
 * or the chunk would outgrow TRACE_CHUNK_MAX_PAYLOAD.
 */
static uint8_t *rec_begin(struct trace_recbuf *rb, size_t max)
{
	size_t need = rb->len + 1 + REC_LEN_MAX + max;

	if (need - TRACE_CHUNK_HEADER_LEN > TRACE_CHUNK_MAX_PAYLOAD) {
		rb->oom = 1;
		return NULL;
	}
	if (grow(&rb->buf, &rb->cap, need)) {
		rb->oom = 1;
		return NULL;
	}
	return rb->buf + rb->len + 1 + REC_LEN_MAX;
}

/* Frames the payload [start, end) built after rec_begin() as a record. */
static void rec_end(struct trace_recbuf *rb, unsigned kind, uint8_t *start, uint8_t *end)
{
	uint8_t *p = rb->buf + rb->len;
	size_t n = (size_t)(end - start);

	*p++ = (uint8_t)kind;
	p += varint_put(p, n);
	memmove(p, start, n);
	rb->len = (size_t)(p + n - rb->buf);
}

static size_t str_len(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	return n > TRACE_STR_MAX ? TRACE_STR_MAX : n;
}

/* Room a string field takes at most. */
static size_t str_room(const char *s)
{
	return VARINT_MAX_LEN + str_len(s);
}

static uint8_t *put_str(uint8_t *p, const char *s)
{
	size_t n = str_len(s);

	p += varint_put(p, n);
	if (n)
		memcpy(p, s, n);
	return p + n;
}

static uint8_t *put_metrics(uint8_t *p, unsigned n, const uint64_t *metric)
{
	if (n > JCAL_MAX_METRICS)
		n = JCAL_MAX_METRICS;
	*p++ = (uint8_t)n;
	for (unsigned i = 0; i < n; i++)
		p += varint_put(p, metric[i]);
	return p;
}

#define METRICS_ROOM (1 + JCAL_MAX_METRICS * VARINT_MAX_LEN)

void trace_rec_meta(struct trace_recbuf *rb, const char *key, const char *value)
{
	uint8_t *s = rec_begin(rb, str_room(key) + str_room(value));
	if (!s)
		return;
	uint8_t *p = put_str(s, key);
	p = put_str(p, value);
	rec_end(rb, TRACE_REC_META, s, p);
}

void trace_rec_meta_u64(struct trace_recbuf *rb, const char *key, uint64_t value)
{
	char s[24];

	snprintf(s, sizeof(s), "%" PRIu64, value);
	trace_rec_meta(rb, key, s);
}

void trace_rec_method(struct trace_recbuf *rb, uint32_t id, uint32_t modifiers,
		      const char *class_sig, const char *name, const char *sig)
{
	uint8_t *s = rec_begin(rb, 2 * VARINT_MAX_LEN + str_room(class_sig) + str_room(name) +
				       str_room(sig));
	if (!s)
		return;
	uint8_t *p = s;
	p += varint_put(p, id);
	p += varint_put(p, modifiers);
	p = put_str(p, class_sig);
	p = put_str(p, name);
	p = put_str(p, sig);
	rec_end(rb, TRACE_REC_METHOD, s, p);
}

void trace_rec_thread_start(struct trace_recbuf *rb, uint32_t serial, uint64_t java_tid,
			    uint32_t os_tid, uint32_t flags, uint64_t time_ns, const char *name,
			    unsigned nmetrics, const uint64_t *metric)
{
	uint8_t *s = rec_begin(rb, 5 * VARINT_MAX_LEN + str_room(name) + METRICS_ROOM);
	if (!s)
		return;
	uint8_t *p = s;
	p += varint_put(p, serial);
	p += varint_put(p, java_tid);
	p += varint_put(p, os_tid);
	p += varint_put(p, flags);
	p += varint_put(p, time_ns);
	p = put_str(p, name);
	p = put_metrics(p, nmetrics, metric);
	rec_end(rb, TRACE_REC_THREAD_START, s, p);
	rb->thread_starts++;
}

void trace_rec_thread_end(struct trace_recbuf *rb, uint32_t serial, uint64_t time_ns,
			  uint64_t events, unsigned nmetrics, const uint64_t *metric)
{
	uint8_t *s = rec_begin(rb, 3 * VARINT_MAX_LEN + METRICS_ROOM);
	if (!s)
		return;
	uint8_t *p = s;
	p += varint_put(p, serial);
	p += varint_put(p, time_ns);
	p += varint_put(p, events);
	p = put_metrics(p, nmetrics, metric);
	rec_end(rb, TRACE_REC_THREAD_END, s, p);
}

void trace_rec_thread_name(struct trace_recbuf *rb, uint32_t serial, uint64_t time_ns,
			   const char *name, uint64_t java_tid)
{
	uint8_t *s = rec_begin(rb, 3 * VARINT_MAX_LEN + str_room(name));
	if (!s)
		return;
	uint8_t *p = s;
	p += varint_put(p, serial);
	p += varint_put(p, time_ns);
	p = put_str(p, name);
	if (java_tid)
		p += varint_put(p, java_tid);
	rec_end(rb, TRACE_REC_THREAD_NAME, s, p);
}

void trace_rec_compiled_load(struct trace_recbuf *rb, uint32_t method, uint64_t time_ns,
			     uint64_t code_size)
{
	uint8_t *s = rec_begin(rb, 3 * VARINT_MAX_LEN);
	if (!s)
		return;
	uint8_t *p = s;
	p += varint_put(p, method);
	p += varint_put(p, time_ns);
	p += varint_put(p, code_size);
	rec_end(rb, TRACE_REC_COMPILED_LOAD, s, p);
}

void trace_rec_compiled_unload(struct trace_recbuf *rb, uint32_t method, uint64_t time_ns)
{
	uint8_t *s = rec_begin(rb, 2 * VARINT_MAX_LEN);
	if (!s)
		return;
	uint8_t *p = s;
	p += varint_put(p, method);
	p += varint_put(p, time_ns);
	rec_end(rb, TRACE_REC_COMPILED_UNLOAD, s, p);
}

void trace_rec_end(struct trace_recbuf *rb, uint64_t events, uint64_t threads, uint64_t lost_events)
{
	uint8_t *s = rec_begin(rb, 3 * VARINT_MAX_LEN);
	if (!s)
		return;
	uint8_t *p = s;
	p += varint_put(p, events);
	p += varint_put(p, threads);
	p += varint_put(p, lost_events);
	rec_end(rb, TRACE_REC_END, s, p);
}

void trace_rec_label(struct trace_recbuf *rb, uint32_t id, const char *text)
{
	uint8_t *s = rec_begin(rb, VARINT_MAX_LEN + str_room(text));
	if (!s)
		return;
	uint8_t *p = s;
	p += varint_put(p, id);
	p = put_str(p, text);
	rec_end(rb, TRACE_REC_LABEL, s, p);
}

void trace_rec_monitor(struct trace_recbuf *rb, const struct trace_monitor *m)
{
	uint8_t *s = rec_begin(rb, 6 * VARINT_MAX_LEN + str_room(m->class_sig) + 2 * METRICS_ROOM);
	if (!s)
		return;
	uint8_t *p = s;
	p += varint_put(p, m->thread);
	p += varint_put(p, m->kind);
	p += varint_put(p, m->flags);
	p += varint_put(p, m->method);
	p = put_str(p, m->class_sig);
	p += varint_put(p, m->time_ns);
	p += varint_put(p, m->wall_ns);
	p = put_metrics(p, m->nmetrics, m->start);
	p = put_metrics(p, m->nmetrics, m->end);
	rec_end(rb, TRACE_REC_MONITOR, s, p);
}

/* ---- tree snapshots (3.0) ---- */

void trace_snapshot_header(uint8_t out[TRACE_FILE_HEADER_LEN])
{
	trace_header_encode(out);
	put_u16(out + 8, TRACE_SNAPSHOT_VERSION_MAJOR);
	put_u16(out + 10, TRACE_SNAPSHOT_VERSION_MINOR);
	put_u32(out + TRACE_HEADER_CRC_OFFSET, trace_header_crc(out));
}

void trace_rec_tree_thread(struct trace_recbuf *rb, const struct trace_tree_thread *t)
{
	uint8_t *s = rec_begin(rb, 1 + (4 + TRACE_TS_COUNT) * VARINT_MAX_LEN);
	unsigned nm = t->nmetrics > JCAL_MAX_METRICS ? JCAL_MAX_METRICS : t->nmetrics;

	if (!s)
		return;
	uint8_t *p = s;
	p += varint_put(p, t->serial);
	*p++ = (uint8_t)nm;
	p += varint_put(p, t->nodes);
	p += varint_put(p, t->flags);
	p += varint_put(p, TRACE_TS_COUNT);
	for (unsigned i = 0; i < TRACE_TS_COUNT; i++)
		p += varint_put(p, t->stat[i]);
	rec_end(rb, TRACE_REC_TREE_THREAD, s, p);
}

void trace_rec_tree_hists(struct trace_recbuf *rb, uint32_t serial, const uint32_t *node,
			  const struct lathist *const *h, uint32_t count)
{
	size_t room = 2 * VARINT_MAX_LEN;
	uint8_t *s, *p;

	if (!count)
		return;
	for (uint32_t k = 0; k < count; k++)
		room += (6 + 2 * (size_t)h[k]->n) * VARINT_MAX_LEN;
	s = rec_begin(rb, room);
	if (!s)
		return;
	p = s;
	p += varint_put(p, serial);
	p += varint_put(p, count);
	for (uint32_t k = 0; k < count; k++) {
		const struct lathist *x = h[k];
		unsigned prev = 0;

		p += varint_put(p, node[k]);
		p += varint_put(p, x->count);
		p += varint_put(p, x->sum);
		p += varint_put(p, x->min);
		p += varint_put(p, x->max);
		p += varint_put(p, x->n);
		for (uint32_t b = 0; b < x->n; b++) {
			p += varint_put(p, lathist_index_at(x, b) - prev);
			p += varint_put(p, lathist_count_at(x, b));
			prev = lathist_index_at(x, b);
		}
	}
	rec_end(rb, TRACE_REC_TREE_HISTS, s, p);
}

void trace_rec_tree_slow(struct trace_recbuf *rb, const struct trace_slow *c)
{
	uint32_t depth = c->depth > TRACE_SLOW_PATH_MAX ? TRACE_SLOW_PATH_MAX : c->depth;
	unsigned nc = c->ncallees > TRACE_SLOW_CALLEES ? TRACE_SLOW_CALLEES : c->ncallees;
	uint8_t *s = rec_begin(rb, (12 + (size_t)depth + 3 * nc) * VARINT_MAX_LEN);

	if (!s)
		return;
	uint8_t *p = s;
	p += varint_put(p, c->thread);
	p += varint_put(p, c->metric);
	p += varint_put(p, c->value);
	p += varint_put(p, c->raw);
	p += varint_put(p, c->self);
	p += varint_put(p, c->raw_self);
	p += varint_put(p, c->end_ns);
	p += varint_put(p, c->wall_ns);
	p += varint_put(p, c->flags);
	p += varint_put(p, c->omitted);
	p += varint_put(p, depth);
	for (uint32_t i = 0; i < depth; i++)
		p += varint_put(p, c->path[i]);
	p += varint_put(p, nc);
	for (unsigned i = 0; i < nc; i++) {
		p += varint_put(p, c->callee[i].method);
		p += varint_put(p, c->callee[i].value);
		p += varint_put(p, c->callee[i].raw);
	}
	rec_end(rb, TRACE_REC_TREE_SLOW, s, p);
}

void trace_rec_tree_nodes(struct trace_recbuf *rb, const struct trace_tree_node *nodes,
			  uint32_t count)
{
	unsigned nm;
	uint8_t *s, *p;

	if (!count)
		return;
	nm = nodes[0].nmetrics > JCAL_MAX_METRICS ? JCAL_MAX_METRICS : nodes[0].nmetrics;
	s = rec_begin(rb, 1 + 3 * VARINT_MAX_LEN +
			      (size_t)count * (3 + 2 * JCAL_MAX_METRICS) * VARINT_MAX_LEN);
	if (!s)
		return;
	p = s;
	p += varint_put(p, nodes[0].serial);
	*p++ = (uint8_t)nm;
	p += varint_put(p, nodes[0].index);
	p += varint_put(p, count);
	for (uint32_t i = 0; i < count; i++) {
		const struct trace_tree_node *n = &nodes[i];

		p += varint_put(p, n->index ? n->index - n->parent : 0);
		p += varint_put(p, n->method);
		p += varint_put(p, n->calls);
		for (unsigned m = 0; m < nm; m++) {
			p += varint_put(p, n->raw[m]);
			p += varint_put(p, n->comp[m]);
		}
	}
	rec_end(rb, TRACE_REC_TREE_NODES, s, p);
}
