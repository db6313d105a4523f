/*
 * tree_slow.c - output=tree|both with slow=DURATION[:MAX]: the recording's
 * one keeper of its slowest calls (common/slow_keep.h), configured from
 * slow= and the metrics when the agent loads and at each recording's
 * start; each thread's tree watched (tree_registry.c); the calls and their
 * meta written into the snapshot (tree_dump.c).
 *
 * The durations are the calls' compensated cum of the TSC metric when the
 * recording reads one (wall time), else of cputime; a recording of
 * hardware counters only has no duration to compare, and slow= is refused
 * (docs/agent-internals.md, "Slow calls").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "agent/core/tree_recorder_internal.h"

/* The keeper, made again (under the registry's pass, no tree taking
 * events) at each recording's start with its slow=; its heap NULL when
 * none is made. */
static struct slow_keep keeper;
static atomic_int keeper_on;
static uint64_t keeper_ns; /* the threshold as given */

/* The first metric of kind, or -1. */
static int metric_of(enum metric_kind kind)
{
	for (unsigned i = 0; i < jcal.metrics.n; i++)
		if (jcal.metrics.m[i].kind == kind)
			return (int)i;
	return -1;
}

/* The metric slow= compares: a TSC first, else cputime; -1 for none. */
static int slow_metric(void)
{
	int tsc = metric_of(METRIC_TSC);

	return tsc >= 0 && jcal.metrics.tsc_hz ? tsc : metric_of(METRIC_CPUTIME);
}

int tree_slow_check(char *err, size_t errlen)
{
	char names[JCAL_MAX_METRICS * JCAL_OPT_METRIC_MAX];

	if (!jcal.opts.slow_ns || slow_metric() >= 0)
		return 0;
	metric_set_names(&jcal.metrics, names, sizeof(names));
	snprintf(err, errlen,
		 "option 'slow=' needs a time metric, and this recording reads %s: add tsc "
		 "(metric=%s+tsc) or use metric=cputime",
		 names, names);
	return -1;
}

int tree_slow_configure(void)
{
	struct slow_keep_cfg cfg = {0};
	int m = slow_metric();

	atomic_store(&keeper_on, 0);
	slow_keep_free(&keeper); /* nothing when none was made */
	if (!jcal.opts.slow_ns || m < 0)
		return 0;
	cfg.metric = (unsigned)m;
	cfg.threshold = jcal.metrics.m[m].kind == METRIC_TSC
			    ? (uint64_t)((unsigned __int128)jcal.opts.slow_ns *
					 jcal.metrics.tsc_hz / 1000000000u)
			    : jcal.opts.slow_ns;
	if (!cfg.threshold)
		cfg.threshold = 1;
	cfg.wall = metric_of(METRIC_TSC);
	cfg.wall_hz = jcal.metrics.tsc_hz;
	cfg.max = jcal.opts.slow_max ? jcal.opts.slow_max : JCAL_SLOW_KEEP_DEFAULT;
	if (slow_keep_init(&keeper, &cfg))
		return -1;
	atomic_store(&keeper_on, 1);
	keeper_ns = jcal.opts.slow_ns;
	return 0;
}

struct slow_keep *tree_slow_keeper(void)
{
	return atomic_load(&keeper_on) ? &keeper : NULL;
}

int tree_slow_write(struct trace_recbuf *rb, const struct tree_snapshot_sink *sink)
{
	struct trace_slow *calls;
	uint64_t over;
	long n;
	int rc = 0;

	if (!atomic_load(&keeper_on))
		return 0;
	n = slow_keep_list(&keeper, &calls, &over);
	if (n < 0)
		return -ENOMEM;
	trace_rec_meta_u64(rb, "snapshot.slow.ns", keeper_ns);
	trace_rec_meta_u64(rb, "snapshot.slow.max", keeper.cfg.max);
	trace_rec_meta(rb, "snapshot.slow.metric", jcal.metrics.m[keeper.cfg.metric].name);
	trace_rec_meta_u64(rb, "snapshot.slow.over", over);
	trace_rec_meta_u64(rb, "snapshot.slow.kept", (uint64_t)n);
	for (long i = 0; i < n && !rc; i++) {
		trace_rec_tree_slow(rb, &calls[i]);
		if (rb->oom)
			rc = -ENOMEM;
		else if (sink && trace_recbuf_pending(rb) > TREE_SNAPSHOT_FLUSH_BYTES)
			rc = sink->flush(sink->ctx, rb);
	}
	free(calls);
	return rc;
}

int tree_slow_status(uint64_t *ns, uint64_t *over, uint64_t *kept, uint64_t *max)
{
	if (!atomic_load(&keeper_on))
		return 0;
	slow_keep_counts(&keeper, kept, over);
	*ns = keeper_ns;
	*max = keeper.cfg.max;
	return 1;
}
