/*
 * bci_rewrite.c - the mode=bci class rewriter: probes at method entry, before
 * every return and in a catch-all handler; relocation of everything that
 * holds a bytecode offset.
 *
 * Per method: decode the instructions, lay the new code out (probe prefixes,
 * switch padding at the new positions, branches widened until every offset
 * fits: goto -> goto_w, jsr -> jsr_w, if<cond> -> if<!cond> +8; goto_w),
 * then emit it and remap the exception table, the line and local variable
 * tables and the StackMapTable through lab[]: lab[old pc] is the new offset
 * a branch to old pc must reach (the start of a return's probe, the first
 * original instruction after the entry probe for pc 0).
 *
 * The catch-all handler's frame has no locals and the stack [Throwable]:
 * every frame in its range is assignable to it, whatever the method stores
 * in its locals. In a constructor the range starts after the invokespecial
 * <init> that initialises `this` (found by a small simulation of the code
 * before it); if that call cannot be found the constructor gets no handler.
 */
#include "agent/bci/bci_rewrite.h"
#include "common/grow.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/bci/classfile.h"

#define OP_SIPUSH 0x11
#define OP_LDC_W 0x13
#define OP_IFEQ 0x99
#define OP_IF_ACMPNE 0xa6
#define OP_GOTO 0xa7
#define OP_JSR 0xa8
#define OP_RET 0xa9
#define OP_TABLESWITCH 0xaa
#define OP_LOOKUPSWITCH 0xab
#define OP_IRETURN 0xac
#define OP_RETURN 0xb1
#define OP_INVOKESPECIAL 0xb7
#define OP_INVOKESTATIC 0xb8
#define OP_ATHROW 0xbf
#define OP_WIDE 0xc4
#define OP_IFNULL 0xc6
#define OP_IFNONNULL 0xc7
#define OP_GOTO_W 0xc8
#define OP_JSR_W 0xc9

#define PROBE_LEN 6   /* push id (3 bytes) + invokestatic (3) */
#define HANDLER_LEN 7 /* probe + athrow */
#define NO_LABEL 0xffffffffu

/* Fixed instruction lengths for opcodes 0x00-0xc9; 0 = variable or invalid. */
static const uint8_t insn_len[0xca] = {
    /* 0x00 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x10 */ 2, 3, 2, 3, 3, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1,
    /* 0x20 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x30 */ 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1,
    /* 0x40 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x50 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x60 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x70 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x80 */ 1, 1, 1, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x90 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3, 3,
    /* 0xa0 */ 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 0, 0, 1, 1, 1, 1,
    /* 0xb0 */ 1, 1, 3, 3, 3, 3, 3, 3, 3, 5, 5, 3, 2, 3, 1, 1,
    /* 0xc0 */ 3, 3, 1, 1, 0, 4, 3, 3, 5, 5,
};

static uint32_t get_u4(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t get_u2(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put_u2(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_u4(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

uint32_t bci_insn_len(const uint8_t *code, uint32_t code_len, uint32_t pc)
{
	uint8_t op;
	uint32_t n;

	if (pc >= code_len)
		return 0;
	op = code[pc];
	if (op < sizeof(insn_len) && insn_len[op])
		n = insn_len[op];
	else if (op == OP_WIDE)
		n = (pc + 1 < code_len && code[pc + 1] == 0x84) ? 6 : 4;
	else if (op == OP_TABLESWITCH || op == OP_LOOKUPSWITCH) {
		uint32_t base = pc + 1 + (3 - pc % 4);
		if (base + 12 > code_len)
			return 0;
		if (op == OP_TABLESWITCH) {
			int32_t lo = (int32_t)get_u4(code + base + 4);
			int32_t hi = (int32_t)get_u4(code + base + 8);
			if (hi < lo)
				return 0;
			uint64_t cnt = (uint64_t)((int64_t)hi - lo + 1);
			if (cnt > code_len)
				return 0;
			n = base - pc + 12 + (uint32_t)cnt * 4;
		} else {
			uint32_t np = get_u4(code + base + 4);
			if (np > code_len)
				return 0;
			n = base - pc + 8 + np * 8;
		}
	} else
		return 0;
	return (uint64_t)pc + n <= code_len ? n : 0;
}

static int is_cond_branch(uint8_t op)
{
	return (op >= OP_IFEQ && op <= OP_IF_ACMPNE) || op == OP_IFNULL || op == OP_IFNONNULL;
}

static int is_branch16(uint8_t op)
{
	return is_cond_branch(op) || op == OP_GOTO || op == OP_JSR;
}

static uint8_t invert_branch(uint8_t op)
{
	if (op == OP_IFNULL || op == OP_IFNONNULL)
		return op ^ 1;
	return (uint8_t)(OP_IFEQ + ((op - OP_IFEQ) ^ 1));
}

/* ---- per-method state ---- */

struct insn {
	uint32_t pc, len;   /* original */
	uint32_t npc, nlen; /* new offset of the instruction itself, its size */
	uint32_t tramp;	    /* WIDE_TRAMPOLINE: new offset of its goto_w */
	int32_t target;	    /* 16/32-bit branches: original target; else -1 */
	uint8_t op, wide, ret;
};

/* How a 16-bit branch whose offset no longer fits is widened. */
enum {
	WIDE_NONE = 0,
	WIDE_INPLACE,	 /* goto_w, jsr_w, or if<!cond> +8; goto_w */
	WIDE_TRAMPOLINE, /* if<cond> to a goto_w after the handler */
};

struct method_rw {
	struct cf_class *c;
	const struct bci_config *cfg;
	struct bci_stats *st;
	const char *cls, *name, *desc;
	struct cf_code code;
	struct insn *in;
	uint32_t nin;
	uint32_t *lab;	   /* [code_len + 1] */
	uint32_t *index;   /* old pc -> instruction index, NO_LABEL in between */
	uint8_t *frame_at; /* [code_len]: 1 where the StackMapTable has a frame */
	struct cf_smt smt;
	int has_smt, smt_index;
	int handler;		/* add the catch-all handler */
	uint32_t handler_start; /* old pc where its range starts */
	uint32_t new_len, handler_pc, ntramp;
	uint16_t access;
	uint16_t pool;	      /* cp_count before the probes' constants were added */
	uint16_t probe_id_cp; /* Integer constant for ids > 32767, else 0 */
	uint32_t id;
	char *err;
	size_t errlen;
};

static void note(struct method_rw *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct method_rw *m, const char *fmt, ...)
{
	char msg[512], full[1024];
	va_list ap;

	if (!m->cfg->note)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(full, sizeof(full), "%s.%s%s: %s", m->cls, m->name, m->desc, msg);
	m->cfg->note(m->cfg->ctx, full);
}

/* The constant pool index an instruction names (ldc, field and method
 * refs, new, anewarray, checkcast, instanceof, multianewarray), or 0. */
static uint16_t insn_cp_index(const uint8_t *code, uint32_t pc)
{
	uint8_t op = code[pc];

	if (op == 0x12)
		return code[pc + 1];
	if (op == 0x13 || op == 0x14 || (op >= 0xb2 && op <= 0xbb) || op == 0xbd || op == 0xc0 ||
	    op == 0xc1 || op == 0xc5)
		return get_u2(code + pc + 1);
	return 0;
}

/* Decodes the code into m->in. Returns 0, or -1 (reason noted). */
static int decode(struct method_rw *m)
{
	const uint8_t *code = m->code.code;
	uint32_t len = m->code.code_len;

	m->in = calloc(len ? len : 1, sizeof(*m->in));
	m->index = malloc((len + 1) * sizeof(uint32_t));
	m->lab = malloc((len + 1) * sizeof(uint32_t));
	m->frame_at = calloc(len + 1, 1);
	if (!m->in || !m->index || !m->lab || !m->frame_at) {
		note(m, "out of memory");
		return -1;
	}
	for (uint32_t i = 0; i <= len; i++)
		m->index[i] = NO_LABEL;
	for (uint32_t pc = 0; pc < len;) {
		uint32_t n = bci_insn_len(code, len, pc);
		uint8_t op = code[pc];
		if (!n) {
			note(m, "skipped: bad instruction 0x%02x at %u", op, pc);
			return -1;
		}
		/* past the original pool it would name a probe's constant */
		if (insn_cp_index(code, pc) >= m->pool) {
			note(m, "skipped: instruction at %u refers past the constant pool", pc);
			return -1;
		}
		struct insn *in = &m->in[m->nin];
		m->index[pc] = m->nin++;
		in->pc = pc;
		in->len = n;
		in->op = op;
		in->target = -1;
		in->ret = op >= OP_IRETURN && op <= OP_RETURN;
		if (is_branch16(op))
			in->target = (int32_t)pc + (int16_t)get_u2(code + pc + 1);
		else if (op == OP_GOTO_W || op == OP_JSR_W)
			in->target = (int32_t)(pc + get_u4(code + pc + 1));
		pc += n;
	}
	m->index[len] = m->nin; /* the end, for exclusive ranges */
	return 0;
}

static int valid_target(const struct method_rw *m, int64_t t)
{
	return t >= 0 && t < m->code.code_len && m->index[t] != NO_LABEL;
}

/* Every branch, switch and handler target must be an instruction start. */
static int check_targets(struct method_rw *m)
{
	const uint8_t *code = m->code.code;

	for (uint32_t i = 0; i < m->nin; i++) {
		struct insn *in = &m->in[i];
		if (in->target >= 0 || is_branch16(in->op) || in->op == OP_GOTO_W ||
		    in->op == OP_JSR_W) {
			if (!valid_target(m, in->target))
				goto bad;
		} else if (in->op == OP_TABLESWITCH || in->op == OP_LOOKUPSWITCH) {
			uint32_t base = in->pc + 1 + (3 - in->pc % 4);
			uint32_t n, stride, first;
			if (!valid_target(m, (int64_t)in->pc + (int32_t)get_u4(code + base)))
				goto bad;
			if (in->op == OP_TABLESWITCH) {
				n = get_u4(code + base + 8) - get_u4(code + base + 4) + 1;
				first = base + 12;
				stride = 4;
			} else {
				n = get_u4(code + base + 4);
				first = base + 12;
				stride = 8;
			}
			for (uint32_t k = 0; k < n; k++)
				if (!valid_target(m,
						  (int64_t)in->pc +
						      (int32_t)get_u4(code + first + k * stride)))
					goto bad;
		}
		continue;
	bad:
		note(m, "skipped: branch at %u to a bad target", in->pc);
		return -1;
	}
	for (uint16_t i = 0; i < m->code.nexc; i++) {
		const struct cf_exception *e = &m->code.exc[i];
		if (!valid_target(m, e->start) || !valid_target(m, e->handler) ||
		    e->end > m->code.code_len || m->index[e->end] == NO_LABEL ||
		    e->end <= e->start || e->catch_type >= m->pool) {
			note(m, "skipped: bad exception table entry %u", i);
			return -1;
		}
	}
	return 0;
}

/* ---- constructors: where `this` becomes initialised ---- */

/* Slots taken by the arguments of a method descriptor, and by its result. */
static int desc_slots(const struct cf_const *d, int *args, int *ret)
{
	const uint8_t *p, *end;
	int n = 0;

	if (!d || d->len < 3 || d->utf8[0] != '(')
		return -1;
	p = d->utf8 + 1;
	end = d->utf8 + d->len;
	while (p < end && *p != ')') {
		int slots = (*p == 'J' || *p == 'D') ? 2 : 1;
		while (p < end && *p == '[') {
			p++;
			slots = 1;
		}
		if (p < end && *p == 'L')
			while (p < end && *p != ';')
				p++;
		if (p >= end)
			return -1;
		p++;
		n += slots;
	}
	if (p + 1 >= end)
		return -1;
	*args = n;
	*ret = p[1] == 'V' ? 0 : (p[1] == 'J' || p[1] == 'D') ? 2 : 1;
	return 0;
}

static const struct cf_const *ref_desc(const struct cf_class *c, uint16_t idx, int *is_init)
{
	const struct cf_const *r, *nat;

	if (idx == 0 || idx >= c->cp_count)
		return NULL;
	r = &c->cp[idx];
	nat = cf_cp(c, r->b, CF_NAMEANDTYPE);
	if (!nat || r->tag < CF_FIELDREF || (r->tag > CF_IMETHODREF && r->tag != CF_INVOKEDYNAMIC))
		return NULL;
	if (is_init)
		*is_init = cf_utf8_eq(c, nat->a, "<init>");
	return cf_cp(c, nat->b, CF_UTF8);
}

/* Simple stack effect (pops, pushes in slots) of opcodes without operands
 * that matter here; -1 when the opcode needs special handling. */
static int simple_effect(uint8_t op, int *pop, int *push)
{
	static const struct {
		uint8_t lo, hi;
		uint8_t pop, push;
	} t[] = {
	    {0x00, 0x00, 0, 0}, {0x01, 0x08, 0, 1}, {0x09, 0x0a, 0, 2}, {0x0b, 0x0d, 0, 1},
	    {0x0e, 0x0f, 0, 2}, {0x10, 0x13, 0, 1}, {0x14, 0x14, 0, 2}, {0x15, 0x15, 0, 1},
	    {0x16, 0x16, 0, 2}, {0x17, 0x17, 0, 1}, {0x18, 0x18, 0, 2}, {0x1a, 0x1d, 0, 1},
	    {0x1e, 0x21, 0, 2}, {0x22, 0x25, 0, 1}, {0x26, 0x29, 0, 2}, {0x2e, 0x2e, 2, 1},
	    {0x2f, 0x2f, 2, 2}, {0x30, 0x30, 2, 1}, {0x31, 0x31, 2, 2}, {0x32, 0x35, 2, 1},
	    {0x36, 0x36, 1, 0}, {0x37, 0x37, 2, 0}, {0x38, 0x38, 1, 0}, {0x39, 0x39, 2, 0},
	    {0x3b, 0x3e, 1, 0}, {0x3f, 0x42, 2, 0}, {0x43, 0x46, 1, 0}, {0x47, 0x4a, 2, 0},
	    {0x4f, 0x4f, 3, 0}, {0x50, 0x50, 4, 0}, {0x51, 0x51, 3, 0}, {0x52, 0x52, 4, 0},
	    {0x53, 0x56, 3, 0}, {0x57, 0x57, 1, 0}, {0x58, 0x58, 2, 0}, {0x60, 0x60, 2, 1},
	    {0x61, 0x61, 4, 2}, {0x62, 0x62, 2, 1}, {0x63, 0x63, 4, 2}, {0x64, 0x64, 2, 1},
	    {0x65, 0x65, 4, 2}, {0x66, 0x66, 2, 1}, {0x67, 0x67, 4, 2}, {0x68, 0x68, 2, 1},
	    {0x69, 0x69, 4, 2}, {0x6a, 0x6a, 2, 1}, {0x6b, 0x6b, 4, 2}, {0x6c, 0x6c, 2, 1},
	    {0x6d, 0x6d, 4, 2}, {0x6e, 0x6e, 2, 1}, {0x6f, 0x6f, 4, 2}, {0x70, 0x70, 2, 1},
	    {0x71, 0x71, 4, 2}, {0x72, 0x72, 2, 1}, {0x73, 0x73, 4, 2}, {0x74, 0x74, 1, 1},
	    {0x75, 0x75, 2, 2}, {0x76, 0x76, 1, 1}, {0x77, 0x77, 2, 2}, {0x78, 0x78, 2, 1},
	    {0x79, 0x79, 3, 2}, {0x7a, 0x7a, 2, 1}, {0x7b, 0x7b, 3, 2}, {0x7c, 0x7c, 2, 1},
	    {0x7d, 0x7d, 3, 2}, {0x7e, 0x7e, 2, 1}, {0x7f, 0x7f, 4, 2}, {0x80, 0x80, 2, 1},
	    {0x81, 0x81, 4, 2}, {0x82, 0x82, 2, 1}, {0x83, 0x83, 4, 2}, {0x84, 0x84, 0, 0},
	    {0x85, 0x85, 1, 2}, {0x86, 0x86, 1, 1}, {0x87, 0x87, 1, 2}, {0x88, 0x88, 2, 1},
	    {0x89, 0x89, 2, 1}, {0x8a, 0x8a, 2, 2}, {0x8b, 0x8b, 1, 1}, {0x8c, 0x8d, 1, 2},
	    {0x8e, 0x8e, 2, 1}, {0x8f, 0x8f, 2, 2}, {0x90, 0x90, 2, 1}, {0x91, 0x93, 1, 1},
	    {0x94, 0x94, 4, 1}, {0x95, 0x96, 2, 1}, {0x97, 0x98, 4, 1}, {0x99, 0x9e, 1, 0},
	    {0x9f, 0xa6, 2, 0}, {0xa7, 0xa7, 0, 0}, {0xaa, 0xab, 1, 0}, {0xbb, 0xbb, 0, 1},
	    {0xbc, 0xbe, 1, 1}, {0xc0, 0xc1, 1, 1}, {0xc2, 0xc3, 1, 0}, {0xc6, 0xc7, 1, 0},
	    {0xc8, 0xc8, 0, 0},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (op >= t[i].lo && op <= t[i].hi) {
			*pop = t[i].pop;
			*push = t[i].push;
			return 0;
		}
	return -1;
}

struct ctor_state {
	uint32_t pc;
	uint32_t sp;
	uint8_t l0;	/* local 0 still holds uninitializedThis */
	uint8_t *stack; /* 1 = uninitializedThis */
};

/* dup, dup_x1, dup_x2, dup2, dup2_x1, dup2_x2, swap on the tracked stack.
 * Returns 0, or -1 when the stack is too shallow or would overflow. */
static int ctor_dup(struct ctor_state *s, uint8_t op, uint32_t depth)
{
	static const uint8_t need[] = {1, 2, 3, 2, 3, 4, 2};
	static const uint8_t grow[] = {1, 1, 1, 2, 2, 2, 0};
	uint32_t k = need[op - 0x59], g = grow[op - 0x59];
	uint8_t tmp[6];

	if (s->sp < k || s->sp + g > depth)
		return -1;
	uint8_t *o = s->stack + s->sp - k;
	memcpy(tmp, o, k);
	if (op == 0x5f) {
		o[0] = tmp[1];
		o[1] = tmp[0];
	} else {
		/* the top g slots, then the k slots below */
		memcpy(o, tmp + k - g, g);
		memcpy(o + g, tmp, k);
	}
	s->sp += g;
	return 0;
}

/* What one instruction before super() does to the tracked stack. */
enum ctor_effect {
	CTOR_PUSH_POP, /* pop *pop slots, push *push slots marked *mark */
	CTOR_DONE,     /* the stack is already updated */
	CTOR_END_PATH, /* the path ends here (the super() call, a return or throw) */
	CTOR_FAIL,     /* not handled before super(): no handler for this method */
};

static enum ctor_effect ctor_effect(struct method_rw *m, struct ctor_state *s, uint32_t depth,
				    const struct insn *in, uint32_t *found, int *pop, int *push,
				    int *mark)
{
	const uint8_t *code = m->code.code;
	const struct cf_const *d;
	uint8_t op = in->op;
	uint32_t idx;
	int args, ret, init = 0;

	*pop = *push = *mark = 0;
	if (simple_effect(op, pop, push) == 0)
		return CTOR_PUSH_POP;
	if (op == 0x19 || (op >= 0x2a && op <= 0x2d)) { /* aload */
		idx = op == 0x19 ? code[s->pc + 1] : (uint32_t)(op - 0x2a);
		*push = 1;
		*mark = idx == 0 && s->l0;
		return CTOR_PUSH_POP;
	}
	if (op == 0x3a || (op >= 0x4b && op <= 0x4e)) { /* astore */
		idx = op == 0x3a ? code[s->pc + 1] : (uint32_t)(op - 0x4b);
		if (s->sp < 1 || s->stack[s->sp - 1])
			return CTOR_FAIL;
		if (idx == 0)
			s->l0 = 0;
		*pop = 1;
		return CTOR_PUSH_POP;
	}
	if (op >= 0x59 && op <= 0x5f) /* dup family, swap */
		return ctor_dup(s, op, depth) ? CTOR_FAIL : CTOR_DONE;
	if (op >= 0xb2 && op <= 0xb5) { /* field access */
		d = ref_desc(m->c, get_u2(code + s->pc + 1), NULL);
		if (!d || !d->len)
			return CTOR_FAIL;
		int size = (d->utf8[0] == 'J' || d->utf8[0] == 'D') ? 2 : 1;
		*pop = op == 0xb2 ? 0 : op == 0xb3 ? size : op == 0xb4 ? 1 : 1 + size;
		*push = op == 0xb2 || op == 0xb4 ? size : 0;
		return CTOR_PUSH_POP;
	}
	if (op >= 0xb6 && op <= 0xba) { /* invokes */
		d = ref_desc(m->c, get_u2(code + s->pc + 1), &init);
		if (desc_slots(d, &args, &ret))
			return CTOR_FAIL;
		*pop = args + (op == 0xb8 || op == 0xba ? 0 : 1);
		*push = ret;
		if (op == OP_INVOKESPECIAL && init && s->sp >= (uint32_t)*pop &&
		    s->stack[s->sp - (uint32_t)*pop]) {
			if (*found != NO_LABEL && *found != s->pc + in->len)
				return CTOR_FAIL;
			*found = s->pc + in->len;
			return CTOR_END_PATH;
		}
		return CTOR_PUSH_POP;
	}
	if (op == 0xc5) { /* multianewarray */
		*pop = code[s->pc + 3];
		*push = 1;
		return CTOR_PUSH_POP;
	}
	if ((op >= OP_IRETURN && op <= OP_RETURN) || op == OP_ATHROW)
		return CTOR_END_PATH;
	return CTOR_FAIL; /* wide, jsr, ret, switches: not before super() */
}

/* Finds the old pc after the invokespecial <init> that initialises `this`.
 * Returns 0 and sets *after, or -1 when it cannot be determined. */
static int find_super_call(struct method_rw *m, uint32_t *after)
{
	uint32_t depth = m->code.max_stack + 2u, nwork = 0, found = NO_LABEL;
	uint32_t maxpc = 0;
	size_t cap = 0;
	struct ctor_state *work = NULL;
	uint8_t *seen = calloc(m->code.code_len + 1, 1);
	int rc = -1;

	if (grow(&work, &cap, 1) || !seen)
		goto out;
	work[0].pc = 0;
	work[0].sp = 0;
	work[0].l0 = 1;
	work[0].stack = calloc(depth, 1);
	if (!work[0].stack)
		goto out;
	nwork = 1;
	while (nwork) {
		struct ctor_state s = work[--nwork];
		int ok = 1;
		while (ok) {
			if (s.pc >= m->code.code_len || m->index[s.pc] == NO_LABEL) {
				ok = 0;
				break;
			}
			if (seen[s.pc])
				break;
			seen[s.pc] = 1;
			if (s.pc > maxpc)
				maxpc = s.pc;
			const struct insn *in = &m->in[m->index[s.pc]];
			uint8_t op = in->op;
			int pop, push, mark;
			enum ctor_effect e =
			    ctor_effect(m, &s, depth, in, &found, &pop, &push, &mark);

			if (e == CTOR_FAIL) {
				ok = 0;
				break;
			}
			if (e == CTOR_END_PATH)
				break;
			if (e == CTOR_PUSH_POP) {
				if (s.sp < (uint32_t)pop) {
					ok = 0;
					break;
				}
				s.sp -= (uint32_t)pop;
				if (s.sp + (uint32_t)push > depth) {
					ok = 0;
					break;
				}
				for (int k = 0; k < push; k++)
					s.stack[s.sp++] = (uint8_t)mark;
			}
			if (is_cond_branch(op) || op == OP_GOTO || op == OP_GOTO_W ||
			    op == OP_TABLESWITCH || op == OP_LOOKUPSWITCH) {
				uint32_t targets[2] = {0, 0}, nt = 0;
				if (op == OP_TABLESWITCH || op == OP_LOOKUPSWITCH) {
					ok = 0; /* switches before super(): not handled */
					break;
				}
				targets[nt++] = (uint32_t)in->target;
				for (uint32_t k = 0; k < nt; k++) {
					if (grow(&work, &cap, (size_t)nwork + 1)) {
						ok = 0;
						break;
					}
					struct ctor_state *ns = &work[nwork];
					ns->stack = malloc(depth);
					if (!ns->stack) {
						ok = 0;
						break;
					}
					memcpy(ns->stack, s.stack, depth);
					ns->pc = targets[k];
					ns->sp = s.sp;
					ns->l0 = s.l0;
					nwork++;
				}
				if (op == OP_GOTO || op == OP_GOTO_W)
					break;
			}
			s.pc += in->len;
		}
		free(s.stack);
		if (!ok) {
			found = NO_LABEL;
			while (nwork)
				free(work[--nwork].stack);
			goto out;
		}
	}
	/* Code before the call must lie before it: the handler range is one
	 * interval from the call to the end. */
	if (found != NO_LABEL && maxpc < found && found < m->code.code_len) {
		*after = found;
		rc = 0;
	}
out:
	free(work);
	free(seen);
	return rc;
}

/* ---- layout ---- */

static uint32_t switch_len(const struct insn *in, uint32_t npc)
{
	uint32_t old_pad = 3 - in->pc % 4, new_pad = 3 - npc % 4;
	return in->len - old_pad + new_pad;
}

/* Computes npc/nlen/lab with the current wide flags. */
static void layout_pass(struct method_rw *m)
{
	uint32_t pos = PROBE_LEN;

	for (uint32_t i = 0; i < m->nin; i++) {
		struct insn *in = &m->in[i];
		m->lab[in->pc] = pos;
		if (in->ret)
			pos += PROBE_LEN;
		in->npc = pos;
		if (in->op == OP_TABLESWITCH || in->op == OP_LOOKUPSWITCH)
			in->nlen = switch_len(in, pos);
		else if (in->wide == WIDE_INPLACE && (in->op == OP_GOTO || in->op == OP_JSR))
			in->nlen = 5;
		else if (in->wide == WIDE_INPLACE)
			in->nlen = 8;
		else
			in->nlen = in->len;
		pos += in->nlen;
	}
	m->lab[m->code.code_len] = pos;
	m->handler_pc = pos;
	pos += m->handler ? HANDLER_LEN : 0;
	m->ntramp = 0;
	for (uint32_t i = 0; i < m->nin; i++)
		if (m->in[i].wide == WIDE_TRAMPOLINE) {
			m->in[i].tramp = pos;
			pos += 5;
			m->ntramp++;
		}
	m->new_len = pos;
}

static int fits16(int64_t off)
{
	return off >= -32768 && off <= 32767;
}

/* Lays the code out, widening branches until every offset fits. A far
 * conditional branch is inverted over a goto_w when the instruction after
 * it already has a stack map frame (or none is needed, version < 50), else
 * it jumps to a trampoline goto_w after the handler, whose frame is the
 * target's. Returns 0, or -1 when a trampoline is out of reach (noted). */
static int layout(struct method_rw *m)
{
	int changed = 1;

	while (changed) {
		changed = 0;
		layout_pass(m);
		for (uint32_t i = 0; i < m->nin; i++) {
			struct insn *in = &m->in[i];
			if (in->wide || !is_branch16(in->op))
				continue;
			if (fits16((int64_t)m->lab[in->target] - in->npc))
				continue;
			in->wide = WIDE_INPLACE;
			if (is_cond_branch(in->op) && m->c->major >= 50 &&
			    (i + 1 >= m->nin || !m->frame_at[m->in[i + 1].pc]))
				in->wide = WIDE_TRAMPOLINE;
			changed = 1;
		}
	}
	for (uint32_t i = 0; i < m->nin; i++) {
		const struct insn *in = &m->in[i];
		if (in->wide == WIDE_TRAMPOLINE && !fits16((int64_t)in->tramp - in->npc)) {
			note(m,
			     "skipped: a conditional branch at %u must be widened, and neither "
			     "a frame after it nor a trampoline within reach exists",
			     in->pc);
			return -1;
		}
	}
	return 0;
}

/* ---- emission ---- */

static uint8_t *emit_probe(struct method_rw *m, uint8_t *p, uint16_t method_cp)
{
	if (m->probe_id_cp) {
		p[0] = OP_LDC_W;
		put_u2(p + 1, m->probe_id_cp);
	} else {
		p[0] = OP_SIPUSH;
		put_u2(p + 1, m->id);
	}
	p[3] = OP_INVOKESTATIC;
	put_u2(p + 4, method_cp);
	return p + PROBE_LEN;
}

static void emit_code(struct method_rw *m, uint8_t *out, const uint16_t mref[3])
{
	const uint8_t *code = m->code.code;
	uint8_t *p = emit_probe(m, out, mref[0]);

	for (uint32_t i = 0; i < m->nin; i++) {
		const struct insn *in = &m->in[i];
		const uint8_t *src = code + in->pc;
		if (in->ret)
			p = emit_probe(m, p, mref[1]);
		if (in->op == OP_TABLESWITCH || in->op == OP_LOOKUPSWITCH) {
			uint32_t ob = in->pc + 1 + (3 - in->pc % 4);
			uint32_t nb = in->npc + 1 + (3 - in->npc % 4);
			uint32_t n, first, stride;
			p[0] = in->op;
			memset(p + 1, 0, nb - in->npc - 1);
			memcpy(out + nb, code + ob, in->len - (ob - in->pc));
			put_u4(out + nb, m->lab[in->pc + (int32_t)get_u4(code + ob)] - in->npc);
			if (in->op == OP_TABLESWITCH) {
				n = get_u4(code + ob + 8) - get_u4(code + ob + 4) + 1;
				first = 12;
				stride = 4;
			} else {
				n = get_u4(code + ob + 4);
				first = 12;
				stride = 8;
			}
			for (uint32_t k = 0; k < n; k++) {
				uint32_t o = first + k * stride;
				int32_t t = (int32_t)in->pc + (int32_t)get_u4(code + ob + o);
				put_u4(out + nb + o, m->lab[t] - in->npc);
			}
		} else if (is_branch16(in->op) || in->op == OP_GOTO_W || in->op == OP_JSR_W) {
			uint32_t t = m->lab[in->target];
			if (in->op == OP_GOTO_W || in->op == OP_JSR_W) {
				p[0] = in->op;
				put_u4(p + 1, t - in->npc);
			} else if (in->wide == WIDE_NONE) {
				p[0] = in->op;
				put_u2(p + 1, (uint16_t)(t - in->npc));
			} else if (in->wide == WIDE_TRAMPOLINE) {
				p[0] = in->op;
				put_u2(p + 1, (uint16_t)(in->tramp - in->npc));
			} else if (in->op == OP_GOTO || in->op == OP_JSR) {
				p[0] = in->op == OP_GOTO ? OP_GOTO_W : OP_JSR_W;
				put_u4(p + 1, t - in->npc);
			} else {
				p[0] = invert_branch(in->op);
				put_u2(p + 1, 8);
				p[3] = OP_GOTO_W;
				put_u4(p + 4, t - (in->npc + 3));
			}
		} else {
			memcpy(p, src, in->len);
		}
		p = out + in->npc + in->nlen;
	}
	if (m->handler) {
		p = emit_probe(m, p, mref[2]);
		*p++ = OP_ATHROW;
	}
	for (uint32_t i = 0; i < m->nin; i++) {
		const struct insn *in = &m->in[i];
		if (in->wide != WIDE_TRAMPOLINE)
			continue;
		p = out + in->tramp;
		p[0] = OP_GOTO_W;
		put_u4(p + 1, m->lab[in->target] - in->tramp);
	}
}

/* ---- attributes inside Code ---- */

/* LineNumberTable (stride 4, one pc) or LocalVariable(Type)Table (stride 10,
 * pc + length). Returns a new body, or NULL (drop the attribute). */
static uint8_t *remap_pc_table(struct method_rw *m, const struct cf_attr *a, int ranges)
{
	uint32_t stride = ranges ? 10 : 4;
	uint8_t *out;

	if (a->len < 2 || a->len != 2 + (uint32_t)get_u2(a->data) * stride)
		return NULL;
	out = cf_alloc(m->c, a->len);
	if (!out)
		return NULL;
	memcpy(out, a->data, a->len);
	for (uint32_t i = 0, n = get_u2(a->data); i < n; i++) {
		uint8_t *e = out + 2 + i * stride;
		uint32_t start = get_u2(e), end;
		if (start >= m->code.code_len || m->index[start] == NO_LABEL)
			return NULL;
		put_u2(e, m->lab[start]);
		if (ranges) {
			end = start + get_u2(e + 2);
			if (end > m->code.code_len || m->index[end] == NO_LABEL)
				return NULL;
			put_u2(e + 2, m->lab[end] - m->lab[start]);
		}
	}
	return out;
}

static int remap_vtypes(struct method_rw *m, uint32_t first, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		struct cf_vtype *v = &m->smt.vt[first + i];
		if (v->tag != CF_VT_UNINIT)
			continue;
		if (v->data >= m->code.code_len || m->index[v->data] == NO_LABEL)
			return -1;
		v->data = (uint16_t)m->lab[v->data];
	}
	return 0;
}

/* A growable list of verification types. */
struct vlist {
	struct cf_vtype *v;
	uint32_t n;
	size_t cap;
	int oom;
};

static void vl_push(struct vlist *l, uint8_t tag, uint16_t data)
{
	if (grow(&l->v, &l->cap, (size_t)l->n + 1)) {
		l->oom = 1;
		return;
	}
	l->v[l->n].tag = tag;
	l->v[l->n].data = data;
	l->n++;
}

/* The implicit frame at offset 0: `this` and the parameters. Adds Class
 * constants for reference parameters. */
static int initial_locals(struct method_rw *m, struct vlist *l)
{
	const char *d = m->desc;
	char name[1024];

	if (!(m->access & 0x0008)) /* ACC_STATIC */
		vl_push(l, strcmp(m->name, "<init>") ? CF_VT_OBJECT : CF_VT_UNINIT_THIS,
			m->c->this_class);
	if (*d++ != '(')
		return -1;
	while (*d && *d != ')') {
		const char *start = d;
		while (*d == '[')
			d++;
		if (*d == 'L')
			d = strchr(d, ';');
		if (!d || !*d)
			return -1;
		d++;
		if (*start == '[' || *start == 'L') {
			size_t n = (size_t)(d - start);
			if (*start == 'L') {
				start++;
				n -= 2;
			}
			if (n >= sizeof(name))
				return -1;
			memcpy(name, start, n);
			name[n] = '\0';
			uint16_t ci = cf_cp_class(m->c, name);
			if (!ci)
				return -1;
			vl_push(l, CF_VT_OBJECT, ci);
		} else {
			uint8_t t = *start == 'F'   ? CF_VT_FLOAT
				    : *start == 'J' ? CF_VT_LONG
				    : *start == 'D' ? CF_VT_DOUBLE
						    : CF_VT_INTEGER;
			vl_push(l, t, 0);
		}
	}
	return l->oom ? -1 : 0;
}

/* Writes every frame as a full_frame: the original ones expanded, the
 * handler's, and one per trampoline (a copy of its target's frame). */
static uint8_t *write_full_smt(struct method_rw *m, const uint32_t *old_off,
			       const uint32_t *new_off, uint16_t throwable, uint32_t *len)
{
	struct cf_smt *s = &m->smt;
	struct vlist cur = {0}, all = {0};
	struct cf_smt out = {0};
	uint32_t nmax = s->nframes + 1u + m->ntramp, prev = 0;
	uint32_t *fl = NULL, *fs = NULL; /* per original frame: first local, stack in all */
	uint8_t *body = NULL;

	out.frames = calloc(nmax, sizeof(*out.frames));
	fl = calloc(s->nframes + 1u, sizeof(*fl));
	fs = calloc(s->nframes + 1u, sizeof(*fs));
	if (!out.frames || !fl || !fs || nmax > 0xffff || initial_locals(m, &cur))
		goto out;
	for (uint16_t i = 0; i < s->nframes; i++) {
		const struct cf_frame *f = &s->frames[i];
		struct cf_frame *o = &out.frames[out.nframes++];
		if (f->kind >= 248 && f->kind <= 250) {
			uint32_t k = 251u - f->kind;
			if (k > cur.n)
				goto out;
			cur.n -= k;
		} else if (f->kind >= 252 && f->kind <= 254) {
			for (uint16_t k = 0; k < f->nlocals; k++)
				vl_push(&cur, s->vt[f->locals + k].tag, s->vt[f->locals + k].data);
		} else if (f->kind == 255) {
			cur.n = 0;
			for (uint16_t k = 0; k < f->nlocals; k++)
				vl_push(&cur, s->vt[f->locals + k].tag, s->vt[f->locals + k].data);
		}
		o->kind = 255;
		o->delta = (uint16_t)(i == 0 ? new_off[i] : new_off[i] - prev - 1);
		prev = new_off[i];
		o->nlocals = (uint16_t)cur.n;
		o->locals = fl[i] = all.n;
		for (uint32_t k = 0; k < cur.n; k++)
			vl_push(&all, cur.v[k].tag, cur.v[k].data);
		o->nstack = f->nstack;
		o->stack = fs[i] = all.n;
		for (uint16_t k = 0; k < f->nstack; k++)
			vl_push(&all, s->vt[f->stack + k].tag, s->vt[f->stack + k].data);
	}
	if (m->handler) {
		struct cf_frame *o = &out.frames[out.nframes++];
		o->kind = 255;
		o->delta = (uint16_t)(out.nframes == 1 ? m->handler_pc : m->handler_pc - prev - 1);
		prev = m->handler_pc;
		o->stack = all.n;
		o->nstack = 1;
		vl_push(&all, CF_VT_OBJECT, throwable);
	}
	for (uint32_t i = 0; i < m->nin; i++) {
		const struct insn *in = &m->in[i];
		uint16_t k;
		if (in->wide != WIDE_TRAMPOLINE)
			continue;
		for (k = 0; k < s->nframes && old_off[k] != (uint32_t)in->target; k++)
			;
		if (k == s->nframes)
			goto out; /* a branch target without a frame: invalid input */
		struct cf_frame *o = &out.frames[out.nframes++];
		*o = out.frames[k];
		o->delta = (uint16_t)(out.nframes == 1 ? in->tramp : in->tramp - prev - 1);
		prev = in->tramp;
	}
	if (cur.oom || all.oom)
		goto out;
	out.vt = all.v;
	out.nvt = all.n;
	body = cf_smt_write(&out, len);
out:
	free(cur.v);
	free(all.v);
	free(out.frames);
	free(fl);
	free(fs);
	return body;
}

/* Rewrites the parsed StackMapTable (new deltas, Uninitialized offsets) and
 * adds the handler's frame, keeping the original encoding; with trampolines
 * every frame is written in full. Returns the new body or NULL. */
static uint8_t *rewrite_smt(struct method_rw *m, uint16_t throwable, uint32_t *len)
{
	struct cf_smt *s = &m->smt;
	uint32_t old = 0, prev_new = 0;
	uint32_t *old_off = calloc(s->nframes + 1u, sizeof(uint32_t));
	uint32_t *new_off = calloc(s->nframes + 1u, sizeof(uint32_t));
	uint8_t *body = NULL;

	if (!old_off || !new_off)
		goto out;
	for (uint16_t i = 0; i < s->nframes; i++) {
		struct cf_frame *f = &s->frames[i];
		old = i == 0 ? f->delta : old + f->delta + 1u;
		old_off[i] = old;
		new_off[i] = m->lab[old];
		if (remap_vtypes(m, f->locals, f->nlocals) || remap_vtypes(m, f->stack, f->nstack))
			goto out;
	}
	if (m->ntramp) {
		body = write_full_smt(m, old_off, new_off, throwable, len);
		goto out;
	}
	for (uint16_t i = 0; i < s->nframes; i++) {
		s->frames[i].delta = (uint16_t)(i == 0 ? new_off[i] : new_off[i] - prev_new - 1);
		prev_new = new_off[i];
	}
	if (m->handler) {
		struct cf_frame *frames = realloc(s->frames, (s->nframes + 1u) * sizeof(*frames));
		struct cf_vtype *vt = realloc(s->vt, (s->nvt + 1u) * sizeof(*vt));
		if (frames)
			s->frames = frames;
		if (vt)
			s->vt = vt;
		if (!frames || !vt)
			goto out;
		struct cf_frame *f = &s->frames[s->nframes];
		f->kind = 255;
		f->delta = (uint16_t)(s->nframes ? m->handler_pc - prev_new - 1 : m->handler_pc);
		f->nlocals = 0;
		f->locals = 0;
		f->nstack = 1;
		f->stack = s->nvt;
		s->vt[s->nvt].tag = CF_VT_OBJECT;
		s->vt[s->nvt].data = throwable;
		s->nvt++;
		s->nframes++;
	}
	body = cf_smt_write(s, len);
out:
	free(old_off);
	free(new_off);
	return body;
}

/* Absolute offsets of the frames: marks frame_at. */
static int mark_frames(struct method_rw *m)
{
	uint32_t off = 0;

	for (uint16_t i = 0; i < m->smt.nframes; i++) {
		off = i == 0 ? m->smt.frames[i].delta : off + m->smt.frames[i].delta + 1u;
		if (off >= m->code.code_len || m->index[off] == NO_LABEL)
			return -1;
		m->frame_at[off] = 1;
	}
	return 0;
}

/* ---- one method ---- */

static void method_free(struct method_rw *m)
{
	cf_code_free(&m->code);
	cf_smt_free(&m->smt);
	free(m->in);
	free(m->index);
	free(m->lab);
	free(m->frame_at);
}

struct class_refs {
	uint16_t mref[3];   /* enter, exit, exitThrow */
	uint16_t throwable; /* Class java/lang/Throwable */
	uint16_t smt_name;  /* Utf8 "StackMapTable" */
};

/* Returns 1 rewritten, 0 left alone, -1 fatal (out of memory). */
/* What analyse_method found. */
enum method_verdict {
	METHOD_REWRITE, /* decoded and laid out: rewrite it */
	METHOD_SKIP,	/* left as it is, counted as skipped (noted why) */
	METHOD_IGNORE,	/* not one the configuration traces: left as it is */
};

/* Decodes the method's code and StackMapTable, finds where the catch-all
 * handler may start, lays out the instrumented code and gets the method's
 * id. */
static enum method_verdict analyse_method(struct method_rw *m, struct cf_member *mb,
					  struct cf_attr *code_attr)
{
	struct cf_class *c = m->c;
	char err[256];

	if (cf_code_parse(code_attr, &m->code, err, sizeof(err))) {
		note(m, "skipped: %s", err);
		return METHOD_SKIP;
	}
	for (uint16_t i = 0; i < m->code.nattrs; i++)
		if (m->code.attrs[i].name == 0 || m->code.attrs[i].name >= m->pool) {
			note(m, "skipped: a Code attribute's name refers past the constant pool");
			return METHOD_SKIP;
		}
	if (m->code.code_len == 0 || decode(m) || check_targets(m))
		return METHOD_SKIP;
	m->smt_index = -1;
	for (uint16_t i = 0; i < m->code.nattrs; i++)
		if (cf_utf8_eq(c, m->code.attrs[i].name, "StackMapTable")) {
			if (m->has_smt) {
				note(m, "skipped: two StackMapTable attributes");
				return METHOD_SKIP;
			}
			if (cf_smt_parse(m->code.attrs[i].data, m->code.attrs[i].len, &m->smt, err,
					 sizeof(err))) {
				note(m, "skipped: %s", err);
				return METHOD_SKIP;
			}
			for (uint32_t k = 0; k < m->smt.nvt; k++)
				if (m->smt.vt[k].tag == CF_VT_OBJECT &&
				    m->smt.vt[k].data >= m->pool) {
					note(m, "skipped: a StackMapTable type refers past the "
						"constant pool");
					return METHOD_SKIP;
				}
			if (mark_frames(m)) {
				note(m, "skipped: a StackMapTable frame is not at an instruction");
				return METHOD_SKIP;
			}
			m->has_smt = 1;
			m->smt_index = i;
		}
	m->handler = 1;
	m->handler_start = 0;
	if (!strcmp(m->name, "<init>")) {
		if (find_super_call(m, &m->handler_start)) {
			m->handler = 0;
			m->st->no_handler++;
			note(m, "no catch-all handler: the super()/this() call was not found");
		}
	}
	if (layout(m))
		return METHOD_SKIP;
	if (m->new_len > 65535) {
		note(m, "skipped: instrumented code would be %u bytes (limit 65535)", m->new_len);
		return METHOD_SKIP;
	}
	if (m->cfg->method_id(m->cfg->ctx, m->cls, m->name, m->desc, mb->access, &m->id))
		return METHOD_IGNORE;
	if (m->id > 32767) {
		m->probe_id_cp = cf_cp_integer(c, (int32_t)m->id);
		if (!m->probe_id_cp) {
			note(m, "skipped: constant pool full");
			return METHOD_SKIP;
		}
	}
	return METHOD_REWRITE;
}

/* The new code's exception table: the old entries at their new pcs, then
 * the catch-all handler. exc has room for nexc + 1 entries. */
static uint16_t new_exception_table(const struct method_rw *m, struct cf_exception *exc)
{
	uint16_t n = m->code.nexc;

	for (uint16_t i = 0; i < n; i++) {
		const struct cf_exception *e = &m->code.exc[i];
		exc[i].start = (uint16_t)m->lab[e->start];
		exc[i].end = (uint16_t)m->lab[e->end];
		exc[i].handler = (uint16_t)m->lab[e->handler];
		exc[i].catch_type = e->catch_type;
	}
	if (m->handler) {
		exc[n].start = (uint16_t)m->lab[m->handler_start];
		exc[n].end = (uint16_t)m->handler_pc;
		exc[n].handler = (uint16_t)m->handler_pc;
		exc[n].catch_type = 0;
		n++;
	}
	return n;
}

/* The new Code attribute's own attributes: pc tables remapped, the
 * StackMapTable rewritten, the rest dropped. attrs has room for nattrs + 1.
 * Returns 0, 1 when the method must be skipped (noted why), or -1 when
 * out of memory. */
static int new_code_attrs(struct method_rw *m, const struct class_refs *refs, struct cf_attr *attrs,
			  uint16_t *nattrs)
{
	struct cf_class *c = m->c;

	*nattrs = 0;
	for (uint16_t i = 0; i < m->code.nattrs; i++) {
		struct cf_attr a = m->code.attrs[i];
		uint8_t *body = NULL;
		if ((int)i == m->smt_index)
			continue;
		if (cf_utf8_eq(c, a.name, "LineNumberTable")) {
			body = remap_pc_table(m, &a, 0);
		} else if (cf_utf8_eq(c, a.name, "LocalVariableTable") ||
			   cf_utf8_eq(c, a.name, "LocalVariableTypeTable")) {
			body = remap_pc_table(m, &a, 1);
		} else {
			/* Type annotations and unknown attributes may hold offsets
			 * that are now wrong; the JVM does not need them. */
			continue;
		}
		if (!body)
			continue;
		a.data = body;
		attrs[(*nattrs)++] = a;
	}
	if (c->major >= 50 && (m->has_smt || m->handler)) {
		uint32_t len;
		uint8_t *body = rewrite_smt(m, refs->throwable, &len), *copy;
		if (!body) {
			note(m, "skipped: StackMapTable could not be rewritten");
			return 1;
		}
		copy = cf_alloc(c, len);
		if (copy)
			memcpy(copy, body, len);
		free(body);
		if (!copy)
			return -1;
		attrs[*nattrs].name = refs->smt_name;
		attrs[*nattrs].len = len;
		attrs[*nattrs].data = copy;
		(*nattrs)++;
	}
	return 0;
}

/* Builds the instrumented Code attribute of an analysed method into
 * code_attr. Returns 1, 0 when it was skipped after all (noted), or -1 when
 * out of memory. */
static int write_method_code(struct method_rw *m, struct class_refs *refs,
			     struct cf_attr *code_attr)
{
	struct cf_class *c = m->c;
	struct cf_code nc = m->code;
	uint8_t *code = cf_alloc(c, m->new_len);
	struct cf_exception *exc = malloc((m->code.nexc + 1u) * sizeof(*exc));
	struct cf_attr *attrs = malloc((m->code.nattrs + 1u) * sizeof(*attrs));
	uint16_t nattrs = 0;
	int rc;

	if (!code || !exc || !attrs) {
		free(exc);
		free(attrs);
		return -1;
	}
	emit_code(m, code, refs->mref);
	nc.code = code;
	nc.code_len = m->new_len;
	nc.max_stack = m->code.max_stack + 1u < 2 ? 2 : m->code.max_stack + 1u;
	if (m->code.max_stack == 0xffff)
		nc.max_stack = 0xffff;
	nc.nexc = new_exception_table(m, exc);
	nc.exc = exc;
	rc = new_code_attrs(m, refs, attrs, &nattrs);
	if (rc) {
		free(exc);
		free(attrs);
		return rc > 0 ? 0 : -1;
	}
	nc.attrs = attrs;
	nc.nattrs = nattrs;
	uint32_t blen;
	uint8_t *body = cf_code_write(&nc, &blen), *copy = NULL;
	free(exc);
	free(attrs);
	if (body) {
		copy = cf_alloc(c, blen);
		if (copy)
			memcpy(copy, body, blen);
		free(body);
	}
	if (!copy)
		return -1;
	code_attr->data = copy;
	code_attr->len = blen;
	return 1;
}

static int rewrite_method(struct method_rw *m, struct cf_member *mb, struct class_refs *refs)
{
	struct cf_attr *code_attr = NULL;
	int rc = 0;

	for (uint16_t i = 0; i < mb->nattrs; i++)
		if (cf_utf8_eq(m->c, mb->attrs[i].name, "Code"))
			code_attr = &mb->attrs[i];
	if (!code_attr)
		return 0;
	m->st->methods++;
	switch (analyse_method(m, mb, code_attr)) {
	case METHOD_IGNORE:
		break;
	case METHOD_SKIP:
		m->st->skipped++;
		break;
	case METHOD_REWRITE:
		rc = write_method_code(m, refs, code_attr);
		if (rc == 1)
			m->st->instrumented++;
		else if (rc == 0)
			m->st->skipped++;
		break;
	}
	method_free(m);
	return rc;
}

static char *utf8_dup(const struct cf_class *c, uint16_t i)
{
	const struct cf_const *k = cf_cp(c, i, CF_CLASS);
	if (k)
		i = k->a;
	k = cf_cp(c, i, CF_UTF8);
	char *s = malloc(k ? k->len + 1u : 1u);
	if (s) {
		if (k)
			memcpy(s, k->utf8, k->len);
		s[k ? k->len : 0] = '\0';
	}
	return s;
}

int bci_rewrite_class(const uint8_t *in, size_t len, const struct bci_config *cfg, uint8_t **out,
		      size_t *outlen, struct bci_stats *st, char *err, size_t errlen)
{
	struct cf_class c;
	struct class_refs refs;
	const char *tracker = cfg->tracker ? cfg->tracker : BCI_TRACKER_CLASS;
	char *cls = NULL;
	int rc = -1, changed = 0;
	uint16_t pool;

	*out = NULL;
	*outlen = 0;
	memset(st, 0, sizeof(*st));
	if (cf_parse(in, len, &c, err, errlen))
		goto done;
	cls = utf8_dup(&c, c.this_class);
	if (!cls) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	if (!strcmp(cls, tracker)) {
		rc = 0;
		goto done;
	}
	pool = c.cp_count;
	refs.mref[0] = cf_cp_methodref(&c, tracker, "enter", "(I)V");
	refs.mref[1] = cf_cp_methodref(&c, tracker, "exit", "(I)V");
	refs.mref[2] = cf_cp_methodref(&c, tracker, "exitThrow", "(I)V");
	refs.throwable = cf_cp_class(&c, "java/lang/Throwable");
	refs.smt_name = cf_cp_utf8(&c, "StackMapTable");
	if (!refs.mref[0] || !refs.mref[1] || !refs.mref[2] || !refs.throwable || !refs.smt_name) {
		snprintf(err, errlen, "%s: constant pool full or out of memory", cls);
		goto done;
	}
	for (uint16_t i = 0; i < c.nmethods; i++) {
		struct method_rw m = {.c = &c,
				      .cfg = cfg,
				      .st = st,
				      .cls = cls,
				      .access = c.methods[i].access,
				      .pool = pool};
		char *name = utf8_dup(&c, c.methods[i].name);
		char *desc = utf8_dup(&c, c.methods[i].desc);
		int r = -1;
		if (name && desc) {
			m.name = name;
			m.desc = desc;
			r = rewrite_method(&m, &c.methods[i], &refs);
		}
		free(name);
		free(desc);
		if (r < 0) {
			snprintf(err, errlen, "%s: out of memory", cls);
			goto done;
		}
		changed |= r;
	}
	rc = 0;
	if (changed && cf_write(&c, out, outlen)) {
		snprintf(err, errlen, "%s: out of memory", cls);
		rc = -1;
	}
done:
	free(cls);
	cf_free(&c);
	return rc;
}
