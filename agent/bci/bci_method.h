/*
 * bci_method.h - the state of one method while the mode=bci rewriter works
 * on it, shared by the three files of the rewriter: bci_rewrite.c (decode,
 * layout, emission, the method's tables), bci_ctor.c (where `this` becomes
 * initialised in a constructor) and bci_stackmap.c (the StackMapTable after
 * the code moved). Internal to agent/bci/: no other file includes it.
 *
 * Offsets: an "old pc" is an offset in the original code; lab[old pc] is
 * the new offset a branch to it must reach; index[old pc] is the number of
 * the instruction that starts there, BCI_NO_LABEL in between.
 */
#ifndef JCAL_BCI_METHOD_H
#define JCAL_BCI_METHOD_H

#include <stdint.h>

#include "agent/bci/classfile.h"

struct bci_config;
struct bci_stats;

/* The JVM opcodes the rewriter looks at. */
#define BCI_OP_SIPUSH 0x11
#define BCI_OP_LDC_W 0x13
#define BCI_OP_IFEQ 0x99
#define BCI_OP_IF_ACMPNE 0xa6
#define BCI_OP_GOTO 0xa7
#define BCI_OP_JSR 0xa8
#define BCI_OP_RET 0xa9
#define BCI_OP_TABLESWITCH 0xaa
#define BCI_OP_LOOKUPSWITCH 0xab
#define BCI_OP_IRETURN 0xac
#define BCI_OP_RETURN 0xb1
#define BCI_OP_INVOKESPECIAL 0xb7
#define BCI_OP_INVOKESTATIC 0xb8
#define BCI_OP_INVOKEDYNAMIC 0xba
#define BCI_OP_ATHROW 0xbf
#define BCI_OP_WIDE 0xc4
#define BCI_OP_IFNULL 0xc6
#define BCI_OP_IFNONNULL 0xc7
#define BCI_OP_GOTO_W 0xc8
#define BCI_OP_JSR_W 0xc9

/* Not an instruction start (index[]), no target found. */
#define BCI_NO_LABEL 0xffffffffu

/* The big-endian u2 at p. */
static inline uint16_t bci_get_u2(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The big-endian u4 at p. */
static inline uint32_t bci_get_u4(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The offsets of the tableswitch or lookupswitch at pc (a whole
 * instruction: bci_insn_len), each relative to pc: its default's at
 * *dflt; returns how many others it has, the first at *first, stride
 * bytes apart. */
static inline uint32_t bci_switch_offsets(const uint8_t *code, uint32_t pc, uint32_t *dflt,
					  uint32_t *first, uint32_t *stride)
{
	uint32_t base = pc + 1 + (3 - pc % 4);

	*dflt = base;
	*first = base + 12;
	if (code[pc] == BCI_OP_TABLESWITCH) { /* default, low, high, offsets */
		*stride = 4;
		return bci_get_u4(code + base + 8) - bci_get_u4(code + base + 4) + 1;
	}
	*stride = 8; /* lookupswitch: default, npairs, (match, offset) pairs */
	return bci_get_u4(code + base + 4);
}

/* if<cond>, if_icmp<cond>, if_acmp<cond>, ifnull, ifnonnull. */
static inline int bci_is_cond_branch(uint8_t op)
{
	return (op >= BCI_OP_IFEQ && op <= BCI_OP_IF_ACMPNE) || op == BCI_OP_IFNULL ||
	       op == BCI_OP_IFNONNULL;
}

/* One instruction: where it was, where it goes. */
struct bci_insn {
	uint32_t pc, len;   /* original */
	uint32_t npc, nlen; /* new offset of the instruction itself, its size */
	uint32_t tramp;	    /* BCI_WIDE_TRAMPOLINE: new offset of its goto_w */
	int32_t target;	    /* 16/32-bit branches: original target; else -1 */
	uint8_t op, wide, ret;
};

/* How a 16-bit branch whose offset no longer fits is widened. */
enum {
	BCI_WIDE_NONE = 0,
	BCI_WIDE_INPLACE,    /* goto_w, jsr_w, or if<!cond> +8; goto_w */
	BCI_WIDE_TRAMPOLINE, /* if<cond> to a goto_w after the handler */
};

/* One method being rewritten. */
struct bci_method {
	struct cf_class *c;
	const struct bci_config *cfg;
	struct bci_stats *st;
	const char *cls, *name, *desc;
	struct cf_code code;
	struct bci_insn *in;
	uint32_t nin;
	uint32_t *lab;	   /* [code_len + 1] */
	uint32_t *index;   /* old pc -> instruction index, BCI_NO_LABEL in between */
	uint8_t *frame_at; /* [code_len]: 1 where the StackMapTable has a frame */
	struct cf_smt smt;
	int has_smt, smt_index;
	int handler;		/* add the catch-all handler */
	int count_only;		/* only TRACKER.count(slot) at entry (BCI_COUNT_ONLY) */
	int tiny;		/* count_only because cfg->tiny_id said so */
	int inlined;		/* count_only because cfg->inlined_id said so */
	uint32_t handler_start; /* old pc where its range starts */
	uint32_t new_len, handler_pc, ntramp;
	uint16_t access;
	uint16_t pool;	      /* cp_count before the probes' constants were added */
	uint16_t probe_id_cp; /* Integer constant for ids > 32767, else 0 */
	/* switchable probes: the InvokeDynamic constant of each kind it has
	 * (enter, exit, exitThrow, count), 0 for static probes */
	uint16_t site_cp[4];
	uint32_t probe_len; /* bytes of a probe: id push + invoke */
	uint32_t id;
};

#endif
