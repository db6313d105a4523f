/*
 * test-post-limits.c - counts read from a file are checked against what the
 * file can hold before they size an allocation or a loop
 * (docs/jcal-post.md, "Limits"): a tree snapshot whose TREE_THREAD record
 * claims four billion nodes, a TREE_NODES record that claims more nodes
 * than its bytes hold, a chunk header longer than the file; threads whose
 * events carry fewer metrics than the trace names. Each gives one
 * clear error (or a cut-off tail) and never a large allocation: the test
 * wraps malloc, calloc and realloc (alloc_limit.h) and asserts the largest
 * request, read from a file and from a stream whose size is unknown.
 */
#include <stdlib.h>
#include <unistd.h>

#include "native-tests/alloc_limit.h"
#include "postproc/model.h"
#include "postproc/report.h"
#include "native-tests/test.h"
#include "common/trace_encoder.h"
#include "native-tests/tracegen.h"

/* The most any of these inputs may make jcal-post ask for at once. */
#define SMALL_ALLOC (1u << 20)

static char path[64];

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* An image being built: a snapshot's file header, then chunks. */
struct image {
	uint8_t b[8192];
	size_t n;
};

static void image_start(struct image *im, int snapshot)
{
	if (snapshot)
		trace_snapshot_header(im->b);
	else
		trace_header_encode(im->b);
	im->n = TRACE_FILE_HEADER_LEN;
}

/* A chunk of kind around payload, its CRC right. */
static void image_chunk(struct image *im, unsigned kind, const uint8_t *p, size_t len)
{
	uint8_t *h = im->b + im->n;

	memset(h, 0, TRACE_CHUNK_HEADER_LEN);
	put_u32(h, TRACE_CHUNK_MAGIC);
	h[4] = (uint8_t)kind;
	put_u32(h + 8, (uint32_t)len);
	memcpy(h + TRACE_CHUNK_HEADER_LEN, p, len);
	put_u32(h + TRACE_CHUNK_CRC_OFFSET, trace_chunk_crc(h, p, len));
	im->n += TRACE_CHUNK_HEADER_LEN + len;
}

/* The records of rb as one chunk. */
static void image_records(struct image *im, struct trace_recbuf *rb)
{
	size_t n = trace_recbuf_finish(rb);

	memcpy(im->b + im->n, rb->buf, n);
	im->n += n;
	trace_recbuf_clear(rb);
}

/* Reads im through jcal-post's model, from a file (file) or a memory
 * stream whose size the reader cannot know; returns the reader's status,
 * with model_finish's error in err (or "" when it finished). */
static enum trace_status read_image(const struct image *im, int file, struct trace_result *res,
				    char *err, size_t len)
{
	struct trace_visitor v;
	struct model m;
	enum trace_status st;
	FILE *f;

	if (file) {
		f = fopen(path, "wb");
		CHECK(f && fwrite(im->b, 1, im->n, f) == im->n);
		if (f)
			fclose(f);
		f = fopen(path, "rb");
	} else {
		f = fmemopen((void *)im->b, im->n, "rb");
	}
	CHECK(f != NULL);
	if (!f)
		return TRACE_IOERR;
	model_init(&m, NULL);
	model_visitor(&m, &v);
	alloc_largest_reset();
	st = trace_read_stream(f, "t.bin", &v, res);
	fclose(f);
	err[0] = '\0';
	if (st == TRACE_OK && model_finish(&m))
		snprintf(err, len, "%s", m.err);
	else if (st == TRACE_ABORTED)
		snprintf(err, len, "%s", m.err);
	model_free(&m);
	return st;
}

/* A thread of a snapshot claiming nodes nodes, with its first two. */
static void snapshot_claiming(struct image *im, uint32_t nodes)
{
	struct trace_tree_thread th;
	struct trace_tree_node nd[2];
	struct trace_recbuf rb;

	memset(&th, 0, sizeof(th));
	th.serial = 1;
	th.nmetrics = 1;
	th.nodes = nodes;
	memset(nd, 0, sizeof(nd));
	for (unsigned i = 0; i < 2; i++) {
		nd[i].serial = 1;
		nd[i].nmetrics = 1;
		nd[i].index = i;
		nd[i].method = i ? 7 : CALLTREE_ROOT_METHOD;
		nd[i].calls = 1;
		nd[i].raw[0] = nd[i].comp[0] = 10;
	}
	image_start(im, 1);
	trace_recbuf_init(&rb);
	trace_rec_meta(&rb, "metrics", "ticks");
	trace_rec_tree_thread(&rb, &th);
	trace_rec_tree_nodes(&rb, nd, 2);
	image_records(im, &rb);
	trace_rec_end(&rb, 0, 0, 0);
	image_records(im, &rb);
	trace_recbuf_free(&rb);
}

/* 4 000 000 000 nodes in a file of 150 bytes: jcal-post allocated 16 GB
 * for them before it read one. */
static void test_snapshot_claims_too_many_nodes(void)
{
	static struct image im;
	struct trace_result res;
	char err[256];

	snapshot_claiming(&im, 4000000000u);
	/* a file: its size says at once that it cannot hold them */
	CHECK_EQ_I(read_image(&im, 1, &res, err, sizeof(err)), TRACE_CORRUPT);
	CHECK(strstr(res.msg, "TREE_THREAD record of thread #1: 4000000000 nodes") != NULL);
	CHECK(strstr(res.msg, "the file holds") != NULL);
	printf("  %s\n", res.msg);
	CHECK(alloc_largest_reset() <= SMALL_ALLOC);
	/* a stream: read node by node, then refused when the nodes end */
	CHECK_EQ_I(read_image(&im, 0, &res, err, sizeof(err)), TRACE_OK);
	CHECK_STR(err, "thread #1: the snapshot has 2 of its 4000000000 tree nodes");
	CHECK(alloc_largest_reset() <= SMALL_ALLOC);
	/* the count it holds reads as before */
	snapshot_claiming(&im, 2);
	CHECK_EQ_I(read_image(&im, 1, &res, err, sizeof(err)), TRACE_OK);
	CHECK_STR(err, "");
	CHECK_EQ_I(read_image(&im, 0, &res, err, sizeof(err)), TRACE_OK);
	CHECK_STR(err, "");
}

/* A TREE_NODES record whose count its bytes cannot hold. */
static void test_nodes_record_claims_too_many(void)
{
	static struct image im;
	struct trace_result res;
	struct trace_tree_thread th;
	struct trace_recbuf rb;
	uint8_t p[64], *q = p;
	char err[256];

	memset(&th, 0, sizeof(th));
	th.serial = 1;
	th.nmetrics = 2;
	th.nodes = 3;
	image_start(&im, 1);
	trace_recbuf_init(&rb);
	trace_rec_tree_thread(&rb, &th);
	image_records(&im, &rb);
	trace_recbuf_free(&rb);
	/* serial 1, 2 metrics, first 0, count 2^32 - 1, then one root node */
	*q++ = TRACE_REC_TREE_NODES;
	uint8_t *len = q++;
	*q++ = 1;
	*q++ = 2;
	*q++ = 0;
	q += varint_put(q, UINT32_MAX);
	*q++ = 0; /* up */
	q += varint_put(q, CALLTREE_ROOT_METHOD);
	for (int i = 0; i < 5; i++) /* calls, raw and comp of two metrics */
		*q++ = 1;
	*len = (uint8_t)(q - len - 1);
	image_chunk(&im, TRACE_CHUNK_RECORDS, p, (size_t)(q - p));
	for (int file = 1; file >= 0; file--) {
		CHECK_EQ_I(read_image(&im, file, &res, err, sizeof(err)), TRACE_CORRUPT);
		CHECK(strstr(res.msg, "TREE_NODES record at payload byte 0: 4294967295 nodes") !=
		      NULL);
		CHECK(alloc_largest_reset() <= SMALL_ALLOC);
	}
	printf("  %s\n", res.msg);
}

/* A chunk header that claims the largest payload in a file of a few
 * bytes: a cut-off tail, read without room for what is not there. */
static void test_chunk_longer_than_file(void)
{
	static struct image im;
	struct trace_result res;
	char err[256];
	uint8_t *h;

	image_start(&im, 0);
	h = im.b + im.n;
	memset(h, 0, TRACE_CHUNK_HEADER_LEN);
	put_u32(h, TRACE_CHUNK_MAGIC);
	h[4] = TRACE_CHUNK_EVENTS;
	put_u32(h + 8, TRACE_CHUNK_MAX_PAYLOAD);
	im.n += TRACE_CHUNK_HEADER_LEN;
	memset(im.b + im.n, 0x55, 100);
	im.n += 100;
	for (int file = 1; file >= 0; file--) {
		CHECK_EQ_I(read_image(&im, file, &res, err, sizeof(err)), TRACE_TRUNCATED);
		CHECK(strstr(res.msg,
			     "cut off at byte 140: chunk of 67108880 bytes has only 116") != NULL);
		CHECK(alloc_largest_reset() <= SMALL_ALLOC);
	}
	printf("  %s\n", res.msg);
}

/* Threads whose events carry fewer metrics than another thread's, or than
 * the meta names: every tree gets every metric, the missing ones 0, so
 * that no report reads a figure past a tree's own (another node's, or past
 * the end of the array: thread 1 has as many nodes as room for them). */
static void test_metric_counts_differ(void)
{
	static struct tracegen tg;
	struct trace_result res;
	struct model m;
	uint64_t v[3] = {0, 0, 0};
	char *s = NULL;
	size_t len = 0;
	FILE *f;

	CHECK_EQ_I(tg_open(&tg, path), 0);
	trace_rec_meta(&tg.rb, "metrics", "a+b+c+d");
	for (uint32_t k = 1; k <= 15; k++)
		trace_rec_method(&tg.rb, k, JCAL_ACC_STATIC, "LC;", "m", "()V");
	tg_flush(&tg);
	/* thread 1: one metric, 16 nodes (root and 15 children) */
	tg_events_begin(&tg, 1, 1);
	for (uint32_t k = 1; k <= 15; k++) {
		v[0] += 2;
		tg_event(&tg, JCAL_TR_ENTRY, JCAL_MT_INTERP_STATIC, k, v);
		v[0] += 3;
		tg_event(&tg, JCAL_TR_EXIT, JCAL_MT_INTERP_STATIC, k, v);
	}
	tg_events_end(&tg);
	/* thread 2: three */
	tg_events_begin(&tg, 2, 3);
	for (unsigned i = 0; i < 3; i++)
		v[i] = 100;
	tg_event(&tg, JCAL_TR_ENTRY, JCAL_MT_INTERP_STATIC, 1, v);
	for (unsigned i = 0; i < 3; i++)
		v[i] += 7 * (i + 1);
	tg_event(&tg, JCAL_TR_EXIT, JCAL_MT_INTERP_STATIC, 1, v);
	tg_events_end(&tg);
	trace_rec_end(&tg.rb, 32, 0, 0);
	CHECK_EQ_I(tg_close(&tg), 0);
	model_init(&m, NULL);
	CHECK_EQ_I(model_load(&m, path, &res), TRACE_OK);
	CHECK_EQ_I(model_finish(&m), 0);
	CHECK_EQ_I(model_names(&m, 0), 0);
	CHECK_EQ_U(m.nmetrics, 4);
	CHECK_EQ_U(m.nthreads, 2);
	for (size_t i = 0; i < m.nthreads; i++) {
		const struct calltree *t = &m.thread_list[i]->tree;

		CHECK_EQ_U(t->nmetrics, 4);
		CHECK_EQ_U(calltree_fig(t, CALLTREE_ROOT, 0)->cum, i ? 7 : 73);
		CHECK_EQ_U(calltree_fig(t, CALLTREE_ROOT, 1)->cum, i ? 14 : 0);
		CHECK_EQ_U(calltree_fig(t, CALLTREE_ROOT, 3)->cum, 0);
		for (uint32_t n = 0; n < t->nnodes; n++)
			CHECK_EQ_U(calltree_fig(t, n, 3)->raw_base, 0);
	}
	/* every metric of every thread, as pprof's samples take them */
	f = open_memstream(&s, &len);
	CHECK(f != NULL);
	if (f) {
		struct report_opts o;
		static char err[REPORT_ERR_LEN];

		memset(&o, 0, sizeof(o));
		o.out = f;
		o.err = err;
		o.metric = 2;
		CHECK_EQ_I(export_pprof(&m, &o), 0);
		CHECK_EQ_I(report_flat(&m, &o), 0);
		fclose(f);
	}
	/* after pprof's gzip data, the flat report */
	CHECK(s && memmem(s, len, "metric c  2 threads  total 21\n", 30) != NULL);
	free(s);
	model_free(&m);
}

int main(void)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/jcal-post-limits.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	RUN(test_snapshot_claims_too_many_nodes);
	RUN(test_nodes_record_claims_too_many);
	RUN(test_chunk_longer_than_file);
	RUN(test_metric_counts_differ);
	unlink(path);
	return test_summary("post-limits");
}
