/*
 * trace_encoder.h - builds trace chunks in memory (no I/O but one: the stop
 * field written in place by trace_header_mark_stopped).
 *
 * An events encoder fills one per-thread buffer with a single EVENTS chunk;
 * the agent calls trace_events_add() from its MethodEntry/Exit callbacks, so
 * it is inline, allocation-free and lock-free. A record buffer collects
 * RECORDS chunk payloads (meta, method and thread definitions); it grows with
 * malloc and is only used off the event path.
 */
#ifndef JCAL_TRACE_ENCODER_H
#define JCAL_TRACE_ENCODER_H

#include <stddef.h>
#include <stdint.h>

#include "common/trace_format.h"
#include "common/trace_monitor.h"
#include "common/trace_slow.h"
#include "common/trace_tree.h"
#include "common/varint.h"

/* Largest encoding of one event: tag, method id, one zigzag varint per metric. */
#define TRACE_EVENT_MAX_LEN (1 + 5 + JCAL_MAX_METRICS * VARINT_MAX_LEN)
/* Events payload header: serial varint + metric count byte. */
#define TRACE_EVENTS_HEAD_MAX (5 + 1)

struct trace_events_enc {
	uint8_t *buf; /* chunk header + payload; owned by the caller */
	size_t cap;
	size_t len; /* bytes used, including the chunk header */
	uint32_t serial;
	unsigned nmetrics;
	uint64_t events;   /* events in the current chunk */
	uint64_t controls; /* of which control events (END counts the others) */
	uint64_t last[JCAL_MAX_METRICS];
	uint32_t depth;
	uint32_t stack[TRACE_SHADOW_DEPTH];
};

/* Sets up enc over buf (cap must be > TRACE_CHUNK_HEADER_LEN +
 * TRACE_EVENTS_HEAD_MAX + TRACE_EVENT_MAX_LEN) and starts a chunk. */
void trace_events_init(struct trace_events_enc *enc, uint8_t *buf, size_t cap, uint32_t serial,
		       unsigned nmetrics);

/* Starts a new, empty chunk (delta base and shadow stack reset). */
void trace_events_reset(struct trace_events_enc *enc);

/* Room for one more event? If not, finish, write and reset first. */
static inline int trace_events_full(const struct trace_events_enc *enc)
{
	return enc->cap - enc->len < TRACE_EVENT_MAX_LEN;
}

/* Appends one event. The caller has checked trace_events_full(). */
static inline void trace_events_add(struct trace_events_enc *enc, unsigned transition,
				    unsigned type, uint32_t method, const uint64_t *metric)
{
	uint8_t *p = enc->buf + enc->len;
	uint8_t *tag = p++;
	unsigned t = transition | (type << TRACE_TAG_TYPE_SHIFT);

	if (transition == JCAL_TR_ENTRY) {
		t |= TRACE_TAG_EXPLICIT;
		p += varint_put(p, method);
		if (enc->depth < TRACE_SHADOW_DEPTH)
			enc->stack[enc->depth] = method;
		enc->depth++;
	} else if (enc->depth > 0 && enc->depth <= TRACE_SHADOW_DEPTH &&
		   enc->stack[enc->depth - 1] == method) {
		enc->depth--;
	} else {
		t |= TRACE_TAG_EXPLICIT;
		p += varint_put(p, method);
		if (enc->depth > TRACE_SHADOW_DEPTH)
			enc->depth--;
	}
	*tag = (uint8_t)t;
	for (unsigned i = 0; i < enc->nmetrics; i++) {
		p += varint_put(p, zigzag_enc((int64_t)(metric[i] - enc->last[i])));
		enc->last[i] = metric[i];
	}
	enc->len = (size_t)(p - enc->buf);
	enc->events++;
}

/* Appends a control event (enum jcal_control; label 0 = none). The shadow
 * stack is untouched. The caller has checked trace_events_full(). */
static inline void trace_events_add_control(struct trace_events_enc *enc, unsigned kind,
					    uint32_t label, const uint64_t *metric)
{
	uint8_t *p = enc->buf + enc->len;
	unsigned t = JCAL_TR_CONTROL | (kind << TRACE_TAG_TYPE_SHIFT);

	if (label)
		t |= TRACE_TAG_EXPLICIT;
	*p++ = (uint8_t)t;
	if (label)
		p += varint_put(p, label);
	for (unsigned i = 0; i < enc->nmetrics; i++) {
		p += varint_put(p, zigzag_enc((int64_t)(metric[i] - enc->last[i])));
		enc->last[i] = metric[i];
	}
	enc->len = (size_t)(p - enc->buf);
	enc->events++;
	enc->controls++;
}

/* Fills in the chunk header (length, CRC). Returns the bytes to write
 * (enc->buf, that many), or 0 when the chunk holds no event. */
size_t trace_events_finish(struct trace_events_enc *enc);

/* Growing buffer of records for one RECORDS chunk. */
struct trace_recbuf {
	uint8_t *buf; /* chunk header + payload */
	size_t len, cap;
	int oom; /* set when an allocation failed; records were dropped */
	/* THREAD_START records held: whoever writes the chunk counts the
	 * threads of the file it went to (an END record counts exactly
	 * those). */
	uint64_t thread_starts;
};

void trace_recbuf_init(struct trace_recbuf *rb);
void trace_recbuf_free(struct trace_recbuf *rb);
/* Bytes of records held (0 = nothing to write). */
size_t trace_recbuf_pending(const struct trace_recbuf *rb);
/* Fills in the chunk header; returns bytes to write from rb->buf. */
size_t trace_recbuf_finish(struct trace_recbuf *rb);
/* Empties the buffer after its chunk was written (thread_starts too). */
void trace_recbuf_clear(struct trace_recbuf *rb);

void trace_rec_meta(struct trace_recbuf *rb, const char *key, const char *value);
/* A meta record whose value is the decimal number value. */
void trace_rec_meta_u64(struct trace_recbuf *rb, const char *key, uint64_t value);
void trace_rec_method(struct trace_recbuf *rb, uint32_t id, uint32_t modifiers,
		      const char *class_sig, const char *name, const char *sig);
void trace_rec_thread_start(struct trace_recbuf *rb, uint32_t serial, uint64_t java_tid,
			    uint32_t os_tid, uint32_t flags, uint64_t time_ns, const char *name,
			    unsigned nmetrics, const uint64_t *metric);
void trace_rec_thread_end(struct trace_recbuf *rb, uint32_t serial, uint64_t time_ns,
			  uint64_t events, unsigned nmetrics, const uint64_t *metric);
/* java_tid 0: not given (the record then has no such field). */
void trace_rec_thread_name(struct trace_recbuf *rb, uint32_t serial, uint64_t time_ns,
			   const char *name, uint64_t java_tid);
void trace_rec_compiled_load(struct trace_recbuf *rb, uint32_t method, uint64_t time_ns,
			     uint64_t code_size);
void trace_rec_compiled_unload(struct trace_recbuf *rb, uint32_t method, uint64_t time_ns);
void trace_rec_end(struct trace_recbuf *rb, uint64_t events, uint64_t threads,
		   uint64_t lost_events);
void trace_rec_label(struct trace_recbuf *rb, uint32_t id, const char *text);
/* A MONITOR record (m->nmetrics readings at each end). */
void trace_rec_monitor(struct trace_recbuf *rb, const struct trace_monitor *m);

/* The file header (TRACE_FILE_HEADER_LEN bytes), its stop field "none". */
void trace_header_encode(uint8_t out[TRACE_FILE_HEADER_LEN]);

/* The file header of a tree snapshot (format 3.x). */
void trace_snapshot_header(uint8_t out[TRACE_FILE_HEADER_LEN]);

/* A thread's TREE_THREAD record, then its nodes in TREE_NODES records of
 * consecutive nodes (nodes[0].index first; serial and nmetrics of
 * nodes[0]; at most TRACE_TREE_NODES_PER_RECORD each). */
void trace_rec_tree_thread(struct trace_recbuf *rb, const struct trace_tree_thread *t);
void trace_rec_tree_nodes(struct trace_recbuf *rb, const struct trace_tree_node *nodes,
			  uint32_t count);

struct lathist;
/* A TREE_HISTS record of thread serial: the histograms h[k] (not empty) of
 * nodes node[k] (snapshot indices), k < count (docs/trace-format.md). */
void trace_rec_tree_hists(struct trace_recbuf *rb, uint32_t serial, const uint32_t *node,
			  const struct lathist *const *h, uint32_t count);
/* A TREE_SLOW record: one call kept by slow= (3.2). */
void trace_rec_tree_slow(struct trace_recbuf *rb, const struct trace_slow *c);

/*
 * The trace's CRC-32: zlib's crc32() (polynomial, bit order and chaining:
 * the CRC of a then b is trace_crc32(trace_crc32(0, a), b); crc when len
 * is 0), computed by zlib unless a program sets a faster function that
 * gives the same values, once, before it reads or writes anything
 * (jcal-post sets ISA-L's, postproc/crc_fast.c; the agent keeps zlib's).
 */
typedef uint32_t (*trace_crc32_fn)(uint32_t crc, const uint8_t *buf, size_t len);
void trace_use_crc32(trace_crc32_fn fn); /* NULL: zlib's again */
uint32_t trace_crc32(uint32_t crc, const uint8_t *buf, size_t len);

/* CRC of a chunk: header bytes before the CRC field, then the payload. */
uint32_t trace_chunk_crc(const uint8_t *header, const uint8_t *payload, size_t payload_len);

/* CRC of a file header (2.x): its bytes before the CRC field. */
uint32_t trace_header_crc(const uint8_t *header);

/* The stop field for reason (enum trace_stop), and the reason for the errno
 * of a failed write (ENOSPC, EFBIG...). */
void trace_stop_field(uint8_t out[TRACE_STOP_LEN], unsigned reason);
unsigned trace_stop_reason(int err);

/*
 * After a write to the trace file failed with errno err (the file keeps what
 * was written before): records why in the file header's stop field, in
 * place (pwrite at TRACE_STOP_OFFSET: no new space needed, so it works on a
 * full disk or at the file size limit). fd must not be O_APPEND. Returns 0,
 * or -1 with errno set; best effort, the caller need not report it.
 */
int trace_header_mark_stopped(int fd, int err);

#endif
