/*
 * count_agent.c - the baseline of docs/performance.md: a JVMTI agent whose MethodEntry
 * and MethodExit callbacks only count events (per thread, no lock), so that
 * bench/agent-cost.sh can compare libjcal.so's wall time with the cost that
 * any JVMTI method-event agent pays.
 */
#include <jvmti.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static _Thread_local unsigned long local_events;
static atomic_ulong total_events;

static void JNICALL on_entry(jvmtiEnv *j, JNIEnv *e, jthread t, jmethodID m)
{
	(void)j;
	(void)e;
	(void)t;
	(void)m;
	local_events++;
}

static void JNICALL on_exit(jvmtiEnv *j, JNIEnv *e, jthread t, jmethodID m, jboolean x, jvalue v)
{
	(void)j;
	(void)e;
	(void)t;
	(void)m;
	(void)x;
	(void)v;
	local_events++;
}

static void JNICALL on_thread_end(jvmtiEnv *j, JNIEnv *e, jthread t)
{
	(void)j;
	(void)e;
	(void)t;
	atomic_fetch_add(&total_events, local_events);
	local_events = 0;
}

static void JNICALL on_death(jvmtiEnv *j, JNIEnv *e)
{
	(void)j;
	(void)e;
	/* The thread running VM death is the main thread in practice. */
	atomic_fetch_add(&total_events, local_events);
	local_events = 0;
	fprintf(stderr, "count-agent: %lu events\n", (unsigned long)atomic_load(&total_events));
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	jvmtiEnv *jvmti;
	jvmtiCapabilities caps;
	jvmtiEventCallbacks cb;

	(void)options;
	(void)reserved;
	if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK)
		return JNI_ERR;
	memset(&caps, 0, sizeof(caps));
	caps.can_generate_method_entry_events = 1;
	caps.can_generate_method_exit_events = 1;
	if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE)
		return JNI_ERR;
	memset(&cb, 0, sizeof(cb));
	cb.MethodEntry = on_entry;
	cb.MethodExit = on_exit;
	cb.ThreadEnd = on_thread_end;
	cb.VMDeath = on_death;
	(*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof(cb));
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_METHOD_ENTRY, NULL);
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_METHOD_EXIT, NULL);
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_END, NULL);
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
	return JNI_OK;
}
