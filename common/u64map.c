/*
 * u64map.c - growth and insertion for the uint64 -> uint32 hash map.
 */
#include "common/u64map.h"

#include <stdlib.h>
#include <string.h>

/* The table of a map made with no room (u64map_init(m, 0)): one empty
 * slot, never written, so that a look-up finds nothing without a test of
 * its own; the first put allocates. */
static uint64_t empty_keys[1] = {U64MAP_EMPTY};
static uint32_t empty_vals[1];

#define FIRST_CAP 16

static int alloc_table(struct u64map *m, size_t cap)
{
	m->keys = malloc(cap * sizeof(*m->keys));
	m->vals = malloc(cap * sizeof(*m->vals));
	if (!m->keys || !m->vals) {
		free(m->keys);
		free(m->vals);
		m->keys = NULL;
		m->vals = NULL;
		return -1;
	}
	memset(m->keys, 0xff, cap * sizeof(*m->keys));
	m->mask = cap - 1;
	m->used = 0;
	return 0;
}

int u64map_init(struct u64map *m, size_t cap_hint)
{
	size_t cap = FIRST_CAP;

	if (!cap_hint) {
		m->keys = empty_keys;
		m->vals = empty_vals;
		m->mask = 0;
		m->used = 0;
		return 0;
	}
	while (cap < cap_hint * 2)
		cap <<= 1;
	return alloc_table(m, cap);
}

void u64map_free(struct u64map *m)
{
	if (m->keys != empty_keys) {
		free(m->keys);
		free(m->vals);
	}
	memset(m, 0, sizeof(*m));
}

static void insert_new(struct u64map *m, uint64_t key, uint32_t val)
{
	size_t i = u64map_slot(key, m->mask);
	while (m->keys[i] != U64MAP_EMPTY)
		i = (i + 1) & m->mask;
	m->keys[i] = key;
	m->vals[i] = val;
	m->used++;
}

static int grow(struct u64map *m)
{
	struct u64map old = *m;
	size_t cap = old.keys == empty_keys ? FIRST_CAP : (m->mask + 1) * 2;

	if (alloc_table(m, cap)) {
		*m = old;
		return -1;
	}
	for (size_t i = 0; i <= old.mask; i++)
		if (old.keys[i] != U64MAP_EMPTY)
			insert_new(m, old.keys[i], old.vals[i]);
	if (old.keys != empty_keys) {
		free(old.keys);
		free(old.vals);
	}
	return 0;
}

int u64map_put(struct u64map *m, uint64_t key, uint32_t val)
{
	uint32_t *v = u64map_find(m, key);

	if (v) {
		*v = val;
		return 0;
	}
	if ((m->used + 1) * 2 > m->mask + 1 && grow(m))
		return -1;
	insert_new(m, key, val);
	return 0;
}
