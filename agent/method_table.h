/*
 * method_table.h - jmethodID -> method id, modifiers and compiled state.
 *
 * One global uthash table (mutex; entered once per new method) that assigns
 * ids and writes each METHOD record exactly once, and a small per-thread
 * 2-way cache in front of it so that the event path normally takes no lock.
 */
#ifndef JCAL_METHOD_TABLE_H
#define JCAL_METHOD_TABLE_H

#include <jvmti.h>
#include <stdatomic.h>
#include <stdint.h>

#include "uthash.h"

struct jcal_method {
	jmethodID mid;
	uint32_t id;
	uint32_t modifiers;
	atomic_int compiled; /* live compiled versions (CompiledMethodLoad - Unload) */
	UT_hash_handle hh;
};

#define METHOD_CACHE_SETS 2048 /* x 2 ways */

struct method_cache {
	jmethodID mid[METHOD_CACHE_SETS][2];
	struct jcal_method *m[METHOD_CACHE_SETS][2];
};

/* Finds or defines the method (writing its METHOD record). jni may be NULL.
 * Returns NULL only when memory runs out. */
struct jcal_method *method_table_get(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID mid);
/* Finds without defining. */
struct jcal_method *method_table_find(jmethodID mid);
uint32_t method_table_count(void);
void method_table_free(void);

static inline unsigned method_cache_set(jmethodID mid)
{
	uintptr_t h = (uintptr_t)mid;
	h ^= h >> 17;
	h *= 0x9e3779b97f4a7c15ull;
	return (unsigned)(h >> 40) & (METHOD_CACHE_SETS - 1);
}

/* The event-path lookup: cache hit without a lock, else the global table. */
static inline struct jcal_method *method_cache_get(struct method_cache *c, jvmtiEnv *jvmti,
						   JNIEnv *jni, jmethodID mid)
{
	unsigned s = method_cache_set(mid);
	struct jcal_method *m;

	if (c->mid[s][0] == mid)
		return c->m[s][0];
	if (c->mid[s][1] == mid) {
		/* Keep the most recent in way 0. */
		m = c->m[s][1];
		c->mid[s][1] = c->mid[s][0];
		c->m[s][1] = c->m[s][0];
		c->mid[s][0] = mid;
		c->m[s][0] = m;
		return m;
	}
	m = method_table_get(jvmti, jni, mid);
	if (m) {
		c->mid[s][1] = c->mid[s][0];
		c->m[s][1] = c->m[s][0];
		c->mid[s][0] = mid;
		c->m[s][0] = m;
	}
	return m;
}

#endif
