/* flat.h - included by paths/flat.c by its name alone (see there). */
#ifndef JCAL_LINT_PATHS_FLAT_H
#define JCAL_LINT_PATHS_FLAT_H

int flat(void);

#endif
