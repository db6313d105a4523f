/*
 * region_control.h - jcal.Control (agent/java/jcal/Control.java): per-thread
 * regions that start and stop tracing, and labelled marks, recorded as
 * control events in the thread's event stream (trace format 1.1).
 */
#ifndef JCAL_REGION_CONTROL_H
#define JCAL_REGION_CONTROL_H

#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

/* Agent_OnLoad: puts jcal-agent.jar (beside libjcal.so) on the boot class
 * path. Returns 0, or -1 when the jar is missing (the API is then absent;
 * the caller warns). */
int region_control_onload(jvmtiEnv *jvmti);

/* VMInit (or the attach of the agent to a running JVM, live): registers the
 * natives of jcal.Control, sets its `bound` flag (until then its methods do
 * nothing), and remembers its methods, whose own entries and exits are never
 * recorded. live: also binds copies the application loaded itself. */
void region_control_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, int live);

/* The id of a mark label, its LABEL record written the first time; 0 when
 * out of memory. */
uint32_t region_control_label(const char *text);

/* A new recording's file: writes the LABEL record of every mark label. */
void region_control_write_labels(void);

/* jcal.Control's start0, stop0, mark0 and start, stop, mark, once
 * registered (else NULL). */
extern jmethodID region_control_mid[6];

/* True for jcal.Control's methods (event_recorder.c drops their events);
 * inline: it runs at every event. */
static inline int region_control_is_control_method(jmethodID mid)
{
	return mid == region_control_mid[0] || mid == region_control_mid[1] ||
	       mid == region_control_mid[2] || mid == region_control_mid[3] ||
	       mid == region_control_mid[4] || mid == region_control_mid[5];
}

#endif
