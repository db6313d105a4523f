/*
 * method_index.c - the lock-free jmethodID -> method look-up
 * (method_index.h): open addressing with linear probing, a key published
 * after its value (release) and read before it (acquire); tables replaced
 * by a rebuild are kept as spares and reused under a sequence count,
 * never freed while readers may run.
 */
#include "agent/core/method_index.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define INDEX_MIN_SLOTS 4096 /* a power of two */

struct index_slot {
	const void *_Atomic key;
	void *_Atomic value;
};

struct method_index_table {
	size_t mask; /* slots - 1; a table keeps its size for good */
	/* Even while the table holds what it says; odd while a writer clears
	 * and refills it (a spare being reused): readers that saw it change
	 * look again (a seqlock). */
	_Atomic uint64_t seq;
	struct method_index_table *next_spare; /* writers only */
	struct index_slot slot[];
};

static size_t slot_of(const void *key, size_t mask)
{
	/* jmethodIDs are aligned pointers: mix the high bits in (Fibonacci). */
	uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 20) & mask;
}

static struct method_index_table *table_new(struct method_index *ix, size_t slots)
{
	struct method_index_table *t = calloc(1, sizeof(*t) + slots * sizeof(t->slot[0]));

	if (t) {
		t->mask = slots - 1;
		ix->tables++;
	}
	return t;
}

int method_index_init(struct method_index *ix)
{
	struct method_index_table *t;

	ix->count = 0;
	ix->live = 0;
	ix->rebuilds = 0;
	ix->tables = 0;
	ix->spares = NULL;
	t = table_new(ix, INDEX_MIN_SLOTS);
	atomic_store_explicit(&ix->cur, t, memory_order_release);
	return t ? 0 : -1;
}

/* The value of key in t, NULL when t does not hold it; *stable is 0 when
 * a writer refilled t meanwhile (the answer is then worth nothing). */
static void *find_in(struct method_index_table *t, const void *key, int *stable)
{
	const uint64_t seq = atomic_load_explicit(&t->seq, memory_order_acquire);
	void *v = NULL;
	size_t i = slot_of(key, t->mask);

	if (seq & 1) {
		*stable = 0;
		return NULL;
	}
	/* at most every slot: a table is never more than half full, but one
	 * being refilled beside this look-up is only bounded by its size */
	for (size_t n = 0; n <= t->mask; n++, i = (i + 1) & t->mask) {
		const void *k = atomic_load_explicit(&t->slot[i].key, memory_order_acquire);

		if (k == key) {
			v = atomic_load_explicit(&t->slot[i].value, memory_order_relaxed);
			break;
		}
		if (!k)
			break;
	}
	atomic_thread_fence(memory_order_acquire);
	*stable = atomic_load_explicit(&t->seq, memory_order_relaxed) == seq;
	return v;
}

/* How often a reader looks again when the table it read was refilled
 * under it; then it answers NULL (the caller's locked path). */
#define FIND_TRIES 8

void *method_index_find(struct method_index *ix, const void *key)
{
	for (int i = 0; i < FIND_TRIES; i++) {
		struct method_index_table *t = atomic_load_explicit(&ix->cur, memory_order_acquire);
		int stable;
		void *v;

		if (!t)
			return NULL;
		v = find_in(t, key, &stable);
		if (stable)
			return v;
	}
	return NULL;
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

/* Writers only: the next value of t's sequence count (one writer at a
 * time, so a load and a store). */
static void seq_step(struct method_index_table *t, memory_order order)
{
	atomic_store_explicit(&t->seq, atomic_load_explicit(&t->seq, memory_order_relaxed) + 1,
			      order);
}

/* Writers only: a spare table of slots slots, taken off the spares and
 * emptied (odd seq: readers still in it from before look again), or a new
 * one. */
static struct method_index_table *table_for_rebuild(struct method_index *ix, size_t slots)
{
	struct method_index_table **pp = &ix->spares, *t;

	for (; *pp; pp = &(*pp)->next_spare)
		if ((*pp)->mask == slots - 1)
			break;
	t = *pp;
	if (!t)
		return table_new(ix, slots);
	*pp = t->next_spare;
	t->next_spare = NULL;
	seq_step(t, memory_order_relaxed); /* odd: being refilled */
	atomic_thread_fence(memory_order_release);
	for (size_t i = 0; i <= t->mask; i++) {
		atomic_store_explicit(&t->slot[i].key, NULL, memory_order_relaxed);
		atomic_store_explicit(&t->slot[i].value, NULL, memory_order_relaxed);
	}
	return t;
}

/* Writers only: a table for the live entries of t (removed ones left
 * out) with room for as many again, published; t becomes a spare (see
 * method_index.h on why no table is freed while the index lives). */
static struct method_index_table *rebuild(struct method_index *ix, struct method_index_table *t)
{
	size_t slots = INDEX_MIN_SLOTS;
	struct method_index_table *next;

	while (slots < 4 * (ix->live + 1))
		slots *= 2;
	next = table_for_rebuild(ix, slots);
	if (!next)
		return NULL;
	for (size_t i = 0; i <= t->mask; i++) {
		const void *k = atomic_load_explicit(&t->slot[i].key, memory_order_relaxed);
		void *v = atomic_load_explicit(&t->slot[i].value, memory_order_relaxed);

		if (k && v)
			put(next, k, v);
	}
	/* even again: a reused table holds what it says from here on */
	if (atomic_load_explicit(&next->seq, memory_order_relaxed) & 1)
		seq_step(next, memory_order_release);
	atomic_store_explicit(&ix->cur, next, memory_order_release);
	t->next_spare = ix->spares;
	ix->spares = t;
	ix->count = ix->live;
	ix->rebuilds++;
	return next;
}

int method_index_add(struct method_index *ix, const void *key, void *value)
{
	struct method_index_table *t = atomic_load_explicit(&ix->cur, memory_order_relaxed);

	if (!t)
		return -1;
	/* At most half full (removed keys count until a rebuild drops them),
	 * so that probes stay short and always end. */
	if (2 * (ix->count + 1) > t->mask + 1 && !(t = rebuild(ix, t)))
		return -1;
	put(t, key, value);
	ix->count++;
	ix->live++;
	return 0;
}

void method_index_remove(struct method_index *ix, const void *key)
{
	struct method_index_table *t = atomic_load_explicit(&ix->cur, memory_order_relaxed);

	if (!t)
		return;
	for (size_t i = slot_of(key, t->mask);; i = (i + 1) & t->mask) {
		const void *k = atomic_load_explicit(&t->slot[i].key, memory_order_relaxed);

		if (!k)
			return;
		if (k == key) {
			/* The key stays as a tombstone: probes pass over it. */
			if (atomic_load_explicit(&t->slot[i].value, memory_order_relaxed)) {
				atomic_store_explicit(&t->slot[i].value, NULL,
						      memory_order_relaxed);
				ix->live--;
			}
			return;
		}
	}
}

size_t method_index_slots(struct method_index *ix)
{
	struct method_index_table *t = atomic_load_explicit(&ix->cur, memory_order_relaxed);

	return t ? t->mask + 1 : 0;
}

void method_index_free(struct method_index *ix)
{
	struct method_index_table *t = atomic_load_explicit(&ix->cur, memory_order_relaxed);

	while (ix->spares) {
		struct method_index_table *next = ix->spares->next_spare;

		free(ix->spares);
		ix->spares = next;
	}
	free(t);
	atomic_store_explicit(&ix->cur, NULL, memory_order_relaxed);
	ix->count = 0;
	ix->live = 0;
	ix->tables = 0;
}
