/*
 * launcher_run.h - runs one parsed jcal command: the checks on the target
 * process, the command sent to the agent, its answer, the exit code
 * (docs/live-profiling.md). Prints the answers and the "jcal: error:"
 * lines; the only part of the launcher that does.
 */
#ifndef JCAL_LAUNCHER_RUN_H
#define JCAL_LAUNCHER_RUN_H

#include "agent/launcher/launcher_cli.h"

/* exe_dir: the directory of the jcal binary; cwd: jcal's working
 * directory. Returns an exit code (enum jcal_exit). */
int launcher_run(const struct launcher_args *a, const char *exe_dir, const char *cwd);

#endif
