/* v.h - what down/d.c takes from up/ (see up/u.c). */
#ifndef JCAL_LINT_ROOMS_V_H
#define JCAL_LINT_ROOMS_V_H

#define V 1

#endif
