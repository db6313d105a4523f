/*
 * bci_ctor.h - constructor simulation for the mode=bci rewriter: where, in
 * an <init> method, `this` becomes initialised (after the invokespecial
 * <init> of the super class or of this class), so that the catch-all
 * handler's range can start there. Called by bci_rewrite.c only.
 */
#ifndef JCAL_BCI_CTOR_H
#define JCAL_BCI_CTOR_H

#include <stdint.h>

struct bci_method;

/* Finds the old pc after the invokespecial <init> that initialises `this`
 * by simulating the code before it (which stack slots and whether local 0
 * hold uninitializedThis, along every path). Returns 0 and sets *after, or
 * -1 when it cannot be determined (then the constructor gets no handler).
 * Needs the method decoded (in, index). */
int bci_ctor_find_super_call(struct bci_method *m, uint32_t *after);

#endif
