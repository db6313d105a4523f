/*
 * event_recorder.h - the JVMTI callbacks on the event path (method entry
 * and exit), the natives of the mode=bci probes (jcal.Tracker), and the
 * compiled-method load/unload callbacks.
 */
#ifndef JCAL_EVENT_RECORDER_H
#define JCAL_EVENT_RECORDER_H

#include <jvmti.h>
#include <stdint.h>

void JNICALL event_method_entry(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jmethodID method);
void JNICALL event_method_exit(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jmethodID method,
			       jboolean was_popped_by_exception, jvalue return_value);
/* jcal.Tracker.enter/exit/exitThrow(int id): id from method_table_define. */
void JNICALL event_probe_enter(JNIEnv *jni, jclass cls, jint id);
/* The same, returning 0 (jcal.TrackerNatives.enter1 and the like, whose
 * JavaCritical_ twins in event_recorder.c HotSpot 17 may call instead). */
jint JNICALL event_probe_enter1(JNIEnv *jni, jclass cls, jint id);
jint JNICALL event_probe_exit1(JNIEnv *jni, jclass cls, jint id);
jint JNICALL event_probe_exit_throw1(JNIEnv *jni, jclass cls, jint id);
void JNICALL event_probe_exit(JNIEnv *jni, jclass cls, jint id);
void JNICALL event_probe_exit_throw(JNIEnv *jni, jclass cls, jint id);
/* The same probes for a critical foreign downcall (JDK 22+): no JNIEnv,
 * the thread in Java state; 0 when the event was handled, 1 when the
 * caller must call the JNI probe instead. */
int32_t event_critical_enter(int32_t id);
int32_t event_critical_exit(int32_t id);
int32_t event_critical_exit_throw(int32_t id);
void JNICALL event_compiled_load(jvmtiEnv *jvmti, jmethodID method, jint code_size,
				 const void *code_addr, jint map_length,
				 const jvmtiAddrLocationMap *map, const void *compile_info);
void JNICALL event_compiled_unload(jvmtiEnv *jvmti, jmethodID method, const void *code_addr);

#endif
