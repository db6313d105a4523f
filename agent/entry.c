/*
 * entry.c - libjcal.so's entry points (Agent_OnLoad, Agent_OnAttach,
 * Agent_OnUnload; the env-timer child's JNI_OnLoad is
 * calibrator/calib_natives.c). Picks what the run is: a plain trace, a
 * trace with recalibrate= bursts, or the calibrate command, and hands the
 * agent's core (agent.h) the calibrator's hooks for it, and the session's
 * stop (session.h) for duration= and maxsize=. The only file of agent/
 * that includes calibrator/ headers (docs/agent-internals.md, "Files").
 */
#include <jvmti.h>
#include <stdlib.h>

#include "agent/agent.h"
#include "agent/core/agent_state.h"
#include "agent/live.h"
#include "agent/session.h"
#include "agent/base/log.h"
#include "calibrator/calib_child.h"
#include "calibrator/calibrate.h"
#include "calibrator/recalib_period.h"

/* trace,recalibrate=end|start|PERIOD, at the end of VMInit. */
static void recalibrate_vm_init(jvmtiEnv *jvmti, JNIEnv *jni)
{
	if (jcal.opts.recalibrate_end)
		calibrate_install_end_hook(jni);
	if (jcal.opts.recalibrate_start)
		calibrate_inrun(jvmti, jni);
	if (jcal.opts.recalibrate_period_s)
		recalib_period_start(jvmti, jcal.opts.recalibrate_period_s);
}

static const struct agent_hooks calibrate_hooks = {
    .onload = calibrate_onload,
    .vm_init = calibrate_vm_init,
    .finish = calibrate_finish,
};

static const struct agent_hooks recalibrate_hooks = {
    .onload = calibrate_onload,
    .vm_init = recalibrate_vm_init,
    .vm_death = recalib_period_stop,
};

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	char err[1024];

	(void)reserved;
	if (agent_load_options(vm, options) != JNI_OK)
		return JNI_ERR;
	/* No agent command inside a calibration's env-timer child JVM. */
	if (calib_child_refuse(getenv(CALIB_CHILD_MARKER), err, sizeof(err))) {
		jcal_error("%s", err);
		return JNI_ERR;
	}
	if (jcal.opts.command == JCAL_CMD_CALIBRATE)
		return agent_load(options, &calibrate_hooks, session_stop);
	if (jcal.opts.command == JCAL_CMD_TRACE && jcal_recalibrating())
		return agent_load(options, &recalibrate_hooks, session_stop);
	return agent_load(options, NULL, session_stop);
}

/* jcmd PID JVMTI.agent_load, or the jcal launcher: the first load into a
 * running JVM starts the agent; later loads (and any load into a JVM
 * started with the agent) pass it a command (docs/live-profiling.md). */
JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
	(void)reserved;
	return live_command(vm, options);
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
	(void)vm;
	agent_unload();
}
