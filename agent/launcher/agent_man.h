/*
 * agent_man.h - libjcal(7) from the agent's option table.
 */
#ifndef JCAL_AGENT_MAN_H
#define JCAL_AGENT_MAN_H

#include <stdio.h>

/* Writes the man page of libjcal.so's options, for that version. */
void agent_man(FILE *f, const char *version);

#endif
