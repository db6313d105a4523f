/*
 * pools.h - the threads of one pool as one tree (docs/jcal-post.md,
 * "Thread pools"): the reports that show threads apart show the threads
 * whose names differ only by the number that ends them
 * (http-nio-8080-exec-1 .. -10, pool-1-thread-1 .. -4; name_norm_pool)
 * as one tree per pool, named "http-nio-8080-exec-* (10 threads)", made
 * with the tree group of tree_group.h, so that every figure and count is
 * the sum of the threads' exactly. A thread alone in its pool stays as it
 * is; --split-pools keeps every thread apart.
 */
#ifndef JCAL_POOLS_H
#define JCAL_POOLS_H

#include <stddef.h>

#include "postproc/model.h"

/* What pools_group made: groups, and the threads in them. */
struct pools_info {
	size_t groups, threads;
};

/*
 * Groups the threads list[0..*n) (selected, in serial order; threads of a
 * merged profile by input too) by pool. Where a pool has two threads or
 * more, they are replaced in list by one group thread at the place of the
 * first, numbered with the first's serial, whose tree is theirs added in
 * serial order; their own trees are freed (the summary still lists them:
 * it reads no tree). The group threads are m's (freed by model_free).
 * Returns 0 or -1 (no memory: m is then only fit for model_free).
 */
int pools_group(struct model *m, struct model_thread **list, size_t *n, struct pools_info *info);

/* The serials of a group's threads as text, "#3-#7, #9" (at most len
 * bytes; runs past the room end with ", ..."). */
void pools_serials(const struct model_thread *t, char *buf, size_t len);

#endif
