/*
 * fuzz-calib-table.c - libFuzzer harness for calib_table_parse and what jcal-post
 * does with a parsed table.
 * The target is fuzz_calib_table() in fuzz-targets.h, which
 * native-tests/test-fuzz-regressions.c replays. Built and run by `make fuzz`.
 */
#include "native-tests/fuzz/fuzz-targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int line = fuzz_calib_table(data, size);

	if (line) {
		fprintf(stderr, "fuzz_calib_table: property at fuzz-targets.h:%d failed\n", line);
		abort();
	}
	return 0;
}
