/*
 * trace_reader.c - streaming reader of jcal trace files (docs/trace-format.md).
 *
 * Owns file and chunk framing checks (magic, version, length, CRC, cut-off
 * tails) and the decoding of RECORDS and EVENTS payloads into visitor calls.
 * Memory is one payload buffer, grown to the largest chunk, plus a string
 * scratch buffer; nothing is allocated per event.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/event_decode.h"
#include "common/grow.h"
#include "common/lathist.h"
#include "common/trace_encoder.h"
#include "common/trace_reader.h"
#include "common/varint.h"

struct trace_dec {
	const struct trace_visitor *v;
	struct trace_result *res;
	const char *name;	/* file name for messages, NULL for a bare payload */
	uint64_t chunk_off;	/* file offset of the chunk being decoded */
	unsigned major;		/* format version of the file (0 for a bare payload) */
	int check_end;		/* compare END's counts with what was decoded (2.x files) */
	int uncounted;		/* events were taken to be decoded later (event_run.later) */
	uint64_t file_size;	/* of a regular file, 0 when unknown (a stream) */
	const uint8_t *payload; /* the records payload being decoded */
	size_t rec_at;		/* payload offset of the record being decoded */
	uint64_t controls;	/* control events decoded (END counts method events only) */
	uint64_t thread_starts; /* THREAD_START records decoded */
	char *scratch;		/* NUL-terminated copies of a record's strings */
	size_t scratch_cap;
	uint32_t stack[TRACE_SHADOW_DEPTH];
	/* the events decoded and not yet handed to the visitor */
	uint32_t b_method[TRACE_EVENT_BATCH];
	uint8_t b_transition[TRACE_EVENT_BATCH];
	uint8_t b_type[TRACE_EVENT_BATCH];
	uint64_t b_metric[TRACE_EVENT_BATCH * JCAL_MAX_METRICS];
};

const char *trace_status_str(enum trace_status s)
{
	switch (s) {
	case TRACE_OK:
		return "ok";
	case TRACE_TRUNCATED:
		return "truncated";
	case TRACE_CORRUPT:
		return "corrupt";
	case TRACE_IOERR:
		return "I/O error";
	case TRACE_EMPTY:
		return "empty";
	case TRACE_ABORTED:
		return "aborted";
	}
	return "unknown status";
}

const char *trace_stop_str(unsigned reason)
{
	switch (reason) {
	case TRACE_STOP_NONE:
		return "it did not stop";
	case TRACE_STOP_NOSPACE:
		return "no space left on the device (disk full)";
	case TRACE_STOP_FSIZE:
		return "the file size limit was reached (ulimit -f)";
	case TRACE_STOP_WRITE:
		return "a write failed";
	}
	return "a write failed (reason unknown to this reader)";
}

const char *trace_no_end_str(const struct trace_result *res)
{
	switch (res->stop_reason) {
	case TRACE_STOP_NONE:
		break;
	case TRACE_STOP_NOSPACE:
		return "the agent stopped writing: no space left on the device (disk full)";
	case TRACE_STOP_FSIZE:
		return "the agent stopped writing: the file size limit was reached (ulimit -f)";
	default:
		return "the agent stopped writing: a write failed";
	}
	if (res->version_major < 2)
		return "the JVM did not shut down cleanly, or the agent stopped writing (disk full "
		       "or file size limit: format 1.x does not record which)";
	return "the JVM did not shut down cleanly, or the agent stopped writing without "
	       "recording why";
}

/* Sets res->status and a one-line res->msg "NAME: ..." and returns st. */
static enum trace_status fail(struct trace_result *res, const char *name, enum trace_status st,
			      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static enum trace_status fail(struct trace_result *res, const char *name, enum trace_status st,
			      const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (name)
		n = snprintf(res->msg, sizeof(res->msg), "%s: ", name);
	if (n < 0 || (size_t)n >= sizeof(res->msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(res->msg + n, sizeof(res->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	for (char *c = res->msg; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	res->status = st;
	return st;
}

/* Payload-level error: names the chunk's file offset when known. */
#define DEC_FAIL(d, st, fmt, ...)                                                                  \
	((d)->name ? fail((d)->res, (d)->name, st, "chunk at byte %llu: " fmt,                     \
			  (unsigned long long)(d)->chunk_off, __VA_ARGS__)                         \
		   : fail((d)->res, NULL, st, fmt, __VA_ARGS__))

/* ---- records ---- */

/* Cursor over one record's fields; bad is set by any read past its end. */
struct cur {
	const uint8_t *p, *end;
	char *sp; /* next free byte of the string scratch */
	int bad;
};

static uint64_t cur_uv(struct cur *c)
{
	uint64_t v = 0;
	const uint8_t *q = c->bad ? NULL : event_uv(c->p, c->end, &v);

	if (!q) {
		c->bad = 1;
		return 0;
	}
	c->p = q;
	return v;
}

static uint32_t cur_u32(struct cur *c)
{
	uint64_t v = cur_uv(c);

	if (v > UINT32_MAX) {
		c->bad = 1;
		return 0;
	}
	return (uint32_t)v;
}

static unsigned cur_u8(struct cur *c)
{
	if (c->bad || c->p >= c->end) {
		c->bad = 1;
		return 0;
	}
	return *c->p++;
}

/* Copies a string field into the scratch (which holds the record's length
 * plus one NUL per string, so it cannot overflow). */
static const char *cur_str(struct cur *c)
{
	uint64_t n = cur_uv(c);
	char *s = c->sp;

	if (c->bad || n > (uint64_t)(c->end - c->p)) {
		c->bad = 1;
		return "";
	}
	memcpy(s, c->p, (size_t)n);
	s[n] = '\0';
	c->p += n;
	c->sp += n + 1;
	return s;
}

static void cur_metrics(struct cur *c, struct trace_thread *t)
{
	unsigned n = cur_u8(c);

	if (n > JCAL_MAX_METRICS) {
		c->bad = 1;
		return;
	}
	t->nmetrics = n;
	for (unsigned i = 0; i < n; i++)
		t->metric[i] = cur_uv(c);
}

static const char *const rec_names[] = {
    [TRACE_REC_META] = "META",
    [TRACE_REC_METHOD] = "METHOD",
    [TRACE_REC_THREAD_START] = "THREAD_START",
    [TRACE_REC_THREAD_END] = "THREAD_END",
    [TRACE_REC_THREAD_NAME] = "THREAD_NAME",
    [TRACE_REC_COMPILED_LOAD] = "COMPILED_LOAD",
    [TRACE_REC_COMPILED_UNLOAD] = "COMPILED_UNLOAD",
    [TRACE_REC_END] = "END",
    [TRACE_REC_LABEL] = "LABEL",
    [TRACE_REC_TREE_THREAD] = "TREE_THREAD",
    [TRACE_REC_TREE_NODES] = "TREE_NODES",
    [TRACE_REC_TREE_HISTS] = "TREE_HISTS",
    [TRACE_REC_TREE_SLOW] = "TREE_SLOW",
    [TRACE_REC_MONITOR] = "MONITOR",
};

/* The fewest bytes a node of a TREE_NODES record takes: parent, method and
 * calls, then raw and compensated figures per metric, a byte each at the
 * least. */
static uint64_t tree_node_min_bytes(unsigned nmetrics)
{
	return 3 + 2 * (uint64_t)nmetrics;
}

/* A TREE_THREAD record's count of nodes checked against what the rest of
 * the file can hold (a regular file, whose size is known; a stream is
 * checked as its nodes come, postproc/model.c): -2 with the message when it
 * cannot, else 0. */
static int tree_nodes_fit_file(struct trace_dec *d, const struct cur *c,
			       const struct trace_tree_thread *t)
{
	uint64_t used, left, most;

	if (!d->file_size || !d->name || !d->payload)
		return 0;
	used = d->chunk_off + TRACE_CHUNK_HEADER_LEN + (uint64_t)(c->end - d->payload);
	left = d->file_size > used ? d->file_size - used : 0;
	most = left / tree_node_min_bytes(t->nmetrics);
	if (t->nodes <= most)
		return 0;
	DEC_FAIL(d, TRACE_CORRUPT,
		 "TREE_THREAD record of thread #%u: %u nodes, more than the file holds (its %llu "
		 "bytes after the record hold %llu at most)",
		 t->serial, t->nodes, (unsigned long long)left, (unsigned long long)most);
	return -2;
}

static int decode_tree_thread(struct trace_dec *d, struct cur *c)
{
	const struct trace_visitor *v = d->v;
	struct trace_tree_thread t;
	uint64_t n;

	memset(&t, 0, sizeof(t));
	t.serial = cur_u32(c);
	t.nmetrics = cur_u8(c);
	t.nodes = cur_u32(c);
	t.flags = cur_u32(c);
	n = cur_uv(c);
	for (uint64_t i = 0; i < n && !c->bad; i++) {
		uint64_t x = cur_uv(c);

		if (i < TRACE_TS_COUNT)
			t.stat[i] = x;
	}
	if (c->bad || t.nmetrics < 1 || t.nmetrics > JCAL_MAX_METRICS || t.nodes < 1)
		return -1;
	if (tree_nodes_fit_file(d, c, &t))
		return -2;
	/* a callback's refusal is not a malformed record */
	return v && v->tree_thread && v->tree_thread(v->ctx, &t) ? 1 : 0;
}

/* Nodes of a TREE_NODES record, one callback each; a parent must come
 * before its child. */
static int decode_tree_nodes(struct trace_dec *d, struct cur *c)
{
	const struct trace_visitor *v = d->v;
	struct trace_tree_node n;
	uint32_t count;

	memset(&n, 0, sizeof(n));
	n.serial = cur_u32(c);
	n.nmetrics = cur_u8(c);
	n.index = cur_u32(c);
	count = cur_u32(c);
	if (c->bad || n.nmetrics < 1 || n.nmetrics > JCAL_MAX_METRICS)
		return -1;
	/* what the record's bytes cannot hold is refused before any node */
	if (count > (uint64_t)(c->end - c->p) / tree_node_min_bytes(n.nmetrics)) {
		DEC_FAIL(d, TRACE_CORRUPT,
			 "TREE_NODES record at payload byte %zu: %u nodes, more than its %zu "
			 "bytes hold",
			 d->rec_at, count, (size_t)(c->end - c->p));
		return -2;
	}
	for (uint32_t i = 0; i < count; i++, n.index++) {
		uint64_t up = cur_uv(c);
		int r;

		n.method = cur_u32(c);
		n.calls = cur_uv(c);
		for (unsigned m = 0; m < n.nmetrics; m++) {
			n.raw[m] = cur_uv(c);
			n.comp[m] = cur_uv(c);
		}
		/* the root has no parent; any other node's is an earlier one */
		if (c->bad || n.index == UINT32_MAX || (n.index == 0) != (up == 0) || up > n.index)
			return -1;
		n.parent = n.index - (uint32_t)up;
		r = v && v->tree_node ? v->tree_node(v->ctx, &n) : 0;
		if (r)
			return 1;
	}
	return 0;
}

/* One histogram of a TREE_HISTS record into *h (emptied first). Returns 0
 * or -1 when malformed or inconsistent; -ENOMEM when memory runs out. */
static int decode_hist(struct cur *c, struct lathist **h, uint32_t *node)
{
	uint64_t count, sum, min, max, n;
	unsigned i = 0;

	if (*h) {
		(*h)->n = 0;
		(*h)->count = 0;
	}
	*node = cur_u32(c);
	count = cur_uv(c);
	sum = cur_uv(c);
	min = cur_uv(c);
	max = cur_uv(c);
	n = cur_uv(c);
	/* a bucket takes 2 bytes at least: what the record cannot hold is
	 * refused before anything is sized by it */
	if (c->bad || !n || n > LATHIST_BUCKETS || n > (uint64_t)(c->end - c->p) / 2)
		return -1;
	for (uint64_t b = 0; b < n; b++) {
		uint64_t gap = cur_uv(c), k = cur_uv(c);

		if (c->bad || (b && !gap) || gap >= LATHIST_BUCKETS - i || !k)
			return -1;
		i += (unsigned)gap;
		if (lathist_add_bucket(h, i, k))
			return -ENOMEM;
	}
	(*h)->sum = sum;
	(*h)->min = min;
	(*h)->max = max;
	return (*h)->count == count && lathist_valid(*h) ? 0 : -1;
}

/* The histograms of a TREE_HISTS record, one callback each. */
static int decode_tree_hists(struct trace_dec *d, struct cur *c)
{
	const struct trace_visitor *v = d->v;
	struct lathist *h = NULL;
	uint32_t serial = cur_u32(c), count = cur_u32(c), node;
	int r = 0;

	if (c->bad)
		return -1;
	for (uint32_t k = 0; k < count && !r; k++) {
		r = decode_hist(c, &h, &node);
		if (r == -ENOMEM) {
			DEC_FAIL(d, TRACE_CORRUPT, "%s", "out of memory for a TREE_HISTS record");
			r = -2;
		} else if (!r && v && v->tree_hist && v->tree_hist(v->ctx, serial, node, h)) {
			r = 1;
		}
	}
	lathist_free(h);
	return r;
}

/* A MONITOR record (common/trace_monitor.h): its two metric lists must
 * have the same length. */
static int decode_monitor(struct trace_dec *d, struct cur *c)
{
	const struct trace_visitor *v = d->v;
	struct trace_monitor m;
	struct trace_thread a, b;

	memset(&m, 0, sizeof(m));
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	m.thread = cur_u32(c);
	m.kind = cur_u32(c);
	m.flags = cur_u32(c);
	m.method = cur_u32(c);
	m.class_sig = cur_str(c);
	m.time_ns = cur_uv(c);
	m.wall_ns = cur_uv(c);
	cur_metrics(c, &a);
	cur_metrics(c, &b);
	if (c->bad || a.nmetrics != b.nmetrics)
		return -1;
	m.nmetrics = a.nmetrics;
	memcpy(m.start, a.metric, sizeof(m.start));
	memcpy(m.end, b.metric, sizeof(m.end));
	return v && v->monitor && v->monitor(v->ctx, &m) ? 1 : 0;
}

/* A TREE_SLOW record (common/trace_slow.h). */
static int decode_tree_slow(struct trace_dec *d, struct cur *c)
{
	const struct trace_visitor *v = d->v;
	struct trace_slow s;
	uint64_t n;

	memset(&s, 0, sizeof(s));
	s.thread = cur_u32(c);
	s.metric = cur_u32(c);
	s.value = cur_uv(c);
	s.raw = cur_uv(c);
	s.self = cur_uv(c);
	s.raw_self = cur_uv(c);
	s.end_ns = cur_uv(c);
	s.wall_ns = cur_uv(c);
	s.flags = cur_u32(c);
	s.omitted = cur_u32(c);
	n = cur_uv(c);
	if (c->bad || !n || n > TRACE_SLOW_PATH_MAX || s.metric >= JCAL_MAX_METRICS)
		return -1;
	s.depth = (uint32_t)n;
	for (uint32_t i = 0; i < s.depth; i++)
		s.path[i] = cur_u32(c);
	n = cur_uv(c);
	if (c->bad || n > TRACE_SLOW_CALLEES || s.self > s.value || s.raw_self > s.raw)
		return -1;
	s.ncallees = (unsigned)n;
	for (unsigned i = 0; i < s.ncallees; i++) {
		s.callee[i].method = cur_u32(c);
		s.callee[i].value = cur_uv(c);
		s.callee[i].raw = cur_uv(c);
		if (s.callee[i].value > s.value || s.callee[i].raw > s.raw)
			return -1;
	}
	if (c->bad)
		return -1;
	return v && v->tree_slow && v->tree_slow(v->ctx, &s) ? 1 : 0;
}

/* Decodes one known record; returns 1 when the callback refused it (any
 * non-zero return: a refusal is not a malformed record), -1 when the
 * record is malformed, -2 when it failed with its own message, else 0. */
static int decode_record(struct trace_dec *d, unsigned kind, struct cur *c)
{
	const struct trace_visitor *v = d->v;
	void *ctx = v ? v->ctx : NULL;
	int (*tcb)(void *, const struct trace_thread *);
	struct trace_thread t;
	struct trace_method m;
	struct trace_compiled cm;
	struct trace_end e;

	switch (kind) {
	case TRACE_REC_META: {
		const char *key = cur_str(c);
		const char *value = cur_str(c);
		if (c->bad)
			return -1;
		return v && v->meta ? v->meta(ctx, key, value) != 0 : 0;
	}
	case TRACE_REC_METHOD:
		m.id = cur_u32(c);
		m.modifiers = cur_u32(c);
		m.class_sig = cur_str(c);
		m.name = cur_str(c);
		m.sig = cur_str(c);
		if (c->bad)
			return -1;
		return v && v->method ? v->method(ctx, &m) != 0 : 0;
	case TRACE_REC_THREAD_START:
		memset(&t, 0, sizeof(t));
		t.serial = cur_u32(c);
		t.java_tid = cur_uv(c);
		t.os_tid = cur_u32(c);
		t.flags = cur_u32(c);
		t.time_ns = cur_uv(c);
		t.name = cur_str(c);
		cur_metrics(c, &t);
		if (!c->bad)
			d->thread_starts++;
		tcb = v ? v->thread_start : NULL;
		break;
	case TRACE_REC_THREAD_END:
		memset(&t, 0, sizeof(t));
		t.serial = cur_u32(c);
		t.time_ns = cur_uv(c);
		t.events = cur_uv(c);
		cur_metrics(c, &t);
		tcb = v ? v->thread_end : NULL;
		break;
	case TRACE_REC_THREAD_NAME:
		memset(&t, 0, sizeof(t));
		t.serial = cur_u32(c);
		t.time_ns = cur_uv(c);
		t.name = cur_str(c);
		/* 1.1: the Java thread id, when it was not known at THREAD_START */
		if (!c->bad && c->p < c->end)
			t.java_tid = cur_uv(c);
		tcb = v ? v->thread_name : NULL;
		break;
	case TRACE_REC_COMPILED_LOAD:
	case TRACE_REC_COMPILED_UNLOAD:
		memset(&cm, 0, sizeof(cm));
		cm.load = kind == TRACE_REC_COMPILED_LOAD;
		cm.method = cur_u32(c);
		cm.time_ns = cur_uv(c);
		if (cm.load)
			cm.code_size = cur_uv(c);
		if (c->bad)
			return -1;
		return v && v->compiled ? v->compiled(ctx, &cm) != 0 : 0;
	case TRACE_REC_END:
		e.events = cur_uv(c);
		e.threads = cur_uv(c);
		e.lost_events = cur_uv(c);
		if (c->bad)
			return -1;
		if (d->check_end) {
			/* END counts the method events and threads written before it:
			 * fewer in the file means lost or skipped chunks. */
			uint64_t have = d->res->events - d->controls;
			if (e.events != have && !d->uncounted) {
				DEC_FAIL(d, TRACE_CORRUPT,
					 "END record: it counts %llu events, the chunks before it "
					 "hold %llu",
					 (unsigned long long)e.events, (unsigned long long)have);
				return -2;
			}
			/* An agent of 0.2.0 or before could count a thread whose start
			 * raced with the start of the recording into the wrong
			 * file: every record is still whole, so the file reads,
			 * and the caller warns. */
			if (e.threads > d->thread_starts)
				d->res->end_threads_missing = e.threads - d->thread_starts;
		}
		d->res->has_end = 1;
		return v && v->end ? v->end(ctx, &e) != 0 : 0;
	case TRACE_REC_TREE_THREAD:
		return decode_tree_thread(d, c);
	case TRACE_REC_TREE_NODES:
		return decode_tree_nodes(d, c);
	case TRACE_REC_TREE_HISTS:
		return decode_tree_hists(d, c);
	case TRACE_REC_MONITOR:
		return decode_monitor(d, c);
	case TRACE_REC_TREE_SLOW:
		return decode_tree_slow(d, c);
	case TRACE_REC_LABEL: {
		uint32_t id = cur_u32(c);
		const char *text = cur_str(c);
		if (c->bad)
			return -1;
		return v && v->label ? v->label(ctx, id, text) != 0 : 0;
	}
	default:
		return 0;
	}
	if (c->bad)
		return -1;
	return tcb ? tcb(ctx, &t) != 0 : 0;
}

static enum trace_status decode_records(struct trace_dec *d, const uint8_t *p0, size_t len)
{
	const uint8_t *p = p0, *end = p0 + len;

	while (p < end) {
		size_t at = (size_t)(p - p0);
		unsigned kind = *p++;
		uint64_t rlen;
		const uint8_t *q = event_uv(p, end, &rlen);

		if (!q)
			return DEC_FAIL(d, TRACE_CORRUPT,
					"record at payload byte %zu: bad length varint", at);
		if (rlen > (uint64_t)(end - q))
			return DEC_FAIL(d, TRACE_CORRUPT,
					"record at payload byte %zu: length %llu runs past the "
					"chunk end (%zu bytes left)",
					at, (unsigned long long)rlen, (size_t)(end - q));
		p = q + rlen;
		if (kind >= sizeof(rec_names) / sizeof(rec_names[0]) || !rec_names[kind])
			continue; /* unknown kind: skipped */

		/* Strings of a record fit in its length plus one NUL each. */
		size_t need = (size_t)rlen + 4;
		if (grow(&d->scratch, &d->scratch_cap, need))
			return DEC_FAIL(d, TRACE_IOERR, "out of memory (%zu bytes)", need);
		struct cur c = {q, p, d->scratch, 0};
		d->payload = p0;
		d->rec_at = at;
		int r = decode_record(d, kind, &c);
		if (r == -2)
			return d->res->status;
		if (r < 0)
			return DEC_FAIL(d, TRACE_CORRUPT,
					"%s record at payload byte %zu: a field runs past its "
					"length or is out of range",
					rec_names[kind], at);
		if (r)
			return DEC_FAIL(d, TRACE_ABORTED, "stopped by the reader at a %s record",
					rec_names[kind]);
	}
	return TRACE_OK;
}

/* ---- events ---- */

/* Hands the k decoded events of thread (nm metrics each) to the visitor:
 * all at once through its events callback, else one by one. Returns 0, or
 * 1 with *stopped (the events the visitor took, the stopping one included)
 * when it stops the read. */
static int deliver(struct trace_dec *d, uint32_t thread, unsigned nm, size_t k, uint64_t *stopped)
{
	const struct trace_visitor *v = d->v;

	if (!v || !k)
		return 0;
	if (v->events) {
		struct trace_event_batch b = {thread,	       nm,	  k,	      d->b_method,
					      d->b_transition, d->b_type, d->b_metric};

		*stopped = k;
		return v->events(v->ctx, &b) != 0;
	}
	if (!v->event)
		return 0;
	for (size_t i = 0; i < k; i++) {
		struct trace_event e;

		memset(&e, 0, sizeof(e));
		e.thread = thread;
		e.method = d->b_method[i];
		e.transition = d->b_transition[i];
		e.type = d->b_type[i];
		e.nmetrics = (uint8_t)nm;
		memcpy(e.metric, &d->b_metric[i * nm], nm * sizeof(e.metric[0]));
		if (v->event(v->ctx, &e)) {
			*stopped = i + 1;
			return 1;
		}
	}
	return 0;
}

/* The events of r (an events chunk's, from r->p on), decoded and handed to
 * the visitor a batch at a time; inlined once for one metric, the common
 * case, and once for any number. first is how many of the chunk's events
 * the visitor's events_raw took before. */
static inline __attribute__((always_inline)) enum trace_status
decode_event_run(struct trace_dec *d, const uint8_t *p0, const struct event_run *r0,
		 uint32_t thread, const unsigned nm)
{
	/* a copy the batch's stores cannot alias: kept in registers */
	struct event_run run = *r0, *r = &run;
	const uint64_t first = r->events;
	uint64_t n = 0, stopped = 0;
	size_t k = 0;
	const uint8_t *ev = r->p;
	const char *why = NULL;
	struct event_one e;

	while (r->p < r->end) {
		ev = r->p;
		why = event_next(r, nm, &e);
		if (__builtin_expect(why != NULL, 0))
			break;
		for (unsigned i = 0; i < nm; i++)
			d->b_metric[k * nm + i] = r->acc[i];
		d->b_method[k] = e.method;
		d->b_transition[k] = (uint8_t)e.transition;
		d->b_type[k] = (uint8_t)e.type;
		if (++k == TRACE_EVENT_BATCH) {
			if (deliver(d, thread, nm, k, &stopped))
				goto stop;
			n += k;
			k = 0;
		}
	}
	/* the events before a bad one are read */
	if (deliver(d, thread, nm, k, &stopped))
		goto stop;
	n += k;
	d->res->events += n;
	d->controls += r->controls;
	if (why)
		return DEC_FAIL(d, TRACE_CORRUPT, "event %llu at payload byte %zu: %s",
				(unsigned long long)(first + n), (size_t)(ev - p0), why);
	return TRACE_OK;
stop:
	d->res->events += n + stopped;
	d->controls += r->controls;
	return DEC_FAIL(d, TRACE_ABORTED, "stopped by the reader at event %llu",
			(unsigned long long)(first + n + stopped));
}

static enum trace_status decode_events(struct trace_dec *d, const uint8_t *p0, size_t len)
{
	const uint8_t *p = p0, *end = p0 + len;
	const struct trace_visitor *v = d->v;
	struct event_run r;
	uint64_t x;

	p = event_uv(p, end, &x);
	if (!p || x > UINT32_MAX)
		return DEC_FAIL(d, TRACE_CORRUPT, "%s", "events chunk: bad thread serial");
	if (p >= end || *p < 1 || *p > JCAL_MAX_METRICS)
		return DEC_FAIL(d, TRACE_CORRUPT, "events chunk: metric count must be 1..%d",
				JCAL_MAX_METRICS);
	memset(&r, 0, sizeof(r));
	r.p = p + 1;
	r.end = end;
	r.stack = d->stack;
	r.nmetrics = *p;
	if (v && v->events_raw) {
		int stop = v->events_raw(v->ctx, (uint32_t)x, &r);

		d->res->events += r.events;
		d->controls += r.controls;
		d->uncounted |= r.later;
		if (stop)
			return DEC_FAIL(d, TRACE_ABORTED, "stopped by the reader at event %llu",
					(unsigned long long)r.events);
		r.controls = 0;
	}
	if (r.nmetrics == 1)
		return decode_event_run(d, p0, &r, (uint32_t)x, 1);
	return decode_event_run(d, p0, &r, (uint32_t)x, r.nmetrics);
}

static enum trace_status decode_payload(struct trace_dec *d, unsigned kind, const uint8_t *p,
					size_t len)
{
	switch (kind) {
	case TRACE_CHUNK_RECORDS:
		return decode_records(d, p, len);
	case TRACE_CHUNK_EVENTS:
		return decode_events(d, p, len);
	default:
		return TRACE_OK; /* unknown chunk kind: skipped */
	}
}

enum trace_status trace_decode_chunk(unsigned kind, const uint8_t *payload, size_t len,
				     const struct trace_visitor *v, struct trace_result *res)
{
	struct trace_dec *d = malloc(sizeof(*d));

	memset(res, 0, sizeof(*res));
	if (!d)
		return fail(res, NULL, TRACE_IOERR, "out of memory");
	memset(d, 0, offsetof(struct trace_dec, stack));
	d->v = v;
	d->res = res;
	enum trace_status st = decode_payload(d, kind, payload, len);
	if (st == TRACE_OK)
		res->chunks = 1;
	free(d->scratch);
	free(d);
	return st;
}

/* ---- file framing ---- */

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Reads the rest of f; 1 when it holds only zero bytes (or nothing). */
static int rest_is_zero(FILE *f, uint64_t *off)
{
	uint8_t b[4096];
	size_t n;

	while ((n = fread(b, 1, sizeof(b), f)) > 0) {
		*off += n;
		if (!all_zero(b, n))
			return 0;
	}
	return !ferror(f);
}

/* A chunk's payload is read into a buffer grown as its bytes come, first
 * up to this many, then twice what came: a header that claims more than
 * the file holds costs no more than what is there. */
#define PAYLOAD_FIRST_READ (1u << 20)

/* Reads len payload bytes into *buf (cap bytes, grown; never left NULL,
 * even for an empty payload); *got is how many came. Returns 0, or -1 when
 * out of memory. */
static int read_payload(FILE *f, uint8_t **buf, size_t *cap, uint32_t len, size_t *got)
{
	size_t want = len < PAYLOAD_FIRST_READ ? len : PAYLOAD_FIRST_READ;

	*got = 0;
	if (grow(buf, cap, want))
		return -1;
	while (*got < len) {
		size_t n = fread(*buf + *got, 1, want - *got, f);

		*got += n;
		if (*got < want || *got == len)
			break; /* the end of the file, or an error (ferror) */
		want = len - *got > *got ? 2 * *got : len;
		if (grow(buf, cap, want))
			return -1;
	}
	return 0;
}

static enum trace_status read_chunks(struct trace_dec *d, FILE *f, uint8_t **buf, size_t *cap)
{
	struct trace_result *res = d->res;
	const char *name = d->name;
	uint64_t off = res->bytes_read;
	uint8_t h[TRACE_CHUNK_HEADER_LEN];

	for (;;) {
		size_t n = fread(h, 1, sizeof(h), f);
		if (ferror(f))
			return fail(res, name, TRACE_IOERR, "read error at byte %llu: %s",
				    (unsigned long long)off + n, strerror(errno));
		res->file_bytes = off + n;
		if (n == 0)
			return TRACE_OK;
		if (n < sizeof(h))
			return fail(res, name, TRACE_TRUNCATED,
				    "cut off at byte %llu: chunk header of %d bytes has only %zu",
				    (unsigned long long)off + n, TRACE_CHUNK_HEADER_LEN, n);
		uint32_t magic = get_u32(h), len = get_u32(h + 8), crc = get_u32(h + 12);
		unsigned kind = h[4];
		if (magic != TRACE_CHUNK_MAGIC) {
			uint64_t end = off + n;
			if (all_zero(h, n) && rest_is_zero(f, &end)) {
				res->file_bytes = end;
				return fail(res, name, TRACE_TRUNCATED,
					    "cut off at byte %llu: the %llu bytes after it are "
					    "zero (space preallocated before a crash)",
					    (unsigned long long)off,
					    (unsigned long long)(end - off));
			}
			return fail(res, name, TRACE_CORRUPT,
				    "bad chunk magic 0x%08x at byte %llu (expected 0x%08x)", magic,
				    (unsigned long long)off, TRACE_CHUNK_MAGIC);
		}
		if (h[5] || h[6] || h[7])
			return fail(res, name, TRACE_CORRUPT,
				    "chunk at byte %llu: reserved header bytes are not zero",
				    (unsigned long long)off);
		if (len > TRACE_CHUNK_MAX_PAYLOAD)
			return fail(res, name, TRACE_CORRUPT,
				    "chunk at byte %llu: payload length %u exceeds the maximum %u",
				    (unsigned long long)off, len, TRACE_CHUNK_MAX_PAYLOAD);
		if (read_payload(f, buf, cap, len, &n))
			return fail(res, name, TRACE_IOERR,
				    "chunk at byte %llu: out of memory (%u bytes)",
				    (unsigned long long)off, len);
		if (ferror(f))
			return fail(res, name, TRACE_IOERR, "read error at byte %llu: %s",
				    (unsigned long long)off + sizeof(h) + n, strerror(errno));
		res->file_bytes = off + sizeof(h) + n;
		if (n < len)
			return fail(res, name, TRACE_TRUNCATED,
				    "cut off at byte %llu: chunk of %llu bytes has only %llu",
				    (unsigned long long)res->file_bytes,
				    (unsigned long long)sizeof(h) + len,
				    (unsigned long long)sizeof(h) + n);
		/* 2.x: the CRC covers the chunk header too (1.x: the payload only) */
		uint32_t got =
		    d->major >= 2 ? trace_chunk_crc(h, *buf, len) : trace_crc32(0, *buf, len);
		if (got != crc) {
			uint64_t end = res->file_bytes;
			if (len && all_zero(*buf, len) && rest_is_zero(f, &end)) {
				res->file_bytes = end;
				return fail(
				    res, name, TRACE_TRUNCATED,
				    "cut off at byte %llu: the last chunk's %u payload bytes "
				    "are all zero (space preallocated before a crash)",
				    (unsigned long long)off + sizeof(h), len);
			}
			return fail(res, name, TRACE_CORRUPT,
				    "chunk at byte %llu: CRC mismatch (stored 0x%08x, computed "
				    "0x%08x)",
				    (unsigned long long)off, crc, got);
		}
		d->chunk_off = off;
		enum trace_status st = decode_payload(d, kind, *buf, len);
		if (st != TRACE_OK)
			return st;
		res->chunks++;
		off += sizeof(h) + len;
		res->bytes_read = off;
	}
}

enum trace_status trace_read_stream(FILE *f, const char *name, const struct trace_visitor *v,
				    struct trace_result *res)
{
	uint8_t h[TRACE_FILE_HEADER_LEN];
	uint8_t *buf = NULL;
	size_t cap = 0;
	enum trace_status st;
	struct stat sb;
	int regular;
	int fd = fileno(f);

	memset(res, 0, sizeof(*res));
	if (!name)
		name = "trace";
	regular = fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);

	/* The first 16 bytes (all of a 1.x header) say the version. */
	size_t n = fread(h, 1, TRACE_FILE_HEADER_LEN_V1, f);
	if (ferror(f))
		return fail(res, name, TRACE_IOERR, "cannot read: %s", strerror(errno));
	res->file_bytes = n;
	if (n == 0)
		return fail(res, name, TRACE_EMPTY, "empty file (0 bytes)");
	if (memcmp(h, TRACE_MAGIC, n < TRACE_MAGIC_LEN ? n : TRACE_MAGIC_LEN) != 0)
		return fail(res, name, TRACE_CORRUPT, "not a jcal trace: bad magic at byte 0");
	unsigned major = n >= 10 ? ((unsigned)h[8] | (unsigned)h[9] << 8) : TRACE_VERSION_MAJOR;
	size_t hlen = major == 1 ? TRACE_FILE_HEADER_LEN_V1 : TRACE_FILE_HEADER_LEN;
	if (n >= 12) {
		res->version_major = major;
		res->version_minor = (unsigned)h[10] | (unsigned)h[11] << 8;
		if (major != 1 && major != TRACE_VERSION_MAJOR &&
		    major != TRACE_SNAPSHOT_VERSION_MAJOR)
			return fail(res, name, TRACE_CORRUPT,
				    "unsupported format version %u.%u at byte 8 (this reader reads "
				    "1.x, %d.x and tree snapshots %d.x)",
				    res->version_major, res->version_minor, TRACE_VERSION_MAJOR,
				    TRACE_SNAPSHOT_VERSION_MAJOR);
	}
	if (n == TRACE_FILE_HEADER_LEN_V1 && hlen > n) {
		n += fread(h + n, 1, hlen - n, f);
		if (ferror(f))
			return fail(res, name, TRACE_IOERR, "cannot read: %s", strerror(errno));
		res->file_bytes = n;
	}
	if (n < hlen)
		return fail(res, name, TRACE_TRUNCATED,
			    "cut off at byte %zu: file header of %zu bytes has only %zu", n, hlen,
			    n);
	if (major >= 2) {
		uint32_t want = get_u32(h + TRACE_HEADER_CRC_OFFSET);
		uint32_t got = trace_header_crc(h);
		if (got != want)
			return fail(res, name, TRACE_CORRUPT,
				    "file header: CRC mismatch (stored 0x%08x, computed 0x%08x)",
				    want, got);
		unsigned stop = (unsigned)h[TRACE_STOP_OFFSET] | (unsigned)h[TRACE_STOP_OFFSET + 1]
								     << 8;
		unsigned check =
		    (unsigned)h[TRACE_STOP_OFFSET + 2] | (unsigned)h[TRACE_STOP_OFFSET + 3] << 8;
		if ((stop ^ check) != 0xffffu)
			return fail(res, name, TRACE_CORRUPT,
				    "file header: damaged stop field at byte %d (0x%04x, "
				    "complement 0x%04x)",
				    TRACE_STOP_OFFSET, stop, check);
		res->stop_reason = stop;
	}
	res->bytes_read = hlen;

	struct trace_dec *d = malloc(sizeof(*d));
	if (!d)
		return fail(res, name, TRACE_IOERR, "out of memory");
	memset(d, 0, offsetof(struct trace_dec, stack));
	d->v = v;
	d->res = res;
	d->name = name;
	d->major = major;
	d->check_end = major >= 2;
	d->file_size = regular ? (uint64_t)sb.st_size : 0;
	st = read_chunks(d, f, &buf, &cap);
	free(d->scratch);
	free(d);
	free(buf);
	if (regular && (uint64_t)sb.st_size > res->file_bytes)
		res->file_bytes = (uint64_t)sb.st_size;
	res->status = st;
	return st;
}

enum trace_status trace_read_file(const char *path, const struct trace_visitor *v,
				  struct trace_result *res)
{
	if (strcmp(path, "-") == 0)
		return trace_read_stream(stdin, "<stdin>", v, res);

	FILE *f = fopen(path, "rb");
	if (!f) {
		memset(res, 0, sizeof(*res));
		return fail(res, path, TRACE_IOERR, "cannot open: %s", strerror(errno));
	}
	enum trace_status st = trace_read_stream(f, path, v, res);
	fclose(f);
	return st;
}
