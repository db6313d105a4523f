/*
 * test-method-index.c - unit tests of the lock-free jmethodID ->
 * method index (agent/core/method_index.c): every key found after many grows,
 * misses are misses, readers running beside the writer find every key
 * published before they look (the event path's case), and class churn
 * keeps the memory bounded while readers run, without freeing a table
 * under them (the sanitizer build checks that part).
 *
 * Runs threads: also run under ThreadSanitizer (make tsan).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "agent/core/method_index.h"
#include "native-tests/test.h"

#define KEYS 200000

/* Keys shaped like jmethodIDs: aligned pointers, 16 bytes apart. */
static const void *key_of(size_t i)
{
	return (const void *)(uintptr_t)(0x7f0000001000ull + 16 * (uint64_t)i);
}

static void *value_of(size_t i)
{
	return (void *)(uintptr_t)(0x5000000ull + 8 * (uint64_t)i);
}

static void test_grow_and_find(void)
{
	struct method_index ix;
	size_t wrong = 0;

	CHECK_EQ_I(method_index_init(&ix), 0);
	CHECK(method_index_find(&ix, key_of(1)) == NULL);
	for (size_t i = 0; i < KEYS; i++)
		CHECK_EQ_I(method_index_add(&ix, key_of(i), value_of(i)), 0);
	for (size_t i = 0; i < KEYS; i++)
		wrong += method_index_find(&ix, key_of(i)) != value_of(i);
	CHECK_EQ_U(wrong, 0);
	CHECK(method_index_find(&ix, key_of(KEYS)) == NULL);
	CHECK(method_index_find(&ix, (const void *)(uintptr_t)8) == NULL);
	method_index_free(&ix);
	/* a freed index finds nothing */
	CHECK(method_index_find(&ix, key_of(1)) == NULL);
}

/* Class churn: keys removed (classes unloaded) stop costing memory at the
 * next rebuild; the live ones stay found through every rebuild. */
static void test_remove_bounds_memory(void)
{
	struct method_index ix;
	size_t wrong = 0, round, next = 0;

	CHECK_EQ_I(method_index_init(&ix), 0);
	for (round = 0; round < 50; round++) {
		size_t first = next;

		for (size_t i = 0; i < 10000; i++, next++)
			CHECK_EQ_I(method_index_add(&ix, key_of(next), value_of(next)), 0);
		/* all but 100 of this round's keys go */
		for (size_t i = first + 100; i < next; i++)
			method_index_remove(&ix, key_of(i));
		for (size_t i = first; i < first + 100; i++)
			wrong += method_index_find(&ix, key_of(i)) != value_of(i);
		wrong += method_index_find(&ix, key_of(first + 100)) != NULL;
	}
	CHECK_EQ_U(wrong, 0);
	CHECK_EQ_U(ix.live, 50 * 100);
	/* 500,000 keys seen, 5,000 live: the table stays a few times the live
	 * count, not the total */
	CHECK(method_index_slots(&ix) <= 65536);
	CHECK(ix.rebuilds > 10);
	/* replaced tables are reused: at most two of each size, however
	 * many rebuilds (sizes 4096..65536 here) */
	CHECK(ix.tables <= 10);
	/* removing a key twice, or one never added, changes nothing */
	method_index_remove(&ix, key_of(0 + 100));
	method_index_remove(&ix, key_of(10 * KEYS));
	CHECK_EQ_U(ix.live, 50 * 100);
	method_index_free(&ix);
}

struct shared {
	struct method_index ix;
	atomic_size_t published; /* keys 0..published-1 are in */
	atomic_int done;
	atomic_size_t lost; /* a published key not found */
	atomic_size_t checked;
};

static void *reader(void *arg)
{
	struct shared *s = arg;
	uint64_t x = (uint64_t)(uintptr_t)&x | 1;

	while (!atomic_load(&s->done)) {
		size_t n = atomic_load_explicit(&s->published, memory_order_acquire);

		if (!n)
			continue;
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		size_t i = (size_t)(x % n);
		if (method_index_find(&s->ix, key_of(i)) != value_of(i))
			atomic_fetch_add(&s->lost, 1);
		atomic_fetch_add_explicit(&s->checked, 1, memory_order_relaxed);
	}
	return NULL;
}

static void test_readers_beside_writer(void)
{
	static struct shared s;
	pthread_t t[3];

	CHECK_EQ_I(method_index_init(&s.ix), 0);
	for (int i = 0; i < 3; i++)
		CHECK_EQ_I(pthread_create(&t[i], NULL, reader, &s), 0);
	for (size_t i = 0; i < KEYS; i++) {
		method_index_add(&s.ix, key_of(i), value_of(i));
		atomic_store_explicit(&s.published, i + 1, memory_order_release);
	}
	atomic_store(&s.done, 1);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ_U(atomic_load(&s.lost), 0);
	CHECK(atomic_load(&s.checked) > 0);
	method_index_free(&s.ix);
}

/* Churn beside readers: keys come and go in rounds (rebuilds that reuse
 * replaced tables) while readers look up the keys published first, which
 * never go; each must be found every time, and none may read a freed
 * table. */
#define STAY 1000 /* keys 0..STAY-1 never removed */

static void test_churn_beside_readers(void)
{
	static struct shared c;
	pthread_t t[3];
	size_t next = STAY;

	CHECK_EQ_I(method_index_init(&c.ix), 0);
	for (size_t i = 0; i < STAY; i++)
		CHECK_EQ_I(method_index_add(&c.ix, key_of(i), value_of(i)), 0);
	atomic_store_explicit(&c.published, STAY, memory_order_release);
	for (int i = 0; i < 3; i++)
		CHECK_EQ_I(pthread_create(&t[i], NULL, reader, &c), 0);
	for (int round = 0; round < 200; round++) {
		size_t first = next;

		for (size_t i = 0; i < 3000; i++, next++)
			method_index_add(&c.ix, key_of(next), value_of(next));
		for (size_t i = first; i < next; i++)
			method_index_remove(&c.ix, key_of(i));
	}
	atomic_store(&c.done, 1);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ_U(atomic_load(&c.lost), 0);
	CHECK(atomic_load(&c.checked) > 0);
	CHECK(c.ix.rebuilds > 50);
	CHECK(c.ix.tables <= 4);
	CHECK_EQ_U(c.ix.live, STAY);
	method_index_free(&c.ix);
}

int main(void)
{
	RUN(test_grow_and_find);
	RUN(test_remove_bounds_memory);
	RUN(test_readers_beside_writer);
	RUN(test_churn_beside_readers);
	return test_summary("method-index");
}
