/*
 * bci_tiny.c - the tiny-method classifier of tiny=count (bci_tiny.h).
 */
#include "agent/bci/bci_tiny.h"

#include "agent/bci/bci_rewrite.h"

#define ACC_SYNCHRONIZED 0x0020
#define ACC_NATIVE 0x0100
#define ACC_ABSTRACT 0x0400

static int32_t s4(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
}

static int32_t s2(const uint8_t *p)
{
	return (int16_t)(p[0] << 8 | p[1]);
}

/* Opcodes that make a method other than tiny whatever their operands. */
static int costly(uint8_t op)
{
	return (op >= 0xb6 && op <= 0xba) || /* invokevirtual .. invokedynamic */
	       op == 0xc2 || op == 0xc3 ||   /* monitorenter, monitorexit */
	       op == 0xa8 || op == 0xa9 ||   /* jsr, ret */
	       op == 0xc9 ||		     /* jsr_w */
	       op == 0xbc || op == 0xbd ||   /* newarray, anewarray */
	       op == 0xc5;		     /* multianewarray */
}

/* Whether the target pc + off lies after pc, inside the code. */
static int forward(uint32_t pc, int32_t off, uint32_t code_len)
{
	return off > 0 && (int64_t)pc + off < code_len;
}

/* Whether every target of the switch at pc (a whole instruction) lies
 * after pc, inside the code. */
static int switch_forward(const uint8_t *code, uint32_t pc, uint32_t code_len)
{
	uint32_t base = pc + 1 + (3 - pc % 4), n, first, stride;

	if (!forward(pc, s4(code + base), code_len))
		return 0;
	if (code[pc] == 0xaa) { /* tableswitch: default, low, high, offsets */
		n = (uint32_t)(s4(code + base + 8) - s4(code + base + 4)) + 1;
		first = base + 12;
		stride = 4;
	} else { /* lookupswitch: default, npairs, (match, offset) pairs */
		n = (uint32_t)s4(code + base + 4);
		first = base + 12;
		stride = 8;
	}
	for (uint32_t k = 0; k < n; k++)
		if (!forward(pc, s4(code + first + k * stride), code_len))
			return 0;
	return 1;
}

int bci_tiny(uint16_t access, const uint8_t *code, uint32_t code_len, uint16_t nexc)
{
	if (access & (ACC_SYNCHRONIZED | ACC_NATIVE | ACC_ABSTRACT))
		return 0;
	if (!code || code_len == 0 || code_len > BCI_TINY_MAX_BYTES || nexc)
		return 0;
	for (uint32_t pc = 0; pc < code_len;) {
		uint32_t n = bci_insn_len(code, code_len, pc);
		uint8_t op = code[pc];

		/* a backward branch (or one to itself) may loop; one past the
		 * code is bad code */
		if (!n || costly(op))
			return 0;
		if ((op >= 0x99 && op <= 0xa7) || op == 0xc6 || op == 0xc7) { /* if*, goto */
			if (!forward(pc, s2(code + pc + 1), code_len))
				return 0;
		} else if (op == 0xc8) { /* goto_w */
			if (!forward(pc, s4(code + pc + 1), code_len))
				return 0;
		} else if ((op == 0xaa || op == 0xab) && !switch_forward(code, pc, code_len)) {
			return 0;
		}
		pc += n;
	}
	return 1;
}
