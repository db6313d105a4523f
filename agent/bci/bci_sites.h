/*
 * bci_sites.h - the agent's side of the switchable probes of mode=bci
 * (bci_rewrite.h; docs/agent-internals.md, "Switchable probes"): which
 * classes get them, which classes were instrumented with which kind of
 * probe, and the calls into jcal.Sites that switch them.
 *
 * A class gets switchable probes when its version allows (51 and later)
 * and a class loader of the program defines it (not the JDK's boot or
 * platform loader: java.lang.invoke itself must never run a probe site),
 * unless the agent was loaded with probes=static. Then stop and
 * throttle= switch its probes without redefining it; a class with static
 * probes is still retransformed.
 */
#ifndef JCAL_BCI_SITES_H
#define JCAL_BCI_SITES_H

#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

/* VMInit or attach (after bci_wrapped_init): reads probes=. */
void bci_sites_init(void);
/* Whether a class defined by loader (NULL: the boot loader) gets them. */
int bci_sites_wanted(JNIEnv *jni, jobject loader);

/* What the copies of class name ("a/b/C") loaded now have: bits of
 * BCI_SITES_SWITCH (switchable probes, or nothing to instrument),
 * BCI_SITES_STATIC (static probes), BCI_SITES_NONE (a copy the filters
 * select left without probes: loaded or retransformed while probes were
 * off); 0: none is known (never instrumented, or being retransformed). */
#define BCI_SITES_SWITCH 1
#define BCI_SITES_STATIC 2
#define BCI_SITES_NONE 4
/* A copy of class name was loaded or retransformed with that kind. */
void bci_sites_class_done(const char *name, int kind);
/* Class name's copies are about to be retransformed: forgets its kinds
 * (the hook tells them again). */
void bci_sites_class_reset(const char *name);
int bci_sites_class_kinds(const char *name);

/* A class got switchable probes: bci_sites_on has sites to switch. */
void bci_sites_in_use(void);

/* Every switchable probe site calls its probe (on) or nothing; nothing is
 * done when no class got them. 0, or -1 (said, at loglevel=debug why). */
int bci_sites_on(JNIEnv *jni, int on);
/* Methods ids[0..n) are throttled: their entry sites only count their
 * calls, in slot slots[i], and their exit sites close: they record only
 * the exits of the calls under way since before (whose entry was
 * recorded) until bci_sites_close. Returns the number of sites changed,
 * or -1 when the call failed. */
long bci_sites_throttle(JNIEnv *jni, const uint32_t *ids, const int32_t *slots, size_t n);
/* The exit sites of throttled methods ids[0..n) call nothing from now on.
 * Returns the number of sites changed, or -1 when the call failed. */
long bci_sites_close(JNIEnv *jni, const uint32_t *ids, size_t n);

/* The static method name (signature sig) of the agent's Java class
 * cls_name ("jcal/Tracker"), or NULL (exception cleared); *cls is a local
 * ref to free (or NULL). */
jmethodID bci_java_static(JNIEnv *jni, const char *cls_name, const char *name, const char *sig,
			  jclass *cls);

#endif
