/*
 * wait_summary.h - the summary's part on the waits the JVM reported
 * (docs/jcal-post.md, "Off the CPU"): per thread, its time blocked on a
 * monitor and in Object.wait, by the monitor's class, and with tsc and
 * cputime the rest of its time off the CPU (sleep, park, I/O). Nothing at
 * all for a trace without MONITOR records.
 */
#ifndef JCAL_WAIT_SUMMARY_H
#define JCAL_WAIT_SUMMARY_H

#include <stddef.h>
#include <stdio.h>

#include "postproc/model.h"

/* The text section "Waiting" over the threads list[0..n). 0 or -1 (no
 * memory). */
int wait_summary_text(FILE *f, const struct model *m, const struct model_thread *const *list,
		      size_t n);
/* The CSV rows thread.SERIAL.blocked... 0 or -1. */
int wait_summary_csv(FILE *f, const struct model *m, const struct model_thread *const *list,
		     size_t n);
/* A thread object's key ,"waiting":{...} (JSON), when it has waits. 0 or -1. */
int wait_summary_json(FILE *f, const struct model *m, const struct model_thread *t);

#endif
