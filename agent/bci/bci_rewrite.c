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
 * The catch-all handler covers the whole original code; in a constructor
 * its range starts after the invokespecial <init> that initialises `this`
 * (bci_ctor.c finds it); if that call cannot be found the constructor gets
 * no handler. The StackMapTable is rewritten by bci_stackmap.c; the state
 * of the method these files share is in bci_method.h.
 */
#include "agent/bci/bci_rewrite.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/bci/bci_ctor.h"
#include "agent/bci/bci_method.h"
#include "agent/bci/bci_native.h"
#include "agent/bci/bci_stackmap.h"
#include "agent/bci/classfile.h"
#include "common/grow.h"

#define PROBE_LEN 6	 /* push id (3 bytes) + invokestatic (3) */
#define SITE_PROBE_LEN 8 /* push id (3 bytes) + invokedynamic (5) */

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
	else if (op == BCI_OP_WIDE)
		n = (pc + 1 < code_len && code[pc + 1] == 0x84) ? 6 : 4;
	else if (op == BCI_OP_TABLESWITCH || op == BCI_OP_LOOKUPSWITCH) {
		uint32_t base = pc + 1 + (3 - pc % 4);
		if (base + 12 > code_len)
			return 0;
		if (op == BCI_OP_TABLESWITCH) {
			int32_t lo = (int32_t)bci_get_u4(code + base + 4);
			int32_t hi = (int32_t)bci_get_u4(code + base + 8);
			if (hi < lo)
				return 0;
			uint64_t cnt = (uint64_t)((int64_t)hi - lo + 1);
			if (cnt > code_len)
				return 0;
			n = base - pc + 12 + (uint32_t)cnt * 4;
		} else {
			uint32_t np = bci_get_u4(code + base + 4);
			if (np > code_len)
				return 0;
			n = base - pc + 8 + np * 8;
		}
	} else
		return 0;
	return (uint64_t)pc + n <= code_len ? n : 0;
}

static int is_branch16(uint8_t op)
{
	return bci_is_cond_branch(op) || op == BCI_OP_GOTO || op == BCI_OP_JSR;
}

static uint8_t invert_branch(uint8_t op)
{
	if (op == BCI_OP_IFNULL || op == BCI_OP_IFNONNULL)
		return op ^ 1;
	return (uint8_t)(BCI_OP_IFEQ + ((op - BCI_OP_IFEQ) ^ 1));
}

/* ---- decoding ---- */

static void note(struct bci_method *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct bci_method *m, const char *fmt, ...)
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
		return bci_get_u2(code + pc + 1);
	return 0;
}

/* Decodes the code into m->in. Returns 0, or -1 (reason noted). */
static int decode(struct bci_method *m)
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
		m->index[i] = BCI_NO_LABEL;
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
		struct bci_insn *in = &m->in[m->nin];
		m->index[pc] = m->nin++;
		in->pc = pc;
		in->len = n;
		in->op = op;
		in->target = -1;
		in->ret = op >= BCI_OP_IRETURN && op <= BCI_OP_RETURN;
		if (is_branch16(op))
			in->target = (int32_t)pc + (int16_t)bci_get_u2(code + pc + 1);
		else if (op == BCI_OP_GOTO_W || op == BCI_OP_JSR_W)
			in->target = (int32_t)(pc + bci_get_u4(code + pc + 1));
		pc += n;
	}
	m->index[len] = m->nin; /* the end, for exclusive ranges */
	return 0;
}

static int valid_target(const struct bci_method *m, int64_t t)
{
	return t >= 0 && t < m->code.code_len && m->index[t] != BCI_NO_LABEL;
}

/* Every branch, switch and handler target must be an instruction start. */
static int check_targets(struct bci_method *m)
{
	const uint8_t *code = m->code.code;

	for (uint32_t i = 0; i < m->nin; i++) {
		struct bci_insn *in = &m->in[i];
		if (in->target >= 0 || is_branch16(in->op) || in->op == BCI_OP_GOTO_W ||
		    in->op == BCI_OP_JSR_W) {
			if (!valid_target(m, in->target))
				goto bad;
		} else if (in->op == BCI_OP_TABLESWITCH || in->op == BCI_OP_LOOKUPSWITCH) {
			uint32_t dflt, first, stride;
			uint32_t n = bci_switch_offsets(code, in->pc, &dflt, &first, &stride);

			if (!valid_target(m, (int64_t)in->pc + (int32_t)bci_get_u4(code + dflt)))
				goto bad;
			for (uint32_t k = 0; k < n; k++)
				if (!valid_target(
					m, (int64_t)in->pc +
					       (int32_t)bci_get_u4(code + first + k * stride)))
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
		    e->end > m->code.code_len || m->index[e->end] == BCI_NO_LABEL ||
		    e->end <= e->start || e->catch_type >= m->pool) {
			note(m, "skipped: bad exception table entry %u", i);
			return -1;
		}
	}
	return 0;
}

/* ---- layout ---- */

static uint32_t switch_len(const struct bci_insn *in, uint32_t npc)
{
	uint32_t old_pad = 3 - in->pc % 4, new_pad = 3 - npc % 4;
	return in->len - old_pad + new_pad;
}

/* Computes npc/nlen/lab with the current wide flags. */
static void layout_pass(struct bci_method *m)
{
	uint32_t pos = m->probe_len;

	for (uint32_t i = 0; i < m->nin; i++) {
		struct bci_insn *in = &m->in[i];
		m->lab[in->pc] = pos;
		if (in->ret && !m->count_only)
			pos += m->probe_len;
		in->npc = pos;
		if (in->op == BCI_OP_TABLESWITCH || in->op == BCI_OP_LOOKUPSWITCH)
			in->nlen = switch_len(in, pos);
		else if (in->wide == BCI_WIDE_INPLACE &&
			 (in->op == BCI_OP_GOTO || in->op == BCI_OP_JSR))
			in->nlen = 5;
		else if (in->wide == BCI_WIDE_INPLACE)
			in->nlen = 8;
		else
			in->nlen = in->len;
		pos += in->nlen;
	}
	m->lab[m->code.code_len] = pos;
	m->handler_pc = pos;
	pos += m->handler ? m->probe_len + 1u : 0; /* probe + athrow */
	m->ntramp = 0;
	for (uint32_t i = 0; i < m->nin; i++)
		if (m->in[i].wide == BCI_WIDE_TRAMPOLINE) {
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
static int layout(struct bci_method *m)
{
	int changed = 1;

	while (changed) {
		changed = 0;
		layout_pass(m);
		for (uint32_t i = 0; i < m->nin; i++) {
			struct bci_insn *in = &m->in[i];
			if (in->wide || !is_branch16(in->op))
				continue;
			if (fits16((int64_t)m->lab[in->target] - in->npc))
				continue;
			in->wide = BCI_WIDE_INPLACE;
			if (bci_is_cond_branch(in->op) && m->c->major >= 50 &&
			    (i + 1 >= m->nin || !m->frame_at[m->in[i + 1].pc]))
				in->wide = BCI_WIDE_TRAMPOLINE;
			changed = 1;
		}
	}
	for (uint32_t i = 0; i < m->nin; i++) {
		const struct bci_insn *in = &m->in[i];
		if (in->wide == BCI_WIDE_TRAMPOLINE && !fits16((int64_t)in->tramp - in->npc)) {
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

/* The probes' kinds: the index of their Methodref and call site. */
enum { PROBE_ENTER, PROBE_EXIT, PROBE_EXIT_THROW, PROBE_COUNT, PROBE_KINDS };

static uint8_t *emit_probe(struct bci_method *m, uint8_t *p, const uint16_t mref[PROBE_KINDS],
			   unsigned kind)
{
	if (m->probe_id_cp) {
		p[0] = BCI_OP_LDC_W;
		put_u2(p + 1, m->probe_id_cp);
	} else {
		p[0] = BCI_OP_SIPUSH;
		put_u2(p + 1, m->id);
	}
	if (m->probe_len == SITE_PROBE_LEN) { /* invokedynamic KIND(I)V */
		p[3] = BCI_OP_INVOKEDYNAMIC;
		put_u2(p + 4, m->site_cp[kind]);
		p[6] = p[7] = 0;
	} else {
		p[3] = BCI_OP_INVOKESTATIC;
		put_u2(p + 4, mref[kind]);
	}
	return p + m->probe_len;
}

static void emit_code(struct bci_method *m, uint8_t *out, const uint16_t mref[PROBE_KINDS])
{
	const uint8_t *code = m->code.code;
	uint8_t *p = emit_probe(m, out, mref, m->count_only ? PROBE_COUNT : PROBE_ENTER);

	for (uint32_t i = 0; i < m->nin; i++) {
		const struct bci_insn *in = &m->in[i];
		const uint8_t *src = code + in->pc;
		if (in->ret && !m->count_only)
			p = emit_probe(m, p, mref, PROBE_EXIT);
		if (in->op == BCI_OP_TABLESWITCH || in->op == BCI_OP_LOOKUPSWITCH) {
			uint32_t ob = in->pc + 1 + (3 - in->pc % 4);
			uint32_t nb = in->npc + 1 + (3 - in->npc % 4);
			uint32_t n, first, stride;
			p[0] = in->op;
			memset(p + 1, 0, nb - in->npc - 1);
			memcpy(out + nb, code + ob, in->len - (ob - in->pc));
			put_u4(out + nb, m->lab[in->pc + (int32_t)bci_get_u4(code + ob)] - in->npc);
			if (in->op == BCI_OP_TABLESWITCH) {
				n = bci_get_u4(code + ob + 8) - bci_get_u4(code + ob + 4) + 1;
				first = 12;
				stride = 4;
			} else {
				n = bci_get_u4(code + ob + 4);
				first = 12;
				stride = 8;
			}
			for (uint32_t k = 0; k < n; k++) {
				uint32_t o = first + k * stride;
				int32_t t = (int32_t)in->pc + (int32_t)bci_get_u4(code + ob + o);
				put_u4(out + nb + o, m->lab[t] - in->npc);
			}
		} else if (is_branch16(in->op) || in->op == BCI_OP_GOTO_W ||
			   in->op == BCI_OP_JSR_W) {
			uint32_t t = m->lab[in->target];
			if (in->op == BCI_OP_GOTO_W || in->op == BCI_OP_JSR_W) {
				p[0] = in->op;
				put_u4(p + 1, t - in->npc);
			} else if (in->wide == BCI_WIDE_NONE) {
				p[0] = in->op;
				put_u2(p + 1, (uint16_t)(t - in->npc));
			} else if (in->wide == BCI_WIDE_TRAMPOLINE) {
				p[0] = in->op;
				put_u2(p + 1, (uint16_t)(in->tramp - in->npc));
			} else if (in->op == BCI_OP_GOTO || in->op == BCI_OP_JSR) {
				p[0] = in->op == BCI_OP_GOTO ? BCI_OP_GOTO_W : BCI_OP_JSR_W;
				put_u4(p + 1, t - in->npc);
			} else {
				p[0] = invert_branch(in->op);
				put_u2(p + 1, 8);
				p[3] = BCI_OP_GOTO_W;
				put_u4(p + 4, t - (in->npc + 3));
			}
		} else {
			memcpy(p, src, in->len);
		}
		p = out + in->npc + in->nlen;
	}
	if (m->handler) {
		p = emit_probe(m, p, mref, PROBE_EXIT_THROW);
		*p++ = BCI_OP_ATHROW;
	}
	for (uint32_t i = 0; i < m->nin; i++) {
		const struct bci_insn *in = &m->in[i];
		if (in->wide != BCI_WIDE_TRAMPOLINE)
			continue;
		p = out + in->tramp;
		p[0] = BCI_OP_GOTO_W;
		put_u4(p + 1, m->lab[in->target] - in->tramp);
	}
}

/* ---- attributes inside Code ---- */

/* LineNumberTable (stride 4, one pc) or LocalVariable(Type)Table (stride 10,
 * pc + length). Returns a new body, or NULL (drop the attribute). */
static uint8_t *remap_pc_table(struct bci_method *m, const struct cf_attr *a, int ranges)
{
	uint32_t stride = ranges ? 10 : 4;
	uint8_t *out;

	if (a->len < 2 || a->len != 2 + (uint32_t)bci_get_u2(a->data) * stride)
		return NULL;
	out = cf_alloc(m->c, a->len);
	if (!out)
		return NULL;
	memcpy(out, a->data, a->len);
	for (uint32_t i = 0, n = bci_get_u2(a->data); i < n; i++) {
		uint8_t *e = out + 2 + i * stride;
		uint32_t start = bci_get_u2(e), end;
		if (start >= m->code.code_len || m->index[start] == BCI_NO_LABEL)
			return NULL;
		put_u2(e, m->lab[start]);
		if (ranges) {
			end = start + bci_get_u2(e + 2);
			if (end > m->code.code_len || m->index[end] == BCI_NO_LABEL)
				return NULL;
			put_u2(e + 2, m->lab[end] - m->lab[start]);
		}
	}
	return out;
}

/* ---- one method ---- */

static void method_free(struct bci_method *m)
{
	cf_code_free(&m->code);
	cf_smt_free(&m->smt);
	free(m->in);
	free(m->index);
	free(m->lab);
	free(m->frame_at);
}

struct class_refs {
	uint16_t mref[PROBE_KINDS]; /* enter, exit, exitThrow, count */
	uint16_t throwable;	    /* Class java/lang/Throwable */
	uint16_t smt_name;	    /* Utf8 "StackMapTable" */
	/* switchable probes: sites set, their bootstrap method (MethodHandle
	 * of TRACKER.site), each kind's NameAndType, the BootstrapMethods
	 * attribute (Utf8 name; the entries it had, its body), and the
	 * static argument (Integer constant) of each entry added */
	int sites;
	uint16_t site_bsm, site_nat[PROBE_KINDS], bsm_name;
	uint32_t bsm_had;
	const struct cf_attr *bsm_attr;
	uint16_t *bsm_arg;
	size_t nbsm_arg, bsm_cap;
};

/* What analyse_method found. */
enum method_verdict {
	METHOD_REWRITE, /* decoded and laid out: rewrite it */
	METHOD_SKIP,	/* left as it is, counted as skipped (noted why) */
	METHOD_IGNORE,	/* not one the configuration traces: left as it is */
};

/* Decodes the method's code and StackMapTable, finds where the catch-all
 * handler may start, lays out the instrumented code and gets the method's
 * id. */
static enum method_verdict analyse_method(struct bci_method *m, struct cf_member *mb,
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
			if (bci_stackmap_mark_frames(m)) {
				note(m, "skipped: a StackMapTable frame is not at an instruction");
				return METHOD_SKIP;
			}
			m->has_smt = 1;
			m->smt_index = i;
		}
	m->handler = 1;
	m->handler_start = 0;
	if (!strcmp(m->name, "<init>")) {
		if (bci_ctor_find_super_call(m, &m->handler_start)) {
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
	int (*pick)(void *, const char *, const char *, const char *, uint16_t, uint32_t *) =
	    m->cfg->method_id;
	if (m->cfg->tiny_id && m->cfg->is_tiny &&
	    m->cfg->is_tiny(mb->access, m->code.code, m->code.code_len, m->code.nexc))
		pick = m->cfg->tiny_id;
	else if (m->cfg->inlined_id && m->cfg->is_loop_free &&
		 m->cfg->is_loop_free(mb->access, m->code.code, m->code.code_len))
		pick = m->cfg->inlined_id;
	switch (pick(m->cfg->ctx, m->cls, m->name, m->desc, mb->access, &m->id)) {
	case 0:
		break;
	case BCI_COUNT_ONLY: /* one probe at entry: laid out again without the others */
		m->count_only = 1;
		m->tiny = pick == m->cfg->tiny_id;
		m->inlined = pick == m->cfg->inlined_id;
		m->handler = 0;
		if (layout(m))
			return METHOD_SKIP;
		break;
	default:
		return METHOD_IGNORE;
	}
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
static uint16_t new_exception_table(const struct bci_method *m, struct cf_exception *exc)
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
static int new_code_attrs(struct bci_method *m, const struct class_refs *refs,
			  struct cf_attr *attrs, uint16_t *nattrs)
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
		uint8_t *body = bci_stackmap_rewrite(m, refs->throwable, &len), *copy;
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
static int write_method_code(struct bci_method *m, struct class_refs *refs,
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

/* Switchable probes: the method's call sites, one InvokeDynamic constant
 * per kind it has, all bootstrapped by a new BootstrapMethods entry whose
 * static argument is its id (count only: its slot). Returns 0, or -1 when
 * the pool or the attribute is full or memory runs out (nothing to undo:
 * constants no code names are harmless). */
static int site_probes(struct bci_method *m, struct class_refs *refs)
{
	uint32_t bsm = refs->bsm_had + (uint32_t)refs->nbsm_arg;
	uint16_t arg;

	if (bsm > 0xffff || grow(&refs->bsm_arg, &refs->bsm_cap, refs->nbsm_arg + 1) ||
	    !(arg = cf_cp_integer(m->c, (int32_t)m->id)))
		return -1;
	for (unsigned k = 0; k < PROBE_KINDS; k++) {
		int used = m->count_only ? k == PROBE_COUNT
					 : k == PROBE_ENTER || k == PROBE_EXIT ||
					       (k == PROBE_EXIT_THROW && m->handler);
		if (used &&
		    !(m->site_cp[k] = cf_cp_invokedynamic(m->c, (uint16_t)bsm, refs->site_nat[k])))
			return -1;
	}
	refs->bsm_arg[refs->nbsm_arg++] = arg;
	return 0;
}

/* Returns 1 rewritten, 0 left alone, -1 fatal (out of memory). */
static int rewrite_method(struct bci_method *m, struct cf_member *mb, struct class_refs *refs)
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
		if (refs->sites && site_probes(m, refs)) {
			note(m, "skipped: constant pool or BootstrapMethods full");
			m->st->skipped++;
			break;
		}
		rc = write_method_code(m, refs, code_attr);
		if (rc == 1)
			m->st->instrumented++;
		if (rc == 1 && refs->sites)
			m->st->switchable++;
		if (rc == 1 && m->inlined)
			m->st->inlined++;
		if (rc == 1 && m->tiny)
			m->st->tiny++;
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

int bci_switchable_version(const uint8_t *in, size_t len)
{
	return len >= 8 && bci_get_u4(in) == 0xcafebabeu && bci_get_u2(in + 6) >= 51;
}

/* The constants every switchable probe of the class shares, and the
 * class's BootstrapMethods attribute, if any, whose entries are kept
 * (walked to check its length). 0, or -1. */
static int sites_begin(struct cf_class *c, const char *tracker, struct class_refs *refs)
{
	static const char *const kind[PROBE_KINDS] = {"enter", "exit", "exitThrow", "count"};

	refs->site_bsm = cf_cp_methodhandle(c, 6 /* REF_invokeStatic */,
					    cf_cp_methodref(c, tracker, "site", BCI_SITE_DESC));
	refs->bsm_name = cf_cp_utf8(c, "BootstrapMethods");
	if (!refs->site_bsm || !refs->bsm_name)
		return -1;
	for (unsigned k = 0; k < PROBE_KINDS; k++)
		if (!(refs->site_nat[k] = cf_cp_nameandtype(c, kind[k], "(I)V")))
			return -1;
	for (uint16_t i = 0; i < c->nattrs; i++) {
		const struct cf_attr *a = &c->attrs[i];
		uint32_t at = 2;
		if (a->name != refs->bsm_name)
			continue;
		if (a->len < 2)
			return -1;
		refs->bsm_had = bci_get_u2(a->data);
		for (uint32_t e = 0; e < refs->bsm_had; e++) {
			if (at + 4 > a->len)
				return -1;
			at += 4 + 2u * bci_get_u2(a->data + at + 2);
		}
		if (at != a->len)
			return -1;
		refs->bsm_attr = a;
		break;
	}
	refs->sites = 1;
	return 0;
}

/* The BootstrapMethods attribute with the switchable probes' entries
 * after the class's own. 0, or -1 when memory runs out. */
static int sites_end(struct cf_class *c, struct class_refs *refs)
{
	uint32_t had = refs->bsm_attr ? refs->bsm_attr->len - 2 : 0;
	uint32_t len = 2 + had + 6 * (uint32_t)refs->nbsm_arg;
	uint8_t *b = cf_alloc(c, len), *p;

	if (!b)
		return -1;
	put_u2(b, refs->bsm_had + (uint32_t)refs->nbsm_arg);
	if (had)
		memcpy(b + 2, refs->bsm_attr->data + 2, had);
	p = b + 2 + had;
	for (size_t i = 0; i < refs->nbsm_arg; i++, p += 6) {
		put_u2(p, refs->site_bsm);
		put_u2(p + 2, 1);
		put_u2(p + 4, refs->bsm_arg[i]);
	}
	return cf_class_set_attr(c, refs->bsm_name, len, b);
}

int bci_rewrite_class(const uint8_t *in, size_t len, const struct bci_config *cfg, uint8_t **out,
		      size_t *outlen, struct bci_stats *st, char *err, size_t errlen)
{
	struct cf_class c;
	struct class_refs refs = {0};
	const char *tracker = cfg->tracker ? cfg->tracker : BCI_TRACKER_CLASS;
	char *cls = NULL, why[256];
	uint8_t *wrapper = NULL;
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
	refs.mref[3] = cf_cp_methodref(&c, tracker, "count", "(I)V");
	refs.throwable = cf_cp_class(&c, "java/lang/Throwable");
	refs.smt_name = cf_cp_utf8(&c, "StackMapTable");
	if (!refs.mref[0] || !refs.mref[1] || !refs.mref[2] || !refs.mref[3] || !refs.throwable ||
	    !refs.smt_name) {
		snprintf(err, errlen, "%s: constant pool full or out of memory", cls);
		goto done;
	}
	if (cfg->switchable && c.major >= 51 && sites_begin(&c, tracker, &refs)) {
		snprintf(err, errlen,
			 "%s: constant pool full, out of memory, or a bad "
			 "BootstrapMethods attribute",
			 cls);
		goto done;
	}
	uint16_t nmethods = c.nmethods, wpool = pool;
	if (cfg->native_prefix) {
		int nw = -1;
		wrapper = calloc(nmethods ? nmethods : 1u, 1);
		if (wrapper)
			nw = bci_native_wrap(&c, cfg->native_prefix, wrapper, why, sizeof(why));
		if (nw < 0) {
			snprintf(err, errlen, "%s: constant pool full or out of memory", cls);
			goto done;
		}
		if (why[0] && cfg->note) {
			char msg[512];
			snprintf(msg, sizeof(msg), "%s: native methods not wrapped: %s", cls, why);
			cfg->note(cfg->ctx, msg);
		}
		st->natives = (unsigned)nw;
		changed = nw > 0;
		wpool = c.cp_count; /* a wrapper's code names the native's constants */
	}
	for (uint16_t i = 0; i < nmethods; i++) {
		struct bci_method m = {.c = &c,
				       .cfg = cfg,
				       .st = st,
				       .cls = cls,
				       .access = c.methods[i].access,
				       .pool = wrapper && wrapper[i] ? wpool : pool,
				       .probe_len = refs.sites ? SITE_PROBE_LEN : PROBE_LEN};
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
	if (refs.nbsm_arg && sites_end(&c, &refs)) {
		snprintf(err, errlen, "%s: out of memory", cls);
		goto done;
	}
	rc = 0;
	if (changed && cf_write(&c, out, outlen)) {
		snprintf(err, errlen, "%s: out of memory", cls);
		rc = -1;
	}
done:
	free(refs.bsm_arg);
	free(wrapper);
	free(cls);
	cf_free(&c);
	return rc;
}
