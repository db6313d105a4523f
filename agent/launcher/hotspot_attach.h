/*
 * hotspot_attach.h - the HotSpot attach protocol on Linux, client side:
 * starts the target's attach listener (.attach_pidN file + SIGQUIT, sent
 * through the held proc_handle), waits for its UNIX socket
 * /tmp/.java_pidN, sends one "load" request and reads the answer
 * (docs/live-profiling.md, "How jcal attaches"). Returns errors with a
 * message; never prints.
 */
#ifndef JCAL_HOTSPOT_ATTACH_H
#define JCAL_HOTSPOT_ATTACH_H

#include <stddef.h>
#include <sys/types.h>

#include "agent/launcher/proc_handle.h"

/* The longest argument of a request HotSpot's protocol version 1 takes, in
 * bytes before its NUL (AttachOperation::arg_length_max, JDK 17 to 25):
 * the listener closes the connection without an answer on a longer one. */
#define HOTSPOT_ARG_MAX 1024

enum hotspot_attach_result {
	HOTSPOT_ATTACH_OK = 0,	/* the agent ran: its return code is in *agent_rc */
	HOTSPOT_ATTACH_TIMEOUT, /* no socket, or no answer, within the timeout */
	HOTSPOT_ATTACH_LOAD,	/* the JVM could not load the library (message says why) */
	HOTSPOT_ATTACH_ERROR,	/* I/O or protocol error */
	HOTSPOT_ATTACH_GONE,	/* the process ended, or its pid is another's now */
	HOTSPOT_ATTACH_NO_QUIT, /* it does not catch SIGQUIT (within the timeout) */
	HOTSPOT_ATTACH_TOO_LONG /* an argument is over HOTSPOT_ARG_MAX: nothing sent */
};

struct hotspot_target {
	const struct proc_handle *proc; /* the process, held; its pid as jcal sees it */
	pid_t nspid;			/* as the JVM sees itself (names its socket after it) */
	uid_t uid;	  /* the JVM's effective uid: its socket must be owned by it */
	const char *root; /* "" or "/proc/PID/root" */
};

/* The request "1\0load\0LIB\0true\0OPTIONS\0" into out. Returns its length,
 * 0 when it does not fit or an argument is over HOTSPOT_ARG_MAX bytes. */
size_t hotspot_load_request(const char *lib, const char *options, char *out, size_t outlen);

/* Parses the listener's answer to load: "STATUS\n" then, when the agent
 * ran, "return code: N\n" (JDK 21+, and JDK 17 updates) or "N\n" (older
 * JDK 17); anything else is the JVM's message why the library was not
 * loaded, copied to msg (lines joined by "; "). */
enum hotspot_attach_result hotspot_parse_load_answer(const char *answer, int *agent_rc, char *msg,
						     size_t msglen);

/* Removes the socket path of the target when it is a socket of another
 * user than the JVM's that nothing listens on: what a process with this
 * pid left when it was killed, which the JVM, running as another user,
 * cannot replace in the sticky /tmp (so its listener would never open).
 * Run with rights that may remove it (root's). Returns 0: nothing there,
 * the JVM's own socket, anything else (refused later), or removed; -1
 * with a message when such a socket cannot be removed. */
int hotspot_clear_stale_socket(const struct hotspot_target *t, char *msg, size_t msglen);

/* Loads lib with options into the target JVM; waits timeout_ms for it to
 * catch SIGQUIT and for the socket together, and again for the answer. */
enum hotspot_attach_result hotspot_attach_load(const struct hotspot_target *t, const char *lib,
					       const char *options, int timeout_ms, int *agent_rc,
					       char *msg, size_t msglen);

#endif
