/*
 * calib_cli.h - the "jcal-post calib show|check|merge|diff" subcommands:
 * command line, messages and exit status (0 ok, 1 bad input or output or a
 * failed check, 2 usage error).
 */
#ifndef JCAL_CALIB_CLI_H
#define JCAL_CALIB_CLI_H

/* argv[0] is "calib". Returns the exit status. */
int calib_cli_main(int argc, char **argv);

#endif
