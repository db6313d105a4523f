/*
 * u64map.h - open-addressing hash map from uint64_t keys to uint32_t values.
 *
 * Linear probing, power-of-two capacity, load factor <= 1/2. UINT64_MAX is
 * reserved as the empty key. There is no delete: callers that need to
 * forget a key overwrite its value with a marker of their own. Used on the
 * tree builder's event path, so lookups are inline and allocation-free.
 */
#ifndef JCAL_U64MAP_H
#define JCAL_U64MAP_H

#include <stddef.h>
#include <stdint.h>

#define U64MAP_EMPTY UINT64_MAX

struct u64map {
	uint64_t *keys;
	uint32_t *vals;
	size_t mask; /* capacity - 1 */
	size_t used;
};

/* Room for cap_hint keys before the first growth; 0: no memory until the
 * first put (a map that may never be used). Returns 0, or -1 when out of
 * memory. */
int u64map_init(struct u64map *m, size_t cap_hint);
void u64map_free(struct u64map *m);

/* Inserts or overwrites key; returns 0, or -1 when out of memory (the map
 * is unchanged then). key must not be U64MAP_EMPTY. */
int u64map_put(struct u64map *m, uint64_t key, uint32_t val);

static inline size_t u64map_slot(uint64_t key, size_t mask)
{
	key *= 0x9e3779b97f4a7c15ull;
	return (size_t)(key ^ (key >> 29)) & mask;
}

/* Pointer to the value of key, or NULL. Valid until the next put. */
static inline uint32_t *u64map_find(const struct u64map *m, uint64_t key)
{
	size_t i = u64map_slot(key, m->mask);
	for (;;) {
		uint64_t k = m->keys[i];
		if (k == key)
			return &m->vals[i];
		if (k == U64MAP_EMPTY)
			return NULL;
		i = (i + 1) & m->mask;
	}
}

#endif
