/*
 * method_index.c - the lock-free jmethodID -> method look-up
 * (method_index.h): open addressing with linear probing, a key published
 * after its value (release) and read before it (acquire).
 */
#include "method_index.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define INDEX_MIN_SLOTS 4096 /* a power of two */

struct index_slot {
	const void *_Atomic key;
	void *_Atomic value;
};

struct method_index_table {
	size_t mask; /* slots - 1 */
	struct method_index_table *older;
	struct index_slot slot[];
};

static size_t slot_of(const void *key, size_t mask)
{
	/* jmethodIDs are aligned pointers: mix the high bits in (Fibonacci). */
	uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 20) & mask;
}

static struct method_index_table *table_new(size_t slots)
{
	struct method_index_table *t = calloc(1, sizeof(*t) + slots * sizeof(t->slot[0]));

	if (t)
		t->mask = slots - 1;
	return t;
}

int method_index_init(struct method_index *ix)
{
	struct method_index_table *t = table_new(INDEX_MIN_SLOTS);

	atomic_store_explicit(&ix->cur, t, memory_order_release);
	ix->count = 0;
	return t ? 0 : -1;
}

void *method_index_find(struct method_index *ix, const void *key)
{
	struct method_index_table *t = atomic_load_explicit(&ix->cur, memory_order_acquire);

	if (!t)
		return NULL;
	for (size_t i = slot_of(key, t->mask);; i = (i + 1) & t->mask) {
		const void *k = atomic_load_explicit(&t->slot[i].key, memory_order_acquire);

		if (k == key)
			return atomic_load_explicit(&t->slot[i].value, memory_order_relaxed);
		if (!k)
			return NULL;
	}
}

/* Writers only: places key -> value in t, which has room. */
static void put(struct method_index_table *t, const void *key, void *value)
{
	size_t i = slot_of(key, t->mask);

	while (atomic_load_explicit(&t->slot[i].key, memory_order_relaxed))
		i = (i + 1) & t->mask;
	atomic_store_explicit(&t->slot[i].value, value, memory_order_relaxed);
	atomic_store_explicit(&t->slot[i].key, key, memory_order_release);
}

int method_index_add(struct method_index *ix, const void *key, void *value)
{
	struct method_index_table *t = atomic_load_explicit(&ix->cur, memory_order_relaxed);

	if (!t)
		return -1;
	/* At most half full, so that probes stay short and always end. */
	if (2 * (ix->count + 1) > t->mask + 1) {
		struct method_index_table *bigger = table_new(2 * (t->mask + 1));

		if (!bigger)
			return -1;
		for (size_t i = 0; i <= t->mask; i++) {
			const void *k = atomic_load_explicit(&t->slot[i].key, memory_order_relaxed);

			if (k)
				put(bigger, k,
				    atomic_load_explicit(&t->slot[i].value, memory_order_relaxed));
		}
		bigger->older = t;
		atomic_store_explicit(&ix->cur, bigger, memory_order_release);
		t = bigger;
	}
	put(t, key, value);
	ix->count++;
	return 0;
}

void method_index_free(struct method_index *ix)
{
	struct method_index_table *t = atomic_load_explicit(&ix->cur, memory_order_relaxed);

	while (t) {
		struct method_index_table *older = t->older;

		free(t);
		t = older;
	}
	atomic_store_explicit(&ix->cur, NULL, memory_order_relaxed);
	ix->count = 0;
}
