/*
 * agent.h - the agent's lifecycle (agent.c) as the library's entry point
 * (entry.c) drives it: load, the JVMTI events of the whole run, unload.
 * The commands to a running JVM are the session's (session.h).
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
#include "agent/recording_limits.h"

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
 * hooks may be NULL, and any of its members. stop is how a duration= or
 * maxsize= limit ends the recording: the session's stop (session.h), which
 * the lifecycle does not call itself (session.c builds on it). JNI_OK or
 * JNI_ERR. */
jint agent_load(const char *options, const struct agent_hooks *hooks,
		recording_limits_stop_fn stop);

/* Agent_OnUnload: finishes a trace VM death did not close. */
void agent_unload(void);

/* Whether the agent runs in this JVM (loaded at start or attached). */
int agent_is_running(void);

#endif
