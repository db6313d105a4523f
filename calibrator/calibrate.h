/*
 * calibrate.h - the `calibrate` command: runs the calibration workload on
 * its own thread, measures the execution environment in a -Xint child JVM,
 * and turns the calibration trace into a table (docs/agent-internals.md,
 * "Calibrate mode").
 */
#ifndef JCAL_CALIBRATE_H
#define JCAL_CALIBRATE_H

#include <jvmti.h>
#include <stddef.h>

/* Agent_OnLoad: refuses inside a calibration's env-timer child; finds
 * jcal-calibrator.jar beside libjcal.so and adds it to the system class
 * path; for calibrate without out=, puts into out_path a fresh name in the
 * calibration directory that does not exist yet. 0 or -1 + message. */
int calibrate_onload(jvmtiEnv *jvmti, char *out_path, size_t out_len, char *err, size_t errlen);

/* VMInit: runs everything, then ends the JVM through System.exit (0 on
 * success, 1 with a `jcal: error:` line otherwise). */
void calibrate_vm_init(jvmtiEnv *jvmti, JNIEnv *jni);

/* trace,recalibrate=start, at VMInit (and =end, =PERIOD from their
 * threads; calls are serialised): the same workload on its own thread
 * in the traced JVM (warm-up left out as an untraced region), then the env
 * timer; the samples stay in the trace for jcal-post --calib inrun. On
 * failure it warns and tracing goes on. */
void calibrate_inrun(jvmtiEnv *jvmti, JNIEnv *jni);

/* From a JVM-attached thread (VMInit) before calibrate_inrun is called from
 * one that is not (recalibrate=PERIOD): reads what needs JVMTI. 0 or -1. */
int calibrate_prepare(jvmtiEnv *jvmti);

/* trace,recalibrate=end|both, at VMInit: registers jcal.Hooks' native and
 * installs its shutdown hook, which runs calibrate_inrun at the end of the
 * run, while tracing is still on. Warns when it cannot. */
void calibrate_install_end_hook(JNIEnv *jni);

/* After the trace is closed at VM death: derives and writes the table,
 * prints where it went and the key coverage; writes none when the
 * calibration is incomplete. Renames the trace calibrate_onload named to
 * last-calibration.bin (when that is a regular file or absent). Returns 0,
 * or -1 (no table). */
int calibrate_finish(const char *trace_path);

#endif
