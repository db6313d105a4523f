/*
 * diff_cli.h - the command jcal-post diff (diff_cli.c): compares two runs,
 * or two sets of runs (docs/jcal-post.md, "Comparing two runs").
 */
#ifndef JCAL_DIFF_CLI_H
#define JCAL_DIFF_CLI_H

/* argv[0] is "diff". Returns the exit status: 0 ok, 1 bad input or
 * output, 2 usage error, 3 a --fail-on gate failed. */
int diff_cli_main(int argc, char **argv);

#endif
