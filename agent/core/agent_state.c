/*
 * agent_state.c - owns the agent's global state (agent_state.h) and the
 * switch that stops recording for good, so that the event path and the
 * thread states depend on it and not on the lifecycle in agent.c.
 */
#include "agent/core/agent_state.h"

#include <sched.h>
#include <time.h>

#include "agent/base/jvmti_check.h"

struct jcal_agent jcal;
_Thread_local int jcal_internal_thread;

void jcal_method_events(jvmtiEventMode mode, jthread thread,
			int (*check)(jvmtiEnv *, jvmtiError, const char *))
{
	check(jcal.jvmti,
	      (*jcal.jvmti)
		  ->SetEventNotificationMode(jcal.jvmti, mode, JVMTI_EVENT_METHOD_ENTRY, thread),
	      "SetEventNotificationMode(MethodEntry)");
	check(jcal.jvmti,
	      (*jcal.jvmti)
		  ->SetEventNotificationMode(jcal.jvmti, mode, JVMTI_EVENT_METHOD_EXIT, thread),
	      "SetEventNotificationMode(MethodExit)");
}

void jcal_monitor_events(jvmtiEventMode mode, int (*check)(jvmtiEnv *, jvmtiError, const char *))
{
	static const jvmtiEvent ev[] = {
	    JVMTI_EVENT_MONITOR_CONTENDED_ENTER,
	    JVMTI_EVENT_MONITOR_CONTENDED_ENTERED,
	    JVMTI_EVENT_MONITOR_WAIT,
	    JVMTI_EVENT_MONITOR_WAITED,
	};

	/* a recording to write them in: a trace, and not monitors=off */
	if (!jcal.monitor_events ||
	    (mode == JVMTI_ENABLE &&
	     (jcal.opts.output == JCAL_OUTPUT_TREE || jcal.opts.monitors_off)))
		return;
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		check(jcal.jvmti,
		      (*jcal.jvmti)->SetEventNotificationMode(jcal.jvmti, mode, ev[i], NULL),
		      "SetEventNotificationMode(Monitor*)");
}

void jcal_tracing_stop(void)
{
	atomic_store(&jcal.stopped, 1);
	/* Also after VM death, or on threads that enabled them per thread
	 * (calibrate, start=manual): failures are expected and harmless. */
	jcal_method_events(JVMTI_DISABLE, NULL, jvmti_check_debug);
	jcal_monitor_events(JVMTI_DISABLE, jvmti_check_debug);
}

void jcal_hold_wait(void)
{
	const struct timespec pause = {0, 100000}; /* 0.1 ms */

	for (unsigned i = 0; atomic_load(&jcal.stopped) == JCAL_HELD; i++)
		if (i < 64)
			sched_yield();
		else
			nanosleep(&pause, NULL);
}
