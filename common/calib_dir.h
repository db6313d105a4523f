/*
 * calib_dir.h - the calibration directory: its default place, creation,
 * and finding the table of a fingerprint (docs/calibration-format.md).
 */
#ifndef JCAL_CALIB_DIR_H
#define JCAL_CALIB_DIR_H

#include <stddef.h>

#include "common/calib_table.h"

/* The calibration directory: $JCAL_CALIB_DIR, else
 * $HOME/.local/share/jcal/calib. Returns 0, or -1 when neither is set. */
int calib_dir_default(char *buf, size_t len);

/* Creates dir and those of its parents that are missing, mode 0700 (a
 * user's own measurements; directories that exist keep their mode).
 * Returns 0 or -1 with err. */
int calib_dir_create(const char *dir, char *err, size_t errlen);

/*
 * The table of fingerprint fp in dir (calib_dir_find), read into t (an
 * initialised table) and ready to apply under estimator est (cond caches
 * and fallbacks built, so that lookups only read it). Returns 1 with path
 * set, 0 when dir has no such table, -1 with err (dir unreadable, a bad
 * table, out of memory; errno EACCES or EPERM when it was a permission).
 * What jcal-post applies by default to a trace, and the agent to its
 * in-memory trees.
 */
int calib_dir_load(const char *dir, const struct calib_fingerprint *fp, enum calib_estimator est,
		   struct calib_table *t, char *path, size_t len, char *skipped, size_t skippedlen,
		   char *err, size_t errlen);

/* Whether dir is there: 1 (a directory), 0 (nothing: no table), -1 with
 * err and errno when it cannot be looked at (EACCES on the way) or is not
 * a directory. */
int calib_dir_exists(const char *dir, char *err, size_t errlen);

/* After a calib_dir function failed with errno e (EACCES, EPERM), appends
 * to err who cannot read it and the fix: " (WHO runs as user NAME, uid N,
 * which may not read it: FIX)". Other errors are left as they are. */
void calib_dir_explain(char *err, size_t errlen, int e, const char *who, const char *fix);

/* dir + "/" + calib_fingerprint_filename(fp). Returns 0, or -1 when it
 * does not fit. */
int calib_dir_path(const char *dir, const struct calib_fingerprint *fp, char *buf, size_t len);

/*
 * Finds the table for fp in dir: the stable file name first, else any
 * regular file "*.txt" of the directory whose header parses and whose
 * fingerprint matches (first by name). Files that are not tables are
 * skipped; entries that are not regular files (a FIFO, a device, a
 * directory) are never opened and are listed in skipped ("x.txt (a
 * FIFO), ...", "" when none; skipped may be NULL) for a warning. Returns
 * 1 with path set, 0 when none matches, -1 with err (and errno) when dir
 * cannot be read, when the file of fp's own name is there but cannot be
 * read, or when none matches and a *.txt file could not be read (it may
 * be the table: err names it and why).
 */
int calib_dir_find(const char *dir, const struct calib_fingerprint *fp, char *path, size_t len,
		   char *skipped, size_t skippedlen, char *err, size_t errlen);

#endif
