/*
 * replay.h - reads a trace file again and turns each selected thread's
 * events into balanced frame spans, for the exports that show a timeline
 * (Chrome trace events, speedscope evented profiles).
 *
 * The stack discipline is the tree builder's (calltree.h): an exit pops
 * its frame, or the frames above it and then it; an exit of a method not on
 * the stack is a frame that was live before tracing started. Without
 * prescan such a frame is reported as opened at the thread's first event
 * (only its close is reported, in order of closes). With prescan a first
 * pass finds those frames and the second pass opens them, outermost first,
 * at the thread's first event, so opens and closes come balanced and in
 * time order. Frames still open after the thread's last event are closed
 * at it. Frames of excluded methods stay on the stack but are not
 * reported. Values are the raw metric (compensation does not apply to a
 * timeline), in the unit reports show (TSC ticks as ns); a value that goes
 * backwards is taken as the previous one.
 *
 * A tree snapshot has no events: its trees are laid out as spans instead,
 * each context's raw cum one span, its children one after the other from
 * its start (replay.c).
 *
 * Memory: one stack per thread (its depth), nothing per event.
 */
#ifndef JCAL_REPLAY_H
#define JCAL_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "postproc/model.h"
#include "postproc/threadsel.h"

struct replay_cb {
	void *ctx;
	/* The first event of a selected thread (before any open). */
	int (*begin)(void *ctx, const struct model_thread *t, uint64_t at);
	/* Prescan only: a frame opens. */
	int (*open)(void *ctx, const struct model_thread *t, uint32_t method, uint64_t at);
	/* A frame closes; opened is when it opened, depth its stack depth (1 =
	 * outermost reported frame). */
	int (*close)(void *ctx, const struct model_thread *t, uint32_t method, uint64_t opened,
		     uint64_t at, uint32_t depth);
	/* After the trace, per thread that had events: its last value. */
	int (*end)(void *ctx, const struct model_thread *t, uint64_t last);
};

struct replay_opts {
	const char *path;	     /* the trace file (not stdin) */
	unsigned metric;	     /* index of the metric */
	const struct threadsel *sel; /* NULL: all threads */
	const char **exclude;	     /* method patterns not reported */
	size_t nexclude;
	int prescan;	 /* open frames live before tracing at the start */
	FILE *progress;	 /* progress bar stream, or NULL */
	size_t batch;	 /* threads per pass (0: all in one pass) */
	size_t batch_no; /* which batch of selected threads this run covers */
};

/* Runs the replay; returns 0, or -1 with err set (I/O, bad trace, no
 * memory, or a callback's non-zero result: err is then left as the
 * callback wrote it). */
int replay_run(const struct model *m, const struct replay_opts *ro, const struct replay_cb *cb,
	       char *err, size_t errlen);

/* Number of selected threads (that replay_run would report). */
size_t replay_threads(const struct model *m, const struct threadsel *sel);

#endif
