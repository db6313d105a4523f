/* y.h - module y of the deliberate cycle of x.h. */
#ifndef JCAL_LINT_MODULES_Y_H
#define JCAL_LINT_MODULES_Y_H

int y(void);

#endif
