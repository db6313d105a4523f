/*
 * live.c - owns what a load of the library into a running JVM does: parse
 * the command, run it through the session (session.h), and answer
 * through the reply= file, the convention of common/attach_reply.h, opened
 * (and checked) before the command runs (docs/live-profiling.md).
 *
 * The answer is the command's own text plus every message logged while it
 * ran (log.h capture), so an error printed deep inside the agent's set-up
 * reaches the user of the jcal launcher, not only the JVM's stderr.
 */
#include "agent/live.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/session.h"
#include "agent/core/agent_state.h"
#include "common/attach_reply.h"
#include "agent/base/log.h"
#include "agent/base/options.h"
#include "common/safe_open.h"

#define REPLY_MAX (16 * 1024)

/* Why the last start failed while no agent runs in this JVM: status says
 * it, rather than only that none runs (the library stays mapped). */
static char start_failed[512];

/* reply=FILE of an option string that may not parse: found by hand. */
static void find_reply(const char *options, char *out, size_t len)
{
	const char *p = options;

	out[0] = '\0';
	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n > 6 && !strncmp(p, "reply=", 6) && n - 6 < len) {
			memcpy(out, p + 6, n - 6);
			out[n - 6] = '\0';
		}
		p = end ? end + 1 : NULL;
	}
}

/* Writes text to fd (the reply file, closed here), or to stderr without
 * one. */
static void send_reply(int fd, const char *text, int to_stderr)
{
	if (fd >= 0) {
		size_t n = strlen(text);
		for (size_t done = 0; done < n;) {
			ssize_t w = write(fd, text + done, n - done);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				jcal_warn("cannot write the reply: %s",
					  strerror(w < 0 ? errno : EIO));
				break;
			}
			done += (size_t)w;
		}
		close(fd);
		return;
	}
	if (to_stderr && *text) {
		fputs(text, stderr);
		fflush(stderr);
	}
}

static int run(JavaVM *vm, const char *options, const struct jcal_options *o, char *msg, size_t len)
{
	JNIEnv *jni = NULL;
	char path[JCAL_OPT_PATH_MAX], err[1024];

	if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_6) != JNI_OK)
		jni = NULL;
	if (!agent_is_running()) {
		switch (o->command) {
		case JCAL_CMD_STATUS:
			snprintf(msg, len, "recording: no\nagent: not running in this JVM%s%s%s\n",
				 start_failed[0] ? " (its start failed: " : "", start_failed,
				 start_failed[0] ? "; the JVM is as it was)" : "");
			return JCAL_ATTACH_OK;
		case JCAL_CMD_STOP:
		case JCAL_CMD_DUMP:
			jcal_error("no jcal agent is recording in this JVM");
			return JCAL_ATTACH_NOT_RECORDING;
		default:
			return session_attach(vm, options, msg, len);
		}
	}
	switch (o->command) {
	case JCAL_CMD_TRACE:
	case JCAL_CMD_START:
		return session_start(jni, o, options, msg, len);
	case JCAL_CMD_STOP:
		return session_stop(jni, 0, NULL, msg, len);
	case JCAL_CMD_DUMP:
		if (o->out_given && jcal_options_expand_out(o->out, getpid(), time(NULL), path,
							    sizeof(path), err, sizeof(err))) {
			jcal_error("%s", err);
			return JCAL_ATTACH_BAD_OPTIONS;
		}
		return session_dump(o->out_given ? path : NULL, msg, len);
	case JCAL_CMD_STATUS:
		return session_status(msg, len);
	case JCAL_CMD_HELP:
		snprintf(msg, len, "%s", jcal_options_help());
		return JCAL_ATTACH_OK;
	case JCAL_CMD_CALIBRATE:
		jcal_error(
		    "calibrate runs at JVM start only (java -agentpath:libjcal.so=calibrate)");
		return JCAL_ATTACH_BAD_OPTIONS;
	default:
		jcal_error("no command in '%s': use start, stop, dump or status", options);
		return JCAL_ATTACH_BAD_OPTIONS;
	}
}

int live_command(JavaVM *vm, const char *options)
{
	static char msg[REPLY_MAX], logged[REPLY_MAX], text[2 * REPLY_MAX];
	static struct jcal_options o;
	char reply[JCAL_OPT_PATH_MAX], err[1024];
	int rc, fd = -1;

	/* HotSpot runs one attach operation at a time: the static buffers are
	 * never shared. */
	if (!options)
		options = "";
	find_reply(options, reply, sizeof(reply));
	/* Only a file made for the answer is written (safe_open.h); with any
	 * other the command does not run. */
	if (reply[0] && (fd = safe_open_reply(reply, err, sizeof(err))) < 0) {
		jcal_error("%s", err);
		return JCAL_ATTACH_OUTPUT;
	}
	msg[0] = '\0';
	jcal_log_capture(logged, sizeof(logged));
	if (jcal_options_parse(options, &o, err, sizeof(err))) {
		jcal_error("%s", err);
		rc = JCAL_ATTACH_BAD_OPTIONS;
	} else {
		rc = run(vm, options, &o, msg, sizeof(msg));
	}
	jcal_log_capture(NULL, 0);
	if (!agent_is_running() && rc != JCAL_ATTACH_OK &&
	    (o.command == JCAL_CMD_START || o.command == JCAL_CMD_TRACE)) {
		const char *e = strstr(logged, "error: ");
		e = e ? e + 7 : logged;
		snprintf(start_failed, sizeof(start_failed), "%.*s", (int)strcspn(e, "\n"), e);
	}
	snprintf(text, sizeof(text), "%s%s", msg, logged);
	/* Logged lines went to stderr already; without reply= only the
	 * command's own text is left to print there. */
	send_reply(fd, reply[0] ? text : msg, 1);
	return rc;
}
