/*
 * monitor_events.h - the JVM's monitor events (MonitorContendedEnter and
 * MonitorContendedEntered, MonitorWait and MonitorWaited), each pair
 * recorded as one MONITOR record of the waiting thread
 * (docs/agent-internals.md, "Monitor events").
 */
#ifndef JCAL_MONITOR_EVENTS_H
#define JCAL_MONITOR_EVENTS_H

#include <jvmti.h>

void JNICALL monitor_contended_enter(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object);
void JNICALL monitor_contended_entered(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
				       jobject object);
void JNICALL monitor_wait(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
			  jlong timeout);
void JNICALL monitor_waited(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
			    jboolean timed_out);

#endif
