/* x.c - module x, which needs module y (see x.h). */
#include "native-tests/lint/modules/x.h"
#include "native-tests/lint/modules/y.h"

int x(void)
{
	return y() + 1;
}
