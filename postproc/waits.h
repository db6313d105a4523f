/*
 * waits.h - the waits the JVM reported in a trace (MONITOR records,
 * common/trace_monitor.h), as the model keeps them: per record its thread,
 * kind, method, the monitor's class (interned) and the thread's metric
 * readings' differences over the wait. The figures reports show are
 * wait_sum.h's.
 */
#ifndef JCAL_WAITS_H
#define JCAL_WAITS_H

#include <stddef.h>
#include <stdint.h>

#include "common/trace_monitor.h"

struct waits_rec {
	uint32_t serial;
	uint8_t kind;	   /* enum trace_monitor_kind */
	uint8_t timed_out; /* a wait that ended by its timeout */
	uint32_t method;   /* METHOD id, 0 not known */
	uint32_t cls;	   /* index in waits.cls */
	uint64_t wall_ns;  /* the record's own wall clock span */
	unsigned nmetrics;
	uint64_t start[JCAL_MAX_METRICS]; /* the thread's metric values at the start */
	uint64_t delta[JCAL_MAX_METRICS]; /* end - start per metric; 0 when it went back */
};

struct waits_cls_idx;

struct waits {
	struct waits_rec *r;
	size_t n, cap;
	char **cls; /* class signatures, "Lpkg/C;" */
	size_t ncls, cls_cap;
	struct waits_cls_idx *idx; /* uthash by signature */
	uint64_t other_kinds;	   /* records of a kind this reader does not know: left out */
};

/* Keeps the record m (a kind not known is only counted). 0, or -1 when
 * memory runs out. */
int waits_add(struct waits *w, const struct trace_monitor *m);

void waits_free(struct waits *w);

#endif
