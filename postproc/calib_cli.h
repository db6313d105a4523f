/*
 * calib_cli.h - the "jcal-post calib show|check|merge|diff" subcommands:
 * command line, messages and exit status (0 ok, 1 bad input or output or a
 * failed check, 2 usage error); and the calibration of a report
 * (--report calib, --calib, --raw).
 */
#ifndef JCAL_CALIB_CLI_H
#define JCAL_CALIB_CLI_H

#include <stddef.h>

#include "postproc/calib_apply.h"
#include "postproc/cli_options.h"
#include "postproc/model.h"

/* argv[0] is "calib". Returns the exit status. */
int calib_cli_main(int argc, char **argv);

/* --report calib: derives the table of a calibration trace, writes it to
 * -o (default stdout). Returns the exit status. */
int calib_cli_derive(const struct cli *c);

/* Chooses the table for the trace (none with --raw) and sets the
 * compensation hook; a note to show once the trace is read goes to note.
 * Prints errors; returns 0 or -1. */
int calib_cli_setup(struct calib_apply *cal, const struct cli *c, struct calltree_comp *comp,
		    char *note, size_t len);

/* Once the trace is read: warns when the table applied is for another
 * fingerprint, or shows the note of calib_cli_setup. Returns 0, or -1
 * after the error when the table applied has another clock than the trace
 * (from stdin: not known before it was read). */
int calib_cli_loaded(struct calib_apply *cal, const struct model *m, const char *note);

/*
 * A tree snapshot was read (m->snapshot): its figures were compensated in
 * the agent, so no table applies now. Refuses what would need its events
 * (--calib inrun, an --estimator or a --calib table other than the ones
 * that compensated it); cal holds the --calib table when one was given.
 * Writes what the reports show as the calibration into desc ("" for raw
 * figures). Prints errors and notes; returns 0 or -1.
 */
int calib_cli_snapshot(const struct calib_apply *cal, const struct cli *c, const struct model *m,
		       char *desc, size_t len);

#endif
