/*
 * alloc_limit.h - the largest single request the code under test makes of
 * malloc, calloc and realloc, for tests that assert that an input never
 * makes jcal-post ask for more memory than the input can justify (a count
 * read from a file is checked before it sizes an allocation).
 *
 * Include it in one test file and link that test with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc (Makefile): the calls of
 * every object linked in (not those inside the C library) then go through
 * the wrappers below. Safe from several threads.
 */
#ifndef JCAL_TEST_ALLOC_LIMIT_H
#define JCAL_TEST_ALLOC_LIMIT_H

#include <stddef.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

static size_t alloc_largest;

static void alloc_note(size_t n)
{
	size_t cur = __atomic_load_n(&alloc_largest, __ATOMIC_RELAXED);

	while (n > cur && !__atomic_compare_exchange_n(&alloc_largest, &cur, n, 1, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
}

void *__wrap_malloc(size_t n)
{
	alloc_note(n);
	return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	alloc_note(size && n > (size_t)-1 / size ? (size_t)-1 : n * size);
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	alloc_note(n);
	return __real_realloc(p, n);
}

/* Starts a new measure; returns the largest request since the last. */
static inline size_t alloc_largest_reset(void)
{
	return __atomic_exchange_n(&alloc_largest, 0, __ATOMIC_RELAXED);
}

#endif
