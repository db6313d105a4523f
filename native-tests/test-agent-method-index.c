/*
 * test-agent-method-index.c - unit tests of the lock-free jmethodID ->
 * method index (agent/method_index.c): every key found after many grows,
 * misses are misses, and readers running beside the writer find every key
 * published before they look (the event path's case).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "method_index.h"
#include "test.h"

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

int main(void)
{
	RUN(test_grow_and_find);
	RUN(test_readers_beside_writer);
	return test_summary("method-index");
}
