/*
 * fuzz-bci-rewrite.c - libFuzzer harness for the mode=bci class rewriter:
 * parse, rewrite and write back a class file, then check the result parses
 * with the same methods and their probes. The target is fuzz_bci_rewrite()
 * in fuzz-bci-target.h, which native-tests/test-fuzz-regressions.c replays.
 * Built and run by `make fuzz`.
 */
#include "native-tests/fuzz/fuzz-targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int line = fuzz_bci_rewrite(data, size);

	if (line) {
		fprintf(stderr, "fuzz_bci_rewrite: property at fuzz-bci-target.h:%d failed\n",
			line);
		abort();
	}
	return 0;
}
