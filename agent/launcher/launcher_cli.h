/*
 * launcher_cli.h - the jcal launcher's command line: one table of commands
 * and one of options drive the parser and --help; the exit codes, with
 * their meaning, are a table too (docs/live-profiling.md). Pure: parsing
 * returns a message, never prints or exits.
 */
#ifndef JCAL_LAUNCHER_CLI_H
#define JCAL_LAUNCHER_CLI_H

#include <stdio.h>
#include <sys/types.h>

#define JCAL_VERSION "0.2.0"

/* jcal's exit codes; docs/live-profiling.md lists them. */
enum jcal_exit {
	JCAL_EXIT_OK = 0,
	JCAL_EXIT_AGENT_ERROR = 1,   /* the agent refused (its reply line is printed) */
	JCAL_EXIT_USAGE = 2,	     /* bad command line, options too long for HotSpot */
	JCAL_EXIT_NO_PROCESS = 3,    /* no such process, or it ended while jcal worked */
	JCAL_EXIT_NOT_JVM = 4,	     /* no HotSpot JVM, or one that does not catch SIGQUIT */
	JCAL_EXIT_OTHER_USER = 5,    /* another user's JVM, and jcal is not root */
	JCAL_EXIT_ATTACH_OFF = 6,    /* -XX:+DisableAttachMechanism */
	JCAL_EXIT_NO_ANSWER = 7,     /* no attach socket or no answer within --timeout */
	JCAL_EXIT_RECORDING = 8,     /* start or record: the agent is already recording */
	JCAL_EXIT_NOT_RECORDING = 9, /* stop or dump: nothing is recording */
	JCAL_EXIT_NO_LIBRARY = 10,   /* libjcal.so or its jars missing, unreadable, path too long */
	JCAL_EXIT_ATTACH_FAILED = 11 /* the JVM did not load the library, or I/O error */
};

struct jcal_exit_row {
	int code;
	const char *meaning;
};
extern const struct jcal_exit_row jcal_exit_rows[];
extern const size_t jcal_exit_nrows;

/* The launcher's commands (the agent's own are enum jcal_command,
 * agent/base/options.h). */
enum launcher_command {
	LAUNCHER_CMD_LIST,
	LAUNCHER_CMD_RECORD,
	LAUNCHER_CMD_START,
	LAUNCHER_CMD_STOP,
	LAUNCHER_CMD_DUMP,
	LAUNCHER_CMD_STATUS,
	LAUNCHER_CMD_HELP,
	LAUNCHER_CMD_VERSION,
	LAUNCHER_CMD_ROTATE, /* record --loop's own: the agent's rotate */
};

struct launcher_args {
	enum launcher_command cmd;
	pid_t pid;
	long duration_s; /* -d, record only; 0 unset */
	long loop_s;	 /* --loop, record only: a file per period; 0 unset */
	unsigned keep;	 /* --keep, with --loop: at most this many files; 0 all */
	const char *out; /* -o or out= among the agent options; NULL unset */
	const char *lib; /* --lib; NULL: the default search */
	int timeout_ms;	 /* --timeout */
	char opts[4096]; /* the agent options, joined by ',' ("" none) */
};

/* Parses argv into a. Returns 0, or -1 with a message in err (a usage
 * error). Resets getopt's state itself. */
int launcher_cli_parse(int argc, char **argv, struct launcher_args *a, char *err, size_t errlen);

/* Parses a duration "30", "30s", "5m", "2h" into seconds; 0 or -1. */
int launcher_parse_duration(const char *s, long *seconds);

/* path made absolute against cwd (unchanged when it starts with '/').
 * Returns 0, or -1 when it does not fit. */
int launcher_absolute(const char *path, const char *cwd, char *out, size_t outlen);

/* The option string for the agent: "COMMAND[,out=ABS_OUT][,duration=Ns]
 * [,OPTS],reply=REPLY" as the command needs it. abs_out may be NULL.
 * Returns 0, or -1 when it does not fit. */
int launcher_agent_options(const struct launcher_args *a, const char *abs_out, const char *reply,
			   char *out, size_t outlen);

void launcher_cli_help(FILE *f);
/* jcal(1), the man page, from the same tables (jcal --man). */
void launcher_cli_man(FILE *f);

#endif
