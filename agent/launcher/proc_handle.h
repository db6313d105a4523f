/*
 * proc_handle.h - the target process as jcal holds it from the moment it
 * names it: a pidfd (pidfd_open(2)) where the kernel has one, a directory
 * fd of /proc/PID (whose files answer ESRCH once that process has ended,
 * whoever has its pid by then) and its start time (field 22 of
 * /proc/PID/stat). jcal reads the process's /proc files through it, and
 * sends its one signal, SIGQUIT, only through it: only to that process,
 * checked again just before, and only when it catches SIGQUIT
 * (docs/live-profiling.md, "On a shared machine"). The parsers of the
 * /proc texts are pure and unit-tested.
 */
#ifndef JCAL_PROC_HANDLE_H
#define JCAL_PROC_HANDLE_H

#include <sys/types.h>

struct proc_handle {
	pid_t pid;
	int pidfd;		  /* -1 where the kernel has no pidfd_open(2) */
	int procfd;		  /* /proc/PID, -1 when not open */
	unsigned long long start; /* clock ticks from boot to its start */
};

/* What a process is now, against the one a handle holds. */
enum proc_verdict {
	PROC_READY,	   /* the same process, and it catches SIGQUIT */
	PROC_NOT_CATCHING, /* the same process; SIGQUIT is not caught, or ignored */
	PROC_GONE,	   /* it ended (a zombie too), or is another process */
};

/* The value after "Key:" on its own line of /proc/PID/status text, NULL
 * when there is no such line. */
const char *proc_status_field(const char *text, const char *key);

/* From /proc/PID/stat text: the start time (field 22) and the state
 * (field 3), read after the last ')' since the command name between
 * parentheses may hold anything. Returns 0, or -1 when malformed. */
int proc_stat_parse(const char *text, unsigned long long *start, char *state);

/* From /proc/PID/status text: 1 when SIGQUIT is caught (SigCgt) and not
 * ignored (SigIgn), 0 when not, -1 when the lines are missing. */
int proc_status_catches_quit(const char *text);

/* The verdict from the texts of /proc/PID/stat and status as read now
 * (NULL: they could not be read) for a process that started at start. */
enum proc_verdict proc_verdict_of(const char *stat, const char *status, unsigned long long start);

/* Opens the handle of pid: its pidfd, then /proc/PID, then checks the pid
 * still names the pidfd's process, and reads the start time. Returns 0, or
 * -1 with errno ESRCH (no such process) or another errno. */
int proc_handle_open(struct proc_handle *h, pid_t pid);

/* The file NAME of /proc/PID read whole (malloc'd, NUL-terminated); NULL
 * with errno when the process is gone or the file unreadable. */
char *proc_handle_read(const struct proc_handle *h, const char *name);

/* An O_PATH directory fd of /proc/PID/NAME (NAME "cwd", "root/tmp"), which
 * stays usable after the process ends. -1 with errno. */
int proc_handle_dir(const struct proc_handle *h, const char *name);

/* The verdict on the held process now. */
enum proc_verdict proc_handle_check(const struct proc_handle *h);

/* 1 while the held process runs (proc_handle_check is not PROC_GONE). */
int proc_handle_alive(const struct proc_handle *h);

/* Sends SIGQUIT when proc_handle_check, just before, says PROC_READY:
 * through the pidfd (else kill(2)). Returns the verdict; PROC_READY when
 * it was sent, or -1 with errno when sending failed otherwise. */
int proc_handle_quit(const struct proc_handle *h);

void proc_handle_close(struct proc_handle *h);

#endif
