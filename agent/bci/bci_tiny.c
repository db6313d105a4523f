/*
 * bci_tiny.c - the tiny-method classifier of tiny=count and the loop-free
 * test of inlined=count (bci_tiny.h).
 */
#include "agent/bci/bci_tiny.h"

#include "agent/bci/bci_method.h"
#include "agent/bci/bci_rewrite.h"

#define ACC_SYNCHRONIZED 0x0020
#define ACC_NATIVE 0x0100
#define ACC_ABSTRACT 0x0400

/* Opcodes that make a method other than tiny whatever their operands (the
 * scan below refuses jsr/ret in any method). */
static int costly(uint8_t op)
{
	return (op >= 0xb6 && op <= 0xba) || /* invokevirtual .. invokedynamic */
	       op == 0xc2 || op == 0xc3 ||   /* monitorenter, monitorexit */
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
	uint32_t dflt, first, stride;
	uint32_t n = bci_switch_offsets(code, pc, &dflt, &first, &stride);

	if (!forward(pc, (int32_t)bci_get_u4(code + dflt), code_len))
		return 0;
	for (uint32_t k = 0; k < n; k++)
		if (!forward(pc, (int32_t)bci_get_u4(code + first + k * stride), code_len))
			return 0;
	return 1;
}

/* Whether code[0..code_len) is whole, without a backward branch, a
 * backward switch target or jsr/ret; with tiny, also without any opcode
 * costly() names. */
static int straight(const uint8_t *code, uint32_t code_len, int tiny)
{
	for (uint32_t pc = 0; pc < code_len;) {
		uint32_t n = bci_insn_len(code, code_len, pc);
		uint8_t op = code[pc];

		/* a backward branch (or one to itself) may loop; one past the
		 * code is bad code */
		if (!n || (tiny && costly(op)))
			return 0;
		if (op == 0xa8 || op == 0xa9 || op == 0xc9) /* jsr, ret, jsr_w */
			return 0;
		if (bci_is_cond_branch(op) || op == BCI_OP_GOTO) {
			if (!forward(pc, (int16_t)bci_get_u2(code + pc + 1), code_len))
				return 0;
		} else if (op == BCI_OP_GOTO_W) {
			if (!forward(pc, (int32_t)bci_get_u4(code + pc + 1), code_len))
				return 0;
		} else if ((op == BCI_OP_TABLESWITCH || op == BCI_OP_LOOKUPSWITCH) &&
			   !switch_forward(code, pc, code_len)) {
			return 0;
		}
		pc += n;
	}
	return 1;
}

int bci_tiny(uint16_t access, const uint8_t *code, uint32_t code_len, uint16_t nexc)
{
	if (access & (ACC_SYNCHRONIZED | ACC_NATIVE | ACC_ABSTRACT))
		return 0;
	if (!code || code_len == 0 || code_len > BCI_TINY_MAX_BYTES || nexc)
		return 0;
	return straight(code, code_len, 1);
}

int bci_loop_free(uint16_t access, const uint8_t *code, uint32_t code_len)
{
	if (access & (ACC_NATIVE | ACC_ABSTRACT))
		return 0;
	if (!code || code_len == 0)
		return 0;
	return straight(code, code_len, 0);
}
