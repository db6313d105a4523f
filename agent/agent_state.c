/*
 * agent_state.c - owns the agent's global state (agent_state.h) and the
 * switch that stops recording for good, so that the event path and the
 * thread states depend on it and not on the lifecycle in agent.c.
 */
#include "agent_state.h"

#include "jvmti_check.h"

struct jcal_agent jcal;
_Thread_local int jcal_internal_thread;

void jcal_tracing_stop(void)
{
	static const jvmtiEvent method_events[] = {JVMTI_EVENT_METHOD_ENTRY,
						   JVMTI_EVENT_METHOD_EXIT};

	atomic_store(&jcal.stopped, 1);
	/* Also after VM death, or on threads that enabled them per thread
	 * (calibrate, start=manual): failures are expected and harmless. */
	for (size_t i = 0; i < sizeof(method_events) / sizeof(method_events[0]); i++)
		jvmti_check_debug(jcal.jvmti,
				  (*jcal.jvmti)
				      ->SetEventNotificationMode(jcal.jvmti, JVMTI_DISABLE,
								 method_events[i], NULL),
				  "SetEventNotificationMode(disable method events)");
}
