/*
 * gen-threads.c - writes a synthetic trace of many short threads
 * (native-tests/threadgen.h), for the per-thread memory figures of
 * docs/performance.md.
 *
 * usage: gen-threads OUT THREADS [METRICS]
 */
#include <stdio.h>
#include <stdlib.h>

#include "native-tests/threadgen.h"

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: gen-threads OUT THREADS [METRICS]\n");
		return 2;
	}
	unsigned long n = strtoul(argv[2], NULL, 10);
	unsigned nm = argc > 3 ? (unsigned)atoi(argv[3]) : 1;

	if (n < 1 || n > 100000000ul || nm < 1 || nm > 4) {
		fprintf(stderr, "gen-threads: error: THREADS 1..100000000, METRICS 1..4\n");
		return 2;
	}
	if (threadgen_write(argv[1], (uint32_t)n, nm)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
