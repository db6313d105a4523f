/*
 * tree_workers.c - threads that build the calling-context trees while the
 * reading thread decodes the file (see tree_workers.h).
 *
 * Each worker has a ring of batch slots filled by the one reading thread
 * and emptied by the worker alone; a slot is copied in and out of the ring
 * without the lock (the counts under the lock say whose it is), so the
 * lock is taken twice per batch of up to TRACE_EVENT_BATCH events.
 */
#include "tree_workers.h"

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
	size_t n;
	unsigned nmetrics;
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
};

struct tree_workers {
	struct worker *w;
	unsigned n;
};

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
		if (!err)
			err = calltree_events(j->tree, j->method, j->transition, j->type, j->metric,
					      j->n);
		pthread_mutex_lock(&w->lock);
		if (err && !w->err)
			w->err = err;
		w->head = (w->head + 1) % RING;
		w->count--;
		if (w->reader_waits && w->count <= RING - WAKE)
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

		w->ring = malloc(RING * sizeof(*w->ring));
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

int tree_workers_add(struct tree_workers *tw, uint32_t key, struct calltree *tree,
		     const uint32_t *method, const uint8_t *transition, const uint8_t *type,
		     const uint64_t *metric, size_t n)
{
	struct worker *w = &tw->w[key % tw->n];
	struct job *j;
	int err;

	if (n > TRACE_EVENT_BATCH || tree->nmetrics > JCAL_MAX_METRICS)
		return -EINVAL;
	pthread_mutex_lock(&w->lock);
	while (w->count == RING && !w->err) {
		w->reader_waits = 1;
		pthread_cond_wait(&w->not_full, &w->lock);
		w->reader_waits = 0;
	}
	err = w->err;
	j = &w->ring[(w->head + w->count) % RING];
	pthread_mutex_unlock(&w->lock);
	if (err)
		return err;
	/* the slot is the reader's until count covers it */
	j->tree = tree;
	j->n = n;
	j->nmetrics = tree->nmetrics;
	memcpy(j->method, method, n * sizeof(*method));
	memcpy(j->transition, transition, n);
	memcpy(j->type, type, n);
	memcpy(j->metric, metric, n * tree->nmetrics * sizeof(*metric));
	pthread_mutex_lock(&w->lock);
	w->count++;
	if (w->worker_waits && w->count >= WAKE)
		pthread_cond_signal(&w->not_empty);
	pthread_mutex_unlock(&w->lock);
	return 0;
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
		free(w->ring);
	}
	free(tw->w);
	free(tw);
	return err;
}
