/*
 * launcher_cli.c - the tables of jcal's commands, options and exit codes,
 * the getopt_long parser built from them, --help printed from them, and the
 * option string handed to the agent.
 */
#include "agent/launcher/launcher_cli.h"
#include "agent/base/options.h"
#include "agent/launcher/launcher_io.h"
#include "common/roff.h"
#include "common/text_wrap.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define CMD_BIT(c) (1u << (c))
#define PID_CMDS                                                                                   \
	(CMD_BIT(LAUNCHER_CMD_RECORD) | CMD_BIT(LAUNCHER_CMD_START) | CMD_BIT(LAUNCHER_CMD_STOP) | \
	 CMD_BIT(LAUNCHER_CMD_DUMP) | CMD_BIT(LAUNCHER_CMD_STATUS))
#define DEFAULT_TIMEOUT_S 10

const struct jcal_exit_row jcal_exit_rows[] = {
    {JCAL_EXIT_OK, "done"},
    {JCAL_EXIT_AGENT_ERROR, "the agent refused the command (its 'jcal: error:' line is printed)"},
    {JCAL_EXIT_USAGE, "bad command line (also: agent options over the 1,024 bytes HotSpot takes)"},
    {JCAL_EXIT_NO_PROCESS,
     "no such process, or it ended while jcal worked (its pid may be another process's now)"},
    {JCAL_EXIT_NOT_JVM, "the process is not a HotSpot JVM (no libjvm.so mapped), or does not catch "
			"SIGQUIT within --timeout: no signal is sent to it"},
    {JCAL_EXIT_OTHER_USER, "the JVM belongs to another user (run jcal as that user or as root)"},
    {JCAL_EXIT_ATTACH_OFF, "the JVM runs with -XX:+DisableAttachMechanism"},
    {JCAL_EXIT_NO_ANSWER, "the JVM opened no attach socket, or did not answer, within --timeout"},
    {JCAL_EXIT_RECORDING, "start, record: the agent is already recording"},
    {JCAL_EXIT_NOT_RECORDING, "stop, dump: no recording is running"},
    {JCAL_EXIT_NO_LIBRARY,
     "libjcal.so or the jars beside it are missing or unreadable, or its path "
     "is over the 1,024 bytes HotSpot takes"},
    {JCAL_EXIT_ATTACH_FAILED, "the JVM could not load libjcal.so, or attaching failed"},
};
const size_t jcal_exit_nrows = sizeof(jcal_exit_rows) / sizeof(jcal_exit_rows[0]);

struct command_row {
	const char *name;
	enum launcher_command cmd;
	const char *synopsis;
	const char *help;
};

static const struct command_row commands[] = {
    {"list", LAUNCHER_CMD_LIST, "list",
     "running JVMs of this user (root: of every user), also those with a private /tmp or in "
     "a container: pid, user, JDK, main class"},
    {"record", LAUNCHER_CMD_RECORD,
     "record PID -d DURATION [-o FILE] [--label K:V]... [AGENT_OPTS]",
     "start a recording of DURATION, wait until it has ended, print its status; Ctrl-C or "
     "SIGTERM stops it early"},
    {"start", LAUNCHER_CMD_START, "start PID [-o FILE] [--label K:V]... [AGENT_OPTS]",
     "start a recording and return (end it with jcal stop)"},
    {"stop", LAUNCHER_CMD_STOP, "stop PID", "stop the recording; its file is complete afterwards"},
    {"dump", LAUNCHER_CMD_DUMP, "dump PID [-o FILE]", "write what the recording holds so far"},
    {"status", LAUNCHER_CMD_STATUS, "status PID", "whether the agent records, and what"},
};

struct option_row {
	const char *name;
	char short_name;
	const char *arg; /* NULL: a flag */
	const char *def;
	unsigned cmds; /* the commands it applies to */
	const char *help;
};

static const struct option_row options[] = {
    {"duration", 'd', "DURATION", NULL, CMD_BIT(LAUNCHER_CMD_RECORD),
     "record: how long (N, Ns, Nm or Nh; required)"},
    {"out", 'o', "FILE", "the agent's jcal-%p.bin",
     CMD_BIT(LAUNCHER_CMD_RECORD) | CMD_BIT(LAUNCHER_CMD_START) | CMD_BIT(LAUNCHER_CMD_DUMP),
     "the file the JVM writes, relative to jcal's current directory (%p: the JVM's pid); "
     "when the JVM cannot write it (another namespace, another user), jcal copies it there"},
    {"label", 0, "KEY:VALUE", NULL, CMD_BIT(LAUNCHER_CMD_RECORD) | CMD_BIT(LAUNCHER_CMD_START),
     "a label of the recording, repeatable (the agent's label=KEY:VALUE): jcal-post's pprof "
     "export gives it to every sample, beside host, pid, thread and jvm"},
    {"lib", 0, "PATH", "$JCAL_LIB, else libjcal.so beside jcal, else ../lib/jcal/libjcal.so",
     PID_CMDS, "the agent library to load"},
    {"timeout", 0, "SECONDS", "10", PID_CMDS,
     "how long to wait for the JVM's attach socket, and for each answer"},
    {"help", 'h', NULL, NULL, ~0u, "this text"},
    {"version", 'V', NULL, NULL, ~0u, "jcal's version"},
};
#define NOPTIONS (sizeof(options) / sizeof(options[0]))

int launcher_parse_duration(const char *s, long *seconds)
{
	char *end;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	long v = strtol(s, &end, 10);
	long mult = 1;
	if (!strcmp(end, "m"))
		mult = 60;
	else if (!strcmp(end, "h"))
		mult = 3600;
	else if (strcmp(end, "s") != 0 && *end != '\0')
		return -1;
	if (errno || v <= 0 || v > 7L * 24 * 3600 / mult)
		return -1;
	*seconds = v * mult;
	return 0;
}

int launcher_absolute(const char *path, const char *cwd, char *out, size_t outlen)
{
	size_t c = strlen(cwd);
	/* the root directory ends in its slash already */
	int n = path[0] == '/'
		    ? snprintf(out, outlen, "%s", path)
		    : snprintf(out, outlen, "%s%s%s", cwd, c && cwd[c - 1] == '/' ? "" : "/", path);
	return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

static const struct command_row *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* Appends the comma-separated agent options of arg to a->opts; out= is
 * taken out into a->out. */
static int add_agent_options(struct launcher_args *a, char *arg, char *err, size_t errlen)
{
	for (char *tok = arg, *next; tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		if (*tok == '\0')
			return launcher_fail(err, errlen, "empty agent option in '%s'", arg);
		if (!strncmp(tok, "reply=", 6))
			return launcher_fail(err, errlen, "reply= is jcal's own; leave it out");
		if (!strncmp(tok, "out=", 4)) {
			if (a->out)
				return launcher_fail(
				    err, errlen, "the output file is given twice (-o and out=)");
			a->out = tok + 4;
			continue;
		}
		if (a->cmd == LAUNCHER_CMD_RECORD && !strncmp(tok, "duration=", 9))
			return launcher_fail(err, errlen,
					     "record takes its duration from -d, not duration=");
		size_t used = strlen(a->opts);
		int n =
		    snprintf(a->opts + used, sizeof(a->opts) - used, "%s%s", used ? "," : "", tok);
		if (n < 0 || (size_t)n >= sizeof(a->opts) - used)
			return launcher_fail(err, errlen, "agent options too long");
	}
	return 0;
}

/* --label KEY:VALUE: checked as the agent checks label=, then one more
 * agent option. */
static int add_label(struct launcher_args *a, const char *arg, char *err, size_t errlen)
{
	char why[256];
	size_t used = strlen(a->opts);
	int n;

	if (jcal_label_check(arg, NULL, NULL, why, sizeof(why)))
		return launcher_fail(err, errlen, "--label '%s': %s", arg, why);
	n = snprintf(a->opts + used, sizeof(a->opts) - used, "%slabel=%s", used ? "," : "", arg);
	if (n < 0 || (size_t)n >= sizeof(a->opts) - used)
		return launcher_fail(err, errlen, "agent options too long");
	return 0;
}

/* The option's row from getopt_long's return value. */
static const struct option_row *option_of(int ch)
{
	if (ch >= 256 && (size_t)(ch - 256) < NOPTIONS)
		return &options[ch - 256];
	for (size_t i = 0; i < NOPTIONS; i++)
		if (options[i].short_name && options[i].short_name == ch)
			return &options[i];
	return NULL;
}

/* Takes one option (value arg) into a. */
static int take_option(struct launcher_args *a, const struct option_row *o, const char *arg,
		       const char *cmd, char *err, size_t errlen)
{
	if (!(o->cmds & CMD_BIT(a->cmd)))
		return launcher_fail(err, errlen, "--%s does not apply to '%s'", o->name, cmd);
	if (o->short_name == 'h')
		a->cmd = LAUNCHER_CMD_HELP;
	else if (o->short_name == 'V')
		a->cmd = LAUNCHER_CMD_VERSION;
	else if (o->short_name == 'd') {
		if (launcher_parse_duration(arg, &a->duration_s))
			return launcher_fail(
			    err, errlen, "-d '%s': expected N, Ns, Nm or Nh (up to 7 days)", arg);
	} else if (o->short_name == 'o') {
		if (a->out || !*arg)
			return launcher_fail(err, errlen, "-o: %s",
					     *arg ? "given twice" : "empty file name");
		a->out = arg;
	} else if (!strcmp(o->name, "lib")) {
		a->lib = arg;
	} else if (!strcmp(o->name, "label")) {
		return add_label(a, arg, err, errlen);
	} else {
		char *end;
		long s = strtol(arg, &end, 10);
		if (*arg < '0' || *arg > '9' || *end || s <= 0 || s > 3600)
			return launcher_fail(err, errlen,
					     "--timeout '%s': expected 1 to 3600 seconds", arg);
		a->timeout_ms = (int)s * 1000;
	}
	return 0;
}

/* The pid and agent options after the options. */
static int take_operands(struct launcher_args *a, int argc, char **argv, const char *cmd, char *err,
			 size_t errlen)
{
	int i = optind;
	if (a->cmd == LAUNCHER_CMD_HELP || a->cmd == LAUNCHER_CMD_VERSION)
		return 0;
	if (CMD_BIT(a->cmd) & PID_CMDS) {
		char *end;
		if (i >= argc)
			return launcher_fail(err, errlen, "'%s' needs a PID (jcal list shows them)",
					     cmd);
		errno = 0;
		long pid = strtol(argv[i], &end, 10);
		if (argv[i][0] < '0' || argv[i][0] > '9' || *end || errno || pid <= 0 ||
		    pid > 0x3fffffff)
			return launcher_fail(err, errlen, "'%s' is not a process id", argv[i]);
		a->pid = (pid_t)pid;
		i++;
	}
	if (i < argc && a->cmd != LAUNCHER_CMD_RECORD && a->cmd != LAUNCHER_CMD_START)
		return launcher_fail(err, errlen, "'%s' takes no agent options ('%s')", cmd,
				     argv[i]);
	for (; i < argc; i++)
		if (add_agent_options(a, argv[i], err, errlen))
			return -1;
	if (a->cmd == LAUNCHER_CMD_RECORD && !a->duration_s)
		return launcher_fail(err, errlen, "record needs -d DURATION");
	return 0;
}

int launcher_cli_parse(int argc, char **argv, struct launcher_args *a, char *err, size_t errlen)
{
	struct option longopts[NOPTIONS + 1];
	char shortopts[2 * NOPTIONS + 3] = ":";
	memset(a, 0, sizeof(*a));
	a->timeout_ms = DEFAULT_TIMEOUT_S * 1000;
	if (argc < 2)
		return launcher_fail(err, errlen, "no command given (jcal --help lists them)");
	const char *cmd = argv[1];
	const struct command_row *c = find_command(cmd);
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		a->cmd = LAUNCHER_CMD_HELP;
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		a->cmd = LAUNCHER_CMD_VERSION;
		return 0;
	}
	if (!c)
		return launcher_fail(err, errlen, "unknown command '%s' (jcal --help lists them)",
				     cmd);
	a->cmd = c->cmd;
	memset(longopts, 0, sizeof(longopts));
	for (size_t i = 0; i < NOPTIONS; i++) {
		longopts[i] = (struct option){options[i].name,
					      options[i].arg ? required_argument : no_argument,
					      NULL, (int)(256 + i)};
		if (options[i].short_name) {
			size_t l = strlen(shortopts);
			shortopts[l] = options[i].short_name;
			shortopts[l + 1] = options[i].arg ? ':' : '\0';
			shortopts[l + 2] = '\0';
		}
	}
	optind = 0;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc - 1, argv + 1, shortopts, longopts, NULL)) != -1) {
		if (ch == '?' || ch == ':') {
			const char *what = ch == ':' ? "no value for" : "unknown";
			if (optopt >= 256 && (size_t)(optopt - 256) < NOPTIONS)
				return launcher_fail(err, errlen, "%s option --%s", what,
						     options[optopt - 256].name);
			if (optopt > 0)
				return launcher_fail(err, errlen, "%s option -%c", what, optopt);
			return launcher_fail(err, errlen, "%s option '%s'", what, argv[optind]);
		}
		if (take_option(a, option_of(ch), optarg, cmd, err, errlen))
			return -1;
	}
	optind++; /* index into argv, not argv + 1 */
	return take_operands(a, argc, argv, cmd, err, errlen);
}

int launcher_agent_options(const struct launcher_args *a, const char *abs_out, const char *reply,
			   char *out, size_t outlen)
{
	static const char *const names[] = {
	    [LAUNCHER_CMD_RECORD] = "start",  [LAUNCHER_CMD_START] = "start",
	    [LAUNCHER_CMD_STOP] = "stop",     [LAUNCHER_CMD_DUMP] = "dump",
	    [LAUNCHER_CMD_STATUS] = "status",
	};
	if (!(CMD_BIT(a->cmd) & PID_CMDS))
		return -1;
	int n = snprintf(out, outlen, "%s", names[a->cmd]);
	if (n >= 0 && abs_out)
		n += snprintf(out + n, outlen > (size_t)n ? outlen - (size_t)n : 0, ",out=%s",
			      abs_out);
	if (n >= 0 && a->cmd == LAUNCHER_CMD_RECORD)
		n += snprintf(out + n, outlen > (size_t)n ? outlen - (size_t)n : 0,
			      ",duration=%lds", a->duration_s);
	if (n >= 0 && a->opts[0])
		n += snprintf(out + n, outlen > (size_t)n ? outlen - (size_t)n : 0, ",%s", a->opts);
	if (n >= 0)
		n += snprintf(out + n, outlen > (size_t)n ? outlen - (size_t)n : 0, ",reply=%s",
			      reply);
	return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

/* Prints text wrapped at 80 columns, every line indented by indent. */
static void wrap(FILE *f, const char *text, int col, int indent)
{
	text_wrap(f, text, col, indent, 80);
}

void launcher_cli_help(FILE *f)
{
	fprintf(f, "usage: jcal COMMAND [PID] [options] [AGENT_OPTS]\n\n");
	wrap(f,
	     "Profiles a running HotSpot JVM with libjcal.so, loaded through the JVM's attach "
	     "mechanism (no JDK tools needed). AGENT_OPTS are libjcal.so options (key=value,...).",
	     0, 0);
	fprintf(f, "\nCommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		fprintf(f, "  jcal %s\n", commands[i].synopsis);
		fprintf(f, "%*s", 6, "");
		wrap(f, commands[i].help, 6, 6);
	}
	fprintf(f, "\nOptions:\n");
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct option_row *o = &options[i];
		char head[64];
		int n = o->short_name
			    ? snprintf(head, sizeof(head), "  -%c, --%s", o->short_name, o->name)
			    : snprintf(head, sizeof(head), "      --%s", o->name);
		if (o->arg)
			snprintf(head + n, sizeof(head) - (size_t)n, " %s", o->arg);
		char text[512];
		snprintf(text, sizeof(text), "%s%s%s%s", o->help, o->def ? " (default: " : "",
			 o->def ? o->def : "", o->def ? ")" : "");
		fprintf(f, "%-26s", head);
		wrap(f, text, (int)strlen(head) < 26 ? 26 : (int)strlen(head), 26);
	}
	fprintf(f, "\nExit codes:\n");
	for (size_t i = 0; i < jcal_exit_nrows; i++) {
		fprintf(f, "  %-4d", jcal_exit_rows[i].code);
		wrap(f, jcal_exit_rows[i].meaning, 6, 6);
	}
	fprintf(f, "\nSee docs/live-profiling.md.\n");
}

void launcher_cli_man(FILE *f)
{
	fputs(".TH JCAL 1 \"\" \"jcal " JCAL_VERSION "\" \"jcal\"\n"
	      ".SH NAME\njcal \\- profile a running Java virtual machine with libjcal.so\n"
	      ".SH SYNOPSIS\n.B jcal\n\\fICOMMAND\\fR [\\fIPID\\fR] [\\fIoptions\\fR] "
	      "[\\fIAGENT_OPTS\\fR]\n"
	      ".SH DESCRIPTION\nLoads libjcal(7) into a running HotSpot JVM through the JVM's "
	      "attach mechanism (no JDK tools needed) and drives its recording. "
	      "\\fIAGENT_OPTS\\fR are libjcal.so options (key=value,...); the recording is a "
	      "trace that jcal\\-post(1) reads. docs/live\\-profiling.md tells more.\n"
	      ".SH COMMANDS\n",
	      f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		fputs(".TP\n.B jcal ", f);
		roff_text(f, commands[i].synopsis);
		fputc('\n', f);
		roff_text(f, commands[i].help);
		fputc('\n', f);
	}
	fputs(".SH OPTIONS\n", f);
	for (size_t i = 0; i < NOPTIONS; i++)
		roff_option(f, options[i].short_name, options[i].name, options[i].arg,
			    options[i].help, options[i].def);
	fputs(".SH EXIT STATUS\n", f);
	for (size_t i = 0; i < jcal_exit_nrows; i++) {
		fprintf(f, ".TP\n.B %d\n", jcal_exit_rows[i].code);
		roff_text(f, jcal_exit_rows[i].meaning);
		fputc('\n', f);
	}
	fputs(".SH SEE ALSO\njcal\\-post(1), libjcal(7); docs/live\\-profiling.md\n", f);
}
