/*
 * fuzz-targets.h - the entry points the libFuzzer harnesses drive, shared
 * with native-tests/test-fuzz-regressions.c so that `make test` replays
 * every kept crash input through exactly the same code without clang.
 *
 * Each target takes one input, runs it through the parsers and checks
 * properties that must hold for any input (NUL-terminated one-line
 * messages, counts that add up, a parsed table that writes and parses
 * back to the same text). It returns 0, or a line number (> 0) of the
 * property that failed; a crash or sanitizer report is a failure too.
 */
#ifndef JCAL_FUZZ_TARGETS_H
#define JCAL_FUZZ_TARGETS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/calib_table.h"
#include "postproc/flat.h"
#include "postproc/model.h"
#include "postproc/report.h"
#include "common/satsum.h"
#include "agent/base/options.h"
#include "common/trace_encoder.h"
#include "common/trace_reader.h"

/* The class rewriter's target (mode=bci) has a file of its own. */
#include "native-tests/fuzz/fuzz-bci-target.h"

/* The most one input may make the code ask for at once: `make fuzz` hands
 * it to libFuzzer (-malloc_limit_mb), which reports more as out of memory,
 * and test-fuzz-regressions checks it on every kept input. A count read
 * from a file must never size an allocation past what the file holds. */
#define FUZZ_MALLOC_LIMIT_MB 128

#define FUZZ_REQUIRE(cond)                                                                         \
	do {                                                                                       \
		if (!(cond))                                                                       \
			return __LINE__;                                                           \
	} while (0)

/* A message is NUL-terminated inside its buffer and holds no newline. */
static inline int fuzz_one_line(const char *msg, size_t cap)
{
	size_t n = strnlen(msg, cap);

	return n < cap && !memchr(msg, '\n', n);
}

/* ---- trace reader ---- */

struct fuzz_trace_ctx {
	uint64_t events;
	size_t bytes; /* string bytes seen: reads every string to its NUL */
	uint64_t controls, thread_starts;
	/* at the first END record: its counts and what came before it */
	int ends;
	struct trace_end end;
	uint64_t methods_before_end, starts_before_end;
};

static int fuzz_tr_meta(void *ctx, const char *k, const char *v)
{
	((struct fuzz_trace_ctx *)ctx)->bytes += strlen(k) + strlen(v);
	return 0;
}

static int fuzz_tr_method(void *ctx, const struct trace_method *m)
{
	((struct fuzz_trace_ctx *)ctx)->bytes +=
	    strlen(m->class_sig) + strlen(m->name) + strlen(m->sig);
	return 0;
}

static int fuzz_tr_thread(void *ctx, const struct trace_thread *t)
{
	if (t->name)
		((struct fuzz_trace_ctx *)ctx)->bytes += strlen(t->name);
	return t->nmetrics > JCAL_MAX_METRICS;
}

static int fuzz_tr_start(void *ctx, const struct trace_thread *t)
{
	((struct fuzz_trace_ctx *)ctx)->thread_starts++;
	return fuzz_tr_thread(ctx, t);
}

static int fuzz_tr_end(void *ctx, const struct trace_end *e)
{
	struct fuzz_trace_ctx *c = ctx;

	if (!c->ends++) {
		c->end = *e;
		c->methods_before_end = c->events - c->controls;
		c->starts_before_end = c->thread_starts;
	}
	return 0;
}

static int fuzz_tr_event(void *ctx, const struct trace_event *e)
{
	((struct fuzz_trace_ctx *)ctx)->events++;
	if (e->transition == JCAL_TR_CONTROL) {
		((struct fuzz_trace_ctx *)ctx)->controls++;
		return e->type >= JCAL_CTL_COUNT;
	}
	return e->transition >= JCAL_TR_COUNT || e->type >= JCAL_MT_COUNT || e->nmetrics < 1 ||
	       e->nmetrics > JCAL_MAX_METRICS;
}

static int fuzz_tr_label(void *ctx, uint32_t id, const char *text)
{
	(void)id;
	((struct fuzz_trace_ctx *)ctx)->bytes += strlen(text);
	return 0;
}

/* A MONITOR record: its class string and both metric lists read. */
static int fuzz_tr_monitor(void *ctx, const struct trace_monitor *m)
{
	struct fuzz_trace_ctx *c = ctx;

	c->bytes += strlen(m->class_sig);
	for (unsigned i = 0; i < m->nmetrics; i++)
		c->bytes += (size_t)((m->end[i] - m->start[i]) & 1);
	return 0;
}

static void fuzz_put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Rewrites the checks of a file image (2.x: the file header's CRC and stop
 * field complement; every complete chunk's CRC, as its version computes it)
 * so that the fuzzer reaches the payload decoders through the framing. */
static inline void fuzz_fix_crcs(uint8_t *p, size_t n)
{
	int v1 = n >= 10 && p[8] == 1 && p[9] == 0;
	size_t off = v1 ? TRACE_FILE_HEADER_LEN_V1 : TRACE_FILE_HEADER_LEN;

	if (!v1 && n >= TRACE_FILE_HEADER_LEN) {
		fuzz_put_u32(p + TRACE_HEADER_CRC_OFFSET,
			     (uint32_t)crc32(0L, p, TRACE_HEADER_CRC_OFFSET));
		p[TRACE_STOP_OFFSET + 2] = (uint8_t)~p[TRACE_STOP_OFFSET];
		p[TRACE_STOP_OFFSET + 3] = (uint8_t)~p[TRACE_STOP_OFFSET + 1];
	}
	while (off + TRACE_CHUNK_HEADER_LEN <= n) {
		uint8_t *h = p + off;
		uint32_t len = (uint32_t)h[8] | (uint32_t)h[9] << 8 | (uint32_t)h[10] << 16 |
			       (uint32_t)h[11] << 24;

		if (len > n - off - TRACE_CHUNK_HEADER_LEN)
			return;
		fuzz_put_u32(h + TRACE_CHUNK_CRC_OFFSET,
			     v1 ? (uint32_t)crc32(0L, h + TRACE_CHUNK_HEADER_LEN, len)
				: trace_chunk_crc(h, h + TRACE_CHUNK_HEADER_LEN, len));
		off += TRACE_CHUNK_HEADER_LEN + len;
	}
}

/* Reads a file image through a memory FILE with the counting visitor. */
static inline enum trace_status fuzz_read_image(const uint8_t *img, size_t n,
						struct fuzz_trace_ctx *c, struct trace_result *res)
{
	struct trace_visitor v = {
	    .ctx = c,
	    .meta = fuzz_tr_meta,
	    .method = fuzz_tr_method,
	    .thread_start = fuzz_tr_start,
	    .thread_name = fuzz_tr_thread,
	    .thread_end = fuzz_tr_thread,
	    .event = fuzz_tr_event,
	    .end = fuzz_tr_end,
	    .label = fuzz_tr_label,
	};
	FILE *f = fmemopen(n ? (void *)img : (void *)"", n ? n : 1, "rb");
	enum trace_status st;

	memset(c, 0, sizeof(*c));
	if (!f)
		return TRACE_IOERR;
	if (!n)
		fgetc(f);
	st = trace_read_stream(f, "fuzz.bin", &v, res);
	fclose(f);
	return st;
}

/*
 * The integrity properties of format 2.x: a file that reads as a whole
 * trace has an END count of method events that matches what it holds (a
 * count of threads above its THREAD_START records is noted exactly, in
 * trace_result.end_threads_missing), and any one byte of it
 * changed (which byte and bit picked from the input) is detected: the
 * changed file never reads as a whole trace.
 */
static inline int fuzz_trace_integrity(const uint8_t *img, size_t n)
{
	struct fuzz_trace_ctx c;
	struct trace_result res;
	enum trace_status st = fuzz_read_image(img, n, &c, &res);

	if (st != TRACE_OK || res.version_major < 2)
		return 0;
	FUZZ_REQUIRE(res.events == c.events);
	FUZZ_REQUIRE(res.has_end == (c.ends > 0));
	if (res.has_end) {
		FUZZ_REQUIRE(c.end.events == c.methods_before_end);
		FUZZ_REQUIRE(c.end.threads <= c.starts_before_end
				 ? res.end_threads_missing == 0
				 : res.end_threads_missing == c.end.threads - c.starts_before_end);
	}
	if (n == 0)
		return 0;
	uint8_t *d = malloc(n);
	if (!d)
		return 0;
	uint32_t h = (uint32_t)crc32(0L, img, (uInt)n);
	size_t at = h % n;
	memcpy(d, img, n);
	d[at] ^= (uint8_t)(1u << ((h >> 24) & 7));
	st = fuzz_read_image(d, n, &c, &res);
	free(d);
	FUZZ_REQUIRE(st != TRACE_OK);
	return 0;
}

static const char *fuzz_name(void *ctx, uint32_t method)
{
	return model_method_name(ctx, method);
}

/* No byte of s that a terminal takes as a control (text reports and
 * folded stacks escape names from the file): C0 but LF and TAB, DEL. */
static inline int fuzz_terminal_safe(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\n' && s[i] != '\t') || s[i] == 0x7f)
			return 0;
	return 1;
}

/*
 * The reports of a loaded model: sums that never fall below one of their
 * terms (they saturate: a crafted snapshot's calls and figures may add up
 * past 2^64 - 1), and text output with no control character from a name.
 */
static inline int fuzz_model_reports(const struct model *m)
{
	const struct calltree **trees = malloc((m->nthreads ? m->nthreads : 1) * sizeof(*trees));
	struct flat_row *rows = NULL;
	size_t nrows = 0, len = 0;
	uint64_t total = 0;
	char *text = NULL, err[REPORT_ERR_LEN];
	int bad = 0;

	if (!trees)
		return 0;
	for (size_t i = 0; i < m->nthreads; i++) {
		trees[i] = &m->thread_list[i]->tree;
		total = satsum_add(total, calltree_fig(trees[i], CALLTREE_ROOT, 0)->cum, 0);
	}
	if (flat_build(trees, m->nthreads, 0, FLAT_BY_NAME, fuzz_name, (void *)m, &rows, &nrows)) {
		free(trees);
		return 0;
	}
	for (size_t i = 0; i < m->nthreads && !bad; i++) {
		const struct calltree *t = trees[i];

		if (calltree_fig(t, CALLTREE_ROOT, 0)->cum > total)
			bad = __LINE__;
		for (uint32_t k = 1; k < t->nnodes && !bad; k++)
			for (size_t r = 0; r < nrows; r++)
				if (rows[r].method == t->nodes[k].method &&
				    (rows[r].calls < t->nodes[k].calls ||
				     rows[r].base < calltree_fig(t, k, 0)->base ||
				     calltree_fig(t, k, 0)->cum < calltree_fig(t, k, 0)->base))
					bad = __LINE__;
	}
	free(rows);
	free(trees);
	for (const char *const *k = (const char *const[]){"tree", "flat", "collapsed", NULL};
	     *k && !bad; k++) {
		struct report_opts o;
		FILE *f = open_memstream(&text, &len);

		if (!f)
			break;
		memset(&o, 0, sizeof(o));
		o.out = f;
		o.err = err;
		o.max_depth = 64; /* a deep crafted tree prints its paths in bounded time */
		report_kind_find(*k)->run(m, &o);
		fclose(f);
		if (!fuzz_terminal_safe(text, len))
			bad = __LINE__;
		free(text);
		text = NULL;
	}
	return bad;
}

/* A whole file image through a memory FILE into jcal-post's model. */
static inline int fuzz_trace_file(uint8_t *img, size_t n)
{
	struct trace_result res;
	struct model m;
	struct trace_visitor v;
	enum trace_status st;
	FILE *f = fmemopen(n ? img : (void *)"", n ? n : 1, "rb");
	int bad = 0;

	if (!f)
		return 0;
	if (!n)
		fgetc(f); /* an empty stream: fmemopen needs a size > 0 */
	model_init(&m, NULL);
	model_visitor(&m, &v);
	st = trace_read_stream(f, "fuzz.bin", &v, &res);
	fclose(f);
	if (st != TRACE_OK && !fuzz_one_line(res.msg, sizeof(res.msg)))
		bad = __LINE__;
	if (st != TRACE_OK && !res.msg[0])
		bad = __LINE__;
	if (res.bytes_read > n || res.file_bytes > n)
		bad = __LINE__;
	if (!bad && (st == TRACE_OK || st == TRACE_TRUNCATED) && model_finish(&m) == 0 &&
	    model_names(&m, 1) == 0) {
		for (size_t i = 0; i < m.nthreads; i++) {
			const struct model_thread *t = m.thread_list[i];
			if (!t->has_tree)
				continue;
			for (uint32_t k = 0; k < t->tree.nnodes; k++)
				if (!model_method_name(&m, t->tree.nodes[k].method) &&
				    t->tree.nodes[k].method != CALLTREE_ROOT_METHOD)
					bad = __LINE__;
		}
		if (!bad)
			bad = fuzz_model_reports(&m);
	}
	model_free(&m);
	return bad;
}

/*
 * Input: byte 0 picks the path. 0: one chunk payload (byte 1 = kind) through
 * trace_decode_chunk; 1: the rest is a file image, read as is; 2: the same
 * with its checks (CRCs, stop field) recomputed first. A file image is read
 * into jcal-post's model, then checked by fuzz_trace_integrity.
 */
static inline int fuzz_trace_reader(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned mode = data[0] % 3;
	data++;
	size--;
	if (mode == 0) {
		struct fuzz_trace_ctx c = {0};
		struct trace_visitor v = {
		    .ctx = &c,
		    .meta = fuzz_tr_meta,
		    .method = fuzz_tr_method,
		    .thread_start = fuzz_tr_thread,
		    .thread_name = fuzz_tr_thread,
		    .thread_end = fuzz_tr_thread,
		    .event = fuzz_tr_event,
		    .label = fuzz_tr_label,
		    .monitor = fuzz_tr_monitor,
		};
		struct trace_result res;
		unsigned kind = size ? data[0] % 4 : 0;
		uint8_t *copy = malloc(size ? size : 1);
		if (!copy)
			return 0;
		/* An exact-size copy: ASan sees any read past the payload. */
		memcpy(copy, data, size);
		enum trace_status st =
		    trace_decode_chunk(kind, copy + (size ? 1 : 0), size ? size - 1 : 0, &v, &res);
		free(copy);
		FUZZ_REQUIRE(st == TRACE_OK || fuzz_one_line(res.msg, sizeof(res.msg)));
		FUZZ_REQUIRE(st != TRACE_ABORTED);
		FUZZ_REQUIRE(res.events == c.events);
		return 0;
	}
	uint8_t *img = malloc(size ? size : 1);
	if (!img)
		return 0;
	memcpy(img, data, size);
	if (mode == 2)
		fuzz_fix_crcs(img, size);
	int r = fuzz_trace_file(img, size);
	if (!r)
		r = fuzz_trace_integrity(img, size);
	free(img);
	return r;
}

/* ---- calibration tables ---- */

/* Parses text into t; -1 with err on a parse error. */
static inline int fuzz_calib_parse(struct calib_table *t, char *text, size_t n, char *err,
				   size_t errlen)
{
	FILE *f = fmemopen(n ? text : (void *)"", n ? n : 1, "r");
	int r;

	if (!f)
		return -2;
	if (!n)
		fgetc(f);
	r = calib_table_parse(t, f, "fuzz.txt", err, errlen);
	fclose(f);
	return r;
}

/* Table text -> malloc'd string (NULL on failure). */
static inline char *fuzz_calib_text(const struct calib_table *t, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	if (calib_table_write(t, f) != 0) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* Every number of every entry within what a table holds (calib_table.h,
 * docs/calibration-format.md): 0 when so, else the line of the failure. */
static inline int fuzz_calib_ranges(const struct calib_table *t)
{
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		const struct calib_entry *e = &t->e[i];

		if (!e->present)
			continue;
		FUZZ_REQUIRE(e->min <= CALIB_NUM_MAX && e->env <= CALIB_NUM_MAX);
		FUZZ_REQUIRE(e->samples >= 1 && e->samples <= CALIB_NUM_MAX);
		FUZZ_REQUIRE(e->comp == (e->min > e->env ? e->min - e->env : 0));
		if (!e->has_stats)
			continue;
		FUZZ_REQUIRE(isfinite(e->mean) && e->mean >= 0 && e->mean <= (double)CALIB_NUM_MAX);
		FUZZ_REQUIRE(e->median <= CALIB_NUM_MAX && e->p10 <= CALIB_NUM_MAX);
		for (unsigned j = 0; e->has_q && j < CALIB_NQ; j++)
			FUZZ_REQUIRE(e->q[j] <= CALIB_NUM_MAX && (!j || e->q[j] >= e->q[j - 1]));
	}
	return 0;
}

/*
 * A table that parses also has every number in range, checks, looks up
 * every key, writes, parses back and writes the same text again, merges
 * with itself (the merged table in range, and parsing back) and diffs.
 */
static inline int fuzz_calib_table(const uint8_t *data, size_t size)
{
	struct calib_table t, t2, t3;
	char err[256], report[1024];
	char *text = malloc(size ? size : 1), *w1 = NULL, *w2 = NULL;
	size_t l1 = 0, l2 = 0;
	int bad = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	if (calib_table_init(&t) || calib_table_init(&t2) || calib_table_init(&t3))
		abort();
	err[0] = '\0';
	int r = fuzz_calib_parse(&t, text, size, err, sizeof(err));
	if (r == -1 && (!err[0] || !fuzz_one_line(err, sizeof(err))))
		bad = __LINE__;
	if (r == 0 && (bad = fuzz_calib_ranges(&t)) != 0)
		r = 1;
	if (r == 0) {
		calib_table_check(&t, report, sizeof(report));
		if (strnlen(report, sizeof(report)) >= sizeof(report))
			bad = __LINE__;
		for (unsigned e = CALIB_EST_MIN; e <= CALIB_EST_COND; e++) {
			calib_table_use_estimator(&t, (enum calib_estimator)e);
			for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
				static const uint64_t deltas[] = {0, 1, 100, 1000, UINT64_MAX / 2};
				struct seqkey k;
				uint64_t comp;
				seqkey_from_index(i, &k);
				calib_table_lookup(&t, &k, &comp);
				if (e != CALIB_EST_COND)
					continue;
				/* the cond cache agrees with the reference */
				for (unsigned d = 0; d < sizeof(deltas) / sizeof(deltas[0]); d++)
					if (calib_table_comp_for(&t, &k, deltas[d], &comp) !=
						CALIB_NO_TABLE &&
					    comp !=
						calib_entry_cond(&t.e[t.resolved[i]], deltas[d]))
						bad = __LINE__;
			}
		}
		calib_table_use_estimator(&t, CALIB_EST_MIN);
		w1 = fuzz_calib_text(&t, &l1);
		if (!w1)
			bad = __LINE__;
		else if (fuzz_calib_parse(&t2, w1, l1, err, sizeof(err)) != 0)
			bad = __LINE__; /* what we write, we must read */
		else if (!(w2 = fuzz_calib_text(&t2, &l2)) || l1 != l2 || memcmp(w1, w2, l1))
			bad = __LINE__; /* and write back the same */
		if (!bad && calib_table_copy(&t3, &t) == 0) {
			if (calib_table_merge(&t3, &t2, 0, err, sizeof(err)) != 0)
				bad = __LINE__; /* same fingerprint: merge must work */
			else if (fuzz_calib_ranges(&t3))
				bad = __LINE__; /* merged values stay in range */
			else {
				/* what merge makes, the parser reads */
				size_t l3 = 0;
				char *w3 = fuzz_calib_text(&t3, &l3);
				struct calib_table t4;

				if (!w3 || calib_table_init(&t4))
					abort();
				if (fuzz_calib_parse(&t4, w3, l3, err, sizeof(err)) != 0)
					bad = __LINE__;
				calib_table_free(&t4);
				free(w3);
			}
			FILE *null = fopen("/dev/null", "w");
			if (null) {
				if (calib_table_diff(&t, &t2, null) != 0)
					bad = __LINE__;
				calib_table_diff(&t, &t3, null);
				fclose(null);
			}
		}
	}
	free(w1);
	free(w2);
	calib_table_free(&t);
	calib_table_free(&t2);
	calib_table_free(&t3);
	free(text);
	return bad;
}

/* ---- agent options ---- */

/*
 * Input: the option string (cut at the first NUL). A string that parses has
 * its out= pattern expanded; the raw input is expanded as a pattern too.
 */
static inline int fuzz_agent_options(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct jcal_options o;
	char err[256], out[JCAL_OPT_PATH_MAX];
	int bad = 0;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	/* The messages quote the offending token as it is (agent issue: a
	 * newline in the option string splits the error line), so the
	 * one-line property only holds for inputs without line breaks. */
	int oneline = !strpbrk(s, "\n\r");
	memset(&o, 0, sizeof(o));
	err[0] = '\0';
	if (jcal_options_parse(s, &o, err, sizeof(err)) != 0) {
		if (!err[0] || (oneline && !fuzz_one_line(err, sizeof(err))))
			bad = __LINE__;
	} else {
		if (strnlen(o.out, sizeof(o.out)) >= sizeof(o.out) || o.nmetrics > JCAL_MAX_METRICS)
			bad = __LINE__;
		for (unsigned i = 0; i < o.nmetrics && !bad; i++)
			if (strnlen(o.metric[i], sizeof(o.metric[i])) >= sizeof(o.metric[i]))
				bad = __LINE__;
		if (!bad &&
		    jcal_options_expand_out(o.out, 4242, 1700000000, out, sizeof(out), err,
					    sizeof(err)) == 0 &&
		    strnlen(out, sizeof(out)) >= sizeof(out))
			bad = __LINE__;
	}
	err[0] = '\0';
	for (size_t cap = 1; cap <= sizeof(out) && !bad; cap *= 4)
		if (jcal_options_expand_out(s, 1, 0, out, cap, err, sizeof(err)) == 0) {
			if (strnlen(out, cap) >= cap)
				bad = __LINE__;
		} else if (!err[0] || (oneline && !fuzz_one_line(err, sizeof(err)))) {
			bad = __LINE__;
		}
	free(s);
	return bad;
}

#endif
