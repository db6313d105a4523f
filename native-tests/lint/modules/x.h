/*
 * x.h - module x of a deliberate cycle between modules (x.c includes y.h,
 * y.c includes x.h) that no file closes by itself: scripts/check-includes.sh
 * must report it (native-tests/lint/run.sh). Never compiled.
 */
#ifndef JCAL_LINT_MODULES_X_H
#define JCAL_LINT_MODULES_X_H

int x(void);

#endif
