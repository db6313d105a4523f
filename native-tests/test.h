/*
 * test.h - tiny test macros for the native unit tests.
 *
 * Each test-*.c defines test functions returning void and lists them in
 * main() with RUN(fn). A failed CHECK prints file:line and the expression
 * and fails the current test; main() returns test_summary(), which prints
 * "N passed, N failed" and the exit status.
 *
 * With JCAL_TEST_ONLY set to a test function's name (or several, separated
 * by commas), RUN runs only those and counts nothing else: `make check
 * T=calltree:test_rest_between_events` (scripts/check.sh). A test that
 * needs what an earlier one left behind may fail alone.
 */
#ifndef JCAL_TEST_H
#define JCAL_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_passed, test_failed, test_cur_failed;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			test_cur_failed = 1;                                                       \
		}                                                                                  \
	} while (0)

#define CHECK_EQ_U(a, b)                                                                           \
	do {                                                                                       \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                   \
		if (a_ != b_) {                                                                    \
			fprintf(stderr, "  %s:%d: %s == %s: %" PRIu64 " != %" PRIu64 "\n",         \
				__FILE__, __LINE__, #a, #b, a_, b_);                               \
			test_cur_failed = 1;                                                       \
		}                                                                                  \
	} while (0)

#define CHECK_EQ_I(a, b)                                                                           \
	do {                                                                                       \
		int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);                                      \
		if (a_ != b_) {                                                                    \
			fprintf(stderr, "  %s:%d: %s == %s: %" PRId64 " != %" PRId64 "\n",         \
				__FILE__, __LINE__, #a, #b, a_, b_);                               \
			test_cur_failed = 1;                                                       \
		}                                                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                           \
			fprintf(                                                                   \
			    stderr,                                                                \
			    "  %s:%d: %s == %s:\n    got:      \"%s\"\n    expected: \"%s\"\n",    \
			    __FILE__, __LINE__, #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");   \
			test_cur_failed = 1;                                                       \
		}                                                                                  \
	} while (0)

/* Whether JCAL_TEST_ONLY (unset or empty: every test) names the test. */
static inline int test_selected(const char *name)
{
	const char *only = getenv("JCAL_TEST_ONLY");
	size_t n = strlen(name);

	if (!only || !*only)
		return 1;
	for (const char *p = only;; p++) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, name, n))
			return 1;
		p += len;
		if (!*p)
			return 0;
	}
}

#define RUN(fn)                                                                                    \
	do {                                                                                       \
		if (!test_selected(#fn))                                                           \
			break;                                                                     \
		test_cur_failed = 0;                                                               \
		fn();                                                                              \
		if (test_cur_failed) {                                                             \
			test_failed++;                                                             \
			fprintf(stderr, "FAIL %s\n", #fn);                                         \
		} else {                                                                           \
			test_passed++;                                                             \
			printf("ok   %s\n", #fn);                                                  \
		}                                                                                  \
	} while (0)

static inline int test_summary(const char *suite)
{
	printf("%s: %d passed, %d failed\n", suite, test_passed, test_failed);
	return test_failed ? 1 : 0;
}

#endif
