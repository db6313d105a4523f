/*
 * bci_tiny.h - which methods tiny=count gives only the probe that counts
 * their calls from their first instrumentation (docs/agent-internals.md,
 * "Tiny methods"): a leaf of constant cost that the JIT inlines at every
 * call site, whose entry and exit probes would cost more than its body.
 *
 * Pure code, no JVM: unit-tested in native-tests/test-bci-tiny.c.
 */
#ifndef JCAL_BCI_TINY_H
#define JCAL_BCI_TINY_H

#include <stdint.h>

/* HotSpot's MaxInlineSize: a method of at most this many bytes of bytecode
 * is inlined wherever it is called, however rarely. */
#define BCI_TINY_MAX_BYTES 35

/*
 * Whether the method with access flags access and code[0..code_len) (with
 * nexc exception table entries) is tiny: it has code (not native, not
 * abstract), is not synchronized, has no exception handler, is at most
 * BCI_TINY_MAX_BYTES long, and runs in a time bounded by its length: no
 * invoke instruction (no call, no lambda), no backward branch, switch
 * target or jsr/ret (no loop), no monitorenter/monitorexit, and no array
 * allocation (its cost grows with the length). A getter, a setter, a
 * constant, a field compare. Bad code (an instruction cut short, a branch
 * out of the code) is not tiny.
 */
int bci_tiny(uint16_t access, const uint8_t *code, uint32_t code_len, uint16_t nexc);

/*
 * Whether the method with access flags access and code[0..code_len) runs
 * without a loop of its own: it has code, and no backward branch (or one
 * to itself), no switch target at or before the switch, no jsr/ret. Calls,
 * handlers and monitors are allowed: inlined=count asks it of methods the
 * JIT inlined (agent/bci/jit_inlined.h), whose own time then stays bounded
 * by their length. Bad code is not loop-free.
 */
int bci_loop_free(uint16_t access, const uint8_t *code, uint32_t code_len);

#endif
