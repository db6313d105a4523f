/*
 * latency.h - the distribution of single calls' durations per method, or
 * per calling context, from a trace read again (calls.h): the rows of
 * --report latency (docs/jcal-post.md, latency).
 *
 * From a trace, exact: every call's duration is kept (8 bytes a call of the selected
 * threads while the trace is read) and each row's are sorted.
 * Percentiles are by nearest rank: the p-th of n sorted durations is the
 * one of rank ceil(p/100 * n), 1 the shortest; so p50 of 100 calls is the
 * 50th, p99.9 of 100 the 100th (the max).
 *
 * Filters, as the trees' shaping reads them: --exclude leaves out the
 * rows of matching methods (their time stays in their callers' calls, as
 * in a cum); --include keeps only the calls that have a matching frame on
 * their path (themselves or a caller).
 */
#ifndef JCAL_LATENCY_H
#define JCAL_LATENCY_H

#include <stddef.h>
#include <stdint.h>

#include "postproc/calls.h"
#include "postproc/model.h"
#include "postproc/shaping.h"

struct latency_row {
	uint32_t method;
	uint32_t context; /* by context: its index in latency.ctx_* */
	uint64_t calls;
	/* in the metric's stored unit (calls_value converts) */
	uint64_t min, p50, p90, p99, p999, max;
	uint64_t total; /* saturated at UINT64_MAX */
};

struct latency {
	struct latency_row *rows;
	size_t nrows;
	size_t nthreads; /* threads that had calls */
	uint64_t calls;
	/* by context: the contexts of every thread merged by path; context c
	 * has method ctx_method[c] under ctx_parent[c] (0: the root, which
	 * has none) */
	uint32_t *ctx_parent, *ctx_method;
	uint32_t nctx;
	/* from a tree snapshot: the figures come from the histograms of its
	 * contexts (common/lathist.h), the percentiles within 1 /
	 * LATHIST_ERROR_DIV of the exact ones; min, max, calls and total exact.
	 * threads_without: threads with calls whose tree has no histograms
	 * (a snapshot of format 3.0) */
	int from_hists;
	size_t threads_without;
};

struct latency_opts {
	const char *path;	      /* the trace */
	unsigned metric;	      /* the metric's index */
	const struct threadsel *sel;  /* NULL: all threads */
	const struct shape_opts *shp; /* --include, --exclude; may be NULL */
	int by_context;
	FILE *progress;
	const struct calls_inputs *inputs; /* a merged profile's inputs (calls.h) */
};

/* Reads the trace (or the tree snapshot: its histograms) and fills l, its rows by p99 then calls
 * (descending), then name. Returns 0, or -1 with err (calls_read's errors). */
int latency_build(const struct model *m, const struct latency_opts *o, struct latency *l, char *err,
		  size_t errlen);

void latency_free(struct latency *l);

/* Sorts v[0..n) ascending, in place (no buffer beside it). */
void latency_sort(uint64_t *v, size_t n);

/* The nearest-rank percentile permille/1000 of v[0..n) (sorted, n > 0). */
uint64_t latency_rank(const uint64_t *v, size_t n, unsigned permille);

#endif
