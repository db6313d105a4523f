/*
 * b.h - the other half of the deliberate include cycle of a.h.
 */
#ifndef JCAL_LINT_CYCLE_B_H
#define JCAL_LINT_CYCLE_B_H

#include "native-tests/lint/cycle/a.h"

#endif
