/*
 * fuzz-trace-reader.c - libFuzzer harness for the trace reader:
 * trace_decode_chunk, and whole files through fmemopen into jcal-post's model.
 * The target is fuzz_trace_reader() in fuzz-targets.h, which
 * native-tests/test-fuzz-regressions.c replays. Built and run by `make fuzz`.
 */
#include "native-tests/fuzz/fuzz-targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int line = fuzz_trace_reader(data, size);

	if (line) {
		fprintf(stderr, "fuzz_trace_reader: property at fuzz-targets.h:%d failed\n", line);
		abort();
	}
	return 0;
}
