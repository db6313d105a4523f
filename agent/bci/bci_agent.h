/*
 * bci_agent.h - mode=bci: classes are rewritten at load time with entry and
 * exit probes (bci_rewrite.h) that call the natives of jcal.Tracker
 * (agent/java/jcal/Tracker.java, implemented in event_recorder.c).
 */
#ifndef JCAL_BCI_AGENT_H
#define JCAL_BCI_AGENT_H

#include <jvmti.h>

/* Agent_OnLoad, after the trace header: keys the method table by
 * (class, name, descriptor), writes the bci.* meta records and adds the
 * class-hook capabilities to caps. */
void bci_agent_onload(jvmtiCapabilities *caps);

/* The ClassFileLoadHook callback: rewrites every class the filters select
 * (from VMInit on; classes loaded earlier are retransformed at VMInit). */
void JNICALL bci_agent_class_file_load_hook(jvmtiEnv *jvmti, JNIEnv *jni,
					    jclass class_being_redefined, jobject loader,
					    const char *name, jobject protection_domain,
					    jint class_data_len, const unsigned char *class_data,
					    jint *new_class_data_len,
					    unsigned char **new_class_data);

/* VMInit: registers jcal.Tracker's natives, turns rewriting on and
 * retransforms the selected classes loaded before. Without the tracker
 * (jcal-agent.jar missing) it says so and nothing is instrumented. */
void bci_agent_vm_init(jvmtiEnv *jvmti, JNIEnv *jni);

/* The trace meta records bci.include and bci.exclude (the filters in
 * effect), for each recording's file. */
void bci_agent_write_meta(void);

/* stop (on = 0) and a later start (on = 1): retransforms the selected loaded
 * classes without or with probes; code already running keeps its version
 * until it returns (its probes record nothing while tracing is stopped). */
void bci_agent_set_probes(jvmtiEnv *jvmti, JNIEnv *jni, int on);

#endif
