/*
 * region_control.h - jcal.Control (agent/java/jcal/Control.java): per-thread
 * regions that start and stop tracing, and labelled marks, recorded as
 * control events in the thread's event stream (trace format 1.1).
 */
#ifndef JCAL_REGION_CONTROL_H
#define JCAL_REGION_CONTROL_H

#include <jvmti.h>
#include <stddef.h>

/* Agent_OnLoad: puts jcal-agent.jar (beside libjcal.so) on the boot class
 * path. Returns 0, or -1 when the jar is missing (the API is then absent;
 * the caller warns). */
int region_control_onload(jvmtiEnv *jvmti);

/* VMInit: registers the natives of jcal.Control and remembers its methods,
 * whose own entries and exits are never recorded. */
void region_control_vm_init(jvmtiEnv *jvmti, JNIEnv *jni);

/* jcal.Control's start, stop and mark, once registered (else NULL). */
extern jmethodID region_control_mid[3];

/* True for jcal.Control's methods (event_recorder.c drops their events);
 * inline: it runs at every event. */
static inline int region_control_is_control_method(jmethodID mid)
{
	return mid == region_control_mid[0] || mid == region_control_mid[1] ||
	       mid == region_control_mid[2];
}

#endif
