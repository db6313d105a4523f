/*
 * flat.c - includes its header by its name alone, not by its path from
 * the repository root: scripts/check-includes.sh must report it
 * (native-tests/lint/run.sh). Never compiled.
 */
#include "flat.h"

int flat(void)
{
	return 0;
}
