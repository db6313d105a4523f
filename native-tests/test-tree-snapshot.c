/*
 * test-tree-snapshot.c - tree snapshots (common/tree_snapshot.c, the
 * reader's TREE records, postproc/model.c): a tree written as a snapshot
 * and read back by jcal-post's model equals the tree jcal-post builds from
 * a trace of the same events, node by node, raw and compensated; several
 * chunks; --raw; a tree without histograms writes none; bad records
 * refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/calltree.h"
#include "postproc/model.h"
#include "native-tests/test.h"
#include "native-tests/tracegen.h"
#include "common/lathist.h"
#include "common/tree_snapshot.h"

struct ev {
	unsigned trans, type;
	uint32_t method;
	uint64_t v;
};

/* compensation: a tenth less per delta of metric 0 */
static int64_t tenth(void *ctx, const struct seqkey *key, unsigned metric, uint64_t raw)
{
	(void)ctx, (void)key;
	return metric ? (int64_t)raw : (int64_t)(raw - raw / 10);
}

/* An unmatched exit first (a frame live before tracing), nesting,
 * recursion, an exception exit, frames left open; wide fan-out so that
 * the nodes need several TREE_NODES records and chunks. */
static size_t make_events(struct ev *e, size_t cap)
{
	size_t n = 0;
	uint64_t v = 1000;

#define EV(tr, ty, m) (e[n++] = (struct ev){tr, ty, m, v += 7 + (n % 13) * 11})
	EV(JCAL_TR_EXIT, JCAL_MT_INTERP, 9);
	EV(JCAL_TR_ENTRY, JCAL_MT_INTERP_STATIC, 1);
	EV(JCAL_TR_ENTRY, JCAL_MT_INTERP, 2);
	EV(JCAL_TR_ENTRY, JCAL_MT_INTERP, 2);
	EV(JCAL_TR_THROW, JCAL_MT_INTERP, 2);
	EV(JCAL_TR_EXIT, JCAL_MT_INTERP, 2);
	for (uint32_t m = 100; m < 3100 && n + 4 < cap; m++) {
		EV(JCAL_TR_ENTRY, JCAL_MT_NATIVE, m);
		EV(JCAL_TR_EXIT, JCAL_MT_NATIVE, m);
	}
	EV(JCAL_TR_ENTRY, JCAL_MT_INTERP, 3);
#undef EV
	return n;
}

static void write_methods(struct trace_recbuf *rb)
{
	trace_rec_meta(rb, "metrics", "tsc+cputime");
	trace_rec_method(rb, 1, JCAL_ACC_STATIC, "LA;", "main", "()V");
	trace_rec_method(rb, 2, 0, "LA;", "f", "()V");
	trace_rec_method(rb, 3, 0, "LA;", "g", "()V");
	trace_rec_method(rb, 9, 0, "LA;", "run", "()V");
	uint64_t zero[2] = {0, 0};
	trace_rec_thread_start(rb, 1, 1, 100, 0, 0, "main", 2, zero);
}

static void write_trace(const char *path, const struct ev *e, size_t n)
{
	struct tracegen tg;
	uint64_t m[2];

	CHECK_EQ_I(tg_open(&tg, path), 0);
	write_methods(&tg.rb);
	tg_flush(&tg);
	tg_events_begin(&tg, 1, 2);
	for (size_t i = 0; i < n; i++) {
		m[0] = e[i].v;
		m[1] = 3 * e[i].v;
		tg_event(&tg, e[i].trans, e[i].type, e[i].method, m);
	}
	tg_events_end(&tg);
	trace_rec_end(&tg.rb, n, 1, 0);
	CHECK_EQ_I(tg_close(&tg), 0);
}

static int flush_to(void *ctx, struct trace_recbuf *rb)
{
	size_t n = trace_recbuf_finish(rb);
	int err = fwrite(rb->buf, 1, n, ctx) == n ? 0 : -EIO;

	trace_recbuf_clear(rb);
	return err;
}

/* The snapshot of the same events, the tree built with the hook, and
 * with histograms (calltree_keep_hists) when hists. */
static void write_snapshot(const char *path, const struct ev *e, size_t n, int hists)
{
	struct calltree_comp comp = {.fn = tenth, .ctx = NULL, .batch = NULL};
	uint8_t h[TRACE_FILE_HEADER_LEN];
	struct trace_recbuf rb;
	struct calltree t;
	FILE *f = fopen(path, "wb");
	struct tree_snapshot_sink sink = {flush_to, f};
	uint64_t m[2];

	CHECK(f != NULL);
	trace_snapshot_header(h);
	CHECK_EQ_U(fwrite(h, 1, sizeof(h), f), sizeof(h));
	trace_recbuf_init(&rb);
	write_methods(&rb);
	CHECK_EQ_I(calltree_init(&t, 2, &comp), 0);
	if (hists)
		CHECK_EQ_I(calltree_keep_hists(&t), 0);
	for (size_t i = 0; i < n; i++) {
		m[0] = e[i].v;
		m[1] = 3 * e[i].v;
		CHECK_EQ_I(calltree_event(&t, e[i].method, e[i].trans, e[i].type, m), 0);
	}
	CHECK_EQ_I(tree_snapshot_write(&rb, 1, &t, TRACE_TREE_COMPENSATED, &sink), 0);
	trace_rec_end(&rb, 0, 1, 0);
	CHECK_EQ_I(flush_to(f, &rb), 0);
	trace_recbuf_free(&rb);
	calltree_free(&t);
	CHECK_EQ_I(fclose(f), 0);
}

static void load(struct model *m, const char *path, const struct calltree_comp *comp, int raw)
{
	struct trace_result res;

	model_init(m, comp);
	m->snapshot_raw = raw;
	CHECK_EQ_I(model_load(m, path, &res), TRACE_OK);
	CHECK_EQ_I(model_finish(m), 0);
	CHECK_EQ_U(m->nthreads, 1);
}

/* Every node, in report order, with every figure. */
static void same_trees(const struct model *a, const struct model *b, int raw)
{
	const struct calltree *x = &a->thread_list[0]->tree, *y = &b->thread_list[0]->tree;

	CHECK_EQ_U(x->nnodes, y->nnodes);
	CHECK(!memcmp(&x->stats, &y->stats, sizeof(x->stats)));
	for (uint32_t i = 0; i < x->nnodes && i < y->nnodes; i++) {
		const struct calltree_node *p = &x->nodes[x->order[i]], *q = &y->nodes[y->order[i]];
		const struct calltree_fig *pf = calltree_fig(x, x->order[i], 0);
		const struct calltree_fig *qf = calltree_fig(y, y->order[i], 0);

		CHECK_EQ_U(p->method, q->method);
		CHECK_EQ_U(p->calls, q->calls);
		CHECK_EQ_U(p->level, q->level);
		CHECK_EQ_U(p->rl, q->rl);
		for (unsigned k = 0; k < 2; k++) {
			CHECK_EQ_U(pf[k].raw_cum, qf[k].raw_cum);
			CHECK_EQ_U(pf[k].raw_base, qf[k].raw_base);
			CHECK_EQ_U(raw ? pf[k].raw_cum : pf[k].cum, qf[k].cum);
			CHECK_EQ_U(raw ? pf[k].raw_base : pf[k].base, qf[k].base);
		}
	}
}

static void test_snapshot_equals_trace(void)
{
	static struct ev e[8000];
	struct calltree_comp comp = {.fn = tenth, .ctx = NULL, .batch = NULL};
	char tpath[] = "/tmp/jcal-snap-tXXXXXX", spath[] = "/tmp/jcal-snap-sXXXXXX";
	struct model mt, ms, mr;
	size_t n = make_events(e, sizeof(e) / sizeof(e[0]));

	close(mkstemp(tpath));
	close(mkstemp(spath));
	write_trace(tpath, e, n);
	write_snapshot(spath, e, n, 0);
	load(&mt, tpath, &comp, 0);
	load(&ms, spath, NULL, 0);
	CHECK(ms.snapshot);
	CHECK(model_snapshot_compensated(&ms));
	CHECK_EQ_U(mt.thread_list[0]->tree.nnodes,
		   3006); /* root, run, main, f, f, g, 3000 natives */
	CHECK_EQ_U(ms.thread_list[0]->tree.stats.unmatched_exits, 1);
	CHECK_EQ_U(ms.thread_list[0]->tree.stats.open_frames, 2); /* main, g */
	same_trees(&mt, &ms, 0);
	/* --raw: the raw figures where the compensated ones were */
	load(&mr, spath, NULL, 1);
	CHECK(!model_snapshot_compensated(&mr));
	same_trees(&mt, &mr, 1);
	model_free(&mt);
	model_free(&ms);
	model_free(&mr);
	unlink(tpath);
	unlink(spath);
}

/* tree_hist: a copy of node 3's histogram of thread 1 into *ctx. */
static int copy_hist(void *ctx, uint32_t serial, uint32_t node, const struct lathist *h)
{
	struct lathist **out = ctx;

	if (serial != 1 || node != 3)
		return -1;
	return lathist_merge(out, h);
}

/* What a snapshot holds: tree nodes, and histograms with their calls. */
struct snap_count {
	uint64_t nodes, hists, hist_calls;
};

static int count_node(void *ctx, const struct trace_tree_node *n)
{
	(void)n;
	((struct snap_count *)ctx)->nodes++;
	return 0;
}

static int count_hist(void *ctx, uint32_t serial, uint32_t node, const struct lathist *h)
{
	struct snap_count *c = ctx;

	(void)serial, (void)node;
	c->hists++;
	c->hist_calls += h->count;
	return 0;
}

static struct snap_count count_snapshot(const char *path)
{
	struct snap_count c = {0};
	struct trace_visitor v = {0};
	struct trace_result res;

	v.ctx = &c;
	v.tree_node = count_node;
	v.tree_hist = count_hist;
	CHECK_EQ_I(trace_read_file(path, &v, &res), TRACE_OK);
	return c;
}

/* A tree that keeps no histograms (the agent's hists=off) writes a
 * snapshot without TREE_HISTS records, and jcal-post's model, asked for
 * them, finds none; its nodes and figures are those of the tree that
 * keeps them. */
static void test_snapshot_without_hists(void)
{
	static struct ev e[8000];
	char with[] = "/tmp/jcal-snap-hXXXXXX", without[] = "/tmp/jcal-snap-nXXXXXX";
	size_t n = make_events(e, sizeof(e) / sizeof(e[0]));
	struct snap_count a, b;
	struct model mw, mn;
	struct trace_result res;

	close(mkstemp(with));
	close(mkstemp(without));
	write_snapshot(with, e, n, 1);
	write_snapshot(without, e, n, 0);
	a = count_snapshot(with);
	b = count_snapshot(without);
	CHECK_EQ_U(a.nodes, 3006);
	CHECK_EQ_U(b.nodes, 3006);
	/* one per node with an ended call, as tree_snapshot_write finds them
	 * (main and g still open are not in): run (its unmatched exit ends a
	 * call), f twice, the 3000 natives */
	CHECK_EQ_U(a.hists, 3003);
	CHECK_EQ_U(a.hist_calls, 3003);
	CHECK_EQ_U(b.hists, 0);
	CHECK_EQ_U(b.hist_calls, 0);
	model_init(&mw, NULL);
	mw.want_hists = 1;
	CHECK_EQ_I(model_load(&mw, with, &res), TRACE_OK);
	CHECK_EQ_I(model_finish(&mw), 0);
	model_init(&mn, NULL);
	mn.want_hists = 1;
	CHECK_EQ_I(model_load(&mn, without, &res), TRACE_OK);
	CHECK_EQ_I(model_finish(&mn), 0);
	CHECK(mw.thread_list[0]->tree.hist != NULL);
	CHECK(mn.thread_list[0]->tree.hist == NULL);
	same_trees(&mw, &mn, 0);
	model_free(&mw);
	model_free(&mn);
	unlink(with);
	unlink(without);
}

/* A node whose parent is not an earlier node is corrupt, and so is a node
 * of a thread without TREE_THREAD. */
static void test_bad_tree_records(void)
{
	struct trace_recbuf rb;
	struct trace_result res;
	struct trace_tree_node nd[2];
	struct model m;

	memset(nd, 0, sizeof(nd));
	nd[0].serial = nd[1].serial = 1;
	nd[0].nmetrics = nd[1].nmetrics = 1;
	nd[0].index = 0;
	nd[1].index = 1;
	nd[1].parent = 1; /* itself */
	trace_recbuf_init(&rb);
	trace_rec_tree_nodes(&rb, nd, 2);
	size_t len = trace_recbuf_finish(&rb);
	memset(&res, 0, sizeof(res));
	CHECK_EQ_I(trace_decode_chunk(TRACE_CHUNK_RECORDS, rb.buf + TRACE_CHUNK_HEADER_LEN,
				      len - TRACE_CHUNK_HEADER_LEN, NULL, &res),
		   TRACE_CORRUPT);
	CHECK(strstr(res.msg, "TREE_NODES") != NULL);
	trace_recbuf_clear(&rb);

	nd[1].parent = 0;
	trace_rec_tree_nodes(&rb, nd, 2);
	len = trace_recbuf_finish(&rb);
	model_init(&m, NULL);
	struct trace_visitor v;
	model_visitor(&m, &v);
	memset(&res, 0, sizeof(res));
	CHECK_EQ_I(trace_decode_chunk(TRACE_CHUNK_RECORDS, rb.buf + TRACE_CHUNK_HEADER_LEN,
				      len - TRACE_CHUNK_HEADER_LEN, &v, &res),
		   TRACE_ABORTED);
	CHECK(strstr(m.err, "out of place") != NULL);
	model_free(&m);
	trace_recbuf_free(&rb);
}

/* A TREE_HISTS record written, read back the same; each way of damaging
 * one is corrupt (one line), never a crash. */
static void test_hists_records(void)
{
	struct lathist *h = NULL, *back = NULL;
	const struct lathist *hs[1];
	uint32_t node[1] = {3};
	struct trace_recbuf rb;
	struct trace_result res;
	size_t len;

	for (uint64_t v = 1; v < 5000000; v = v * 3 + 1)
		CHECK_EQ_I(lathist_add(&h, v), 0);
	hs[0] = h;
	for (int damage = 0; damage < 5; damage++) {
		struct lathist saved = *h;

		if (damage == 1)
			h->count++; /* the buckets add up to less */
		else if (damage == 2)
			h->min = h->max + 1;
		else if (damage == 3)
			h->max = 0; /* not in the last bucket */
		else if (damage == 4)
			h->n = 0;
		trace_recbuf_init(&rb);
		trace_rec_tree_hists(&rb, 1, node, hs, 1);
		len = trace_recbuf_finish(&rb);
		*h = saved;
		memset(&res, 0, sizeof(res));
		struct trace_visitor v = {0};
		v.ctx = &back;
		v.tree_hist = copy_hist;
		CHECK_EQ_I(trace_decode_chunk(TRACE_CHUNK_RECORDS, rb.buf + TRACE_CHUNK_HEADER_LEN,
					      len - TRACE_CHUNK_HEADER_LEN, &v, &res),
			   damage ? TRACE_CORRUPT : TRACE_OK);
		if (damage) {
			CHECK(strstr(res.msg, "TREE_HISTS") != NULL && !strchr(res.msg, '\n'));
		} else {
			CHECK(back && back->count == h->count && back->sum == h->sum &&
			      back->min == h->min && back->max == h->max && back->n == h->n &&
			      !memcmp(back->b, h->b, h->n * sizeof(h->b[0])));
		}
		trace_recbuf_free(&rb);
	}
	lathist_free(h);
	lathist_free(back);
}

int main(void)
{
	RUN(test_snapshot_equals_trace);
	RUN(test_snapshot_without_hists);
	RUN(test_bad_tree_records);
	RUN(test_hists_records);
	return test_summary("tree-snapshot");
}
