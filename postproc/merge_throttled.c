/*
 * merge_throttled.c - the throttled methods of a merged profile
 * (merge_throttled.h).
 */
#include "postproc/merge_throttled.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/satsum.h"
#include "common/u64map.h"
#include "postproc/throttled.h"

/* The entry of the profile's method id, made when new; NULL without memory. */
static struct throttle_fact *entry(struct merge_throttled *t, uint32_t id)
{
	uint32_t *at;

	if (!t->idx.keys && u64map_init(&t->idx, 0))
		return NULL;
	if ((at = u64map_find(&t->idx, id)))
		return &t->f[*at];
	if (grow(&t->f, &t->cap, t->n + 1) || u64map_put(&t->idx, id, (uint32_t)t->n))
		return NULL;
	memset(&t->f[t->n], 0, sizeof(t->f[t->n]));
	t->f[t->n].method = id;
	t->f[t->n].time_ns = UINT64_MAX;
	t->f[t->n].has_final = 1;
	t->f[t->n].has_counted = 1;
	return &t->f[t->n++];
}

int merge_throttled_add(struct merge_throttled *t, const struct model *in,
			uint32_t (*map)(void *ctx, uint32_t id), void *ctx)
{
	struct throttle_fact *v;
	size_t n, bad;
	const char *rule = throttled_rule(in), *time = model_meta(in, THROTTLE_META_TIME);
	const char *tiny = model_meta(in, THROTTLE_META_TINY);
	const char *inlined = model_meta(in, THROTTLE_META_INLINED);

	if (!rule)
		return 0;
	if (!t->rule[0]) {
		snprintf(t->rule, sizeof(t->rule), "%s", rule);
		snprintf(t->time, sizeof(t->time), "%s", time ? time : "");
	}
	if (!t->tiny[0] && tiny)
		snprintf(t->tiny, sizeof(t->tiny), "%s", tiny);
	if (!t->inlined[0] && inlined)
		snprintf(t->inlined, sizeof(t->inlined), "%s", inlined);
	if (throttled_list(in, &v, &n, &bad))
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct throttle_fact *e = entry(t, map(ctx, v[i].method));

		if (!e) {
			free(v);
			return -1;
		}
		if (v[i].time_ns < e->time_ns)
			e->time_ns = v[i].time_ns;
		satsum_addto(&e->calls, v[i].calls, SATSUM_CALLS);
		satsum_addto(&e->final_calls, throttled_calls(&v[i]), SATSUM_CALLS);
		satsum_addto(&e->timed, v[i].timed, SATSUM_CALLS);
		satsum_addto(&e->sum, v[i].sum, SATSUM_BASE);
		satsum_addto(&e->counted, v[i].has_counted ? v[i].counted : 0, SATSUM_CALLS);
		e->tiny |= v[i].tiny;
		e->inlined |= v[i].inlined && !e->tiny;
	}
	free(v);
	return 0;
}

int merge_throttled_write(const struct merge_throttled *t, struct trace_visitor *v)
{
	char key[64], val[256];

	if (!t->rule[0])
		return 0;
	if (v->meta(v->ctx, THROTTLE_META_RULE, t->rule) ||
	    (t->time[0] && v->meta(v->ctx, THROTTLE_META_TIME, t->time)) ||
	    (t->tiny[0] && v->meta(v->ctx, THROTTLE_META_TINY, t->tiny)) ||
	    (t->inlined[0] && v->meta(v->ctx, THROTTLE_META_INLINED, t->inlined)))
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		struct throttle_fact f = t->f[i];

		f.has_counted = f.counted > 0;
		if (!throttle_fact_format(&f, key, sizeof(key), val, sizeof(val)) &&
		    v->meta(v->ctx, key, val))
			return -1;
	}
	return 0;
}

void merge_throttled_free(struct merge_throttled *t)
{
	free(t->f);
	if (t->idx.keys)
		u64map_free(&t->idx);
	memset(t, 0, sizeof(*t));
}
