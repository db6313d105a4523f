/*
 * bci_sites.h - the agent's side of the switchable probes of mode=bci
 * (bci_rewrite.h; docs/agent-internals.md, "Switchable probes"): which
 * classes get them, which classes were instrumented with which kind of
 * probe, and the calls into jcal.Sites that switch them.
 *
 * A class gets switchable probes when its version allows (51 and later)
 * and a class loader of the program defines it (not the JDK's boot or
 * platform loader: java.lang.invoke itself must never run a probe site),
 * unless JCAL_PROBES=static is set (for comparison). Then stop and
 * throttle= switch its probes without redefining it; a class with static
 * probes is still retransformed.
 */
#ifndef JCAL_BCI_SITES_H
#define JCAL_BCI_SITES_H

#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

/* VMInit or attach: finds the platform class loader, reads JCAL_PROBES. */
void bci_sites_init(JNIEnv *jni);
/* Whether a class defined by loader (NULL: the boot loader) gets them. */
int bci_sites_wanted(JNIEnv *jni, jobject loader);

/* The class name ("a/b/C") was rewritten with probes: switchable or not. */
void bci_sites_class_done(const char *name, int switchable);
/* Kinds of probe class name was ever rewritten with: BCI_SITES_SWITCH,
 * BCI_SITES_STATIC, both, or 0 (never). */
#define BCI_SITES_SWITCH 1
#define BCI_SITES_STATIC 2
int bci_sites_class_kinds(const char *name);

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

#endif
