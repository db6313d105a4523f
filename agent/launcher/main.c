/*
 * main.c - jcal, the launcher: parses the command line and runs the
 * command (docs/live-profiling.md).
 */
#include "agent/launcher/agent_man.h"
#include "agent/launcher/launcher_cli.h"
#include "agent/launcher/launcher_run.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct launcher_args a;
	char err[512], exe[PATH_MAX], cwd[PATH_MAX];

	/* For packagers (make man): the man pages, from the option tables. */
	if (argc == 2 && !strcmp(argv[1], "--man")) {
		launcher_cli_man(stdout);
		return JCAL_EXIT_OK;
	}
	if (argc == 2 && !strcmp(argv[1], "--man-agent")) {
		agent_man(stdout, JCAL_VERSION);
		return JCAL_EXIT_OK;
	}
	if (launcher_cli_parse(argc, argv, &a, err, sizeof(err))) {
		fprintf(stderr, "jcal: error: %s\n", err);
		return JCAL_EXIT_USAGE;
	}
	if (a.cmd == LAUNCHER_CMD_HELP) {
		launcher_cli_help(stdout);
		return JCAL_EXIT_OK;
	}
	if (a.cmd == LAUNCHER_CMD_VERSION) {
		printf("jcal %s\n", JCAL_VERSION);
		return JCAL_EXIT_OK;
	}
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(exe, ".");
	if (!getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr, "jcal: error: cannot get the current directory\n");
		return JCAL_EXIT_ATTACH_FAILED;
	}
	return launcher_run(&a, exe, cwd);
}
