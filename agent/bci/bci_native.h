/*
 * bci_native.h - native methods in the mode=bci rewriter: JVMTI native
 * method prefixing (docs/agent-internals.md, "Natives in mode=bci"). Each
 * native method NAME of a class becomes a Java method NAME, with the same
 * modifiers less `native`, that calls the native renamed PREFIX+NAME and
 * returns its result; the rewriter then puts probes in that wrapper like in
 * any method. With the prefix set by SetNativeMethodPrefix, HotSpot links
 * PREFIX+NAME to the C function of NAME (by its JNI name, or by
 * RegisterNatives given NAME). Called by bci_rewrite.c only.
 */
#ifndef JCAL_BCI_NATIVE_H
#define JCAL_BCI_NATIVE_H

#include <stddef.h>
#include <stdint.h>

#include "agent/bci/classfile.h"

/*
 * Wraps every native method of c, or none (then a reason in why, unless
 * the class has no native method): an interface, a name PREFIX+NAME the
 * class already has, a malformed descriptor. Of the n methods c had before,
 * wrapper[i] is set to 1 for each that became a wrapper; the renamed natives
 * are appended after them (private, synthetic, native, static if NAME was,
 * not synchronized: the wrapper is). Returns how many natives were wrapped,
 * or -1 when the constant pool is full or memory runs out (c is then
 * half-changed: do not write it).
 */
int bci_native_wrap(struct cf_class *c, const char *prefix, uint8_t *wrapper, char *why,
		    size_t whylen);

#endif
