/*
 * test-jit-inlined.c - inlined=count's walk over a CompiledMethodLoad
 * event's records (agent/bci/jit_inlined.c): the methods below the root of
 * each inlining stack are the inlined ones, the root and records of other
 * kinds are not, an empty or missing record gives none, and a chain that
 * loops back on itself ends.
 */
#include <string.h>

#include "agent/bci/jit_inlined.h"
#include "native-tests/test.h"

/* Method ids are opaque to the walk: small fake addresses. */
#define M(n) ((jmethodID)(uintptr_t)(0x1000 + (n)))

struct found {
	jmethodID m[32];
	size_t n;
};

static void add(void *ctx, jmethodID m)
{
	struct found *f = ctx;

	if (f->n < 32)
		f->m[f->n++] = m;
}

static void test_walk(void)
{
	/* pc 0: root 1 alone; pc 1: 3 inlined into 2 inlined into the root 1;
	 * pc 2: 4 inlined into 1 */
	jmethodID s0[] = {M(1)}, s1[] = {M(3), M(2), M(1)}, s2[] = {M(4), M(1)};
	jint b0[] = {0}, b1[] = {5, 7, 9}, b2[] = {2, 11};
	PCStackInfo pcs[] = {{NULL, 1, s0, b0}, {NULL, 3, s1, b1}, {NULL, 2, s2, b2}};
	jvmtiCompiledMethodLoadInlineRecord inl;
	jvmtiCompiledMethodLoadDummyRecord dummy;
	struct found f;

	memset(&inl, 0, sizeof(inl));
	memset(&dummy, 0, sizeof(dummy));
	inl.header.kind = JVMTI_CMLR_INLINE_INFO;
	inl.numpcs = 3;
	inl.pcinfo = pcs;
	/* a record of another kind first: skipped */
	dummy.header.kind = JVMTI_CMLR_DUMMY;
	dummy.header.next = &inl.header;
	memset(&f, 0, sizeof(f));
	CHECK_EQ_U(jit_inlined_walk(&dummy.header, add, &f), 3);
	CHECK_EQ_U(f.n, 3);
	CHECK(f.m[0] == M(3) && f.m[1] == M(2) && f.m[2] == M(4));
	/* none: no records, no pcs, a stack of one */
	memset(&f, 0, sizeof(f));
	CHECK_EQ_U(jit_inlined_walk(NULL, add, &f), 0);
	inl.numpcs = 1;
	CHECK_EQ_U(jit_inlined_walk(&inl.header, add, &f), 0);
	inl.pcinfo = NULL;
	inl.numpcs = 3;
	CHECK_EQ_U(jit_inlined_walk(&inl.header, add, &f), 0);
	CHECK_EQ_U(f.n, 0);
	/* a chain that comes back to itself ends (64 records at most) */
	inl.pcinfo = pcs;
	inl.header.next = &inl.header;
	CHECK_EQ_U(jit_inlined_walk(&inl.header, add, &f), 64 * 3);
}

int main(void)
{
	RUN(test_walk);
	return test_summary("jit-inlined");
}
