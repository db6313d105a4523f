/*
 * bci_stackmap.c - the StackMapTable of a method rewritten by mode=bci.
 *
 * Frames keep their encoding: only their offsets (deltas) and the offsets
 * inside Uninitialized types move through lab[], and the catch-all
 * handler's frame (no locals, the stack [Throwable]) is appended: every
 * frame in its range is assignable to it, whatever the method stores in its
 * locals. When a far conditional branch goes through a trampoline goto_w
 * after the handler, the trampoline needs a copy of its target's frame, and
 * a compressed frame only means something after the frame before it: then
 * every frame is written as a full_frame, its locals expanded from the
 * implicit frame at offset 0.
 */
#include "agent/bci/bci_stackmap.h"

#include <stdlib.h>
#include <string.h>

#include "agent/bci/bci_method.h"
#include "agent/bci/classfile.h"
#include "common/grow.h"

static int remap_vtypes(struct bci_method *m, uint32_t first, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		struct cf_vtype *v = &m->smt.vt[first + i];
		if (v->tag != CF_VT_UNINIT)
			continue;
		if (v->data >= m->code.code_len || m->index[v->data] == BCI_NO_LABEL)
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
static int initial_locals(struct bci_method *m, struct vlist *l)
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
static uint8_t *write_full_smt(struct bci_method *m, const uint32_t *old_off,
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
		const struct bci_insn *in = &m->in[i];
		uint16_t k;
		if (in->wide != BCI_WIDE_TRAMPOLINE)
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

uint8_t *bci_stackmap_rewrite(struct bci_method *m, uint16_t throwable, uint32_t *len)
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

int bci_stackmap_mark_frames(struct bci_method *m)
{
	uint32_t off = 0;

	for (uint16_t i = 0; i < m->smt.nframes; i++) {
		off = i == 0 ? m->smt.frames[i].delta : off + m->smt.frames[i].delta + 1u;
		if (off >= m->code.code_len || m->index[off] == BCI_NO_LABEL)
			return -1;
		m->frame_at[off] = 1;
	}
	return 0;
}
