/*
 * bci_stackmap.h - the StackMapTable of a method rewritten by mode=bci:
 * where its frames are, and the table re-encoded for the new code (frame
 * offsets through lab[], Uninitialized offsets, the catch-all handler's
 * frame, a frame per trampoline). Called by bci_rewrite.c only.
 */
#ifndef JCAL_BCI_STACKMAP_H
#define JCAL_BCI_STACKMAP_H

#include <stdint.h>

struct bci_method;

/* Marks frame_at[] at the absolute offset of every frame of the parsed
 * m->smt. Returns 0, or -1 when a frame is not at an instruction. */
int bci_stackmap_mark_frames(struct bci_method *m);

/* Rewrites the parsed StackMapTable (new deltas, Uninitialized offsets) and
 * adds the handler's frame, keeping the original encoding; with trampolines
 * every frame is written in full. Needs the code laid out (lab, handler_pc,
 * tramp). Returns the new body (malloc'd, *len bytes) or NULL. */
uint8_t *bci_stackmap_rewrite(struct bci_method *m, uint16_t throwable, uint32_t *len);

#endif
