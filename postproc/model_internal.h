/*
 * model_internal.h - what the files of jcal-post's model share (model.c,
 * model_fold.c): the state of model_fold() and the steps model.c calls
 * while the file is read and when it is finished.
 */
#ifndef JCAL_MODEL_INTERNAL_H
#define JCAL_MODEL_INTERNAL_H

#include "postproc/model.h"
#include "postproc/threadsel.h"
#include "postproc/tree_group.h"

/* The threads named in a "no thread matches" message. */
#define MODEL_FOLD_NAMES 8

/* A run of folded serials, lo to hi. */
struct model_fold_run {
	uint32_t lo, hi;
};

struct model_fold {
	const struct threadsel *sel;
	int while_reading;
	struct tree_group g;
	size_t nsel, nelided; /* threads folded into the group, dropped */
	uint32_t snap_flags;  /* of the folded threads, or-ed */
	/* what --merge-threads' merged thread needs to be numbered: the
	 * largest serial of the threads listed, a thread of serial 0 seen */
	uint32_t max_serial, min_serial;
	int any_listed, zero;
	uint64_t events; /* every folded thread's, for model_redo */
	/* the serials folded while reading, as sorted runs */
	struct model_fold_run *runs;
	size_t nruns, runs_cap;
	/* ended threads waiting for the tree workers to build them */
	struct model_thread **pending;
	size_t npending, pending_cap;
	int broken; /* a folded thread came back */
	/* the first threads by serial, for messages */
	struct {
		uint32_t serial;
		char *name;
	} names[MODEL_FOLD_NAMES];
	size_t nnames, total;
};

/* The thread t (its THREAD_END read, or every record of the file read)
 * was ended: folded now, or once the tree workers built it. Returns 0, or
 * the error of a worker's batch (calltree_events' -ENOMEM, -EINVAL or
 * -EBADMSG) or -ENOMEM. */
int model_fold_ended(struct model *m, struct model_thread *t);

/* 1 when serial was folded already (its thread ended): the fold is then
 * broken (model_fold_broken). */
int model_fold_seen(struct model *m, uint32_t serial);

/* Notes a thread record of serial, for the group's serial. */
void model_fold_note(struct model *m, uint32_t serial);

/* model_finish of a folded model: folds the n threads of list (finished,
 * in serial order) and what waits, and makes the group the thread list.
 * Returns 0 or -1 with m->err. */
int model_fold_finish(struct model *m, struct model_thread **list, size_t n);

void model_fold_free(struct model *m);

#endif
