/*
 * bci_hidden.h - hidden classes in mode=bci (docs/agent-internals.md,
 * "Hidden classes in mode=bci"). HotSpot sends no ClassFileLoadHook for a
 * hidden class (lambda proxies, classes of Lookup.defineHiddenClass) and
 * refuses to retransform one, but on JDK 15 and later every class that
 * MethodHandles.Lookup defines, hidden or not, passes through one method of
 * the JDK, JavaLangAccess.defineClass, implemented in an anonymous class of
 * java.lang.System (System$2 on JDK 17, System$1 on JDK 25):
 *
 *   defineClass(ClassLoader loader, Class<?> lookup, String name, byte[] b,
 *               ProtectionDomain pd, boolean initialize, int flags, Object classData)
 *
 * The agent rewrites that method to start with
 *
 *   b = jcal.Tracker.hidden(b, lookup, flags);
 *
 * which hands the bytes of a hidden class to the rewriter before the JVM
 * defines it. Pure code, no JVM (native-tests/test-bci-hidden.c).
 */
#ifndef JCAL_BCI_HIDDEN_H
#define JCAL_BCI_HIDDEN_H

#include <stddef.h>
#include <stdint.h>

/* The method the agent hooks, and the probe it calls. */
#define BCI_HIDDEN_METHOD "defineClass"
#define BCI_HIDDEN_DESC                                                                            \
	"(Ljava/lang/ClassLoader;Ljava/lang/Class;Ljava/lang/String;[BLjava/security/"             \
	"ProtectionDomain;ZILjava/lang/Object;)Ljava/lang/Class;"
#define BCI_HIDDEN_PROBE "hidden"
#define BCI_HIDDEN_PROBE_DESC "([BLjava/lang/Class;I)[B"

/* 1 when name ("a/b/C") is java/lang/System$N: the classes that may hold
 * the method. */
int bci_hidden_is_funnel(const char *name);

/*
 * Rewrites the class in[0..len) so that its instance method
 * BCI_HIDDEN_METHOD BCI_HIDDEN_DESC starts with
 * `aload 4; aload_2; iload 7; invokestatic TRACKER.hidden; astore 4`
 * (tracker: the internal name of the probes' class). Only a method of
 * straight code (no branch, switch, jsr, exception table or StackMapTable,
 * as on JDK 17 to 25) is changed. Returns 0 with a malloc'd *out; 0 with
 * *out NULL and the reason in msg when the class has no such method or it
 * is not straight; -1 with the reason in msg when the class is malformed
 * or memory runs out.
 */
int bci_hidden_hook(const uint8_t *in, size_t len, const char *tracker, uint8_t **out,
		    size_t *outlen, char *msg, size_t msglen);

#endif
