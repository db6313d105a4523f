/*
 * jvmti_compat.h - the JDK 21 additions to JVMTI and JNI that jcal uses for
 * virtual threads, for a build against JDK 17 headers. They are used only
 * when the running JVM reports version 21 or later (docs/agent-internals.md:
 * calling IsVirtualThread on JDK 17 crashes).
 */
#ifndef JCAL_JVMTI_COMPAT_H
#define JCAL_JVMTI_COMPAT_H

#include <jni.h>
#include <jvmti.h>
#include <string.h>

#define JCAL_JVMTI_VERSION_21 0x30150000
#define JCAL_JNI_VERSION_21 0x00150000
#define JCAL_EVENT_VIRTUAL_THREAD_START 87
#define JCAL_EVENT_VIRTUAL_THREAD_END 88

typedef void(JNICALL *jcal_vthread_event_fn)(jvmtiEnv *jvmti, JNIEnv *jni, jthread vthread);

/* JDK 21's jvmtiEventCallbacks: JDK 17's slots, then events 87 and 88. */
struct jcal_event_callbacks {
	jvmtiEventCallbacks base;
	jcal_vthread_event_fn VirtualThreadStart;
	jcal_vthread_event_fn VirtualThreadEnd;
};

/* JDK 21's JNI function table: JDK 17's, then IsVirtualThread. */
struct jcal_jni_21 {
	struct JNINativeInterface_ base;
	jboolean(JNICALL *IsVirtualThread)(JNIEnv *env, jobject obj);
};

/* Sets can_support_virtual_threads: in JDK 21's jvmtiCapabilities it is the
 * bit right after can_generate_sampled_object_alloc_events, which JDK 17's
 * header knows; found by setting that one and taking the next bit. */
static inline void jcal_caps_set_virtual_threads(jvmtiCapabilities *caps)
{
	jvmtiCapabilities probe;
	unsigned char *p = (unsigned char *)&probe, *c = (unsigned char *)caps;

	memset(&probe, 0, sizeof(probe));
	probe.can_generate_sampled_object_alloc_events = 1;
	for (size_t i = 0; i < sizeof(probe) * 8; i++) {
		if (p[i / 8] & (1u << (i % 8))) {
			size_t next = i + 1;
			if (next < sizeof(probe) * 8)
				c[next / 8] |= (unsigned char)(1u << (next % 8));
			return;
		}
	}
}

/* JNI IsVirtualThread where the JVM has it (JNI 21+), else 0. */
static inline int jcal_is_virtual(JNIEnv *jni, jobject thread)
{
	if (!jni || !thread || (*jni)->GetVersion(jni) < JCAL_JNI_VERSION_21)
		return 0;
	const struct jcal_jni_21 *f = (const struct jcal_jni_21 *)(const void *)*jni;
	return f->IsVirtualThread(jni, thread) ? 1 : 0;
}

#endif
