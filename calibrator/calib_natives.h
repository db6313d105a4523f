/*
 * calib_natives.h - the native methods of the calibration workload
 * (calibrator/java/jcal/calib), implemented in libjcal.so and registered with
 * RegisterNatives: by the agent for Workload, and by JNI_OnLoad when the
 * env-timer child JVM loads libjcal.so with System.load.
 */
#ifndef JCAL_CALIB_NATIVES_H
#define JCAL_CALIB_NATIVES_H

#include <jni.h>
#include <stddef.h>

/* Looks up jcal.calib.Workload (initialising it), registers its natives and
 * caches the references the natives use. 0, or -1 with a message. */
int calib_natives_register_workload(JNIEnv *env, char *err, size_t errlen);

/* Global references to Workload and Workload.INSTANCE, after registration. */
jclass calib_natives_workload_class(void);
jobject calib_natives_workload_instance(void);
jmethodID calib_natives_method(int type); /* CALIB_I ... CALIB_h; NULL for another */

/* Sets the work loop of every node, Java (Workload.work, written without a
 * call: no event) and native, to iterations (Workload.java). */
void calib_natives_set_work(JNIEnv *env, int iterations);

/* Runs one program node of the given type from native code (the thread
 * root); a pending exception is cleared. */
void calib_natives_call(JNIEnv *env, int type, jintArray prog, jint pc);

#endif
