/*
 * bci_wrapped.h - which classes get native method wrappers in mode=bci
 * (bci_native.h; docs/agent-internals.md, "Natives in mode=bci").
 *
 * A class gets them when it first loads after the agent set its native
 * method prefix (VMInit, or the attach), unless the JDK's own class loaders
 * (boot, platform) define it or the agent calibrates. HotSpot refuses a
 * retransformation that adds or deletes a method, so every later
 * retransformation of a class (stop, start, throttle=) must give it the
 * same wrappers again, and a class loaded without them (before the prefix,
 * or before the attach) can never get them. This file keeps the names of
 * the classes loaded with wrappers to decide that.
 */
#ifndef JCAL_BCI_WRAPPED_H
#define JCAL_BCI_WRAPPED_H

#include <jvmti.h>

/* The prefix of the renamed natives. */
#define BCI_NATIVE_PREFIX "jcal$"

/* VMInit or attach, in mode=bci: finds the platform class loader and sets
 * the native method prefix (when the capability was added). Returns 1
 * when natives get wrappers from now on. */
int bci_wrapped_init(jvmtiEnv *jvmti, JNIEnv *jni);

/* Whether loader is one of the JDK's own: the boot loader (NULL) or the
 * platform loader (once bci_wrapped_init found it). */
int bci_wrapped_jdk_loader(JNIEnv *jni, jobject loader);

/* The prefix for the class being loaded (redefined NULL) or retransformed
 * (the class) whose defining loader is loader, or NULL: no wrappers. */
const char *bci_wrapped_prefix(jvmtiEnv *jvmti, JNIEnv *jni, jclass redefined, jobject loader,
			       const char *name);

/* The class name ("a/b/C") was loaded with wrappers. */
void bci_wrapped_add(const char *name);

#endif
