/*
 * tree_workers.h - building the threads' trees on other cores than the one
 * reading the trace (jcal-post --jobs, docs/performance.md).
 *
 * The reading thread hands each events chunk of a thread (undecoded) or
 * each batch of its decoded events to a worker; a thread's jobs always go
 * to the same worker (by its key, the thread's serial), so each tree is
 * built by one worker in the trace's order and trees of different threads
 * are built, and their chunks decoded, at once. The
 * compensation hook of the trees must then be safe to call from several
 * threads (calib_apply's is).
 */
#ifndef JCAL_TREE_WORKERS_H
#define JCAL_TREE_WORKERS_H

#include <stddef.h>
#include <stdint.h>

#include "common/calltree.h"
#include "common/trace_reader.h"

struct tree_workers;

/* Starts n >= 1 workers; NULL when they cannot be started (out of memory
 * or threads): then build on the calling thread. */
struct tree_workers *tree_workers_start(unsigned n);

/* Queues calltree_events(tree, ...) of n <= TRACE_EVENT_BATCH events
 * (copied) on the worker of key; waits while that worker's queue is full.
 * Returns 0, or the error of an earlier batch of that worker (-ENOMEM or
 * -EINVAL; its later batches are dropped). */
int tree_workers_add(struct tree_workers *tw, uint32_t key, struct calltree *tree,
		     const uint32_t *method, const uint8_t *transition, const uint8_t *type,
		     const uint64_t *metric, size_t n);

/* Queues calltree_decode() of an events chunk's undecoded events (bytes,
 * copied; the chunk's part after its header, for a tree of one metric) on
 * the worker of key, as tree_workers_add does. A chunk the worker cannot
 * decode to its end (a malformed event) fails with -EBADMSG: the reader's
 * decoder must say what is wrong with it. */
int tree_workers_add_chunk(struct tree_workers *tw, uint32_t key, struct calltree *tree,
			   const uint8_t *bytes, size_t len);

/* Queues calltree_rest(tree) after what was queued for it on the worker
 * of key (the thread ended). Returns 0 or the error of an earlier job. */
int tree_workers_rest(struct tree_workers *tw, uint32_t key, struct calltree *tree);

/* Waits until every job queued so far is done; the workers go on. Returns
 * 0 or the first error of a batch. */
int tree_workers_sync(struct tree_workers *tw);

/* Waits until every queued batch is built and stops the workers (tw may be
 * NULL). Returns 0 or the first error of a batch. */
int tree_workers_finish(struct tree_workers *tw);

#endif
