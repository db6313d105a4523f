/*
 * hotspot_attach.c - the client side of HotSpot's attach mechanism on
 * Linux, as the JVM implements it (docs/live-profiling.md):
 *
 * 1. When /tmp/.java_pidN (N: the pid the JVM sees) is not there yet, the
 *    listener has not started: once the process catches SIGQUIT (a JVM
 *    still starting may not yet), create .attach_pidN in the JVM's working
 *    directory (else in its /tmp), send SIGQUIT through the proc_handle;
 *    the JVM's signal thread finds the file, owned by its own user or
 *    root, and starts the listener instead of printing a thread dump. Wait
 *    for the socket; remove the file through the directory fd it was made
 *    in, which outlives the process. A socket there of another user that
 *    nothing listens on (an earlier process with this pid was killed)
 *    blocks the JVM's own: hotspot_clear_stale_socket removes it.
 * 2. Connect (the listener accepts only a peer of its own euid and egid,
 *    or root; jcal accepts only a listener that is the held process) and
 *    send "1" (protocol version), "load" and three arguments, each
 *    NUL-terminated and at most HOTSPOT_ARG_MAX bytes: the library, "true"
 *    (an absolute path), the agent's options.
 * 3. Read to end of stream: the status of the operation, then what it
 *    printed: the return code of Agent_OnAttach, or why it did not load.
 *
 * Both paths go through /proc/PID/root, so a JVM in another mount
 * namespace (a container) is reached at its own /tmp.
 */
#include "agent/launcher/hotspot_attach.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_ANSWER 65536

static enum hotspot_attach_result fail(enum hotspot_attach_result r, char *msg, size_t msglen,
				       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	return r;
}

size_t hotspot_load_request(const char *lib, const char *options, char *out, size_t outlen)
{
	const char *parts[] = {"1", "load", lib, "true", options};
	size_t len = 0;
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		size_t n = strlen(parts[i]) + 1;
		if (n > outlen - len || n > HOTSPOT_ARG_MAX + 1)
			return 0;
		memcpy(out + len, parts[i], n);
		len += n;
	}
	return len;
}

/* Parses a whole line of text as an int; 0 on success. */
static int parse_int(const char *s, size_t len, int *out)
{
	char buf[24];
	char *end;
	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	long v = strtol(buf, &end, 10);
	if (errno || *end != '\0' || v < -2147483647L - 1 || v > 2147483647L)
		return -1;
	*out = (int)v;
	return 0;
}

/* The lines of s joined by "; " into msg, trailing newlines dropped. */
static void join_lines(const char *s, char *msg, size_t msglen)
{
	size_t o = 0;
	if (msglen == 0)
		return;
	for (; *s && o + 1 < msglen; s++) {
		if (*s == '\n') {
			if (s[1] == '\0')
				break;
			for (const char *sep = "; "; *sep && o + 1 < msglen; sep++)
				msg[o++] = *sep;
		} else {
			msg[o++] = *s;
		}
	}
	msg[o] = '\0';
}

enum hotspot_attach_result hotspot_parse_load_answer(const char *answer, int *agent_rc, char *msg,
						     size_t msglen)
{
	const char *nl = strchr(answer, '\n');
	int status, rc;
	if (!nl || parse_int(answer, (size_t)(nl - answer), &status))
		return fail(HOTSPOT_ATTACH_ERROR, msg, msglen,
			    "the JVM's attach listener answered something unexpected: '%.80s'",
			    answer);
	const char *rest = nl + 1;
	const char *nl2 = strchr(rest, '\n');
	size_t l2 = nl2 ? (size_t)(nl2 - rest) : strlen(rest);
	static const char prefix[] = "return code: ";
	size_t pl = sizeof(prefix) - 1;
	if (status == 0) {
		if (l2 > pl && memcmp(rest, prefix, pl) == 0 &&
		    parse_int(rest + pl, l2 - pl, &rc) == 0) {
			*agent_rc = rc;
			return HOTSPOT_ATTACH_OK;
		}
		if (parse_int(rest, l2, &rc) == 0) {
			*agent_rc = rc;
			return HOTSPOT_ATTACH_OK;
		}
	}
	if (*rest == '\0')
		return fail(HOTSPOT_ATTACH_LOAD, msg, msglen,
			    "the JVM did not load the library (attach status %d)", status);
	join_lines(rest, msg, msglen);
	return HOTSPOT_ATTACH_LOAD;
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static enum hotspot_attach_result gone(const struct hotspot_target *t, char *msg, size_t msglen)
{
	return fail(HOTSPOT_ATTACH_GONE, msg, msglen, "process %d exited while jcal was attaching",
		    (int)t->proc->pid);
}

/* 1 when path is a socket owned by uid. */
static int socket_ready(const char *path, uid_t uid)
{
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISSOCK(sb.st_mode) && sb.st_uid == uid;
}

/* The trigger file .attach_pidN and the directory fd it was made in. */
struct trigger {
	int dirfd;
	char name[32];
};

/* Opens NAME in dirfd for the trigger: new, else an existing regular file
 * of the JVM's uid or root's (whom HotSpot believes); never through a
 * symbolic link, never blocking on a FIFO. Returns 0 or -1. */
static int trigger_open(int dirfd, const char *name, uid_t uid)
{
	struct stat sb;
	int flags = O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
	int fd = openat(dirfd, name, flags | O_CREAT | O_EXCL, 0600);
	if (fd < 0 && errno == EEXIST)
		fd = openat(dirfd, name, flags);
	if (fd < 0)
		return -1;
	int ok = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (sb.st_uid == uid || sb.st_uid == 0);
	close(fd);
	if (!ok)
		errno = EEXIST;
	return ok ? 0 : -1;
}

/* Creates the trigger file in the target's working directory, else its
 * /tmp. Returns 0, or -1 with errno. */
static int trigger_create(const struct hotspot_target *t, struct trigger *tr)
{
	static const char *const dirs[] = {"cwd", "root/tmp"};
	int e = 0;
	snprintf(tr->name, sizeof(tr->name), ".attach_pid%d", (int)t->nspid);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		tr->dirfd = proc_handle_dir(t->proc, dirs[i]);
		if (tr->dirfd >= 0 && trigger_open(tr->dirfd, tr->name, t->uid) == 0)
			return 0;
		e = e ? e : errno;
		if (tr->dirfd >= 0)
			close(tr->dirfd);
	}
	tr->dirfd = -1;
	errno = e;
	return -1;
}

static void trigger_remove(struct trigger *tr)
{
	if (tr->dirfd < 0)
		return;
	unlinkat(tr->dirfd, tr->name, 0);
	close(tr->dirfd);
	tr->dirfd = -1;
}

/* Waits until the process catches SIGQUIT (a JVM installs its handler
 * early in its start-up), up to end. */
static enum hotspot_attach_result wait_catching(const struct hotspot_target *t, long end,
						int timeout_ms, char *msg, size_t msglen)
{
	long delay = 10;
	for (;;) {
		enum proc_verdict v = proc_handle_check(t->proc);
		if (v == PROC_READY)
			return HOTSPOT_ATTACH_OK;
		if (v == PROC_GONE)
			return gone(t, msg, msglen);
		if (now_ms() >= end)
			return fail(HOTSPOT_ATTACH_NO_QUIT, msg, msglen,
				    "does not catch SIGQUIT (waited %d ms)", timeout_ms);
		sleep_ms(delay);
		delay = delay < 200 ? delay * 2 : 200;
	}
}

/* Sends SIGQUIT, then waits for the socket up to end. */
static enum hotspot_attach_result signal_and_wait(const struct hotspot_target *t, const char *sock,
						  long end, int timeout_ms, char *msg,
						  size_t msglen)
{
	int q = proc_handle_quit(t->proc);
	if (q == PROC_NOT_CATCHING)
		return fail(HOTSPOT_ATTACH_NO_QUIT, msg, msglen, "does not catch SIGQUIT");
	if (q == PROC_GONE)
		return gone(t, msg, msglen);
	if (q != PROC_READY)
		return fail(HOTSPOT_ATTACH_ERROR, msg, msglen, "sending SIGQUIT to %d: %s",
			    (int)t->proc->pid, strerror(errno));
	long delay = 10;
	while (!socket_ready(sock, t->uid)) {
		if (!proc_handle_alive(t->proc))
			return gone(t, msg, msglen);
		if (now_ms() >= end)
			return fail(HOTSPOT_ATTACH_TIMEOUT, msg, msglen,
				    "the JVM did not open its attach socket %s within %d ms", sock,
				    timeout_ms);
		sleep_ms(delay);
		delay = delay < 200 ? delay * 2 : 200;
	}
	return HOTSPOT_ATTACH_OK;
}

/* 1 when nothing listens on the socket at path (connection refused). */
static int socket_stale(const char *path)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return 0;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	int stale =
	    connect(fd, (const struct sockaddr *)&addr, sizeof(addr)) != 0 && errno == ECONNREFUSED;
	close(fd);
	return stale;
}

/* The socket's path: "/tmp/.java_pidN" as the JVM sees it, through its
 * root. Returns 0, or -1 when it does not fit a socket address. */
static int socket_path(const struct hotspot_target *t, char *sock, size_t len)
{
	int n = snprintf(sock, len, "%s/tmp/.java_pid%d", t->root, (int)t->nspid);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int hotspot_clear_stale_socket(const struct hotspot_target *t, char *msg, size_t msglen)
{
	char sock[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct stat sb;
	if (socket_path(t, sock, sizeof(sock)) || lstat(sock, &sb) || !S_ISSOCK(sb.st_mode) ||
	    sb.st_uid == t->uid || !socket_stale(sock))
		return 0;
	if (unlink(sock) == 0 || errno == ENOENT)
		return 0;
	fail(HOTSPOT_ATTACH_ERROR, msg, msglen,
	     "%s is a stale socket of uid %u (nothing listens on it) that keeps the JVM (uid %u) "
	     "from opening its own; jcal cannot remove it (%s): remove it as root or as its "
	     "owner",
	     sock, (unsigned)sb.st_uid, (unsigned)t->uid, strerror(errno));
	return -1;
}

/* Starts the listener when its socket is not there; waits for it. */
static enum hotspot_attach_result start_listener(const struct hotspot_target *t, const char *sock,
						 int timeout_ms, char *msg, size_t msglen)
{
	struct trigger tr;
	struct stat sb;
	if (lstat(sock, &sb) == 0) {
		if (S_ISSOCK(sb.st_mode) && sb.st_uid != t->uid)
			return fail(
			    HOTSPOT_ATTACH_ERROR, msg, msglen,
			    "%s is a socket of uid %u, not of the JVM's user (uid %u): not "
			    "using it (if a killed process left it, remove it as root or as "
			    "its owner)",
			    sock, (unsigned)sb.st_uid, (unsigned)t->uid);
		if (!S_ISSOCK(sb.st_mode))
			return fail(HOTSPOT_ATTACH_ERROR, msg, msglen,
				    "%s is not a socket of the JVM's user (uid %u): not using it",
				    sock, (unsigned)t->uid);
		return HOTSPOT_ATTACH_OK;
	}
	long end = now_ms() + timeout_ms;
	enum hotspot_attach_result r = wait_catching(t, end, timeout_ms, msg, msglen);
	if (r != HOTSPOT_ATTACH_OK)
		return r;
	if (trigger_create(t, &tr))
		return fail(HOTSPOT_ATTACH_ERROR, msg, msglen,
			    "cannot create .attach_pid%d in the JVM's working directory nor in "
			    "its /tmp: %s",
			    (int)t->nspid, strerror(errno));
	r = signal_and_wait(t, sock, end, timeout_ms, msg, msglen);
	trigger_remove(&tr);
	return r;
}

/* Connects fd to the socket at addr when its listener is the held process
 * (SO_PEERCRED: the pid that listens, as jcal sees it). */
static enum hotspot_attach_result connect_jvm(int fd, const struct sockaddr_un *addr,
					      const struct hotspot_target *t, char *msg,
					      size_t msglen)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	if (fd < 0 || connect(fd, (const struct sockaddr *)addr, sizeof(*addr)))
		return fail(HOTSPOT_ATTACH_ERROR, msg, msglen, "connect to %s: %s", addr->sun_path,
			    strerror(errno));
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return fail(HOTSPOT_ATTACH_ERROR, msg, msglen, "SO_PEERCRED of %s: %s",
			    addr->sun_path, strerror(errno));
	if (!proc_handle_alive(t->proc))
		return gone(t, msg, msglen);
	if (cred.pid != t->proc->pid)
		return fail(HOTSPOT_ATTACH_ERROR, msg, msglen,
			    "%s is the socket of process %d, not of %d: not using it",
			    addr->sun_path, (int)cred.pid, (int)t->proc->pid);
	return HOTSPOT_ATTACH_OK;
}

/* Writes all of buf; reads the answer to EOF into ans (NUL-terminated). */
static enum hotspot_attach_result exchange(int fd, const char *req, size_t reqlen, char *ans,
					   size_t anslen, int timeout_ms, char *msg, size_t msglen)
{
	for (size_t off = 0; off < reqlen;) {
		ssize_t n = send(fd, req + off, reqlen - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail(HOTSPOT_ATTACH_ERROR, msg, msglen,
				    "writing to the attach socket: %s", strerror(errno));
		off += (size_t)n;
	}
	size_t got = 0;
	long end = now_ms() + timeout_ms;
	for (;;) {
		struct pollfd pfd = {fd, POLLIN, 0};
		long left = end - now_ms();
		if (left <= 0)
			return fail(HOTSPOT_ATTACH_TIMEOUT, msg, msglen,
				    "the JVM did not answer within %d ms", timeout_ms);
		int pr = poll(&pfd, 1, (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			continue;
		ssize_t n = read(fd, ans + got, anslen - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail(HOTSPOT_ATTACH_ERROR, msg, msglen,
				    "reading the attach socket: %s", strerror(errno));
		if (n == 0 || (got += (size_t)n) == anslen - 1)
			break;
	}
	ans[got] = '\0';
	if (got == 0)
		return fail(HOTSPOT_ATTACH_ERROR, msg, msglen,
			    "the JVM closed the attach connection without an answer");
	return HOTSPOT_ATTACH_OK;
}

/* The message for an argument over HOTSPOT_ARG_MAX bytes, or 0. */
static int too_long(const char *lib, const char *options, char *msg, size_t msglen)
{
	size_t ll = strlen(lib), ol = strlen(options);
	if (ll > HOTSPOT_ARG_MAX)
		snprintf(msg, msglen,
			 "the library path is %zu bytes: HotSpot's attach protocol takes at most "
			 "%d bytes per argument",
			 ll, HOTSPOT_ARG_MAX);
	else if (ol > HOTSPOT_ARG_MAX)
		snprintf(msg, msglen,
			 "the agent options are %zu bytes: HotSpot's attach protocol takes at most "
			 "%d bytes per argument",
			 ol, HOTSPOT_ARG_MAX);
	return ll > HOTSPOT_ARG_MAX || ol > HOTSPOT_ARG_MAX;
}

enum hotspot_attach_result hotspot_attach_load(const struct hotspot_target *t, const char *lib,
					       const char *options, int timeout_ms, int *agent_rc,
					       char *msg, size_t msglen)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	char sock[sizeof(addr.sun_path)];
	if (too_long(lib, options, msg, msglen))
		return HOTSPOT_ATTACH_TOO_LONG;
	if (socket_path(t, sock, sizeof(sock)))
		return fail(HOTSPOT_ATTACH_ERROR, msg, msglen, "socket path too long");
	size_t reqcap = strlen(lib) + strlen(options) + 32;
	char *req = malloc(reqcap), *ans = malloc(MAX_ANSWER);
	size_t reqlen = req ? hotspot_load_request(lib, options, req, reqcap) : 0;
	enum hotspot_attach_result r = HOTSPOT_ATTACH_OK;
	if (!req || !ans || reqlen == 0)
		r = fail(HOTSPOT_ATTACH_ERROR, msg, msglen, "out of memory");
	if (r == HOTSPOT_ATTACH_OK)
		r = start_listener(t, sock, timeout_ms, msg, msglen);
	int fd = -1;
	if (r == HOTSPOT_ATTACH_OK) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		memcpy(addr.sun_path, sock, strlen(sock) + 1);
		r = connect_jvm(fd, &addr, t, msg, msglen);
	}
	if (r == HOTSPOT_ATTACH_OK)
		r = exchange(fd, req, reqlen, ans, MAX_ANSWER, timeout_ms, msg, msglen);
	if (r == HOTSPOT_ATTACH_OK)
		r = hotspot_parse_load_answer(ans, agent_rc, msg, msglen);
	/* a connection refused or cut, no answer: say why when it is that */
	if ((r == HOTSPOT_ATTACH_ERROR || r == HOTSPOT_ATTACH_TIMEOUT) &&
	    !proc_handle_alive(t->proc))
		r = gone(t, msg, msglen);
	if (fd >= 0)
		close(fd);
	free(req);
	free(ans);
	return r;
}
