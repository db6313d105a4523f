/* y.c - module y, which needs module x (see x.h). */
#include "native-tests/lint/modules/y.h"
#include "native-tests/lint/modules/x.h"

int y(void)
{
	return x() - 1;
}
