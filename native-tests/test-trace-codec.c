/*
 * test-trace-codec.c - unit tests of the trace codec in common/: varints, record
 * and event round trips through a file, cut and corrupted files, END
 * counts, the stop field, format 1.x files, and a size/speed measurement
 * of a call-heavy event stream.
 */

/* CRCs of the worked example of docs/trace-format.md (format 2.0). */
#define DOC_HEADER_CRC 0x290d825bu
#define DOC_EVENTS_CRC 0x25cfad79u
#define DOC_RECORDS_CRC 0x5c39c58bu
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "native-tests/test.h"
#include "common/trace_encoder.h"
#include "common/trace_reader.h"
#include "common/varint.h"

/* ---- helpers ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static unsigned rnd_below(unsigned n)
{
	return (unsigned)(rnd() % n);
}

/* Growing byte buffer: a trace file being assembled in memory. */
struct bytes {
	uint8_t *p;
	size_t len, cap;
};

static void bytes_put(struct bytes *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void bytes_file_header(struct bytes *b)
{
	uint8_t h[TRACE_FILE_HEADER_LEN];
	trace_header_encode(h);
	bytes_put(b, h, sizeof(h));
}

/* Appends a chunk built by hand (kind, payload) with a correct CRC: of
 * the header and payload (format 2.x), or of the payload only (1.x). */
static void bytes_chunk_ver(struct bytes *b, unsigned kind, const uint8_t *payload, size_t len,
			    unsigned major)
{
	uint8_t h[TRACE_CHUNK_HEADER_LEN] = {0};
	uint32_t magic = TRACE_CHUNK_MAGIC, l = (uint32_t)len;

	for (int i = 0; i < 4; i++) {
		h[i] = (uint8_t)(magic >> (8 * i));
		h[8 + i] = (uint8_t)(l >> (8 * i));
	}
	h[4] = (uint8_t)kind;
	uint32_t crc =
	    major >= 2 ? trace_chunk_crc(h, payload, len) : (uint32_t)crc32(0L, payload, (uInt)len);
	for (int i = 0; i < 4; i++)
		h[12 + i] = (uint8_t)(crc >> (8 * i));
	bytes_put(b, h, sizeof(h));
	bytes_put(b, payload, len);
}

static void bytes_chunk(struct bytes *b, unsigned kind, const uint8_t *payload, size_t len)
{
	bytes_chunk_ver(b, kind, payload, len, TRACE_VERSION_MAJOR);
}

/* Rewrites the CRC of a (2.x) file header after a test changed it. */
static void header_seal(uint8_t *h)
{
	uint32_t crc = (uint32_t)crc32(0L, h, TRACE_HEADER_CRC_OFFSET);

	for (int i = 0; i < 4; i++)
		h[TRACE_HEADER_CRC_OFFSET + i] = (uint8_t)(crc >> (8 * i));
}

static void bytes_recbuf(struct bytes *b, struct trace_recbuf *rb)
{
	size_t n = trace_recbuf_finish(rb);
	if (n)
		bytes_put(b, rb->buf, n);
	trace_recbuf_clear(rb);
}

static char tmp_name[64];

/* Writes data to a temporary file and returns its path. */
static const char *write_tmp(const uint8_t *data, size_t len)
{
	const char *dir = getenv("TMPDIR");
	snprintf(tmp_name, sizeof(tmp_name), "%s/jcal-test-XXXXXX", dir ? dir : "/tmp");
	int fd = mkstemp(tmp_name);
	if (fd < 0) {
		perror("mkstemp");
		abort();
	}
	if (len && write(fd, data, len) != (ssize_t)len) {
		perror("write");
		abort();
	}
	close(fd);
	return tmp_name;
}

/* Collects everything a read delivers: events in an array, the rest as a
 * text log. */
struct coll {
	struct trace_event *ev;
	size_t nev, cap;
	char *log;
	size_t loglen, logcap;
	uint64_t stop_after; /* abort after this many events (0 = never) */
};

static void logf_(char **log, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void logf_(char **log, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (*len + (size_t)n + 1 > *cap) {
		*cap = (*len + (size_t)n + 1) * 2;
		*log = realloc(*log, *cap);
		if (!*log)
			abort();
	}
	va_start(ap, fmt);
	vsnprintf(*log + *len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	*len += (size_t)n;
}

#define CLOG(c, ...) logf_(&(c)->log, &(c)->loglen, &(c)->logcap, __VA_ARGS__)

static int c_meta(void *ctx, const char *k, const char *v)
{
	CLOG((struct coll *)ctx, "meta [%s]=[%s]\n", k, v);
	return 0;
}

static int c_method(void *ctx, const struct trace_method *m)
{
	CLOG((struct coll *)ctx, "method %u %u [%s] [%s] [%s]\n", m->id, m->modifiers, m->class_sig,
	     m->name, m->sig);
	return 0;
}

static void log_thread(struct coll *c, const char *what, const struct trace_thread *t)
{
	CLOG(c, "%s %u %" PRIu64 " %u %u %" PRIu64 " [%s] %" PRIu64 " n=%u", what, t->serial,
	     t->java_tid, t->os_tid, t->flags, t->time_ns, t->name ? t->name : "(null)", t->events,
	     t->nmetrics);
	for (unsigned i = 0; i < t->nmetrics; i++)
		CLOG(c, " %" PRIu64, t->metric[i]);
	CLOG(c, "\n");
}

static int c_tstart(void *ctx, const struct trace_thread *t)
{
	log_thread(ctx, "start", t);
	return 0;
}

static int c_tname(void *ctx, const struct trace_thread *t)
{
	log_thread(ctx, "name", t);
	return 0;
}

static int c_tend(void *ctx, const struct trace_thread *t)
{
	log_thread(ctx, "end", t);
	return 0;
}

static int c_compiled(void *ctx, const struct trace_compiled *cm)
{
	CLOG((struct coll *)ctx, "compiled %u %d %" PRIu64 " %" PRIu64 "\n", cm->method, cm->load,
	     cm->time_ns, cm->code_size);
	return 0;
}

static int c_end(void *ctx, const struct trace_end *e)
{
	CLOG((struct coll *)ctx, "END %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", e->events, e->threads,
	     e->lost_events);
	return 0;
}

static int c_label(void *ctx, uint32_t id, const char *text)
{
	CLOG((struct coll *)ctx, "LABEL %" PRIu32 " %s\n", id, text);
	return 0;
}

static int c_event(void *ctx, const struct trace_event *e)
{
	struct coll *c = ctx;
	if (c->nev == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 1024;
		c->ev = realloc(c->ev, c->cap * sizeof(*c->ev));
		if (!c->ev)
			abort();
	}
	c->ev[c->nev++] = *e;
	return c->stop_after && c->nev >= c->stop_after;
}

static struct trace_visitor coll_visitor(struct coll *c)
{
	struct trace_visitor v = {
	    .ctx = c,
	    .meta = c_meta,
	    .method = c_method,
	    .thread_start = c_tstart,
	    .thread_name = c_tname,
	    .thread_end = c_tend,
	    .compiled = c_compiled,
	    .event = c_event,
	    .end = c_end,
	    .label = c_label,
	};
	memset(c, 0, sizeof(*c));
	return v;
}

static void coll_free(struct coll *c)
{
	free(c->ev);
	free(c->log);
}

static enum trace_status read_bytes(const uint8_t *data, size_t len, struct coll *c,
				    struct trace_result *res)
{
	uint64_t stop = c->stop_after;
	struct trace_visitor v = coll_visitor(c);
	c->stop_after = stop;
	const char *path = write_tmp(data, len);
	enum trace_status st = trace_read_file(path, &v, res);
	unlink(path);
	CHECK(st == res->status);
	CHECK(strchr(res->msg, '\n') == NULL);
	if (st != TRACE_OK)
		CHECK(res->msg[0] != '\0');
	return st;
}

static int same_event(const struct trace_event *a, const struct trace_event *b)
{
	if (a->thread != b->thread || a->method != b->method || a->transition != b->transition ||
	    a->type != b->type || a->nmetrics != b->nmetrics)
		return 0;
	for (unsigned i = 0; i < a->nmetrics; i++)
		if (a->metric[i] != b->metric[i])
			return 0;
	return 1;
}

/* ---- varints ---- */

static void test_varint(void)
{
	uint8_t b[16];
	uint64_t v;
	static const struct {
		uint64_t v;
		size_t len;
	} cases[] = {
	    {0, 1},	{1, 1},		 {127, 1},	   {128, 2},	     {16383, 2},
	    {16384, 3}, {UINT32_MAX, 5}, {1ull << 63, 10}, {UINT64_MAX, 10},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = varint_put(b, cases[i].v);
		CHECK_EQ_U(n, cases[i].len);
		CHECK_EQ_U(varint_get(b, b + n, &v), n);
		CHECK_EQ_U(v, cases[i].v);
		/* Every shorter input ends inside the varint. */
		for (size_t k = 0; k < n; k++)
			CHECK_EQ_U(varint_get(b, b + k, &v), 0);
	}
	CHECK_EQ_U(varint_put(b, 0), 1);
	CHECK_EQ_U(b[0], 0);
	varint_put(b, 127);
	CHECK_EQ_U(b[0], 0x7f);
	varint_put(b, 128);
	CHECK(b[0] == 0x80 && b[1] == 0x01);
	varint_put(b, UINT64_MAX);
	CHECK_EQ_U(b[9], 0x01);

	/* Over-long: 11 bytes, or a 10th byte carrying bits past 64. */
	memset(b, 0x80, sizeof(b));
	b[10] = 0;
	CHECK_EQ_U(varint_get(b, b + 11, &v), 0);
	b[9] = 0x02;
	CHECK_EQ_U(varint_get(b, b + 10, &v), 0);
	b[9] = 0x7f;
	CHECK_EQ_U(varint_get(b, b + 10, &v), 0);
	b[9] = 0x01;
	CHECK_EQ_U(varint_get(b, b + 10, &v), 10);
	CHECK_EQ_U(v, 1ull << 63);
	CHECK_EQ_U(varint_get(b, b, &v), 0);

	static const int64_t zz[] = {0, -1, 1, -2, 63, -64, 64, INT64_MAX, INT64_MIN};
	static const uint64_t zze[] = {0, 1, 2, 3, 126, 127, 128, UINT64_MAX - 1, UINT64_MAX};
	for (size_t i = 0; i < sizeof(zz) / sizeof(zz[0]); i++) {
		CHECK_EQ_U(zigzag_enc(zz[i]), zze[i]);
		CHECK_EQ_I(zigzag_dec(zze[i]), zz[i]);
	}
	for (int i = 0; i < 10000; i++) {
		uint64_t x = rnd() >> rnd_below(64);
		size_t n = varint_put(b, x);
		CHECK(varint_get(b, b + n, &v) == n && v == x);
		CHECK_EQ_I(zigzag_dec(zigzag_enc((int64_t)x)), (int64_t)x);
	}
}

/* ---- records ---- */

static void test_records_roundtrip(void)
{
	struct trace_recbuf rb;
	struct bytes f = {0};
	struct coll c = {0};
	struct trace_result res;
	const uint64_t m3[3] = {0, 12345, UINT64_MAX};
	const uint64_t m4[4] = {1, 2, 3, 4};
	char *longname = malloc(70001);

	memset(longname, 'x', 70000);
	longname[70000] = '\0';
	bytes_file_header(&f);
	trace_recbuf_init(&rb);
	CHECK_EQ_U(trace_recbuf_pending(&rb), 0);
	CHECK_EQ_U(trace_recbuf_finish(&rb), 0);
	trace_rec_meta(&rb, "agent.version", "0.1");
	trace_rec_meta(&rb, "", NULL);
	trace_rec_meta(&rb, "utf8", "\xc3\xa9t\xc3\xa9 \xe2\x82\xac");
	trace_rec_method(&rb, 0, 0, "LFoo;", "<init>", "()V");
	trace_rec_method(&rb, UINT32_MAX, JCAL_ACC_STATIC | JCAL_ACC_NATIVE, "Ljava/lang/Object;",
			 "hashCode", "()I");
	CHECK(trace_recbuf_pending(&rb) > 0);
	bytes_recbuf(&f, &rb);
	CHECK_EQ_U(trace_recbuf_pending(&rb), 0);
	trace_rec_thread_start(&rb, 1, 1ull << 40, 4242, TRACE_THREAD_DAEMON | TRACE_THREAD_LATE,
			       1700000000123456789ull, "main", 3, m3);
	trace_rec_thread_start(&rb, UINT32_MAX, 0, UINT32_MAX, TRACE_THREAD_VIRTUAL, 0, "", 0,
			       NULL);
	trace_rec_thread_name(&rb, 1, 17, "worker-1", 0);
	trace_rec_thread_name(&rb, 2, 18, longname, 0);
	trace_rec_thread_name(&rb, 3, 19, "main", 1); /* with the Java thread id (1.1) */
	trace_rec_compiled_load(&rb, 77, 99, 1024);
	trace_rec_compiled_unload(&rb, 77, 100);
	trace_rec_thread_end(&rb, 1, UINT64_MAX, 123456, 4, m4);
	trace_rec_end(&rb, 0, 2, 3); /* no events, 2 THREAD_STARTs */
	bytes_recbuf(&f, &rb);
	CHECK(!rb.oom);
	trace_recbuf_free(&rb);

	CHECK(read_bytes(f.p, f.len, &c, &res) == TRACE_OK);
	CHECK_EQ_U(res.chunks, 2);
	CHECK_EQ_U(res.events, 0);
	CHECK_EQ_U(res.bytes_read, f.len);
	CHECK_EQ_U(res.file_bytes, f.len);
	CHECK_EQ_U(res.version_major, TRACE_VERSION_MAJOR);
	CHECK_EQ_U(res.version_minor, TRACE_VERSION_MINOR);
	CHECK(res.has_end);

	struct coll want;
	coll_visitor(&want);
	CLOG(&want, "meta [agent.version]=[0.1]\n");
	CLOG(&want, "meta []=[]\n");
	CLOG(&want, "meta [utf8]=[\xc3\xa9t\xc3\xa9 \xe2\x82\xac]\n");
	CLOG(&want, "method 0 0 [LFoo;] [<init>] [()V]\n");
	CLOG(&want, "method %u %u [Ljava/lang/Object;] [hashCode] [()I]\n", UINT32_MAX,
	     JCAL_ACC_STATIC | JCAL_ACC_NATIVE);
	CLOG(&want, "start 1 %llu 4242 5 1700000000123456789 [main] 0 n=3 0 12345 %" PRIu64 "\n",
	     1ull << 40, UINT64_MAX);
	CLOG(&want, "start %u 0 %u 2 0 [] 0 n=0\n", UINT32_MAX, UINT32_MAX);
	CLOG(&want, "name 1 0 0 0 17 [worker-1] 0 n=0\n");
	longname[65535] = '\0'; /* strings are cut at 65535 bytes */
	CLOG(&want, "name 2 0 0 0 18 [%s] 0 n=0\n", longname);
	CLOG(&want, "name 3 1 0 0 19 [main] 0 n=0\n");
	CLOG(&want, "compiled 77 1 99 1024\n");
	CLOG(&want, "compiled 77 0 100 0\n");
	CLOG(&want, "end 1 0 0 0 %" PRIu64 " [(null)] 123456 n=4 1 2 3 4\n", UINT64_MAX);
	CLOG(&want, "END 0 2 3\n");
	CHECK_STR(c.log, want.log);
	coll_free(&want);
	coll_free(&c);
	free(longname);
	free(f.p);
}

/* ---- events ---- */

/* One simulated thread: its encoder, its call stack and its events not yet
 * in the file. */
struct sim_thread {
	struct trace_events_enc enc;
	uint8_t *buf;
	uint64_t metric[JCAL_MAX_METRICS];
	uint32_t *stack;
	size_t depth, stack_cap;
	struct trace_event *pend;
	size_t npend, pend_cap;
};

struct sim {
	struct bytes f;
	struct trace_event *want; /* every event in file order */
	size_t nwant, want_cap;
	size_t chunks;
};

static void sim_flush(struct sim *s, struct sim_thread *t)
{
	size_t n = trace_events_finish(&t->enc);
	if (!n) {
		CHECK_EQ_U(t->npend, 0);
		return;
	}
	bytes_put(&s->f, t->enc.buf, n);
	s->chunks++;
	if (s->nwant + t->npend > s->want_cap) {
		s->want_cap = (s->nwant + t->npend) * 2;
		s->want = realloc(s->want, s->want_cap * sizeof(*s->want));
	}
	memcpy(s->want + s->nwant, t->pend, t->npend * sizeof(*t->pend));
	s->nwant += t->npend;
	t->npend = 0;
	trace_events_reset(&t->enc);
}

static void sim_event(struct sim *s, struct sim_thread *t, unsigned tr, unsigned type,
		      uint32_t method)
{
	if (trace_events_full(&t->enc))
		sim_flush(s, t);
	/* Metrics move forwards mostly, sometimes backwards or wrapping. */
	for (unsigned i = 0; i < t->enc.nmetrics; i++) {
		switch (rnd_below(10)) {
		case 0:
			t->metric[i] -= rnd_below(1000);
			break;
		case 1:
			t->metric[i] = rnd();
			break;
		default:
			t->metric[i] += rnd_below(500);
		}
	}
	trace_events_add(&t->enc, tr, type, method, t->metric);
	if (t->npend == t->pend_cap) {
		t->pend_cap = t->pend_cap ? t->pend_cap * 2 : 256;
		t->pend = realloc(t->pend, t->pend_cap * sizeof(*t->pend));
	}
	struct trace_event *e = &t->pend[t->npend++];
	memset(e, 0, sizeof(*e));
	e->thread = t->enc.serial;
	e->method = method;
	e->transition = (uint8_t)tr;
	e->type = (uint8_t)type;
	e->nmetrics = (uint8_t)t->enc.nmetrics;
	memcpy(e->metric, t->metric, sizeof(e->metric[0]) * t->enc.nmetrics);
}

/* One random step of thread t: calls, returns, throws, unmatched exits,
 * and now and then a dive far past TRACE_SHADOW_DEPTH. */
static void sim_step(struct sim *s, struct sim_thread *t)
{
	unsigned r = rnd_below(100);
	unsigned type = rnd_below(JCAL_MT_COUNT);

	if (r < 1) {
		size_t n = TRACE_SHADOW_DEPTH + rnd_below(600);
		for (size_t i = 0; i < n; i++) {
			uint32_t m = rnd_below(50);
			if (t->depth == t->stack_cap) {
				t->stack_cap = t->stack_cap * 2 + 64;
				t->stack = realloc(t->stack, t->stack_cap * sizeof(*t->stack));
			}
			t->stack[t->depth++] = m;
			sim_event(s, t, JCAL_TR_ENTRY, type, m);
		}
	} else if (r < 45 || t->depth == 0) {
		uint32_t m = rnd_below(4) ? rnd_below(200) : (uint32_t)rnd();
		if (t->depth == t->stack_cap) {
			t->stack_cap = t->stack_cap * 2 + 64;
			t->stack = realloc(t->stack, t->stack_cap * sizeof(*t->stack));
		}
		t->stack[t->depth++] = m;
		sim_event(s, t, JCAL_TR_ENTRY, type, m);
	} else if (r < 85) {
		sim_event(s, t, JCAL_TR_EXIT, type, t->stack[--t->depth]);
	} else if (r < 93) {
		sim_event(s, t, JCAL_TR_THROW, type, t->stack[--t->depth]);
	} else if (r < 97) {
		/* Exit of a frame entered before tracing began. */
		sim_event(s, t, rnd_below(2) ? JCAL_TR_EXIT : JCAL_TR_THROW, type, rnd_below(300));
	} else {
		/* Exit that skips frames (events lost, or a mismatch). */
		if (t->depth > 1)
			t->depth--;
		sim_event(s, t, JCAL_TR_EXIT, type, t->stack[--t->depth]);
	}
}

static void check_events(const struct coll *c, const struct trace_event *want, size_t n)
{
	CHECK_EQ_U(c->nev, n);
	for (size_t i = 0; i < n && i < c->nev; i++) {
		if (!same_event(&c->ev[i], &want[i])) {
			fprintf(stderr,
				"  event %zu differs: got t%u m%u %c%c, want t%u m%u %c%c\n", i,
				c->ev[i].thread, c->ev[i].method,
				jcal_transition_letter(c->ev[i].transition),
				jcal_mtype_letter(c->ev[i].type), want[i].thread, want[i].method,
				jcal_transition_letter(want[i].transition),
				jcal_mtype_letter(want[i].type));
			CHECK(0);
			return;
		}
	}
}

static void test_events_roundtrip(void)
{
	static const size_t caps[] = {200, 4096, 1 << 16, 100, 977};
	enum { NT = 5 };
	struct sim s = {0};
	struct sim_thread th[NT];
	struct trace_recbuf rb;
	struct coll c = {0};
	struct trace_result res;

	memset(th, 0, sizeof(th));
	bytes_file_header(&s.f);
	trace_recbuf_init(&rb);
	for (unsigned i = 0; i < NT; i++) {
		th[i].buf = malloc(caps[i]);
		trace_events_init(&th[i].enc, th[i].buf, caps[i], i * 1000u + 1,
				  1 + i % JCAL_MAX_METRICS);
		th[i].metric[0] = UINT64_MAX - 1000; /* wraps soon */
		trace_rec_thread_start(&rb, th[i].enc.serial, i, i, 0, 0, "t", 0, NULL);
	}
	bytes_recbuf(&s.f, &rb);
	for (int step = 0; step < 200000; step++) {
		struct sim_thread *t = &th[rnd_below(NT)];
		sim_step(&s, t);
		if (rnd_below(5000) == 0) {
			trace_rec_meta(&rb, "k", "v");
			bytes_recbuf(&s.f, &rb);
		}
		if (rnd_below(3000) == 0)
			sim_flush(&s, t); /* early flush, as at a thread end */
	}
	for (unsigned i = 0; i < NT; i++)
		sim_flush(&s, &th[i]);
	trace_rec_end(&rb, s.nwant, NT, 0);
	bytes_recbuf(&s.f, &rb);
	trace_recbuf_free(&rb);

	CHECK(read_bytes(s.f.p, s.f.len, &c, &res) == TRACE_OK);
	CHECK(s.chunks > 100);
	CHECK_EQ_U(res.events, s.nwant);
	CHECK_EQ_U(res.bytes_read, s.f.len);
	check_events(&c, s.want, s.nwant);
	printf("     %zu events in %zu events chunks, %.2f bytes/event\n", s.nwant, s.chunks,
	       (double)s.f.len / (double)s.nwant);

	coll_free(&c);

	/* An aborting visitor stops the read at once. */
	c.stop_after = 5;
	CHECK(read_bytes(s.f.p, s.f.len, &c, &res) == TRACE_ABORTED);
	CHECK_EQ_U(c.nev, 5);
	CHECK_EQ_U(res.events, 5);
	coll_free(&c);

	for (unsigned i = 0; i < NT; i++) {
		free(th[i].buf);
		free(th[i].stack);
		free(th[i].pend);
	}
	free(s.want);
	free(s.f.p);
}

/* Implicit exits must use the state the encoder had: a chunk boundary in
 * the middle of a call stack resets both sides. */
static void test_events_shadow_rule(void)
{
	uint8_t buf[256];
	struct trace_events_enc enc;
	uint64_t m = 0;
	struct coll c = {0};
	struct trace_result res;

	trace_events_init(&enc, buf, sizeof(buf), 7, 1);
	trace_events_add(&enc, JCAL_TR_ENTRY, JCAL_MT_INTERP, 5, &m);
	trace_events_add(&enc, JCAL_TR_ENTRY, JCAL_MT_INTERP, 6, &m);
	trace_events_add(&enc, JCAL_TR_EXIT, JCAL_MT_INTERP, 6, &m);  /* implicit */
	trace_events_add(&enc, JCAL_TR_THROW, JCAL_MT_INTERP, 9, &m); /* explicit, no pop */
	trace_events_add(&enc, JCAL_TR_THROW, JCAL_MT_INTERP, 5, &m); /* implicit */
	trace_events_add(&enc, JCAL_TR_EXIT, JCAL_MT_OTHER, 3, &m);   /* depth 0: explicit */
	static const char want_s[] = "\x07\x01"			      /* serial 7, 1 metric */
				     "\x24\x05\x00"		      /* E i 5 */
				     "\x24\x06\x00"		      /* E i 6 */
				     "\x05\x00"			      /* X i (6) */
				     "\x26\x09\x00"		      /* T i 9, explicit */
				     "\x06\x00"			      /* T i (5) */
				     "\x39\x03\x00";		      /* X O 3 at depth 0 */
	const uint8_t *want = (const uint8_t *)want_s;
	const size_t want_len = sizeof(want_s) - 1;
	size_t n = trace_events_finish(&enc);
	CHECK_EQ_U(n, TRACE_CHUNK_HEADER_LEN + want_len);
	CHECK(memcmp(buf + TRACE_CHUNK_HEADER_LEN, want, want_len) == 0);
	CHECK_EQ_U(enc.events, 6);

	struct trace_visitor v = coll_visitor(&c);
	CHECK(trace_decode_chunk(TRACE_CHUNK_EVENTS, want, want_len, &v, &res) == TRACE_OK);
	CHECK_EQ_U(c.nev, 6);
	static const uint32_t methods[] = {5, 6, 6, 9, 5, 3};
	for (size_t i = 0; i < 6 && i < c.nev; i++) {
		CHECK_EQ_U(c.ev[i].method, methods[i]);
		CHECK_EQ_U(c.ev[i].thread, 7);
	}
	coll_free(&c);

	/* An empty encoder yields no chunk. */
	trace_events_reset(&enc);
	CHECK_EQ_U(trace_events_finish(&enc), 0);

	/* Past TRACE_SHADOW_DEPTH exits are explicit until the stack is back
	 * within it; then implicit again. */
	enum { DEEP = TRACE_SHADOW_DEPTH + 300 };
	size_t cap = 16 + 6 + 2 * DEEP * 8;
	uint8_t *big = malloc(cap);
	struct trace_events_enc *e2 = malloc(sizeof(*e2));
	trace_events_init(e2, big, cap, 3, 1);
	for (uint32_t i = 0; i < DEEP; i++)
		trace_events_add(e2, JCAL_TR_ENTRY, JCAL_MT_INTERP, i % 100, &m);
	size_t after_entries = e2->len;
	for (uint32_t i = DEEP; i-- > 0;)
		trace_events_add(e2, i % 7 ? JCAL_TR_EXIT : JCAL_TR_THROW, JCAL_MT_INTERP, i % 100,
				 &m);
	/* 300 explicit exits of 3 bytes, TRACE_SHADOW_DEPTH implicit ones of 2. */
	CHECK_EQ_U(e2->len - after_entries, 300 * 3 + TRACE_SHADOW_DEPTH * 2);
	n = trace_events_finish(e2);
	v = coll_visitor(&c);
	CHECK(trace_decode_chunk(TRACE_CHUNK_EVENTS, big + TRACE_CHUNK_HEADER_LEN,
				 n - TRACE_CHUNK_HEADER_LEN, &v, &res) == TRACE_OK);
	CHECK_EQ_U(c.nev, 2 * DEEP);
	for (size_t i = 0; i < c.nev; i++) {
		uint32_t want_m = (uint32_t)(i < DEEP ? i : 2 * DEEP - 1 - i) % 100;
		if (c.ev[i].method != want_m) {
			CHECK_EQ_U(c.ev[i].method, want_m);
			break;
		}
	}
	coll_free(&c);
	free(e2);
	free(big);
}

/* ---- cut, corrupt, odd files ---- */

/* A small file: records, 3 events chunks, END; boundary[i] = end of chunk i,
 * events_before[i] = events in chunks ending at or before boundary[i]. */
struct small_file {
	struct bytes f;
	size_t boundary[8], events_at[8], nchunks;
	size_t payload_start[8];
};

static void small_file_make(struct small_file *sf)
{
	struct trace_recbuf rb;
	uint8_t buf[128];
	struct trace_events_enc enc;
	uint64_t m[2] = {1000, 5};
	size_t events = 0;

	memset(sf, 0, sizeof(*sf));
	bytes_file_header(&sf->f);
	sf->boundary[0] = sf->f.len;
	trace_recbuf_init(&rb);
	trace_rec_meta(&rb, "mode", "events");
	trace_rec_method(&rb, 1, 0, "LA;", "a", "()V");
	trace_rec_thread_start(&rb, 1, 1, 100, 0, 5, "main", 2, m);
	sf->payload_start[1] = sf->f.len + TRACE_CHUNK_HEADER_LEN;
	bytes_recbuf(&sf->f, &rb);
	sf->nchunks = 1;
	sf->boundary[1] = sf->f.len;
	trace_events_init(&enc, buf, sizeof(buf), 1, 2);
	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < 4; i++) {
			m[0] += 150;
			m[1] += 2;
			trace_events_add(&enc, i < 2 ? JCAL_TR_ENTRY : JCAL_TR_EXIT, JCAL_MT_INTERP,
					 (uint32_t)(i < 2 ? i : 3 - i), m);
			events++;
		}
		size_t n = trace_events_finish(&enc);
		sf->payload_start[sf->nchunks + 1] = sf->f.len + TRACE_CHUNK_HEADER_LEN;
		bytes_put(&sf->f, buf, n);
		trace_events_reset(&enc);
		sf->nchunks++;
		sf->boundary[sf->nchunks] = sf->f.len;
		sf->events_at[sf->nchunks] = events;
	}
	trace_rec_end(&rb, events, 1, 0);
	sf->payload_start[sf->nchunks + 1] = sf->f.len + TRACE_CHUNK_HEADER_LEN;
	bytes_recbuf(&sf->f, &rb);
	sf->nchunks++;
	sf->boundary[sf->nchunks] = sf->f.len;
	sf->events_at[sf->nchunks] = events;
	trace_recbuf_free(&rb);
}

static void test_cut_files(void)
{
	struct small_file sf;
	struct coll c = {0};
	struct trace_result res;

	small_file_make(&sf);
	for (size_t len = 0; len <= sf.f.len; len++) {
		enum trace_status st = read_bytes(sf.f.p, len, &c, &res);
		size_t k = 0;
		while (k < sf.nchunks && sf.boundary[k + 1] <= len)
			k++;
		int at_boundary = len >= TRACE_FILE_HEADER_LEN && sf.boundary[k] == len;
		if (len == 0)
			CHECK(st == TRACE_EMPTY);
		else if (at_boundary)
			CHECK(st == TRACE_OK);
		else
			CHECK(st == TRACE_TRUNCATED);
		if (len >= TRACE_FILE_HEADER_LEN) {
			CHECK_EQ_U(res.chunks, k);
			CHECK_EQ_U(res.bytes_read, sf.boundary[k]);
			CHECK_EQ_U(c.nev, sf.events_at[k]);
			CHECK_EQ_U(res.events, sf.events_at[k]);
		}
		CHECK_EQ_U(res.file_bytes, len);
		CHECK(res.has_end == (len == sf.f.len));
		if (st == TRACE_TRUNCATED && len > sf.boundary[k] + TRACE_CHUNK_HEADER_LEN) {
			char want[128];
			snprintf(want, sizeof(want),
				 "cut off at byte %zu: chunk of %zu bytes has only %zu", len,
				 sf.boundary[k + 1] - sf.boundary[k], len - sf.boundary[k]);
			CHECK(strstr(res.msg, want) != NULL);
		}
		coll_free(&c);
	}
	free(sf.f.p);
}

static void test_corrupt_files(void)
{
	struct small_file sf;
	struct coll c = {0};
	struct trace_result res;
	uint8_t *d;

	small_file_make(&sf);
	d = malloc(sf.f.len);
	for (size_t i = 0; i < sf.f.len; i++) {
		/* Which chunk the byte is in, and where. */
		size_t k = 0;
		while (k < sf.nchunks && sf.boundary[k + 1] <= i)
			k++;
		size_t in = i - sf.boundary[k];
		int in_header = i < TRACE_FILE_HEADER_LEN;
		int in_payload = !in_header && in >= TRACE_CHUNK_HEADER_LEN;
		int in_kind = !in_header && in == 4;
		int in_len = !in_header && in >= 8 && in < 12;

		for (unsigned flip = 0; flip < 9; flip++) {
			memcpy(d, sf.f.p, sf.f.len);
			d[i] ^= flip < 8 ? (uint8_t)(1u << flip) : 0xff;
			enum trace_status st = read_bytes(d, sf.f.len, &c, &res);
			CHECK(c.nev <= sf.events_at[sf.nchunks]);
			if (in_payload || (!in_header && !in_kind && !in_len))
				CHECK(st == TRACE_CORRUPT);
			else if (in_len)
				CHECK(st == TRACE_CORRUPT || st == TRACE_TRUNCATED);
			else if (i < 10)
				CHECK(st == TRACE_CORRUPT); /* magic, major version */
			if (in_payload || (!in_header && in >= 12)) {
				char want[64];
				snprintf(want, sizeof(want), "chunk at byte %zu: CRC mismatch",
					 sf.boundary[k]);
				CHECK(strstr(res.msg, want) != NULL);
			}
			/* Every flipped byte is detected (file header, chunk headers,
			 * kind bytes, the END record...): it never reads as a whole
			 * trace; only a changed payload length may look like a cut. */
			CHECK(st == TRACE_CORRUPT || (in_len && st == TRACE_TRUNCATED));
			CHECK(st != TRACE_OK && !(st == TRACE_TRUNCATED && res.has_end));
			coll_free(&c);
		}
	}
	free(d);
	free(sf.f.p);
}

/* A flipped chunk kind byte makes a valid chunk of another kind: in format
 * 1.x the chunk was skipped and the trace read as complete. */
static void test_flipped_chunk_kind(void)
{
	struct small_file sf;
	struct coll c = {0};
	struct trace_result res;
	uint8_t *d;

	small_file_make(&sf);
	d = malloc(sf.f.len);
	for (size_t k = 0; k < sf.nchunks; k++) {
		size_t at = sf.boundary[k] + 4;
		for (unsigned v = 0; v < 256; v++) {
			if (v == sf.f.p[at])
				continue;
			memcpy(d, sf.f.p, sf.f.len);
			d[at] = (uint8_t)v;
			enum trace_status st = read_bytes(d, sf.f.len, &c, &res);
			CHECK(st == TRACE_CORRUPT);
			CHECK(strstr(res.msg, "CRC mismatch") != NULL);
			CHECK(!res.has_end);
			coll_free(&c);
		}
	}
	free(d);
	free(sf.f.p);
}

/* Builds: records (method, 2 THREAD_STARTs), an events chunk of thread 1
 * with 3 method events and 2 control events, one of thread 2 with 2, and
 * END(events, threads, 0). */
static void end_file_make(struct bytes *f, uint64_t events, uint64_t threads)
{
	struct trace_recbuf rb;
	uint8_t buf[256];
	struct trace_events_enc enc;
	uint64_t m = 10;

	memset(f, 0, sizeof(*f));
	bytes_file_header(f);
	trace_recbuf_init(&rb);
	trace_rec_method(&rb, 1, 0, "LA;", "a", "()V");
	trace_rec_thread_start(&rb, 1, 1, 100, 0, 5, "main", 1, &m);
	trace_rec_thread_start(&rb, 2, 2, 101, 0, 5, "t2", 1, &m);
	bytes_recbuf(f, &rb);
	trace_events_init(&enc, buf, sizeof(buf), 1, 1);
	trace_events_add(&enc, JCAL_TR_ENTRY, JCAL_MT_INTERP, 1, &m);
	trace_events_add_control(&enc, JCAL_CTL_STOP, 0, &m);
	trace_events_add_control(&enc, JCAL_CTL_START, 0, &m);
	trace_events_add(&enc, JCAL_TR_EXIT, JCAL_MT_INTERP, 1, &m);
	trace_events_add(&enc, JCAL_TR_EXIT, JCAL_MT_OTHER, 9, &m);
	bytes_put(f, buf, trace_events_finish(&enc));
	trace_events_init(&enc, buf, sizeof(buf), 2, 1);
	trace_events_add(&enc, JCAL_TR_ENTRY, JCAL_MT_INTERP, 1, &m);
	trace_events_add(&enc, JCAL_TR_EXIT, JCAL_MT_INTERP, 1, &m);
	bytes_put(f, buf, trace_events_finish(&enc));
	trace_rec_end(&rb, events, threads, 0);
	bytes_recbuf(f, &rb);
	trace_recbuf_free(&rb);
}

/* END's counts are checked against what the file holds: 5 method events
 * (control events are not counted) and 2 THREAD_START records (a count of
 * threads above them only noted). */
static void test_end_counts(void)
{
	struct bytes f;
	struct coll c = {0};
	struct trace_result res;

	end_file_make(&f, 5, 2);
	CHECK(read_bytes(f.p, f.len, &c, &res) == TRACE_OK);
	CHECK(res.has_end);
	CHECK_EQ_U(res.events, 7);
	coll_free(&c);
	free(f.p);

	/* fewer threads registered than THREAD_START records: a thread that
	 * started while the agent shut down */
	end_file_make(&f, 5, 1);
	CHECK(read_bytes(f.p, f.len, &c, &res) == TRACE_OK);
	CHECK_EQ_U(res.end_threads_missing, 0);
	coll_free(&c);
	free(f.p);

	/* more: what an agent of 0.2.0 wrote when a thread's start raced with
	 * the start of the recording. Every record is whole: the file reads,
	 * and the difference is noted for a warning. */
	end_file_make(&f, 5, 3);
	CHECK(read_bytes(f.p, f.len, &c, &res) == TRACE_OK);
	CHECK(res.has_end);
	CHECK_EQ_U(res.events, 7);
	CHECK_EQ_U(res.end_threads_missing, 1);
	coll_free(&c);
	free(f.p);

	static const struct {
		uint64_t events, threads;
		const char *msg;
	} bad[] = {
	    {4, 2, "END record: it counts 4 events, the chunks before it hold 5"},
	    {6, 2, "END record: it counts 6 events, the chunks before it hold 5"},
	    {7, 2, "END record: it counts 7 events, the chunks before it hold 5"},
	    {0, 2, "END record: it counts 0 events"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		end_file_make(&f, bad[i].events, bad[i].threads);
		CHECK(read_bytes(f.p, f.len, &c, &res) == TRACE_CORRUPT);
		if (!strstr(res.msg, bad[i].msg)) {
			fprintf(stderr, "  case %zu: \"%s\", want \"%s\"\n", i, res.msg,
				bad[i].msg);
			CHECK(0);
		}
		CHECK(!res.has_end);
		coll_free(&c);
		free(f.p);
	}

	/* A lost events chunk (here: cut out of the middle) shows in the count. */
	end_file_make(&f, 5, 2);
	size_t a = TRACE_FILE_HEADER_LEN, clen;
	a += TRACE_CHUNK_HEADER_LEN + (f.p[a + 8] | (size_t)f.p[a + 9] << 8);	/* records */
	a += TRACE_CHUNK_HEADER_LEN + (f.p[a + 8] | (size_t)f.p[a + 9] << 8);	/* thread 1 */
	clen = TRACE_CHUNK_HEADER_LEN + (f.p[a + 8] | (size_t)f.p[a + 9] << 8); /* thread 2 */
	memmove(f.p + a, f.p + a + clen, f.len - a - clen);
	f.len -= clen;
	CHECK(read_bytes(f.p, f.len, &c, &res) == TRACE_CORRUPT);
	CHECK(strstr(res.msg, "it counts 5 events, the chunks before it hold 3") != NULL);
	coll_free(&c);
	free(f.p);
}

/* The stop field: why the agent stopped writing, set in place. */
static void test_stop_field(void)
{
	struct small_file sf;
	struct coll c = {0};
	struct trace_result res;
	uint8_t h[TRACE_FILE_HEADER_LEN];

	CHECK_EQ_U(trace_stop_reason(ENOSPC), TRACE_STOP_NOSPACE);
	CHECK_EQ_U(trace_stop_reason(EDQUOT), TRACE_STOP_NOSPACE);
	CHECK_EQ_U(trace_stop_reason(EFBIG), TRACE_STOP_FSIZE);
	CHECK_EQ_U(trace_stop_reason(EIO), TRACE_STOP_WRITE);
	CHECK(strstr(trace_stop_str(TRACE_STOP_NOSPACE), "disk full") != NULL);
	CHECK(strstr(trace_stop_str(TRACE_STOP_FSIZE), "file size limit") != NULL);
	CHECK(strstr(trace_stop_str(99), "a write failed") != NULL);

	/* a file cut in its third chunk, marked "disk full" */
	small_file_make(&sf);
	trace_stop_field(sf.f.p + TRACE_STOP_OFFSET, TRACE_STOP_NOSPACE);
	CHECK(read_bytes(sf.f.p, sf.boundary[3] + 5, &c, &res) == TRACE_TRUNCATED);
	CHECK_EQ_U(res.stop_reason, TRACE_STOP_NOSPACE);
	CHECK_EQ_U(res.events, sf.events_at[3]);
	coll_free(&c);
	/* a damaged stop field is corrupt, not a reason */
	for (unsigned i = 0; i < TRACE_STOP_LEN; i++) {
		memcpy(h, sf.f.p, sizeof(h));
		h[TRACE_STOP_OFFSET + i] ^= 1;
		CHECK(read_bytes(h, sizeof(h), &c, &res) == TRACE_CORRUPT);
		CHECK(strstr(res.msg, "damaged stop field at byte 20") != NULL);
		coll_free(&c);
	}
	free(sf.f.p);
}

/*
 * The agent's sequence at a file size limit (ulimit -f): append chunks
 * until write() fails with EFBIG, then trace_header_mark_stopped() on the
 * same descriptor. Run in a child, whose limit and SIGXFSZ are its own.
 */
static void test_stop_at_size_limit(void)
{
	const char *dir = getenv("TMPDIR");
	char path[256];
	struct coll c = {0};
	struct trace_result res;

	snprintf(path, sizeof(path), "%s/jcal-test-fsize-XXXXXX", dir ? dir : "/tmp");
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit rl = {10000, 10000};
		uint8_t h[TRACE_FILE_HEADER_LEN], buf[1000];
		struct trace_events_enc enc;
		uint64_t m = 0;
		int rc = 3;

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl))
			_exit(2);
		trace_header_encode(h);
		if (write(fd, h, sizeof(h)) != (ssize_t)sizeof(h))
			_exit(2);
		trace_events_init(&enc, buf, sizeof(buf), 1, 1);
		for (int i = 0; i < 1000; i++) {
			while (!trace_events_full(&enc)) {
				m += 100;
				trace_events_add(&enc, JCAL_TR_EXIT, JCAL_MT_OTHER, 7, &m);
			}
			size_t n = trace_events_finish(&enc);
			ssize_t w = write(fd, buf, n);
			if (w < 0 || (size_t)w < n) {
				/* a short write leaves part of the chunk; the next fails */
				if (w >= 0)
					w = write(fd, buf + w, n - (size_t)w);
				if (w < 0) {
					rc = errno == EFBIG &&
						     trace_header_mark_stopped(fd, errno) == 0
						 ? 0
						 : 4;
				}
				break;
			}
			trace_events_reset(&enc);
		}
		_exit(rc);
	}
	close(fd);
	int status = -1;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	struct trace_visitor v = coll_visitor(&c);
	enum trace_status st = trace_read_file(path, &v, &res);
	CHECK(st == TRACE_TRUNCATED || st == TRACE_OK);
	CHECK(!res.has_end);
	CHECK_EQ_U(res.stop_reason, TRACE_STOP_FSIZE);
	CHECK(res.file_bytes <= 10000 && res.events > 0);
	coll_free(&c);
	unlink(path);
}

/*
 * Format 1.x files stay readable: their CRC covers the payload only, a
 * 16-byte file header, and their END counts are not checked (read as
 * before). The bytes are the worked example of docs/trace-format.md as
 * format 1.0 described it.
 */
static void test_format_1x(void)
{
	static const uint8_t v1[] = {
	    /* file header 1.0 */
	    0x4a,
	    0x43,
	    0x41,
	    0x4c,
	    0x54,
	    0x52,
	    0x43,
	    0x01,
	    0x01,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    /* RECORDS: METHOD 5 */
	    0x4a,
	    0x43,
	    0x43,
	    0x4b,
	    0x01,
	    0x00,
	    0x00,
	    0x00,
	    0x0e,
	    0x00,
	    0x00,
	    0x00,
	    0xdb,
	    0x68,
	    0x46,
	    0x2b,
	    0x02,
	    0x0c,
	    0x05,
	    0x08,
	    0x03,
	    0x4c,
	    0x41,
	    0x3b,
	    0x01,
	    0x66,
	    0x03,
	    0x28,
	    0x29,
	    0x56,
	    /* EVENTS of thread 1 */
	    0x4a,
	    0x43,
	    0x43,
	    0x4b,
	    0x02,
	    0x00,
	    0x00,
	    0x00,
	    0x14,
	    0x00,
	    0x00,
	    0x00,
	    0x1d,
	    0xb8,
	    0x97,
	    0xb5,
	    0x01,
	    0x01,
	    0x24,
	    0xac,
	    0x02,
	    0xd0,
	    0x0f,
	    0x24,
	    0x05,
	    0xac,
	    0x02,
	    0x05,
	    0x9c,
	    0x04,
	    0x06,
	    0x27,
	    0x39,
	    0x07,
	    0x84,
	    0x02,
	};
	struct coll c = {0};
	struct trace_result res;
	struct bytes b = {0};

	CHECK(read_bytes(v1, sizeof(v1), &c, &res) == TRACE_OK);
	CHECK_EQ_U(res.version_major, 1);
	CHECK_EQ_U(res.version_minor, 0);
	CHECK_EQ_U(res.chunks, 2);
	CHECK_EQ_U(res.events, 5);
	CHECK_EQ_U(res.bytes_read, sizeof(v1));
	CHECK_STR(c.log, "method 5 8 [LA;] [f] [()V]\n");
	if (c.nev == 5) {
		CHECK_EQ_U(c.ev[3].method, 300);
		CHECK_EQ_U(c.ev[3].transition, JCAL_TR_THROW);
		CHECK_EQ_U(c.ev[4].metric[0], 1530);
	}
	coll_free(&c);

	/* A 1.1 file with an END whose counts do not match: read as before. */
	bytes_put(&b, v1, sizeof(v1));
	b.p[10] = 1;
	uint8_t end[] = {TRACE_REC_END, 3, 99, 7, 0};
	bytes_chunk_ver(&b, TRACE_CHUNK_RECORDS, end, sizeof(end), 1);
	CHECK(read_bytes(b.p, b.len, &c, &res) == TRACE_OK);
	CHECK(res.has_end);
	CHECK_EQ_U(res.version_minor, 1);
	coll_free(&c);
	/* its chunk headers are not covered: a changed kind is skipped, as 1.x
	 * readers did */
	b.p[TRACE_FILE_HEADER_LEN_V1 + 4] = 0x41;
	CHECK(read_bytes(b.p, b.len, &c, &res) == TRACE_OK);
	CHECK_STR(c.log, "END 99 7 0\n");
	CHECK_EQ_U(c.nev, 5);
	coll_free(&c);
	/* and a 2.x-style CRC is a mismatch there (and the reverse) */
	b.len = TRACE_FILE_HEADER_LEN_V1;
	bytes_chunk_ver(&b, TRACE_CHUNK_RECORDS, end, sizeof(end), 2);
	CHECK(read_bytes(b.p, b.len, &c, &res) == TRACE_CORRUPT);
	CHECK(strstr(res.msg, "CRC mismatch") != NULL);
	coll_free(&c);
	/* a 1.x file header cut short */
	CHECK(read_bytes(v1, 12, &c, &res) == TRACE_TRUNCATED);
	CHECK(strstr(res.msg, "file header of 16 bytes has only 12") != NULL);
	coll_free(&c);
	free(b.p);
}

/* The worked example of docs/trace-format.md, as this encoder writes it. */
static void test_doc_example(void)
{
	static const uint8_t want_hdr[] = {
	    0x4a, 0x43, 0x41, 0x4c, 0x54, 0x52, 0x43, 0x01, 0x02, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff,
	};
	uint8_t h[TRACE_FILE_HEADER_LEN], buf[128];
	struct trace_events_enc enc;
	struct trace_recbuf rb;
	uint64_t m;

	trace_header_encode(h);
	uint32_t hcrc = (uint32_t)crc32(0L, h, 16);
	CHECK(memcmp(h, want_hdr, 16) == 0 && memcmp(h + 20, want_hdr + 20, 4) == 0);
	printf("     file header CRC 0x%08x\n", hcrc);
	CHECK_EQ_U(hcrc, DOC_HEADER_CRC);

	trace_events_init(&enc, buf, sizeof(buf), 1, 1);
	static const struct {
		unsigned tr, type;
		uint32_t method;
		uint64_t metric;
	} ev[] = {
	    {JCAL_TR_ENTRY, JCAL_MT_INTERP, 300, 1000}, {JCAL_TR_ENTRY, JCAL_MT_INTERP, 5, 1150},
	    {JCAL_TR_EXIT, JCAL_MT_INTERP, 5, 1420},	{JCAL_TR_THROW, JCAL_MT_INTERP, 300, 1400},
	    {JCAL_TR_EXIT, JCAL_MT_OTHER, 7, 1530},
	};
	for (size_t i = 0; i < 5; i++) {
		m = ev[i].metric;
		trace_events_add(&enc, ev[i].tr, ev[i].type, ev[i].method, &m);
	}
	CHECK_EQ_U(trace_events_finish(&enc), 36);
	uint32_t ecrc = buf[12] | buf[13] << 8 | buf[14] << 16 | (uint32_t)buf[15] << 24;
	printf("     events chunk CRC 0x%08x\n", ecrc);
	CHECK_EQ_U(ecrc, DOC_EVENTS_CRC);

	trace_recbuf_init(&rb);
	trace_rec_method(&rb, 5, JCAL_ACC_STATIC, "LA;", "f", "()V");
	CHECK_EQ_U(trace_recbuf_finish(&rb), 30);
	uint32_t rcrc =
	    rb.buf[12] | rb.buf[13] << 8 | rb.buf[14] << 16 | (uint32_t)rb.buf[15] << 24;
	printf("     records chunk CRC 0x%08x\n", rcrc);
	CHECK_EQ_U(rcrc, DOC_RECORDS_CRC);
	trace_recbuf_free(&rb);
}

static void test_empty_and_bad_headers(void)
{
	struct coll c = {0};
	struct trace_result res;
	uint8_t h[TRACE_FILE_HEADER_LEN];

	CHECK(read_bytes(NULL, 0, &c, &res) == TRACE_EMPTY);
	CHECK(strstr(res.msg, "empty") != NULL);
	coll_free(&c);

	trace_header_encode(h);
	/* 2.0, flags 0, CRC of bytes 0-15, stop field: none (0, complement 0xffff) */
	CHECK(memcmp(h, "JCALTRC\x01\x02\x00\x00\x00\x00\x00\x00\x00", 16) == 0);
	CHECK_EQ_U(h[16] | h[17] << 8 | h[18] << 16 | (uint32_t)h[19] << 24,
		   (uint32_t)crc32(0L, h, 16));
	CHECK(memcmp(h + 20, "\x00\x00\xff\xff", 4) == 0);
	CHECK(read_bytes(h, sizeof(h), &c, &res) == TRACE_OK);
	CHECK_EQ_U(res.chunks, 0);
	CHECK_EQ_U(res.bytes_read, TRACE_FILE_HEADER_LEN);
	CHECK_EQ_U(res.stop_reason, TRACE_STOP_NONE);
	CHECK(!res.has_end);
	coll_free(&c);

	h[3] = 'x';
	CHECK(read_bytes(h, sizeof(h), &c, &res) == TRACE_CORRUPT);
	CHECK(strstr(res.msg, "bad magic at byte 0") != NULL);
	coll_free(&c);
	CHECK(read_bytes((const uint8_t *)"hello world\n", 12, &c, &res) == TRACE_CORRUPT);
	coll_free(&c);

	trace_header_encode(h);
	h[8] = 4; /* 3.x are tree snapshots */
	h[10] = 1;
	CHECK(read_bytes(h, sizeof(h), &c, &res) == TRACE_CORRUPT);
	CHECK(strstr(res.msg, "version 4.1 at byte 8") != NULL);
	coll_free(&c);

	/* A newer minor version and unknown flags are read (with their CRC). */
	trace_header_encode(h);
	h[10] = 9;
	h[12] = 1;
	header_seal(h);
	CHECK(read_bytes(h, sizeof(h), &c, &res) == TRACE_OK);
	CHECK_EQ_U(res.version_minor, 9);
	coll_free(&c);

	struct trace_visitor v = coll_visitor(&c);
	CHECK(trace_read_file("/nonexistent/jcal.trace", &v, &res) == TRACE_IOERR);
	CHECK(strstr(res.msg, "/nonexistent/jcal.trace: cannot open") != NULL);
	CHECK(trace_read_file("/", &v, &res) == TRACE_IOERR);
	coll_free(&c);
	CHECK_STR(trace_status_str(TRACE_TRUNCATED), "truncated");
}

/* A tail of zeros (preallocated, never written) reads as a cut-off tail. */
static void test_zero_tail(void)
{
	struct small_file sf;
	struct coll c = {0};
	struct trace_result res;
	struct bytes b = {0};
	static const uint8_t zeros[300];

	small_file_make(&sf);
	size_t total = sf.events_at[sf.nchunks];

	bytes_put(&b, sf.f.p, sf.f.len);
	bytes_put(&b, zeros, sizeof(zeros));
	CHECK(read_bytes(b.p, b.len, &c, &res) == TRACE_TRUNCATED);
	CHECK_EQ_U(res.events, total);
	CHECK_EQ_U(res.bytes_read, sf.f.len);
	CHECK_EQ_U(res.file_bytes, b.len);
	coll_free(&c);

	/* A written header whose payload never made it to disk. */
	b.len = sf.f.len;
	bytes_chunk(&b, TRACE_CHUNK_EVENTS, (const uint8_t *)"\x01\x01\x24\x01\x02", 5);
	memset(b.p + b.len - 5, 0, 5);
	CHECK(read_bytes(b.p, b.len, &c, &res) == TRACE_TRUNCATED);
	CHECK_EQ_U(res.events, total);
	coll_free(&c);
	bytes_put(&b, zeros, 50);
	CHECK(read_bytes(b.p, b.len, &c, &res) == TRACE_TRUNCATED);
	coll_free(&c);

	/* ... but not when something follows it. */
	bytes_put(&b, "x", 1);
	CHECK(read_bytes(b.p, b.len, &c, &res) == TRACE_CORRUPT);
	CHECK(strstr(res.msg, "CRC mismatch") != NULL);
	coll_free(&c);

	/* Zero bytes in the middle of the file are corruption. */
	b.len = 0;
	bytes_put(&b, sf.f.p, sf.boundary[2]);
	bytes_put(&b, zeros, 32);
	bytes_put(&b, sf.f.p + sf.boundary[2], sf.f.len - sf.boundary[2]);
	CHECK(read_bytes(b.p, b.len, &c, &res) == TRACE_CORRUPT);
	CHECK(strstr(res.msg, "bad chunk magic") != NULL);
	coll_free(&c);
	free(b.p);
	free(sf.f.p);
}

static void test_unknown_kinds(void)
{
	struct bytes b = {0};
	struct coll c = {0};
	struct trace_result res;
	/* unknown record 200 (3 bytes), META with a trailing extra byte,
	 * THREAD_NAME, unknown record 0 (empty). */
	static const uint8_t recs[] = {200,
				       3,
				       'a',
				       'b',
				       'c',
				       TRACE_REC_META,
				       5,
				       1,
				       'k',
				       1,
				       'v',
				       0xee,
				       TRACE_REC_THREAD_NAME,
				       4,
				       3,
				       9,
				       1,
				       'n',
				       0,
				       0};

	bytes_file_header(&b);
	bytes_chunk(&b, 77, (const uint8_t *)"whatever", 8); /* unknown chunk kind */
	bytes_chunk(&b, TRACE_CHUNK_RECORDS, recs, sizeof(recs));
	CHECK(read_bytes(b.p, b.len, &c, &res) == TRACE_OK);
	CHECK_EQ_U(res.chunks, 2);
	CHECK_STR(c.log, "meta [k]=[v]\nname 3 0 0 0 9 [n] 0 n=0\n");
	coll_free(&c);
	free(b.p);
}

struct bad_payload {
	unsigned kind;
	const char *bytes;
	size_t len;
	const char *why; /* substring of the message */
};

#define BP(k, s, why)                                                                              \
	{                                                                                          \
		k, s, sizeof(s) - 1, why                                                           \
	}

/* A callback that refuses a record (as jcal-post's model does when it runs
 * out of memory: -1) stops the read as aborted at that record, never as a
 * malformed record. */
static int refuse_meta(void *c, const char *k, const char *v)
{
	(void)c, (void)k, (void)v;
	return -1;
}
static int refuse_method(void *c, const struct trace_method *m)
{
	(void)c, (void)m;
	return -1;
}
static int refuse_thread(void *c, const struct trace_thread *t)
{
	(void)c, (void)t;
	return -1;
}
static int refuse_compiled(void *c, const struct trace_compiled *cm)
{
	(void)c, (void)cm;
	return -1;
}
static int refuse_end(void *c, const struct trace_end *e)
{
	(void)c, (void)e;
	return -1;
}
static int refuse_label(void *c, uint32_t id, const char *text)
{
	(void)c, (void)id, (void)text;
	return -1;
}

static void test_callback_refuses(void)
{
	static const char *const names[] = {
	    "META",	     "METHOD",		"THREAD_START", "THREAD_NAME", "THREAD_END",
	    "COMPILED_LOAD", "COMPILED_UNLOAD", "LABEL",	"END"};
	struct trace_recbuf rb;
	uint64_t m0 = 5;

	trace_recbuf_init(&rb);
	trace_rec_meta(&rb, "k", "v");
	trace_rec_method(&rb, 1, 0, "LA;", "m", "()V");
	trace_rec_thread_start(&rb, 1, 1, 1, 0, 1, "t", 1, &m0);
	trace_rec_thread_name(&rb, 1, 2, "u", 0);
	trace_rec_thread_end(&rb, 1, 3, 0, 1, &m0);
	trace_rec_compiled_load(&rb, 1, 4, 100);
	trace_rec_compiled_unload(&rb, 1, 5);
	trace_rec_label(&rb, 1, "l");
	trace_rec_end(&rb, 0, 0, 0);
	size_t n = trace_recbuf_finish(&rb);
	for (unsigned k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		struct trace_visitor v = {0};
		struct trace_result res;
		char want[64];

		switch (k) {
		case 0:
			v.meta = refuse_meta;
			break;
		case 1:
			v.method = refuse_method;
			break;
		case 2:
			v.thread_start = refuse_thread;
			break;
		case 3:
			v.thread_name = refuse_thread;
			break;
		case 4:
			v.thread_end = refuse_thread;
			break;
		case 5:
		case 6:
			v.compiled = refuse_compiled;
			break;
		case 7:
			v.label = refuse_label;
			break;
		default:
			v.end = refuse_end;
			break;
		}
		if (k == 6) /* the load goes through first */
			continue;
		CHECK_EQ_I(trace_decode_chunk(TRACE_CHUNK_RECORDS, rb.buf + TRACE_CHUNK_HEADER_LEN,
					      n - TRACE_CHUNK_HEADER_LEN, &v, &res),
			   TRACE_ABORTED);
		snprintf(want, sizeof(want), "stopped by the reader at a %s record", names[k]);
		CHECK_STR(res.msg, want);
	}
	trace_recbuf_free(&rb);
}

static void test_bad_payloads(void)
{
	static const struct bad_payload cases[] = {
	    BP(TRACE_CHUNK_RECORDS, "\x01\x05\x01k", "runs past the chunk"),
	    BP(TRACE_CHUNK_RECORDS, "\x01", "bad length"),
	    BP(TRACE_CHUNK_RECORDS, "\x01\x02\x05k", "META record at payload byte 0"),
	    BP(TRACE_CHUNK_RECORDS, "\x07\x00", "COMPILED_UNLOAD record"),
	    BP(TRACE_CHUNK_RECORDS, "\x03\x08\x01\x01\x01\x01\x01\x00\x05\x00",
	       "THREAD_START record"),
	    BP(TRACE_CHUNK_RECORDS, "\x02\x0b\x80\x80\x80\x80\x10\x00\x00\x00\x00\x00\x00",
	       "METHOD record"),
	    BP(TRACE_CHUNK_RECORDS, "\x01\x0b\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
	       "META record"),
	    BP(TRACE_CHUNK_EVENTS, "", "bad thread serial"),
	    BP(TRACE_CHUNK_EVENTS, "\x01", "metric count"),
	    BP(TRACE_CHUNK_EVENTS, "\x01\x00", "metric count"),
	    BP(TRACE_CHUNK_EVENTS, "\x01\x05", "metric count"),
	    BP(TRACE_CHUNK_EVENTS, "\x01\x01\x01\x00", "event 0 at payload byte 2: implicit exit"),
	    BP(TRACE_CHUNK_EVENTS, "\x01\x01\x24\x01\x00\x05\x00\x05\x00",
	       "event 2 at payload byte 7"),
	    BP(TRACE_CHUNK_EVENTS, "\x01\x01\x00\x00", "entry without a method id"),
	    BP(TRACE_CHUNK_EVENTS, "\x01\x01\x0f\x00", "bad control event"),
	    BP(TRACE_CHUNK_EVENTS, "\x01\x01\x3c\x01\x00", "bad tag"),
	    BP(TRACE_CHUNK_EVENTS, "\x01\x01\x64\x01\x00", "bad tag"),
	    BP(TRACE_CHUNK_EVENTS, "\x01\x01\xa4\x01\x00", "bad tag"),
	    BP(TRACE_CHUNK_EVENTS, "\x01\x01\x24\x80\x80\x80\x80\x10\x00", "bad method id"),
	    BP(TRACE_CHUNK_EVENTS, "\x01\x01\x24", "bad method id"),
	    BP(TRACE_CHUNK_EVENTS, "\x01\x01\x24\x01", "cut metric"),
	    BP(TRACE_CHUNK_EVENTS, "\x01\x02\x24\x01\x02", "cut metric"),
	    BP(TRACE_CHUNK_EVENTS, "\x01\x01\x24\x01\x80", "cut metric"),
	};
	struct coll c = {0};
	struct trace_result res;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct trace_visitor v = coll_visitor(&c);
		enum trace_status st = trace_decode_chunk(
		    cases[i].kind, (const uint8_t *)cases[i].bytes, cases[i].len, &v, &res);
		if (st != TRACE_CORRUPT || !strstr(res.msg, cases[i].why)) {
			fprintf(stderr, "  case %zu: %s: \"%s\", want \"%s\"\n", i,
				trace_status_str(st), res.msg, cases[i].why);
			CHECK(0);
		}
		coll_free(&c);
	}

	/* Through a file, the message names the chunk's offset. */
	struct bytes b = {0};
	bytes_file_header(&b);
	bytes_chunk(&b, TRACE_CHUNK_EVENTS, (const uint8_t *)"\x01\x01\x24\x01\x02", 5);
	bytes_chunk(&b, TRACE_CHUNK_EVENTS, (const uint8_t *)"\x01\x01\x01\x00", 4);
	CHECK(read_bytes(b.p, b.len, &c, &res) == TRACE_CORRUPT);
	CHECK(strstr(res.msg, "chunk at byte 45: event 0 at payload byte 2") != NULL);
	CHECK_EQ_U(c.nev, 1);
	CHECK_EQ_U(c.ev[0].metric[0], 1);
	coll_free(&c);
	free(b.p);

	/* Random payloads never crash the decoder. */
	uint8_t junk[64];
	for (int i = 0; i < 200000; i++) {
		size_t n = rnd_below(sizeof(junk));
		for (size_t k = 0; k < n; k++)
			junk[k] = (uint8_t)(rnd_below(3) ? rnd_below(64) : rnd());
		struct trace_visitor v = coll_visitor(&c);
		trace_decode_chunk(1 + (unsigned)(i & 1), junk, n, &v, &res);
		coll_free(&c);
	}
}

/* ---- size and speed ---- */

static int count_event(void *ctx, const struct trace_event *e)
{
	uint64_t *sum = ctx;
	*sum += e->method + e->metric[0];
	return 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A call-heavy stream: 1 metric with deltas of 100..400, method ids below
 * 2000, call depth 10..30. Prints bytes per event and decode speed. */
static void test_size_and_speed(void)
{
	enum { CAP = 1 << 20, NEV = 10000000 };
	uint8_t *buf = malloc(CAP);
	struct trace_events_enc *enc = malloc(sizeof(*enc));
	struct bytes f = {0};
	uint32_t stack[64];
	unsigned depth = 0;
	uint64_t metric = 1000000;

	bytes_file_header(&f);
	trace_events_init(enc, buf, CAP, 1, 1);
	for (size_t i = 0; i < NEV; i++) {
		if (trace_events_full(enc)) {
			bytes_put(&f, buf, trace_events_finish(enc));
			trace_events_reset(enc);
		}
		metric += 100 + rnd_below(301);
		int enter = depth < 10 || (depth < 30 && rnd_below(2));
		if (enter) {
			stack[depth] = rnd_below(2000);
			trace_events_add(enc, JCAL_TR_ENTRY, JCAL_MT_INTERP, stack[depth], &metric);
			depth++;
		} else {
			depth--;
			trace_events_add(enc, JCAL_TR_EXIT, JCAL_MT_INTERP, stack[depth], &metric);
		}
	}
	bytes_put(&f, buf, trace_events_finish(enc));
	printf("     call-heavy stream: %.3f bytes/event (%zu bytes, %d events)\n",
	       (double)f.len / NEV, f.len, NEV);
	CHECK((double)f.len / NEV < 8.0);

	const char *path = write_tmp(f.p, f.len);
	uint64_t sum = 0;
	struct trace_visitor v = {.ctx = &sum, .event = count_event};
	struct trace_result res;
	double best = 1e9;
	for (int r = 0; r < 3; r++) {
		double t0 = now_s();
		CHECK(trace_read_file(path, &v, &res) == TRACE_OK);
		double t = now_s() - t0;
		if (t < best)
			best = t;
		CHECK_EQ_U(res.events, NEV);
	}
	unlink(path);
	printf("     read+decode: %.1f M events/s (file, CRC, callback per event)\n",
	       NEV / best / 1e6);

	/* Decode alone, no callback. */
	best = 1e9;
	struct trace_visitor none = {0};
	for (int r = 0; r < 3; r++) {
		double t0 = now_s();
		size_t off = TRACE_FILE_HEADER_LEN;
		uint64_t n = 0;
		while (off < f.len) {
			const uint8_t *h = f.p + off;
			size_t len = (size_t)h[8] | (size_t)h[9] << 8 | (size_t)h[10] << 16 |
				     (size_t)h[11] << 24;
			CHECK(trace_decode_chunk(TRACE_CHUNK_EVENTS, h + TRACE_CHUNK_HEADER_LEN,
						 len, &none, &res) == TRACE_OK);
			n += res.events;
			off += TRACE_CHUNK_HEADER_LEN + len;
		}
		double t = now_s() - t0;
		if (t < best)
			best = t;
		CHECK_EQ_U(n, NEV);
	}
	printf("     decode only: %.1f M events/s\n", NEV / best / 1e6);
	free(f.p);
	free(enc);
	free(buf);
}

/* A visitor's events_raw that takes up to take events of each chunk
 * itself, the rest left to the reader; stop_at > 0 stops the read at that
 * event. */
struct raw_coll {
	struct coll c; /* first: the coll callbacks take the same ctx */
	uint64_t take, stop_at;
};

static int c_events_raw(void *ctx, uint32_t thread, struct event_run *r)
{
	struct raw_coll *rc = ctx;
	struct event_one e;

	while (r->p < r->end && r->events < rc->take) {
		struct trace_event te;

		if (event_next(r, r->nmetrics, &e))
			break;
		memset(&te, 0, sizeof(te));
		te.thread = thread;
		te.method = e.method;
		te.transition = (uint8_t)e.transition;
		te.type = (uint8_t)e.type;
		te.nmetrics = (uint8_t)r->nmetrics;
		memcpy(te.metric, r->acc, sizeof(te.metric));
		c_event(&rc->c, &te);
		if (rc->stop_at && r->events == rc->stop_at)
			return 1;
	}
	return 0;
}

/* Events taken by a visitor's events_raw, any number of them, and the rest
 * by its event callback read as the plain decoding reads them: the same
 * events, and at a malformed one the same status and message (its index
 * and byte offset counted from the chunk's start). */
static void test_events_raw_takes_part(void)
{
	static struct trace_events_enc enc;
	uint8_t buf[4096], chunk[4096];
	struct trace_result ref_res, res;
	struct coll ref;
	size_t n, len;
	uint64_t m[2] = {100, 7};

	trace_events_init(&enc, buf, sizeof(buf), 9, 2);
	for (uint32_t i = 0; i < 12; i++) {
		m[0] += 3 * i;
		m[1] += i % 4;
		if (i % 5 == 4)
			trace_events_add_control(&enc, JCAL_CTL_MARK, i, m);
		else
			trace_events_add(&enc, i % 3 == 2 ? JCAL_TR_EXIT : JCAL_TR_ENTRY,
					 JCAL_MT_JIT, i % 3 == 2 ? 10 + i - 1 : 10 + i, m);
	}
	n = trace_events_finish(&enc);
	len = n - TRACE_CHUNK_HEADER_LEN;
	memcpy(chunk, buf + TRACE_CHUNK_HEADER_LEN, len);
	chunk[len++] = 0xc0; /* a malformed event after the twelve */
	chunk[len++] = 0;
	struct trace_visitor v = coll_visitor(&ref);
	CHECK(trace_decode_chunk(TRACE_CHUNK_EVENTS, chunk, len, &v, &ref_res) == TRACE_CORRUPT);
	CHECK_EQ_U(ref.nev, 12);
	CHECK_EQ_U(ref_res.events, 12);
	CHECK(strstr(ref_res.msg, "event 12 at payload byte") != NULL);
	for (uint64_t take = 0; take <= 14; take++) {
		struct raw_coll rc;

		v = coll_visitor(&rc.c);
		v.events_raw = c_events_raw;
		rc.take = take;
		rc.stop_at = 0;
		CHECK(trace_decode_chunk(TRACE_CHUNK_EVENTS, chunk, len, &v, &res) ==
		      TRACE_CORRUPT);
		CHECK_EQ_U(res.events, 12);
		CHECK_STR(res.msg, ref_res.msg);
		CHECK_EQ_U(rc.c.nev, ref.nev);
		CHECK(rc.c.nev == ref.nev &&
		      memcmp(rc.c.ev, ref.ev, ref.nev * sizeof(*ref.ev)) == 0);
		coll_free(&rc.c);
	}
	/* events_raw stops the read at its fifth event */
	{
		struct raw_coll rc;

		v = coll_visitor(&rc.c);
		v.events_raw = c_events_raw;
		rc.take = 100;
		rc.stop_at = 5;
		CHECK(trace_decode_chunk(TRACE_CHUNK_EVENTS, chunk, len, &v, &res) ==
		      TRACE_ABORTED);
		CHECK_EQ_U(res.events, 5);
		CHECK(strstr(res.msg, "stopped by the reader at event 5") != NULL);
		CHECK_EQ_U(rc.c.nev, 5);
		coll_free(&rc.c);
	}
	coll_free(&ref);
}

/* Format 1.1: control events pass through with kind and label, leave the
 * shadow stack alone (implicit exits still resolve), and carry metric
 * deltas like any event; LABEL records round-trip. */
static void test_control_events(void)
{
	uint8_t buf[256];
	struct trace_events_enc enc;
	struct trace_recbuf rb;
	uint64_t m = 100;
	struct coll c = {0};
	struct trace_result res;

	trace_events_init(&enc, buf, sizeof(buf), 3, 1);
	trace_events_add(&enc, JCAL_TR_ENTRY, JCAL_MT_INTERP_STATIC, 5, &m);
	m = 110;
	trace_events_add_control(&enc, JCAL_CTL_STOP, 0, &m);
	m = 500;
	trace_events_add_control(&enc, JCAL_CTL_START, 0, &m);
	m = 520;
	trace_events_add_control(&enc, JCAL_CTL_MARK, 7, &m);
	m = 530;
	trace_events_add(&enc, JCAL_TR_EXIT, JCAL_MT_INTERP_STATIC, 5, &m); /* implicit */
	size_t n = trace_events_finish(&enc);
	CHECK(n > TRACE_CHUNK_HEADER_LEN);
	/* the exit stays implicit: tag byte with no id */
	CHECK_EQ_U(buf[n - 2], JCAL_TR_EXIT | (JCAL_MT_INTERP_STATIC << TRACE_TAG_TYPE_SHIFT));

	struct trace_visitor v = coll_visitor(&c);
	CHECK(trace_decode_chunk(TRACE_CHUNK_EVENTS, buf + TRACE_CHUNK_HEADER_LEN,
				 n - TRACE_CHUNK_HEADER_LEN, &v, &res) == TRACE_OK);
	CHECK_EQ_U(c.nev, 5);
	if (c.nev == 5) {
		CHECK_EQ_U(c.ev[1].transition, JCAL_TR_CONTROL);
		CHECK_EQ_U(c.ev[1].type, JCAL_CTL_STOP);
		CHECK_EQ_U(c.ev[1].method, 0);
		CHECK_EQ_U(c.ev[1].metric[0], 110);
		CHECK_EQ_U(c.ev[2].type, JCAL_CTL_START);
		CHECK_EQ_U(c.ev[2].metric[0], 500);
		CHECK_EQ_U(c.ev[3].type, JCAL_CTL_MARK);
		CHECK_EQ_U(c.ev[3].method, 7);
		CHECK_EQ_U(c.ev[4].transition, JCAL_TR_EXIT);
		CHECK_EQ_U(c.ev[4].method, 5);
		CHECK_EQ_U(c.ev[4].metric[0], 530);
	}
	coll_free(&c);

	/* A control kind beyond MARK is corrupt. */
	static const uint8_t bad[] = {0x03, 0x01, 0x03 | (3 << 2), 0x00};
	v = coll_visitor(&c);
	CHECK(trace_decode_chunk(TRACE_CHUNK_EVENTS, bad, sizeof(bad), &v, &res) == TRACE_CORRUPT);
	coll_free(&c);

	trace_recbuf_init(&rb);
	trace_rec_label(&rb, 7, "phase 2");
	n = trace_recbuf_finish(&rb);
	v = coll_visitor(&c);
	CHECK(trace_decode_chunk(TRACE_CHUNK_RECORDS, rb.buf + TRACE_CHUNK_HEADER_LEN,
				 n - TRACE_CHUNK_HEADER_LEN, &v, &res) == TRACE_OK);
	CHECK(c.log && strstr(c.log, "LABEL 7 phase 2") != NULL);
	coll_free(&c);
	trace_recbuf_free(&rb);
}

/* ---- events in bulk (trace_visitor.events) ---- */

struct evlog {
	size_t n, batches, max_batch, stop_at_batch;
	uint32_t method[8000];
	uint8_t tr[8000], type[8000];
	uint64_t metric[8000 * 2];
};

static int log_event(void *ctx, const struct trace_event *e)
{
	struct evlog *l = ctx;

	if (l->n < 8000) {
		l->method[l->n] = e->method;
		l->tr[l->n] = e->transition;
		l->type[l->n] = e->type;
		memcpy(&l->metric[l->n * 2], e->metric, 2 * sizeof(e->metric[0]));
	}
	l->n++;
	return 0;
}

static int log_events(void *ctx, const struct trace_event_batch *b)
{
	struct evlog *l = ctx;

	CHECK(b->n >= 1 && b->n <= TRACE_EVENT_BATCH);
	CHECK_EQ_U(b->nmetrics, 2);
	CHECK_EQ_U(b->thread, 7);
	if (b->n > l->max_batch)
		l->max_batch = b->n;
	for (size_t k = 0; k < b->n && l->n < 8000; k++, l->n++) {
		l->method[l->n] = b->method[k];
		l->tr[l->n] = b->transition[k];
		l->type[l->n] = b->type[k];
		memcpy(&l->metric[l->n * 2], &b->metric[k * 2], 2 * sizeof(b->metric[0]));
	}
	return ++l->batches == l->stop_at_batch;
}

/* Both ways of taking events give the same events; a bad event stops both
 * after the same prefix; a batch callback can stop the read. */
static void test_events_in_bulk(void)
{
	enum { NEV = 5000, CAP = 1 << 16 };
	uint8_t *buf = malloc(CAP);
	struct trace_events_enc *enc = malloc(sizeof(*enc));
	struct evlog *one = calloc(1, sizeof(*one)), *bulk = calloc(1, sizeof(*bulk));
	struct trace_result r1, r2;
	uint32_t stack[64];
	unsigned depth = 0;
	uint64_t m[2] = {100, 7};
	size_t len, bad_at = 0;

	trace_events_init(enc, buf, CAP, 7, 2);
	for (size_t i = 0; i < NEV; i++) {
		m[0] += 1 + rnd_below(500);
		m[1] += rnd_below(3);
		if (i == 3000)
			bad_at = enc->len; /* where event 3000's tag byte goes */
		if (depth < 3 || (depth < 40 && rnd_below(2))) {
			stack[depth] = rnd_below(300);
			trace_events_add(enc, JCAL_TR_ENTRY, rnd_below(JCAL_MT_COUNT),
					 stack[depth++], m);
		} else {
			depth--;
			trace_events_add(enc, rnd_below(8) ? JCAL_TR_EXIT : JCAL_TR_THROW,
					 JCAL_MT_INTERP, stack[depth], m);
		}
	}
	len = trace_events_finish(enc) - TRACE_CHUNK_HEADER_LEN;
	bad_at -= TRACE_CHUNK_HEADER_LEN;
	buf += TRACE_CHUNK_HEADER_LEN;
	struct trace_visitor v1 = {.ctx = one, .event = log_event};
	struct trace_visitor v2 = {.ctx = bulk, .event = log_event, .events = log_events};
	CHECK(trace_decode_chunk(TRACE_CHUNK_EVENTS, buf, len, &v1, &r1) == TRACE_OK);
	CHECK(trace_decode_chunk(TRACE_CHUNK_EVENTS, buf, len, &v2, &r2) == TRACE_OK);
	CHECK_EQ_U(one->n, NEV);
	CHECK_EQ_U(bulk->n, NEV);
	CHECK_EQ_U(r2.events, NEV);
	CHECK_EQ_U(bulk->max_batch, TRACE_EVENT_BATCH);
	CHECK_EQ_U(bulk->batches, (NEV + TRACE_EVENT_BATCH - 1) / TRACE_EVENT_BATCH);
	CHECK(memcmp(one->method, bulk->method, sizeof(one->method)) == 0);
	CHECK(memcmp(one->tr, bulk->tr, sizeof(one->tr)) == 0);
	CHECK(memcmp(one->type, bulk->type, sizeof(one->type)) == 0);
	CHECK(memcmp(one->metric, bulk->metric, sizeof(one->metric)) == 0);

	/* a reserved tag bit on event 3000: the 3000 before it are read */
	buf[bad_at] |= TRACE_TAG_RESERVED;
	memset(one, 0, sizeof(*one));
	memset(bulk, 0, sizeof(*bulk));
	CHECK(trace_decode_chunk(TRACE_CHUNK_EVENTS, buf, len, &v1, &r1) == TRACE_CORRUPT);
	CHECK(trace_decode_chunk(TRACE_CHUNK_EVENTS, buf, len, &v2, &r2) == TRACE_CORRUPT);
	CHECK_EQ_U(one->n, 3000);
	CHECK_EQ_U(bulk->n, 3000);
	CHECK_EQ_U(r2.events, 3000);
	CHECK_STR(r1.msg, r2.msg);
	CHECK(memcmp(one->metric, bulk->metric, sizeof(one->metric)) == 0);
	buf[bad_at] &= (uint8_t)~TRACE_TAG_RESERVED;

	/* the second batch stops the read: the events it held count */
	memset(bulk, 0, sizeof(*bulk));
	bulk->stop_at_batch = 2;
	CHECK(trace_decode_chunk(TRACE_CHUNK_EVENTS, buf, len, &v2, &r2) == TRACE_ABORTED);
	CHECK_EQ_U(r2.events, 2 * TRACE_EVENT_BATCH);
	free(buf - TRACE_CHUNK_HEADER_LEN);
	free(enc);
	free(one);
	free(bulk);
}

int main(void)
{
	RUN(test_varint);
	RUN(test_events_in_bulk);
	RUN(test_records_roundtrip);
	RUN(test_events_shadow_rule);
	RUN(test_events_roundtrip);
	RUN(test_cut_files);
	RUN(test_corrupt_files);
	RUN(test_flipped_chunk_kind);
	RUN(test_end_counts);
	RUN(test_stop_field);
	RUN(test_stop_at_size_limit);
	RUN(test_format_1x);
	RUN(test_doc_example);
	RUN(test_empty_and_bad_headers);
	RUN(test_zero_tail);
	RUN(test_unknown_kinds);
	RUN(test_bad_payloads);
	RUN(test_callback_refuses);
	RUN(test_control_events);
	RUN(test_events_raw_takes_part);
	RUN(test_size_and_speed);
	return test_summary("trace-codec");
}
