/* d.h - what up/u.c takes from down/ (see up/u.c). */
#ifndef JCAL_LINT_ROOMS_D_H
#define JCAL_LINT_ROOMS_D_H

int d(void);

#endif
