/*
 * proc_handle.c - the held target process (see proc_handle.h): pidfd,
 * /proc/PID directory fd, start time; the only place jcal signals from.
 */
#include "agent/launcher/proc_handle.h"

#include "agent/launcher/launcher_io.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* SIGQUIT's bit in the masks of /proc/PID/status (bit N-1 for signal N). */
#define QUIT_BIT (1ull << (SIGQUIT - 1))

static int sys_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

static int sys_pidfd_send_signal(int pidfd, int sig)
{
#ifdef SYS_pidfd_send_signal
	return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
#else
	(void)pidfd, (void)sig;
	errno = ENOSYS;
	return -1;
#endif
}

const char *proc_status_field(const char *text, const char *key)
{
	size_t klen = strlen(key);
	for (const char *line = text; line && *line;) {
		if (strncmp(line, key, klen) == 0 && line[klen] == ':')
			return line + klen + 1;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return NULL;
}

int proc_stat_parse(const char *text, unsigned long long *start, char *state)
{
	const char *p = strrchr(text, ')');
	if (!p || p[1] != ' ' || !p[2])
		return -1;
	p += 2;
	*state = *p;
	/* fields 3 (the state) to 22 (the start time): 19 fields to skip */
	for (int field = 3; field < 22; field++) {
		p = strchr(p, ' ');
		if (!p)
			return -1;
		p++;
	}
	if (*p < '0' || *p > '9')
		return -1;
	char *end;
	errno = 0;
	*start = strtoull(p, &end, 10);
	return errno || (*end != ' ' && *end != '\n' && *end != '\0') ? -1 : 0;
}

/* The hexadecimal mask after key, -1 when absent or malformed. */
static int status_mask(const char *text, const char *key, unsigned long long *mask)
{
	const char *v = proc_status_field(text, key);
	char *end;
	if (!v)
		return -1;
	while (*v == ' ' || *v == '\t')
		v++;
	errno = 0;
	*mask = strtoull(v, &end, 16);
	return errno || end == v || (*end != '\n' && *end != '\0') ? -1 : 0;
}

int proc_status_catches_quit(const char *text)
{
	unsigned long long caught, ignored;
	if (status_mask(text, "SigCgt", &caught) || status_mask(text, "SigIgn", &ignored))
		return -1;
	return (caught & QUIT_BIT) && !(ignored & QUIT_BIT);
}

enum proc_verdict proc_verdict_of(const char *stat, const char *status, unsigned long long start)
{
	unsigned long long now;
	char state;
	if (!stat || !status || proc_stat_parse(stat, &now, &state) || now != start ||
	    state == 'Z' || state == 'X' || state == 'x')
		return PROC_GONE;
	return proc_status_catches_quit(status) == 1 ? PROC_READY : PROC_NOT_CATCHING;
}

char *proc_handle_read(const struct proc_handle *h, const char *name)
{
	if (h->procfd < 0) {
		errno = ESRCH;
		return NULL;
	}
	int fd = openat(h->procfd, name, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? NULL : launcher_slurp_fd(fd);
}

int proc_handle_dir(const struct proc_handle *h, const char *name)
{
	return openat(h->procfd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int proc_handle_open(struct proc_handle *h, pid_t pid)
{
	char path[64];
	h->pid = pid;
	h->start = 0;
	h->procfd = -1;
	/* EINVAL for a thread id: the caller tells threads from processes */
	h->pidfd = sys_pidfd_open(pid);
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	h->procfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* the pidfd's process held pid from pidfd_open on: if it runs now,
	 * /proc/PID was opened on it */
	if (h->procfd < 0 ||
	    (h->pidfd >= 0 && sys_pidfd_send_signal(h->pidfd, 0) && errno == ESRCH)) {
		proc_handle_close(h);
		errno = ESRCH;
		return -1;
	}
	char *stat = proc_handle_read(h, "stat"), state;
	int bad = !stat || proc_stat_parse(stat, &h->start, &state);
	free(stat);
	if (bad) {
		proc_handle_close(h);
		errno = ESRCH;
		return -1;
	}
	return 0;
}

enum proc_verdict proc_handle_check(const struct proc_handle *h)
{
	if (h->pidfd >= 0 && sys_pidfd_send_signal(h->pidfd, 0) && errno == ESRCH)
		return PROC_GONE;
	char *stat = proc_handle_read(h, "stat"), *status = proc_handle_read(h, "status");
	enum proc_verdict v = proc_verdict_of(stat, status, h->start);
	free(stat);
	free(status);
	return v;
}

int proc_handle_alive(const struct proc_handle *h)
{
	return proc_handle_check(h) != PROC_GONE;
}

int proc_handle_quit(const struct proc_handle *h)
{
	enum proc_verdict v = proc_handle_check(h);
	if (v != PROC_READY)
		return (int)v;
	int r = h->pidfd >= 0 ? sys_pidfd_send_signal(h->pidfd, SIGQUIT) : kill(h->pid, SIGQUIT);
	if (r == 0)
		return PROC_READY;
	return errno == ESRCH ? PROC_GONE : -1;
}

void proc_handle_close(struct proc_handle *h)
{
	if (h->pidfd >= 0)
		close(h->pidfd);
	if (h->procfd >= 0)
		close(h->procfd);
	h->pidfd = h->procfd = -1;
}
