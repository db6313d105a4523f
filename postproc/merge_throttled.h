/*
 * merge_throttled.h - the throttled methods of a merged profile (jcal-post
 * FILE..., postproc/merge.c): each input's throttle.method.ID records
 * (common/throttle_fact.h) taken to the profile's method ids and added up,
 * so that the flat report of the profile counts every input's calls made
 * after a method lost its probes (docs/jcal-post.md, "Many inputs").
 */
#ifndef JCAL_MERGE_THROTTLED_H
#define JCAL_MERGE_THROTTLED_H

#include <stddef.h>
#include <stdint.h>

#include "common/throttle_fact.h"
#include "common/trace_reader.h"
#include "common/u64map.h"
#include "postproc/model.h"

struct merge_throttled {
	struct throttle_fact *f; /* in the order first met */
	size_t n, cap;
	struct u64map idx; /* the profile's method id -> its index in f */
	char rule[64];	   /* the first throttled input's throttle= */
	char time[16];	   /* its throttle.time */
	char tiny[16];	   /* the first input's meta throttle.tiny (tiny=count), or empty */
	char inlined[16];  /* the first input's meta throttle.inlined (inlined=count), or empty */
};

/* Adds the input's records, its method ids through map(ctx, id). Returns 0
 * or -1 (no memory). */
int merge_throttled_add(struct merge_throttled *t, const struct model *in,
			uint32_t (*map)(void *ctx, uint32_t id), void *ctx);

/* The profile's meta records: throttle, throttle.time and one
 * throttle.method.ID per method (earliest time, calls, timed, sum and
 * counted added up); nothing when no input was throttled. 0 or -1. */
int merge_throttled_write(const struct merge_throttled *t, struct trace_visitor *v);

void merge_throttled_free(struct merge_throttled *t);

#endif
