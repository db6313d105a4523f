/*
 * test-grow.c - unit tests of the growable array (common/grow.h): first
 * allocation, doubling, a need beyond the double, no-op when there is room,
 * and the overflow cases that must fail with the array left as it was.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/grow.h"
#include "native-tests/test.h"

struct pair {
	uint64_t a, b;
};

static void test_first_and_doubling(void)
{
	struct pair *p = NULL;
	size_t cap = 0;

	CHECK_EQ_I(grow(&p, &cap, 1), 0);
	CHECK(p != NULL);
	CHECK_EQ_U(cap, GROW_FIRST);
	for (size_t i = 0; i < 1000; i++) {
		CHECK_EQ_I(grow(&p, &cap, i + 1), 0);
		p[i].a = i;
		p[i].b = ~i;
	}
	CHECK_EQ_U(cap, GROW_FIRST * 64); /* 16 doubled to the first >= 1000 */
	for (size_t i = 0; i < 1000; i++)
		CHECK(p[i].a == i && p[i].b == ~i);
	free(p);
}

static void test_room_and_large_need(void)
{
	char *s = NULL, *before;
	size_t cap = 0;

	/* need 0 still allocates: callers rely on a non-NULL array */
	CHECK_EQ_I(grow(&s, &cap, 0), 0);
	CHECK(s != NULL);
	CHECK_EQ_U(cap, GROW_FIRST);
	before = s;
	CHECK_EQ_I(grow(&s, &cap, GROW_FIRST), 0);
	CHECK(s == before);
	CHECK_EQ_U(cap, GROW_FIRST);
	CHECK_EQ_I(grow(&s, &cap, 100000), 0); /* doubled until it fits */
	CHECK_EQ_U(cap, 131072);
	s[99999] = 'x';
	free(s);
}

static void test_overflow(void)
{
	uint16_t *p = malloc(4 * sizeof(*p)), *before = p;
	size_t cap = 4;

	/* need * elem beyond size_t: refused before any allocation */
	errno = 0;
	CHECK_EQ_I(grow(&p, &cap, SIZE_MAX / 2 + 1), -1);
	CHECK_EQ_I(errno, ENOMEM);
	CHECK(p == before);
	CHECK_EQ_U(cap, 4);
	/* doubling a capacity past half of size_t must not wrap to a small one */
	cap = SIZE_MAX / 4 + 1;
	errno = 0;
	CHECK_EQ_I(grow(&p, &cap, cap + 1), -1);
	CHECK_EQ_I(errno, ENOMEM);
	CHECK(p == before);
	CHECK_EQ_U(cap, SIZE_MAX / 4 + 1);
	cap = SIZE_MAX / 2 + 1;
	CHECK_EQ_I(grow(&p, &cap, SIZE_MAX), -1);
	CHECK(p == before);
	CHECK_EQ_U(cap, SIZE_MAX / 2 + 1);
	free(p);
}

int main(void)
{
	RUN(test_first_and_doubling);
	RUN(test_room_and_large_need);
	RUN(test_overflow);
	return test_summary("grow");
}
