/*
 * calib_handover.h - the caller's calibration tables handed to an attached
 * recording with trees (docs/live-profiling.md, "Calibration tables"):
 * the agent compensates output=tree in the JVM, which may run as another
 * user than jcal's caller and cannot read the caller's tables. jcal reads
 * them as the caller, before it becomes the JVM's user, and writes copies
 * into a private directory of the JVM's /tmp, as it makes the reply file;
 * the agent gets calib=DIR (or calib=DIR/NAME for a table the user named)
 * and reads them at the start; jcal removes them once the agent answered.
 */
#ifndef JCAL_CALIB_HANDOVER_H
#define JCAL_CALIB_HANDOVER_H

#include <stddef.h>

/* At most this many tables of a directory, of at most this many bytes
 * each (a table is about 100 KB), are handed over. */
#define CALIB_HANDOVER_MAX_FILES 64
#define CALIB_HANDOVER_MAX_BYTES (4u << 20)

struct calib_handover_file {
	char name[256];
	char *data;
	size_t len;
};

struct calib_handover {
	char src[4096]; /* the caller's directory or file */
	int one_file;	/* calib=FILE given: that table, applied as asked */
	size_t n, skipped;
	struct calib_handover_file files[CALIB_HANDOVER_MAX_FILES];
	char dir[160];	  /* as jcal sees it: ROOT/tmp/jcal-calib-XXXXXX */
	char target[400]; /* the calib= value, as the JVM sees it */
};

/*
 * Whether an agent option string (AGENT_OPTS joined by ',') wants a table:
 * output=tree or output=both (a calib= without them is the agent's to
 * refuse, under the name the user gave). *given: calib='s value in opts
 * (NULL when none).
 */
int calib_handover_wanted(const char *opts, const char **given, size_t *given_len);

/*
 * Reads, as the caller, the table given (calib=PATH: a file, or a
 * directory) or, when given is NULL, the tables of the caller's
 * calibration directory ($JCAL_CALIB_DIR or ~/.local/share/jcal/calib):
 * the regular *.txt files that parse as tables. h->n is 0 when there is
 * nothing to hand over (no directory: the agent looks in its own). 0, or
 * -1 with err when a given PATH, or the caller's directory, cannot be read
 * (which file, why). Free with calib_handover_free.
 */
int calib_handover_read(struct calib_handover *h, const char *given, size_t given_len, char *err,
			size_t errlen);

/*
 * As the JVM's user (after jcal became it): ROOT/tmp/jcal-calib-XXXXXX
 * (0700) with the copies (0600, their names kept); h->target is the
 * calib= value for the agent. 0, or -1 with err (nothing left behind).
 */
int calib_handover_write(struct calib_handover *h, const char *root, char *err, size_t errlen);

/* Removes the copies and their directory. */
void calib_handover_remove(struct calib_handover *h);

void calib_handover_free(struct calib_handover *h);

/*
 * The agent options opts with calib= (if any) replaced by
 * calib=h->target, into out. 0, or -1 when it does not fit.
 */
int calib_handover_options(const struct calib_handover *h, const char *opts, char *out,
			   size_t outlen);

#endif
