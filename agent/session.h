/*
 * session.h - the live recording session (session.c): the commands to a
 * running JVM (docs/live-profiling.md), as live.c runs them. Each returns
 * an enum jcal_attach_code (common/attach_reply.h) and leaves the answer's
 * lines in msg (messages logged meanwhile are captured by the caller). jni
 * is the calling thread's environment (NULL if it has none).
 */
#ifndef JCAL_SESSION_H
#define JCAL_SESSION_H

#include <jvmti.h>
#include <stddef.h>

#include "agent/base/options.h"

/* The first load of the library into a running JVM, with a trace or start
 * command: sets the agent up (mode=bci: method events are not offered
 * then) and starts a recording. */
int session_attach(JavaVM *vm, const char *options, char *msg, size_t len);

/* start: a new recording into a new file, after an earlier one stopped. */
int session_start(JNIEnv *jni, const struct jcal_options *o, const char *options, char *msg,
		  size_t len);

/* stop: ends the recording (the one of limit, recording_limits.h, or any
 * when 0), removes the probes or disables method events; reason goes into
 * the file. Also what a duration= or maxsize= limit runs. */
int session_stop(JNIEnv *jni, unsigned limit, const char *reason, char *msg, size_t len);

/* rotate: ends the recording's file and goes on in the next one, out= of o
 * or the start's out= with %n one more, with no event lost or counted
 * twice: the event path waits meanwhile (JCAL_HELD). duration= and
 * maxsize= go on (maxsize= per file). When the next file cannot be begun
 * the recording ends with the one just closed. */
int session_rotate(JNIEnv *jni, const struct jcal_options *o, char *msg, size_t len);

/* dump: what was recorded so far, to path (NULL: a name beside out=). */
int session_dump(const char *path, char *msg, size_t len);

/* status: "recording: yes|no" and what the agent is doing. */
int session_status(char *msg, size_t len);

#endif
