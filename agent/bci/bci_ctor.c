/*
 * bci_ctor.c - constructor simulation for the mode=bci rewriter: finds the
 * invokespecial <init> that initialises `this` in a constructor, where the
 * catch-all handler's range may start (before it, `this` is
 * uninitializedThis and no handler may cover the code).
 *
 * A small abstract interpreter over the code before the call: per path, the
 * operand stack as slots marked 1 where they hold uninitializedThis, and
 * whether local 0 still holds it. The paths that reach a call must reach
 * the same one; anything it does not model before the call (jsr, ret,
 * switches, wide, storing `this` in a local, code before the call lying
 * after it) means no handler for the method.
 */
#include "agent/bci/bci_ctor.h"

#include <stdlib.h>
#include <string.h>

#include "agent/bci/bci_method.h"
#include "agent/bci/classfile.h"
#include "common/grow.h"

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

static enum ctor_effect ctor_effect(struct bci_method *m, struct ctor_state *s, uint32_t depth,
				    const struct bci_insn *in, uint32_t *found, int *pop, int *push,
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
		d = ref_desc(m->c, bci_get_u2(code + s->pc + 1), NULL);
		if (!d || !d->len)
			return CTOR_FAIL;
		int size = (d->utf8[0] == 'J' || d->utf8[0] == 'D') ? 2 : 1;
		*pop = op == 0xb2 ? 0 : op == 0xb3 ? size : op == 0xb4 ? 1 : 1 + size;
		*push = op == 0xb2 || op == 0xb4 ? size : 0;
		return CTOR_PUSH_POP;
	}
	if (op >= 0xb6 && op <= 0xba) { /* invokes */
		d = ref_desc(m->c, bci_get_u2(code + s->pc + 1), &init);
		if (desc_slots(d, &args, &ret))
			return CTOR_FAIL;
		*pop = args + (op == 0xb8 || op == 0xba ? 0 : 1);
		*push = ret;
		if (op == BCI_OP_INVOKESPECIAL && init && s->sp >= (uint32_t)*pop &&
		    s->stack[s->sp - (uint32_t)*pop]) {
			if (*found != BCI_NO_LABEL && *found != s->pc + in->len)
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
	if ((op >= BCI_OP_IRETURN && op <= BCI_OP_RETURN) || op == BCI_OP_ATHROW)
		return CTOR_END_PATH;
	return CTOR_FAIL; /* wide, jsr, ret, switches: not before super() */
}

int bci_ctor_find_super_call(struct bci_method *m, uint32_t *after)
{
	uint32_t depth = m->code.max_stack + 2u, nwork = 0, found = BCI_NO_LABEL;
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
			if (s.pc >= m->code.code_len || m->index[s.pc] == BCI_NO_LABEL) {
				ok = 0;
				break;
			}
			if (seen[s.pc])
				break;
			seen[s.pc] = 1;
			if (s.pc > maxpc)
				maxpc = s.pc;
			const struct bci_insn *in = &m->in[m->index[s.pc]];
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
			if (bci_is_cond_branch(op) || op == BCI_OP_GOTO || op == BCI_OP_GOTO_W ||
			    op == BCI_OP_TABLESWITCH || op == BCI_OP_LOOKUPSWITCH) {
				uint32_t targets[2] = {0, 0}, nt = 0;
				if (op == BCI_OP_TABLESWITCH || op == BCI_OP_LOOKUPSWITCH) {
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
				if (op == BCI_OP_GOTO || op == BCI_OP_GOTO_W)
					break;
			}
			s.pc += in->len;
		}
		free(s.stack);
		if (!ok) {
			found = BCI_NO_LABEL;
			while (nwork)
				free(work[--nwork].stack);
			goto out;
		}
	}
	/* Code before the call must lie before it: the handler range is one
	 * interval from the call to the end. */
	if (found != BCI_NO_LABEL && maxpc < found && found < m->code.code_len) {
		*after = found;
		rc = 0;
	}
out:
	free(work);
	free(seen);
	return rc;
}
