/*
 * fuzz-agent-options.c - libFuzzer harness for jcal_options_parse and
 * jcal_options_expand_out.
 * The target is fuzz_agent_options() in fuzz-targets.h, which
 * native-tests/test-fuzz-regressions.c replays. Built and run by `make fuzz`.
 */
#include "native-tests/fuzz/fuzz-targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int line = fuzz_agent_options(data, size);

	if (line) {
		fprintf(stderr, "fuzz_agent_options: property at fuzz-targets.h:%d failed\n", line);
		abort();
	}
	return 0;
}
