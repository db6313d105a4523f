/*
 * gen-snapshots.c - writes the tree snapshots of many recordings of one
 * program (native-tests/snapgen.h), DIR/snap-I.bin, for the figures of a
 * merge of many inputs in docs/performance.md.
 *
 * usage: gen-snapshots DIR COUNT
 */
#include <stdio.h>
#include <stdlib.h>

#include "native-tests/snapgen.h"

int main(int argc, char **argv)
{
	char path[4096];

	if (argc < 3) {
		fprintf(stderr, "usage: gen-snapshots DIR COUNT\n");
		return 2;
	}
	unsigned long n = strtoul(argv[2], NULL, 10);

	if (n < 1 || n > 1000000ul) {
		fprintf(stderr, "gen-snapshots: error: COUNT 1..1000000\n");
		return 2;
	}
	for (unsigned i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/snap-%u.bin", argv[1], i);
		if (snapgen_write(path, i)) {
			perror(path);
			return 1;
		}
	}
	return 0;
}
