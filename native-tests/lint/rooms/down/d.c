/* d.c - down/ needing up/ back (see up/u.c). */
#include "native-tests/lint/rooms/down/d.h"
#include "native-tests/lint/rooms/up/v.h"

int d(void)
{
	return V;
}
