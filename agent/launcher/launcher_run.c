/*
 * launcher_run.c - jcal's commands. For a PID command, in this order:
 * the process exists and is a process (not a thread), held from then on
 * (proc_handle.h); it is ours (or jcal runs as root and becomes its user:
 * HotSpot accepts a peer of its own uid and gid only); it maps libjvm.so
 * (checked before any SIGQUIT, which would end a process that is not a
 * JVM); the library and its jars; its PerfData does not say attach is
 * disabled; then one load of libjcal.so with the command and reply=FILE,
 * and the agent's return code (common/attach_reply.h) mapped to jcal's
 * exit code. Whatever came from the process or its files is printed with
 * its control characters escaped (launcher_escape).
 */
#include "agent/launcher/launcher_run.h"

#include "common/attach_reply.h"
#include "agent/launcher/calib_handover.h"
#include "agent/launcher/hotspot_attach.h"
#include "agent/launcher/jvm_list.h"
#include "agent/launcher/jvm_process.h"
#include "agent/launcher/launcher_io.h"
#include "agent/launcher/loop_files.h"
#include "common/lib_locate.h"
#include "agent/base/options.h"
#include "agent/launcher/out_stage.h"
#include "agent/launcher/perfdata.h"
#include "agent/launcher/reply_file.h"
#include "agent/launcher/run_as.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* How long record waits past its duration for the agent to end it. */
#define RECORD_GRACE_S 30

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

/* One line "jcal: error: ...", its control characters escaped. */
static int error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int error(int code, const char *fmt, ...)
{
	char msg[3 * PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fputs("jcal: error: ", stderr);
	launcher_put_escaped(stderr, msg, 0);
	fputc('\n', stderr);
	return code;
}

/* A target that passed the checks, and the library to load into it. */
struct target {
	struct jvm_process p;
	char comm[64]; /* its /proc/PID/comm, for messages */
	char lib[PATH_MAX];
	int timeout_ms;
	struct calib_handover *ho; /* the caller's tables for start (calib_handover.h) */
	struct out_stage stage;	   /* where the agent writes when not out= (out_stage.h) */
	int staged;
};

static int cmd_list(void)
{
	struct jvm_entry *e;
	size_t n;
	char err[256];
	if (jvm_list_scan("/tmp", geteuid(), geteuid() == 0, 1, &e, &n, err, sizeof(err)))
		return error(JCAL_EXIT_ATTACH_FAILED, "%s", err);
	printf("%-8s %-12s %-10s %s\n", "PID", "USER", "JDK", "MAIN");
	for (size_t i = 0; i < n; i++) {
		char user[4 * sizeof(e[i].user)], version[4 * sizeof(e[i].version)];
		launcher_escape(e[i].user, 0, user, sizeof(user));
		launcher_escape(e[i].version, 0, version, sizeof(version));
		printf("%-8d %-12s %-10s ", (int)e[i].pid, user, version);
		launcher_put_escaped(stdout, e[i].main_class, 0);
		printf("%s", e[i].attach_enabled ? "" : "  (attach disabled)");
		if (e[i].nspid != e[i].pid)
			printf("  (pid %d in its namespace)", (int)e[i].nspid);
		putchar('\n');
	}
	free(e);
	return JCAL_EXIT_OK;
}

/* Becomes the target's user when jcal runs as root: the JVM accepts only
 * a peer of its own uid and gid (or root), and the reply file and the
 * library must be the JVM user's to open (run_as.h). */
static int become_owner(const struct jvm_process *p)
{
	char err[256];
	if (run_as_owner(p->uid, p->gid, err, sizeof(err)))
		return error(JCAL_EXIT_ATTACH_FAILED,
			     "cannot switch to user %s (uid %u, gid %u): %s", p->user,
			     (unsigned)p->uid, (unsigned)p->gid, err);
	return 0;
}

/* The checks of the process itself, before the library's. */
static int check_process(pid_t pid, struct target *t)
{
	struct jvm_process *p = &t->p;
	if (jvm_process_read(pid, p))
		return error(JCAL_EXIT_NO_PROCESS, "no such process %d", (int)pid);
	if (p->tgid != pid)
		return error(JCAL_EXIT_NO_PROCESS, "%d is a thread of process %d, not a process",
			     (int)pid, (int)p->tgid);
	if (geteuid() != 0 && p->uid != geteuid())
		return error(
		    JCAL_EXIT_OTHER_USER,
		    "process %d belongs to user %s (uid %u): jcal attaches only to its own "
		    "user's JVMs (run it as %s, or as root)",
		    (int)pid, p->user, (unsigned)p->uid, p->user);
	if (geteuid() != 0 && p->gid != getegid())
		return error(JCAL_EXIT_OTHER_USER,
			     "process %d runs with group id %u, jcal with %u: the JVM accepts only "
			     "a peer of its own user and group",
			     (int)pid, (unsigned)p->gid, (unsigned)getegid());
	int r = become_owner(p);
	if (r)
		return r;
	if (jvm_process_read_maps(p, "libjcal.so"))
		return error(JCAL_EXIT_ATTACH_FAILED, "cannot read /proc/%d/maps: %s", (int)pid,
			     strerror(errno));
	char *c = proc_handle_read(&p->proc, "comm");
	snprintf(t->comm, sizeof(t->comm), "%.*s", c ? (int)strcspn(c, "\n") : 1, c ? c : "?");
	free(c);
	if (!p->is_jvm)
		return error(JCAL_EXIT_NOT_JVM,
			     "process %d (%s) is not a JVM: no libjvm.so in its "
			     "memory maps",
			     (int)pid, t->comm);
	return 0;
}

/* 1 when the JVM's PerfData says its attach mechanism is off. */
static int attach_disabled(const struct jvm_process *p)
{
	unsigned char *buf;
	size_t len;
	struct jvm_entry e;
	if (jvm_process_perfdata(p, &buf, &len))
		return 0; /* -XX:-UsePerfData: the socket's timeout will tell */
	int off = jvm_entry_from_perfdata(&e, buf, len) == 0 && !e.attach_enabled;
	free(buf);
	return off;
}

/* The library lib_locate finds, checked: its jars, its path inside the
 * target's mount namespace. */
static int locate_library(const struct launcher_args *a, const char *exe_dir, struct target *t)
{
	char err[PATH_MAX + 256];
	if (lib_locate(a->lib, getenv("JCAL_LIB"), exe_dir, t->lib, sizeof(t->lib), err,
		       sizeof(err)) ||
	    lib_check(t->lib, err, sizeof(err)))
		return error(JCAL_EXIT_NO_LIBRARY, "%s", err);
	if (t->p.root[0]) {
		char inside[2 * PATH_MAX];
		snprintf(inside, sizeof(inside), "%s%s", t->p.root, t->lib);
		if (access(inside, R_OK))
			return error(JCAL_EXIT_NO_LIBRARY,
				     "%s is not there in process %d's file system (another mount "
				     "namespace): give --lib with the path inside it",
				     t->lib, (int)t->p.pid);
	}
	return 0;
}

/* The library: the one the JVM already maps (a second copy would be a
 * second agent), else the search of lib_locate; a path HotSpot can take. */
static int choose_library(const struct launcher_args *a, const char *exe_dir, struct target *t)
{
	char mine[PATH_MAX];
	if (t->p.jcal_lib[0]) {
		snprintf(t->lib, sizeof(t->lib), "%s", t->p.jcal_lib);
		if (a->lib && (!realpath(a->lib, mine) || strcmp(mine, t->lib) != 0)) {
			fprintf(stderr, "jcal: warning: process %d already runs the agent of ",
				(int)t->p.pid);
			launcher_put_escaped(stderr, t->lib, 0);
			fputs("; sending the command to it, not to --lib ", stderr);
			launcher_put_escaped(stderr, a->lib, 0);
			fputc('\n', stderr);
		}
	} else {
		int code = locate_library(a, exe_dir, t);
		if (code)
			return code;
	}
	if (strlen(t->lib) > HOTSPOT_ARG_MAX)
		return error(JCAL_EXIT_NO_LIBRARY,
			     "the library path %s is %zu bytes: HotSpot's attach protocol takes at "
			     "most %d bytes per argument",
			     t->lib, strlen(t->lib), HOTSPOT_ARG_MAX);
	return 0;
}

/* Prints the agent's reply: to stdout when ok, else to stderr. */
static void print_reply(const char *reply, int ok)
{
	if (!reply || !*reply)
		return;
	FILE *f = ok ? stdout : stderr;
	launcher_put_escaped(f, reply, 1);
	if (reply[strlen(reply) - 1] != '\n')
		fputc('\n', f);
	fflush(f);
}

static int exit_of_agent_code(int rc)
{
	switch (rc) {
	case JCAL_ATTACH_OK:
		return JCAL_EXIT_OK;
	case JCAL_ATTACH_RECORDING:
		return JCAL_EXIT_RECORDING;
	case JCAL_ATTACH_NOT_RECORDING:
		return JCAL_EXIT_NOT_RECORDING;
	default:
		return JCAL_EXIT_AGENT_ERROR;
	}
}

static const char *agent_code_text(int rc)
{
	switch (rc) {
	case JCAL_ATTACH_BAD_OPTIONS:
		return "bad options";
	case JCAL_ATTACH_RECORDING:
		return "a recording is already running";
	case JCAL_ATTACH_NOT_RECORDING:
		return "no recording is running";
	case JCAL_ATTACH_OUTPUT:
		return "cannot write its output";
	case JCAL_ATTACH_FAILED:
		return "failed";
	default:
		return "unknown return code";
	}
}

/* The exit code and error line of an attach that did not reach the agent. */
static int attach_failure(const struct target *t, enum hotspot_attach_result r, const char *msg,
			  const char *opts)
{
	switch (r) {
	case HOTSPOT_ATTACH_TIMEOUT:
		return error(JCAL_EXIT_NO_ANSWER,
			     "process %d: %s (is attach disabled with -XX:+DisableAttachMechanism, "
			     "or the JVM busy or still starting?)",
			     (int)t->p.pid, msg);
	case HOTSPOT_ATTACH_LOAD:
		return error(JCAL_EXIT_ATTACH_FAILED, "process %d did not load %s: %s",
			     (int)t->p.pid, t->lib, msg);
	case HOTSPOT_ATTACH_GONE:
		return error(JCAL_EXIT_NO_PROCESS, "%s", msg);
	case HOTSPOT_ATTACH_NO_QUIT:
		return error(
		    JCAL_EXIT_NOT_JVM,
		    "process %d (%s) maps libjvm.so but %s: not a JVM that can be attached "
		    "to (or one started with -Xrs, or still starting); no signal sent",
		    (int)t->p.pid, t->comm, msg);
	case HOTSPOT_ATTACH_TOO_LONG:
		return error(
		    JCAL_EXIT_USAGE,
		    "%s (jcal's reply= takes %zu of them, out= its absolute path; include= "
		    "and exclude= patterns can be shortened with * and ?)",
		    msg, strstr(opts, ",reply=") ? strlen(strstr(opts, ",reply=")) : 0);
	default:
		return error(JCAL_EXIT_ATTACH_FAILED, "process %d: %s", (int)t->p.pid, msg);
	}
}

/* "jcal: handing 2 calibration tables of DIR to process N (copies for
 * user U)": where the trees' table comes from. */
static void say_handover(const struct target *t)
{
	if (t->ho->one_file)
		printf("jcal: handing the calibration table ");
	else
		printf("jcal: handing %zu calibration table%s of ", t->ho->n,
		       t->ho->n == 1 ? "" : "s");
	launcher_put_escaped(stdout, t->ho->src, 0);
	printf(" to process %d (copies for user ", (int)t->p.pid);
	launcher_put_escaped(stdout, t->p.user, 0);
	printf(")\n");
	fflush(stdout);
}

/* Back to the JVM's user after a step taken with the caller's rights
 * (run_as.h). Returns an exit code. */
static int as_owner_again(const struct target *t)
{
	char err[256];

	if (run_as_owner(t->p.uid, t->p.gid, err, sizeof(err)))
		return error(JCAL_EXIT_ATTACH_FAILED, "cannot switch to user %s: %s", t->p.user,
			     err);
	return JCAL_EXIT_OK;
}

/* A stale socket of another user at the JVM's /tmp/.java_pidN keeps its
 * listener from opening: removed with the caller's rights (root's when
 * jcal acts as the JVM's user). Returns an exit code. */
static int clear_stale_socket(const struct target *t, const struct hotspot_target *ht)
{
	char msg[512];
	int r = run_as_caller() ? 0 : hotspot_clear_stale_socket(ht, msg, sizeof(msg));
	int code = as_owner_again(t);
	if (code != JCAL_EXIT_OK)
		return code;
	if (r)
		return error(JCAL_EXIT_ATTACH_FAILED, "process %d: %s", (int)t->p.pid, msg);
	return JCAL_EXIT_OK;
}

/* Sends one command (agent option string without reply=) to the agent.
 * The reply goes to *reply (malloc'd, may be NULL) when reply is not NULL,
 * else it is printed. Returns an exit code. */
static int send_command(const struct target *t, const struct launcher_args *cmd,
			const char *abs_out, char **reply)
{
	struct reply_file rf;
	char err[PATH_MAX + 256], opts[8192], msg[1024];
	int agent_rc = -1;
	if (reply)
		*reply = NULL;
	struct hotspot_target ht = {&t->p.proc, t->p.nspid, t->p.uid, t->p.root};
	int code = clear_stale_socket(t, &ht);
	if (code != JCAL_EXIT_OK)
		return code;
	struct launcher_args with;
	int handing = t->ho && (cmd->cmd == LAUNCHER_CMD_START || cmd->cmd == LAUNCHER_CMD_RECORD);
	if (handing) {
		with = *cmd;
		if (calib_handover_write(t->ho, t->p.root, err, sizeof(err)))
			return error(JCAL_EXIT_ATTACH_FAILED, "%s", err);
		if (calib_handover_options(t->ho, cmd->opts, with.opts, sizeof(with.opts))) {
			calib_handover_remove(t->ho);
			return error(JCAL_EXIT_USAGE, "agent options too long");
		}
		cmd = &with;
		say_handover(t);
	}
	if (reply_file_create(&rf, t->p.root, err, sizeof(err))) {
		if (handing)
			calib_handover_remove(t->ho);
		return error(JCAL_EXIT_ATTACH_FAILED, "%s", err);
	}
	if (launcher_agent_options(cmd, abs_out, rf.target, opts, sizeof(opts))) {
		reply_file_remove(&rf);
		if (handing)
			calib_handover_remove(t->ho);
		return error(JCAL_EXIT_USAGE, "agent options too long");
	}
	enum hotspot_attach_result r =
	    hotspot_attach_load(&ht, t->lib, opts, t->timeout_ms, &agent_rc, msg, sizeof(msg));
	char *text = r == HOTSPOT_ATTACH_OK ? reply_file_read(&rf) : NULL;
	reply_file_remove(&rf);
	if (handing) /* read by the agent at the start: no longer needed */
		calib_handover_remove(t->ho);
	if (r != HOTSPOT_ATTACH_OK) {
		code = attach_failure(t, r, msg, opts);
	} else {
		code = exit_of_agent_code(agent_rc);
		if (code != JCAL_EXIT_OK && (!text || !*text))
			error(code, "the agent in process %d answered %d (%s) and wrote no reply",
			      (int)t->p.pid, agent_rc, agent_code_text(agent_rc));
		if (!reply || code != JCAL_EXIT_OK)
			print_reply(text, code == JCAL_EXIT_OK);
	}
	if (reply && code == JCAL_EXIT_OK)
		*reply = text;
	else
		free(text);
	return code;
}

/* Copies the complete files of a stage to where the caller asked, as the
 * caller, and removes the stage once nothing is left to write in it.
 * Returns an exit code; *done: how many files were copied. */
static int deliver(const struct target *t, struct out_stage *st, int *done)
{
	struct out_staged f[OUT_STAGE_MAX_FILES];
	char path[PATH_MAX + 64], err[2 * PATH_MAX + 64];
	int partial, code = JCAL_EXIT_OK;
	int n = out_stage_open(st, f, OUT_STAGE_MAX_FILES, &partial);
	*done = 0;
	if (n > 0 && run_as_caller())
		code = error(JCAL_EXIT_ATTACH_FAILED, "cannot take back jcal's own user: %s",
			     strerror(errno));
	for (int i = 0; i < n; i++) {
		if (code == JCAL_EXIT_OK &&
		    out_stage_put(st, &f[i], path, sizeof(path), err, sizeof(err)) == 0) {
			printf("jcal: recording of process %d written to ", (int)t->p.pid);
			launcher_put_escaped(stdout, path, 0);
			putchar('\n');
			(*done)++;
		} else if (code == JCAL_EXIT_OK) {
			code = error(JCAL_EXIT_AGENT_ERROR,
				     "%s; the recording stays in process %d's /tmp: %s/%s%s", err,
				     (int)t->p.pid, st->dir, st->base, f[i].suffix);
		}
		close(f[i].fd);
	}
	fflush(stdout);
	if (n > 0 && run_as_owner(t->p.uid, t->p.gid, err, sizeof(err)) && code == JCAL_EXIT_OK)
		code =
		    error(JCAL_EXIT_ATTACH_FAILED, "cannot switch to user %s: %s", t->p.user, err);
	for (int i = 0; i < *done; i++) /* copied: not to be copied again */
		out_stage_unlink(st, &f[i]);
	if (code == JCAL_EXIT_OK && !partial)
		out_stage_remove(st);
	return code;
}

/* A recording a start left in a stage (its note in the caller's /tmp):
 * copied into place once complete; else, when say, where it goes. Returns
 * an exit code. */
static int deliver_pending(const struct target *t, int say)
{
	struct out_stage st;
	int found, done, code;
	char err[256];
	if (run_as_caller())
		return JCAL_EXIT_OK;
	found = out_stage_note_read(&st, &t->p.proc) == 0;
	code = as_owner_again(t);
	if (code != JCAL_EXIT_OK)
		return code;
	if (!found)
		return JCAL_EXIT_OK;
	code = deliver(t, &st, &done);
	if (code == JCAL_EXIT_OK && done == 0 && st.dir[0] && say) {
		printf("jcal: the recording in %s goes to ", st.dir);
		launcher_put_escaped(stdout, st.dest, 0);
		printf(" when it is complete (jcal stop)\n");
	}
	if (code == JCAL_EXIT_OK && !st.dir[0] && run_as_caller() == 0) {
		out_stage_note_remove(&t->p.proc);
		run_as_owner(t->p.uid, t->p.gid, err, sizeof(err));
	}
	return code;
}

/* Where the agent writes dest when it cannot itself (out_stage.h): a stage
 * in its /tmp, said on stdout. *out becomes the agent's out=. Returns an
 * exit code. */
static int stage_output(struct target *t, const char *pattern, const char **out)
{
	char dest[PATH_MAX], why[PATH_MAX + 256], err[2 * PATH_MAX];
	if (jcal_options_expand_out(pattern, t->p.nspid, time(NULL), dest, sizeof(dest), err,
				    sizeof(err)))
		return error(JCAL_EXIT_USAGE, "%s", err);
	if (!out_stage_needed(&t->p, dest, run_as_switched(), why, sizeof(why)))
		return JCAL_EXIT_OK;
	int bad = run_as_caller() || out_stage_check_dest(dest, err, sizeof(err));
	int code = as_owner_again(t);
	if (code != JCAL_EXIT_OK)
		return code;
	if (bad)
		return error(JCAL_EXIT_USAGE, "%s", err);
	if (out_stage_create(&t->stage, &t->p, dest, err, sizeof(err)))
		return error(JCAL_EXIT_ATTACH_FAILED,
			     "%s, and %s: give -o a file that user %s can write", why, err,
			     t->p.user);
	t->staged = 1;
	*out = t->stage.inside;
	printf("jcal: %s: the agent writes into %s, jcal copies the file to ", why, t->stage.dir);
	launcher_put_escaped(stdout, dest, 0);
	putchar('\n');
	fflush(stdout);
	return JCAL_EXIT_OK;
}

/* After the command: the stage's file copied into place (record, dump),
 * or noted for the stop that ends the recording (start); a stage of a
 * command that failed removed. Returns the exit code. */
static int finish_stage(struct target *t, enum launcher_command cmd, int code)
{
	char err[PATH_MAX + 128];
	int done;
	if (!t->staged)
		return code;
	/* the agent finishes its file at VM death: still there in a /tmp
	 * jcal shares with the JVM */
	if (code == JCAL_EXIT_NO_PROCESS && cmd == LAUNCHER_CMD_RECORD)
		deliver(t, &t->stage, &done);
	if (code != JCAL_EXIT_OK) {
		out_stage_remove(&t->stage);
		return code;
	}
	if (cmd != LAUNCHER_CMD_START)
		return deliver(t, &t->stage, &done);
	if (run_as_caller() == 0) {
		int r = out_stage_note_write(&t->stage, &t->p.proc, err, sizeof(err));
		if (r)
			fprintf(stderr,
				"jcal: warning: %s: jcal stop will leave the recording in %s\n",
				err, t->stage.dir);
	}
	int back = as_owner_again(t);
	return back != JCAL_EXIT_OK ? back : code;
}

/* 1 when the status reply's first line says a recording runs. */
static int reply_recording(const char *reply)
{
	return reply && strncmp(reply, "recording: yes", 14) == 0;
}

/* Sleeps up to ms, less when a signal came; returns 1 when one did. */
static int nap(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	if (!interrupted)
		nanosleep(&ts, NULL);
	return interrupted != 0;
}

static long now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec;
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* record: start with duration=, wait, poll status until it says the
 * recording ended; on SIGINT/SIGTERM (or past the grace period) stop it. */
static int cmd_record(struct target *t, const struct launcher_args *a, const char *abs_out)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	int code = send_command(t, a, abs_out, NULL);
	if (code != JCAL_EXIT_OK)
		return code;
	struct launcher_args st = *a, stop = *a;
	st.cmd = LAUNCHER_CMD_STATUS;
	stop.cmd = LAUNCHER_CMD_STOP;
	st.opts[0] = stop.opts[0] = '\0';
	long deadline = now_s() + a->duration_s + RECORD_GRACE_S;
	char *reply = NULL;
	if (!nap(a->duration_s * 1000L)) {
		while (!nap(500)) {
			free(reply);
			reply = NULL;
			if (!proc_handle_alive(&t->p.proc))
				return error(JCAL_EXIT_NO_PROCESS,
					     "process %d exited during the recording (the agent "
					     "finishes its file at VM death)",
					     (int)t->p.pid);
			code = send_command(t, &st, NULL, &reply);
			if (code != JCAL_EXIT_OK)
				return code;
			if (!reply_recording(reply))
				break;
			if (now_s() > deadline) {
				fprintf(stderr,
					"jcal: warning: the recording did not end %d s after "
					"its duration: stopping it\n",
					RECORD_GRACE_S);
				interrupted = SIGALRM;
				break;
			}
		}
	}
	if (interrupted) {
		free(reply);
		reply = NULL;
		if (interrupted != SIGALRM)
			fprintf(stderr, "jcal: %s: stopping the recording of process %d\n",
				strsignal(interrupted), (int)t->p.pid);
		code = send_command(t, &stop, NULL, NULL);
		if (code != JCAL_EXIT_OK)
			return code;
		code = send_command(t, &st, NULL, &reply);
	}
	print_reply(reply, 1);
	free(reply);
	if (code == JCAL_EXIT_OK && !t->staged) {
		/* %p as the agent expands it: the pid the JVM sees */
		char pid[16];
		snprintf(pid, sizeof(pid), "%d", (int)t->p.nspid);
		char path[PATH_MAX + 64];
		size_t o = 0;
		for (const char *c = abs_out; *c && o + 16 < sizeof(path); c++)
			if (c[0] == '%' && c[1] == 'p' && c++)
				o += (size_t)snprintf(path + o, sizeof(path) - o, "%s", pid);
			else
				path[o++] = *c;
		path[o] = '\0';
		printf("jcal: recording of process %d written to ", (int)t->p.pid);
		launcher_put_escaped(stdout, path, 0);
		putchar('\n');
	}
	return code;
}

/* --keep's remove: a file of the loop, said; as the caller, whose file it
 * is when jcal copied it from a stage. */
static int remove_old(const char *name, void *ctx)
{
	const struct target *t = ctx;
	char err[256];
	int rc = run_as_caller() ? -1 : unlink(name);
	int e = errno;

	if (run_as_owner(t->p.uid, t->p.gid, err, sizeof(err)))
		fprintf(stderr, "jcal: warning: cannot switch to user %s: %s\n", t->p.user, err);
	errno = e;
	if (rc && errno != ENOENT) {
		fprintf(stderr, "jcal: warning: --keep: cannot remove ");
		launcher_put_escaped(stderr, name, 0);
		fprintf(stderr, ": %s\n", strerror(errno));
		return -1;
	}
	printf("jcal: --keep: removed ");
	launcher_put_escaped(stdout, name, 0);
	putchar('\n');
	return 0;
}

static void say_written(const struct target *t, const char *name)
{
	printf("jcal: recording of process %d written to ", (int)t->p.pid);
	launcher_put_escaped(stdout, name, 0);
	putchar('\n');
	fflush(stdout);
}

/* How the loop ended: the recording no longer runs (jcal stop, -d's
 * duration=, a limit), the JVM exited (the agent finished the file at VM
 * death), or a signal (stopped here). */
enum loop_end { LOOP_ON, LOOP_ENDED, LOOP_EXITED };

/* One rotation: the agent closes the file being written and goes on in
 * the next one of lf. Returns LOOP_ON, LOOP_ENDED or LOOP_EXITED, or -1
 * with *code set. */
static int rotate_once(struct target *t, const struct launcher_args *a, struct loop_files *lf,
		       const char *pattern, int *code)
{
	char name[PATH_MAX], agent_out[2 * PATH_MAX], err[2 * PATH_MAX + 256];
	struct launcher_args rot = *a;
	struct out_stage next;
	char *reply = NULL;
	int done;

	if (loop_files_next(lf, pattern, t->p.nspid, time(NULL), name, sizeof(name), agent_out,
			    sizeof(agent_out), err, sizeof(err))) {
		*code = error(JCAL_EXIT_USAGE, "%s", err);
		return -1;
	}
	/* staged (out_stage.h): each file its own stage, copied once complete */
	if (t->staged && (out_stage_create(&next, &t->p, name, err, sizeof(err)) ||
			  loop_files_escape(next.inside, agent_out, sizeof(agent_out)))) {
		*code = error(JCAL_EXIT_ATTACH_FAILED, "a stage for %s: %s", name, err);
		return -1;
	}
	rot.cmd = LAUNCHER_CMD_ROTATE;
	rot.opts[0] = '\0';
	*code = send_command(t, &rot, agent_out, &reply);
	free(reply);
	if (t->staged && *code != JCAL_EXIT_OK)
		out_stage_remove(&next);
	if (t->staged && *code == JCAL_EXIT_OK) {
		deliver(t, &t->stage, &done); /* says where the file went */
		t->stage = next;
	}
	if (*code == JCAL_EXIT_NOT_RECORDING)
		return LOOP_ENDED;
	if (*code == JCAL_EXIT_NO_PROCESS || !proc_handle_alive(&t->p.proc))
		return LOOP_EXITED;
	if (*code != JCAL_EXIT_OK)
		return -1;
	if (!t->staged)
		say_written(t, lf->name[lf->n - 1]);
	if (loop_files_add(lf, name)) {
		*code = error(JCAL_EXIT_ATTACH_FAILED, "out of memory");
		return -1;
	}
	loop_files_trim(lf, remove_old, t);
	fflush(stdout);
	return LOOP_ON;
}

/* Waits until the next rotation is due (every a->loop_s from started, and
 * a second at least after the last, so that %t names a new file) or
 * the recording's end: LOOP_ON (rotate now), LOOP_ENDED (-d reached: the
 * agent ends the recording itself) or LOOP_EXITED. A signal returns
 * LOOP_ON with interrupted set. */
static int loop_wait(struct target *t, const struct launcher_args *a, long long started,
		     long long last, unsigned k)
{
	long long due = started + (long long)k * a->loop_s * 1000;
	long long end = started + (long long)a->duration_s * 1000;

	if (due < last + 1000)
		due = last + 1000;
	for (;;) {
		long long now = now_ms();
		if (a->duration_s && end <= due && now >= end)
			return LOOP_ENDED;
		if (now >= due)
			return LOOP_ON;
		if (nap(due - now < 200 ? (long)(due - now) : 200))
			return LOOP_ON;
		if (!proc_handle_alive(&t->p.proc))
			return LOOP_EXITED;
	}
}

/* Until the recording that -d's duration= (or a stop elsewhere) ends is
 * over: polls status. Returns an exit code. */
static int loop_drain(struct target *t, const struct launcher_args *a)
{
	struct launcher_args st = *a;
	long deadline = now_s() + RECORD_GRACE_S;
	char *reply = NULL;
	int code;

	st.cmd = LAUNCHER_CMD_STATUS;
	st.opts[0] = '\0';
	for (;;) {
		if (!proc_handle_alive(&t->p.proc))
			return JCAL_EXIT_NO_PROCESS;
		code = send_command(t, &st, NULL, &reply);
		int on = reply_recording(reply);
		free(reply);
		reply = NULL;
		if (code != JCAL_EXIT_OK || !on)
			return code;
		if (interrupted || now_s() > deadline)
			return JCAL_EXIT_RECORDING;
		nap(200);
	}
}

/* Whether the agent of t still records (a status that says so). */
static int still_recording(struct target *t, const struct launcher_args *a)
{
	struct launcher_args st = *a;
	char *reply = NULL;

	st.cmd = LAUNCHER_CMD_STATUS;
	st.opts[0] = '\0';
	int on = proc_handle_alive(&t->p.proc) &&
		 send_command(t, &st, NULL, &reply) == JCAL_EXIT_OK && reply_recording(reply);
	free(reply);
	return on;
}

/* record --loop: start into the first file, then a rotation every period
 * until -d, jcal stop, a signal or the JVM's exit; each complete file is
 * said as it is, --keep applied as each new one begins. */
static int cmd_loop(struct target *t, const struct launcher_args *a, const char *pattern)
{
	struct sigaction sa = {.sa_handler = on_signal};
	char name[PATH_MAX], agent_out[2 * PATH_MAX], err[PATH_MAX + 256];
	struct loop_files lf = {.keep = a->keep};
	int code, end = LOOP_ON;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (loop_files_next(&lf, pattern, t->p.nspid, time(NULL), name, sizeof(name), agent_out,
			    sizeof(agent_out), err, sizeof(err)))
		return error(JCAL_EXIT_USAGE, "%s", err);
	/* staged: the stage run_on made for the first file, and its name */
	if (t->staged && (snprintf(name, sizeof(name), "%s", t->stage.dest) < 0 ||
			  loop_files_escape(t->stage.inside, agent_out, sizeof(agent_out)))) {
		out_stage_remove(&t->stage);
		return error(JCAL_EXIT_USAGE, "file name too long: %s", t->stage.inside);
	}
	code = send_command(t, a, agent_out, NULL);
	if (code != JCAL_EXIT_OK && t->staged)
		out_stage_remove(&t->stage);
	if (code != JCAL_EXIT_OK || loop_files_add(&lf, name)) {
		loop_files_free(&lf);
		return code != JCAL_EXIT_OK ? code
					    : error(JCAL_EXIT_ATTACH_FAILED, "out of memory");
	}
	long long started = now_ms(), last = started;
	for (unsigned k = 1; end == LOOP_ON; k++) {
		end = loop_wait(t, a, started, last, k);
		if (interrupted || end != LOOP_ON)
			break;
		last = now_ms();
		end = rotate_once(t, a, &lf, pattern, &code);
	}
	/* a signal, or a rotation refused: nothing records unattended */
	if ((end == LOOP_ON && interrupted) || (end < 0 && still_recording(t, a))) {
		struct launcher_args stop = *a;
		stop.cmd = LAUNCHER_CMD_STOP;
		stop.opts[0] = '\0';
		fprintf(stderr, "jcal: %s: stopping the recording of process %d\n",
			end < 0 ? "the rotation failed" : strsignal(interrupted), (int)t->p.pid);
		int c = send_command(t, &stop, NULL, NULL);
		if (end == LOOP_ON) {
			code = c;
			end = c == JCAL_EXIT_OK || c == JCAL_EXIT_NOT_RECORDING ? LOOP_ENDED : -1;
		} else if (c == JCAL_EXIT_OK) {
			say_written(t, lf.name[lf.n - 1]);
		}
	} else if (end == LOOP_ENDED) {
		code = loop_drain(t, a);
		if (code == JCAL_EXIT_NO_PROCESS)
			end = LOOP_EXITED;
		else if (code == JCAL_EXIT_RECORDING)
			code =
			    error(JCAL_EXIT_RECORDING,
				  "the recording did not end %d s after -d: jcal stop %d ends it",
				  RECORD_GRACE_S, (int)t->p.pid);
	}
	int done = 0;
	if (t->staged) /* the last file, copied when complete (a stop, VM death) */
		deliver(t, &t->stage, &done);
	if (end == LOOP_EXITED && access(lf.name[lf.n - 1], F_OK) != 0) {
		/* killed: no VM death, the file stays OUT.part */
		code = error(JCAL_EXIT_NO_PROCESS,
			     "process %d ended without finishing its last file (killed?): %s.part "
			     "is what it holds",
			     (int)t->p.pid, lf.name[lf.n - 1]);
		end = -1;
	} else if (end == LOOP_EXITED) {
		printf("jcal: process %d exited: the agent finished its last file at the JVM's "
		       "end\n",
		       (int)t->p.pid);
		code = JCAL_EXIT_OK;
	}
	if ((end == LOOP_ENDED || end == LOOP_EXITED) && !t->staged)
		say_written(t, lf.name[lf.n - 1]);
	loop_files_free(&lf);
	return end < 0 ? code : JCAL_EXIT_OK;
}

/* status of a JVM where no jcal agent is loaded: answered without loading
 * it, so the JVM stays as it was. */
static int not_loaded(const struct target *t, enum launcher_command cmd)
{
	if (cmd == LAUNCHER_CMD_STATUS) {
		printf("recording: no\nagent: not loaded in process %d\n", (int)t->p.pid);
		return JCAL_EXIT_OK;
	}
	return error(JCAL_EXIT_NOT_RECORDING, "process %d has no jcal agent loaded: nothing to %s",
		     (int)t->p.pid, cmd == LAUNCHER_CMD_STOP ? "stop" : "dump");
}

/* start and record with trees (output=tree|both): the caller's
 * tables, read now, before jcal becomes the JVM's user (calib_handover.h).
 * 0, or an exit code (a calib= given that cannot be read). */
static int read_tables(struct target *t, const struct launcher_args *a)
{
	static struct calib_handover ho;
	char err[PATH_MAX + 256];
	const char *given;
	size_t len;

	if ((a->cmd != LAUNCHER_CMD_START && a->cmd != LAUNCHER_CMD_RECORD) ||
	    !calib_handover_wanted(a->opts, &given, &len))
		return 0;
	if (calib_handover_read(&ho, given, len, err, sizeof(err))) {
		calib_handover_free(&ho);
		if (given)
			return error(JCAL_EXIT_USAGE, "%s", err);
		fputs("jcal: warning: ", stderr);
		launcher_put_escaped(stderr, err, 0);
		fputs("; the agent looks for a table itself\n", stderr);
		return 0;
	}
	if (ho.skipped) {
		fprintf(stderr, "jcal: warning: %zu tables of ", ho.skipped);
		launcher_put_escaped(stderr, ho.src, 0);
		fprintf(stderr, " not handed over (at most %d)\n", CALIB_HANDOVER_MAX_FILES);
	}
	if (ho.n || given)
		t->ho = &ho;
	return 0;
}

/* A PID command on the process t holds. */
static int run_on(struct target *t, const struct launcher_args *a, const char *exe_dir,
		  const char *cwd)
{
	char abs_out[PATH_MAX];
	int code = read_tables(t, a);
	if (code)
		return code;
	code = check_process(a->pid, t);
	if (code)
		return code;
	if (!t->p.jcal_lib[0] && a->cmd != LAUNCHER_CMD_START && a->cmd != LAUNCHER_CMD_RECORD)
		return not_loaded(t, a->cmd);
	if ((code = choose_library(a, exe_dir, t)) != 0)
		return code;
	if (attach_disabled(&t->p))
		return error(JCAL_EXIT_ATTACH_OFF,
			     "process %d runs with -XX:+DisableAttachMechanism: it cannot be "
			     "attached to",
			     (int)t->p.pid);
	const char *out = a->out;
	if (!out && a->cmd == LAUNCHER_CMD_RECORD)
		out = a->loop_s ? "jcal-%p-%n.bin" : "jcal-%p.bin";
	if (out && launcher_absolute(out, cwd, abs_out, sizeof(abs_out)))
		return error(JCAL_EXIT_USAGE, "output path too long: %s", out);
	const char *agent_out = out ? abs_out : NULL;
	if (a->cmd == LAUNCHER_CMD_START && (code = deliver_pending(t, 0)) != 0)
		return code;
	if (out && (code = stage_output(t, abs_out, &agent_out)) != 0)
		return code;
	if (a->cmd == LAUNCHER_CMD_RECORD && a->loop_s)
		return cmd_loop(t, a, abs_out);
	if (a->cmd == LAUNCHER_CMD_RECORD)
		return finish_stage(t, a->cmd, cmd_record(t, a, agent_out));
	code = finish_stage(t, a->cmd, send_command(t, a, agent_out, NULL));
	/* the recording a stop ended, or one that ended at its duration= */
	if (code == JCAL_EXIT_OK && a->cmd != LAUNCHER_CMD_START)
		code = deliver_pending(t, a->cmd == LAUNCHER_CMD_STATUS);
	return code;
}

int launcher_run(const struct launcher_args *a, const char *exe_dir, const char *cwd)
{
	struct target t;
	if (a->cmd == LAUNCHER_CMD_LIST)
		return cmd_list();
	memset(&t, 0, sizeof(t));
	t.p.proc.pidfd = t.p.proc.procfd = -1;
	t.timeout_ms = a->timeout_ms;
	int code = run_on(&t, a, exe_dir, cwd);
	jvm_process_close(&t.p);
	if (t.ho)
		calib_handover_free(t.ho);
	return code;
}
