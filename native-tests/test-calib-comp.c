/*
 * test-calib-comp.c - the compensation's arithmetic (common/calib_comp.h) at
 * its edges.
 */
#include <stdint.h>

#include "common/calib_comp.h"
#include "native-tests/test.h"

/* The saturating subtraction every compensated delta goes through: 0
 * below the overhead, at most INT64_MAX, exact in between. */
static void test_comp_sub_edges(void)
{
	CHECK_EQ_U(calib_comp_sub(10, 3), 7);
	CHECK_EQ_U(calib_comp_sub(3, 10), 0);
	CHECK_EQ_U(calib_comp_sub(5, 5), 0);
	CHECK_EQ_U(calib_comp_sub(0, 0), 0);
	CHECK_EQ_U(calib_comp_sub(0, UINT64_MAX), 0);
	CHECK_EQ_U(calib_comp_sub(UINT64_MAX, UINT64_MAX - 1), 1);
	CHECK_EQ_U(calib_comp_sub(UINT64_MAX, 0), INT64_MAX);
	CHECK_EQ_U(calib_comp_sub((uint64_t)INT64_MAX + 5, 5), INT64_MAX);
	CHECK_EQ_U(calib_comp_sub((uint64_t)INT64_MAX + 5, 4), INT64_MAX);
	CHECK_EQ_U(calib_comp_sub((uint64_t)INT64_MAX + 5, 6), INT64_MAX - 1);
}

int main(void)
{
	RUN(test_comp_sub_edges);
	return test_summary("calib-comp");
}
