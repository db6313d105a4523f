/*
 * test-tree-workers.c - trees built by jcal-post's worker threads
 * (postproc/tree_workers.c, model_jobs) are the trees built while reading:
 * a trace of several threads whose chunks interleave, loaded with 0 to 3
 * workers (decoding the chunks or not), with and without a compensation
 * hook; an error of a batch reaches the reader; what the workers cannot
 * judge asks for a second read.
 *
 * Runs threads: also run under ThreadSanitizer (make tsan).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "postproc/model.h"
#include "native-tests/test.h"
#include "native-tests/xorshift.h"
#include "native-tests/tracegen.h"
#include "postproc/tree_workers.h"

#define THREADS 5

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	return xorshift_next(&rng);
}

/* A compensation safe from several threads: a function of key and delta. */
static int64_t comp_fn(void *ctx, const struct seqkey *key, unsigned metric, uint64_t d)
{
	(void)ctx;
	return metric ? (int64_t)d : (int64_t)d - (int64_t)(seqkey_index(key) % 13);
}

static void comp_batch(void *ctx, const uint16_t *key, const uint64_t *d, int64_t *out, size_t n)
{
	(void)ctx;
	for (size_t k = 0; k < n; k++)
		out[k] = (int64_t)d[k] - (int64_t)(key[k] % 13);
}

/* How write_trace ends the file. */
enum trace_end_kind {
	END_NONE,      /* no END record */
	END_RIGHT,     /* an END record with the right count of events */
	END_WRONG,     /* ...counting one event more than the file has */
	END_MALFORMED, /* no END; a malformed event in a chunk of thread 3 */
};

/* THREADS threads, chunks of 300-3000 events each in turn, random walks
 * with exits of frames not on the stack; thread 3 has two metrics. */
static const char *write_trace(enum trace_end_kind end)
{
	static char path[64];
	static struct tracegen tg;
	uint32_t stack[THREADS][200];
	unsigned depth[THREADS] = {0};
	uint64_t v[THREADS][2], events = 0;
	int fd;

	snprintf(path, sizeof(path), "/tmp/jcal-test-workers-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	close(fd);
	if (tg_open(&tg, path))
		return NULL;
	for (unsigned t = 0; t < THREADS; t++)
		v[t][0] = v[t][1] = 1000 * (t + 1);
	for (unsigned round = 0; round < 40; round++) {
		for (unsigned t = 0; t < THREADS; t++) {
			unsigned nm = t == 3 ? 2 : 1, n = 300 + (unsigned)(rnd() % 2700);

			tg_events_begin(&tg, t + 1, nm);
			events += n;
			for (unsigned k = 0; k < n; k++) {
				uint64_t r = rnd();
				unsigned type = (unsigned)(r % JCAL_MT_COUNT);

				v[t][0] += (r >> 8) % 400;
				v[t][1] += (r >> 20) % 3;
				if ((r >> 32) % 200 == 0) {
					tg_event(&tg, JCAL_TR_EXIT, type, 500 + (uint32_t)(r % 7),
						 v[t]);
					depth[t] = 0; /* every frame unwound */
				} else if (depth[t] < 3 || (depth[t] < 190 && (r >> 40) % 2)) {
					stack[t][depth[t]] = 1 + (uint32_t)((r >> 44) % 40);
					tg_event(&tg, JCAL_TR_ENTRY, type, stack[t][depth[t]++],
						 v[t]);
				} else {
					--depth[t];
					tg_event(&tg, (r >> 50) % 9 ? JCAL_TR_EXIT : JCAL_TR_THROW,
						 type, stack[t][depth[t]], v[t]);
				}
			}
			if (end == END_MALFORMED && round == 20 && t == 2) {
				/* reserved tag bits: the chunk's CRC covers them */
				tg.buf[tg.enc.len++] = 0xc0;
				tg.buf[tg.enc.len++] = 0;
			}
			tg_events_end(&tg);
		}
	}
	if (end == END_RIGHT || end == END_WRONG) {
		trace_rec_end(&tg.rb, events + (end == END_WRONG), 0, 0);
		tg_flush(&tg);
	}
	return tg_close(&tg) ? NULL : path;
}

/* Loads path with jobs workers (decoding chunks too with chunks): the
 * reader's status; the model is finished when it is TRACE_OK and no
 * second read is needed. */
static enum trace_status load_as(struct model *m, const char *path, unsigned jobs, int with_comp,
				 int chunks, int *redo)
{
	static struct calltree_comp comp = {.fn = comp_fn, .ctx = NULL, .batch = comp_batch};
	struct trace_result res;
	enum trace_status st;

	model_init(m, with_comp ? &comp : NULL);
	CHECK_EQ_I(model_jobs(m, jobs, chunks), 0);
	st = model_load(m, path, &res);
	*redo = model_redo(m);
	if (st == TRACE_OK && !*redo)
		CHECK_EQ_I(model_finish(m), 0);
	return st;
}

static void load(struct model *m, const char *path, unsigned jobs, int with_comp, int chunks)
{
	int redo;

	CHECK(load_as(m, path, jobs, with_comp, chunks, &redo) == TRACE_OK);
	CHECK_EQ_I(redo, 0);
}

static void same_trees(const struct model *a, const struct model *b)
{
	CHECK_EQ_U(a->nthreads, THREADS);
	CHECK_EQ_U(b->nthreads, THREADS);
	for (size_t i = 0; i < a->nthreads && i < b->nthreads; i++) {
		const struct calltree *x = &a->thread_list[i]->tree, *y = &b->thread_list[i]->tree;

		CHECK_EQ_U(x->nnodes, y->nnodes);
		CHECK(x->nnodes > 100);
		CHECK(memcmp(&x->stats, &y->stats, sizeof(x->stats)) == 0);
		for (uint32_t n = 0; n < x->nnodes && n < y->nnodes; n++) {
			const struct calltree_node *p = &x->nodes[n], *q = &y->nodes[n];
			const struct calltree_fig *pf = calltree_fig(x, n, 0);
			const struct calltree_fig *qf = calltree_fig(y, n, 0);

			if (p->parent != q->parent || p->method != q->method ||
			    p->calls != q->calls || x->nmetrics != y->nmetrics ||
			    memcmp(pf, qf, x->nmetrics * sizeof(*pf))) {
				CHECK(!"node differs");
				return;
			}
		}
	}
}

static void test_workers_same_trees(void)
{
	for (enum trace_end_kind end = END_NONE; end <= END_RIGHT; end++) {
		const char *path = write_trace(end);

		CHECK(path != NULL);
		if (!path)
			return;
		for (int c = 0; c < 2; c++) {
			struct model inline_m;

			load(&inline_m, path, 0, c, 0);
			CHECK(inline_m.thread_list[0]->tree.stats.unmatched_exits > 0);
			CHECK_EQ_I(inline_m.has_end, end == END_RIGHT);
			for (unsigned jobs = 1; jobs <= 3; jobs++)
				for (int chunks = 0; chunks < 2; chunks++) {
					struct model m;

					load(&m, path, jobs, c, chunks);
					CHECK_EQ_I(m.chunks_later, chunks);
					same_trees(&inline_m, &m);
					model_free(&m);
				}
			model_free(&inline_m);
		}
		unlink(path);
	}
}

/* What only the reader's own decoding says exactly makes workers that
 * decode chunks ask for a second read: a malformed event in a chunk whose
 * CRC is right, and an END record counting one event too many (the reader
 * does not check the count of chunks it did not decode). Read on one
 * thread, both are corrupt. */
static void test_chunks_redo(void)
{
	for (enum trace_end_kind end = END_WRONG; end <= END_MALFORMED; end++) {
		const char *path = write_trace(end);
		struct model m;
		enum trace_status st;
		int redo;

		CHECK(path != NULL);
		if (!path)
			return;
		st = load_as(&m, path, 0, 1, 0, &redo);
		CHECK(st == TRACE_CORRUPT);
		CHECK_EQ_I(redo, 0);
		model_free(&m);
		for (unsigned jobs = 2; jobs <= 3; jobs++) {
			st = load_as(&m, path, jobs, 1, 1, &redo);
			CHECK_EQ_I(redo, 1);
			/* the reader found nothing wrong, or stopped at the worker's error */
			CHECK(st == TRACE_OK || st == TRACE_ABORTED);
			model_free(&m);
			/* without chunks, the reader says it */
			st = load_as(&m, path, jobs, 1, 0, &redo);
			CHECK(st == TRACE_CORRUPT);
			CHECK_EQ_I(redo, 0);
			model_free(&m);
		}
		unlink(path);
	}
}

/* A batch for a finished tree fails in the worker: a later batch of the
 * same worker and the finish report it. */
static void test_worker_error_reaches_reader(void)
{
	struct tree_workers *tw = tree_workers_start(2);
	struct calltree t;
	uint32_t method[4] = {1, 2, 2, 1};
	uint8_t tr[4] = {JCAL_TR_ENTRY, JCAL_TR_ENTRY, JCAL_TR_EXIT, JCAL_TR_EXIT};
	uint8_t type[4] = {0, 0, 0, 0};
	uint64_t metric[4] = {1, 2, 3, 4};
	int err = 0;

	CHECK(tw != NULL);
	if (!tw)
		return;
	CHECK_EQ_I(calltree_init(&t, 1, NULL), 0);
	CHECK_EQ_I(calltree_finish(&t), 0);
	for (int i = 0; i < 200 && !err; i++)
		err = tree_workers_add(tw, 4, &t, method, tr, type, metric, 4);
	CHECK_EQ_I(tree_workers_finish(tw), -EINVAL);
	calltree_free(&t);
	/* a good batch on a worker of its own builds */
	tw = tree_workers_start(1);
	CHECK(tw != NULL);
	if (!tw)
		return;
	CHECK_EQ_I(calltree_init(&t, 1, NULL), 0);
	CHECK_EQ_I(tree_workers_add(tw, 0, &t, method, tr, type, metric, 4), 0);
	CHECK_EQ_I(tree_workers_finish(tw), 0);
	CHECK_EQ_U(t.stats.events, 4);
	CHECK_EQ_U(t.nnodes, 3);
	calltree_free(&t);
}

int main(void)
{
	RUN(test_workers_same_trees);
	RUN(test_worker_error_reaches_reader);
	RUN(test_chunks_redo);
	return test_summary("tree-workers");
}
