/*
 * tree_workers.c - threads that build the calling-context trees while the
 * reading thread decodes the file (see tree_workers.h).
 *
 * Each worker has a ring of batch slots filled by the one reading thread
 * and emptied by the worker alone; a slot is copied in and out of the ring
 * without the lock (the counts under the lock say whose it is), so the
 * lock is taken twice per batch of up to TRACE_EVENT_BATCH events.
 */
#include "postproc/tree_workers.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define RING 32 /* batches in flight per worker */
/* A sleeping side is woken when this many batches (or slots) are ready,
 * not at every batch: one wake-up per WAKE batches. */
#define WAKE 8

struct job {
	struct calltree *tree;
	int rest; /* calltree_rest() rather than events */
	size_t n;
	unsigned nmetrics;
	/* an events chunk's undecoded events instead of the arrays below
	 * (tree_workers_add_chunk): len bytes, 0 for none */
	uint8_t *bytes;
	size_t len, cap;
	uint32_t method[TRACE_EVENT_BATCH];
	uint8_t transition[TRACE_EVENT_BATCH];
	uint8_t type[TRACE_EVENT_BATCH];
	uint64_t metric[TRACE_EVENT_BATCH * JCAL_MAX_METRICS];
};

struct worker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	struct job *ring;
	unsigned head, count; /* under lock */
	int closing;	      /* under lock: no more jobs */
	int worker_waits;     /* under lock: the worker sleeps for jobs */
	int reader_waits;     /* under lock: the reader sleeps for a free slot */
	int err;	      /* under lock: the first calltree_events() error */
	int started;
	uint32_t shadow[TRACE_SHADOW_DEPTH]; /* the worker's, for chunks */
};

struct tree_workers {
	struct worker *w;
	unsigned n;
};

/* A job's chunk decoded into its tree: 0, -EBADMSG when it stops before
 * the end (a malformed event), or calltree_decode()'s error. */
static int build_chunk(struct worker *w, const struct job *j)
{
	struct event_run r;
	int err;

	memset(&r, 0, sizeof(r));
	r.p = j->bytes;
	r.end = j->bytes + j->len;
	r.stack = w->shadow;
	r.nmetrics = 1;
	err = calltree_decode(j->tree, &r);
	return err ? err : r.p == r.end ? 0 : -EBADMSG;
}

static void *work(void *arg)
{
	struct worker *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->count && !w->closing) {
			w->worker_waits = 1;
			pthread_cond_wait(&w->not_empty, &w->lock);
			w->worker_waits = 0;
		}
		if (!w->count)
			break;
		struct job *j = &w->ring[w->head];
		int err = w->err;

		pthread_mutex_unlock(&w->lock);
		/* after an error the trees are not used: the jobs are dropped */
		if (!err && j->rest)
			calltree_rest(j->tree);
		else if (!err && j->len)
			err = build_chunk(w, j);
		else if (!err)
			err = calltree_events(j->tree, j->method, j->transition, j->type, j->metric,
					      j->n);
		pthread_mutex_lock(&w->lock);
		if (err && !w->err)
			w->err = err;
		w->head = (w->head + 1) % RING;
		w->count--;
		/* the reader waits for a free slot, or for all (tree_workers_sync) */
		if (w->reader_waits && (w->count <= RING - WAKE || !w->count))
			pthread_cond_signal(&w->not_full);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct tree_workers *tree_workers_start(unsigned n)
{
	struct tree_workers *tw = calloc(1, sizeof(*tw));

	if (!tw || !n)
		goto fail;
	tw->w = calloc(n, sizeof(*tw->w));
	if (!tw->w)
		goto fail;
	for (unsigned i = 0; i < n; i++) {
		struct worker *w = &tw->w[i];

		w->ring = calloc(RING, sizeof(*w->ring));
		if (!w->ring || pthread_mutex_init(&w->lock, NULL))
			goto fail;
		tw->n = i + 1;
		if (pthread_cond_init(&w->not_empty, NULL) ||
		    pthread_cond_init(&w->not_full, NULL) ||
		    pthread_create(&w->thread, NULL, work, w))
			goto fail;
		w->started = 1;
	}
	return tw;
fail:
	if (tw)
		tree_workers_finish(tw);
	return NULL;
}

/* The next free slot of the worker of key, waiting while there is none;
 * NULL with *err when a job of that worker failed. */
static struct job *slot_get(struct tree_workers *tw, uint32_t key, struct worker **wp, int *err)
{
	struct worker *w = &tw->w[key % tw->n];
	struct job *j;

	pthread_mutex_lock(&w->lock);
	while (w->count == RING && !w->err) {
		w->reader_waits = 1;
		pthread_cond_wait(&w->not_full, &w->lock);
		w->reader_waits = 0;
	}
	*err = w->err;
	j = &w->ring[(w->head + w->count) % RING];
	pthread_mutex_unlock(&w->lock);
	*wp = w;
	return *err ? NULL : j; /* the slot is the reader's until count covers it */
}

/* Hands the slot filled after slot_get() to its worker. */
static void slot_put(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->count++;
	if (w->worker_waits && w->count >= WAKE)
		pthread_cond_signal(&w->not_empty);
	pthread_mutex_unlock(&w->lock);
}

int tree_workers_add(struct tree_workers *tw, uint32_t key, struct calltree *tree,
		     const uint32_t *method, const uint8_t *transition, const uint8_t *type,
		     const uint64_t *metric, size_t n)
{
	struct worker *w;
	struct job *j;
	int err;

	if (n > TRACE_EVENT_BATCH || tree->nmetrics > JCAL_MAX_METRICS)
		return -EINVAL;
	if (!(j = slot_get(tw, key, &w, &err)))
		return err;
	j->tree = tree;
	j->rest = 0;
	j->n = n;
	j->len = 0;
	j->nmetrics = tree->nmetrics;
	memcpy(j->method, method, n * sizeof(*method));
	memcpy(j->transition, transition, n);
	memcpy(j->type, type, n);
	memcpy(j->metric, metric, n * tree->nmetrics * sizeof(*metric));
	slot_put(w);
	return 0;
}

int tree_workers_add_chunk(struct tree_workers *tw, uint32_t key, struct calltree *tree,
			   const uint8_t *bytes, size_t len)
{
	struct worker *w;
	struct job *j;
	int err;

	if (!len)
		return 0;
	if (!(j = slot_get(tw, key, &w, &err)))
		return err;
	if (len > j->cap) {
		uint8_t *b = realloc(j->bytes, len);

		if (!b)
			return -ENOMEM; /* the slot stays free */
		j->bytes = b;
		j->cap = len;
	}
	j->tree = tree;
	j->rest = 0;
	j->len = len;
	memcpy(j->bytes, bytes, len);
	slot_put(w);
	return 0;
}

int tree_workers_rest(struct tree_workers *tw, uint32_t key, struct calltree *tree)
{
	struct worker *w;
	struct job *j;
	int err;

	if (!(j = slot_get(tw, key, &w, &err)))
		return err;
	j->tree = tree;
	j->rest = 1;
	j->n = 0;
	j->len = 0;
	slot_put(w);
	return 0;
}

int tree_workers_sync(struct tree_workers *tw)
{
	int err = 0;

	for (unsigned i = 0; i < tw->n; i++) {
		struct worker *w = &tw->w[i];

		pthread_mutex_lock(&w->lock);
		/* a worker sleeps until WAKE jobs are ready: wake it for fewer */
		if (w->count)
			pthread_cond_signal(&w->not_empty);
		while (w->count && !w->err) {
			w->reader_waits = 1;
			pthread_cond_wait(&w->not_full, &w->lock);
			w->reader_waits = 0;
		}
		if (w->err && !err)
			err = w->err;
		pthread_mutex_unlock(&w->lock);
	}
	return err;
}

int tree_workers_finish(struct tree_workers *tw)
{
	int err = 0;

	if (!tw)
		return 0;
	for (unsigned i = 0; i < tw->n; i++) {
		struct worker *w = &tw->w[i];

		if (w->started) {
			pthread_mutex_lock(&w->lock);
			w->closing = 1;
			pthread_cond_signal(&w->not_empty);
			pthread_mutex_unlock(&w->lock);
			pthread_join(w->thread, NULL);
			pthread_cond_destroy(&w->not_empty);
			pthread_cond_destroy(&w->not_full);
		}
		if (w->err && !err)
			err = w->err;
		pthread_mutex_destroy(&w->lock);
		for (unsigned k = 0; w->ring && k < RING; k++)
			free(w->ring[k].bytes);
		free(w->ring);
	}
	free(tw->w);
	free(tw);
	return err;
}
