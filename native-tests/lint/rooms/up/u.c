/*
 * u.c - folder up/ needs down/ here, and down/ needs up/ in down/d.c: a
 * deliberate cycle between folders without one between modules (u -> d,
 * d -> v). scripts/check-includes.sh must report it
 * (native-tests/lint/run.sh). Never compiled.
 */
#include "native-tests/lint/rooms/down/d.h"

int u(void)
{
	return d();
}
