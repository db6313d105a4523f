/*
 * agent.h - the agent's lifecycle (agent.c) as the library's entry point
 * (entry.c) drives it: load, the JVMTI events of the whole run, unload.
 *
 * The core records; what the calibrate command and recalibrate= add runs
 * through the hooks the entry point passes in, so that the core never
 * calls into calibrator/ (docs/agent-internals.md, "Files").
 */
#ifndef JCAL_AGENT_H
#define JCAL_AGENT_H

#include <jvmti.h>
#include <stddef.h>

#include "agent/base/options.h"

struct agent_hooks {
	/* Agent_OnLoad, once the JVMTI environment is there and before the
	 * trace file is opened; may choose out_path. 0, or -1 + message. */
	int (*onload)(jvmtiEnv *jvmti, char *out_path, size_t out_len, char *err, size_t errlen);
	/* Last step of VMInit. */
	void (*vm_init)(jvmtiEnv *jvmti, JNIEnv *jni);
	/* VM death, before the trace is closed. */
	void (*vm_death)(void);
	/* After the trace is closed (VM death or unload): -1 ends the process
	 * with status 1. */
	int (*finish)(const char *trace_path);
};

/* Agent_OnLoad, first half: refuses a second load of the library and
 * parses the options into jcal.opts. JNI_OK, or JNI_ERR after a message. */
jint agent_load_options(JavaVM *vm, const char *options);

/* Agent_OnLoad, the rest: help (exits), log, out=, the JVMTI environment,
 * hooks->onload, jars, the trace file, metrics, capabilities and events.
 * hooks may be NULL, and any of its members. JNI_OK or JNI_ERR. */
jint agent_load(const char *options, const struct agent_hooks *hooks);

/* Agent_OnUnload: finishes a trace VM death did not close. */
void agent_unload(void);

/* Whether the agent runs in this JVM (loaded at start or attached). */
int agent_is_running(void);

/*
 * Commands to a running JVM (docs/live-profiling.md). Each returns an enum
 * jcal_attach_code (common/attach_reply.h) and leaves the answer's lines in
 * msg (messages logged meanwhile are captured by the caller). jni is the
 * calling thread's environment (NULL if it has none).
 *
 * agent_attach: the first load of the library into a running JVM, with a
 * trace or start command: sets the agent up (mode=bci: method events are
 * not offered then) and starts a recording.
 */
int agent_attach(JavaVM *vm, const char *options, char *msg, size_t len);
/* start: a new recording into a new file, after an earlier one stopped. */
int agent_start(JNIEnv *jni, const struct jcal_options *o, const char *options, char *msg,
		size_t len);
/* stop: ends the recording (of number recording, or any when 0), removes
 * the probes or disables method events; reason goes into the file. */
int agent_stop(JNIEnv *jni, unsigned recording, const char *reason, char *msg, size_t len);
/* dump: what was recorded so far, to path (NULL: a name beside out=). */
int agent_dump(const char *path, char *msg, size_t len);
/* status: "recording: yes|no" and what the agent is doing. */
int agent_status(char *msg, size_t len);

#endif
