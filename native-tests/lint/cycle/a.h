/*
 * a.h - half of a deliberate include cycle (with b.h), never compiled:
 * scripts/check-includes.sh must report it (native-tests/lint/run.sh).
 */
#ifndef JCAL_LINT_CYCLE_A_H
#define JCAL_LINT_CYCLE_A_H

#include "native-tests/lint/cycle/b.h"

#endif
