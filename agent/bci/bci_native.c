/*
 * bci_native.c - the native method wrappers of the mode=bci rewriter
 * (bci_native.h): a native method NAME gives its name, modifiers (less
 * `native`) and attributes to a Java method whose code is
 *
 *   [aload_0] load every argument; invokestatic|invokespecial PREFIX+NAME; xreturn
 *
 * and itself becomes the private native PREFIX+NAME, appended to the
 * methods. The wrapper is instrumented afterwards like any method, so an
 * exception the native throws leaves through its catch-all handler.
 */
#include "agent/bci/bci_native.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ACC_PRIVATE 0x0002
#define ACC_STATIC 0x0008
#define ACC_NATIVE 0x0100
#define ACC_INTERFACE 0x0200
#define ACC_SYNTHETIC 0x1000

/* Longest wrapper: aload_0, 255 loads of 2 bytes, invoke, return. */
#define FORWARD_MAX (1 + 2 * 255 + 3 + 1)

/* The load kinds, in the order of the JVM's opcodes: iload lload fload dload aload. */
enum kind { K_INT, K_LONG, K_FLOAT, K_DOUBLE, K_REF, K_VOID };

/* The kind of the field type starting at d[*i] (< len), which *i then
 * passes; -1 when malformed. */
static int field_kind(const uint8_t *d, size_t len, size_t *i)
{
	size_t j = *i;
	int array;

	while (j < len && d[j] == '[')
		j++;
	if (j >= len)
		return -1;
	array = j > *i;
	if (d[j] == 'L') {
		size_t name = j + 1;
		while (j < len && d[j] != ';')
			j++;
		if (j >= len || j == name)
			return -1;
		*i = j + 1;
		return K_REF;
	}
	*i = j + 1;
	switch (d[j]) {
	case 'B':
	case 'C':
	case 'I':
	case 'S':
	case 'Z':
		return array ? K_REF : K_INT;
	case 'J':
		return array ? K_REF : K_LONG;
	case 'F':
		return array ? K_REF : K_FLOAT;
	case 'D':
		return array ? K_REF : K_DOUBLE;
	default:
		return -1;
	}
}

static uint32_t emit_load(uint8_t *code, uint32_t pc, int kind, uint32_t slot)
{
	if (slot <= 3) {
		code[pc++] = (uint8_t)(0x1a + kind * 4 + slot); /* iload_0 .. aload_3 */
	} else {
		code[pc++] = (uint8_t)(0x15 + kind); /* iload .. aload */
		code[pc++] = (uint8_t)slot;
	}
	return pc;
}

/*
 * The wrapper's code for descriptor d[0..len): the arguments loaded, the
 * call of method ref mref, the return. Returns its length, or 0 when the
 * descriptor is malformed or its arguments pass 255 slots.
 */
static uint32_t emit_forward(const uint8_t *d, size_t len, int is_static, uint16_t mref,
			     uint8_t *code, uint16_t *max_locals, uint16_t *max_stack)
{
	static const uint8_t ret_op[] = {0xac, 0xad, 0xae, 0xaf, 0xb0, 0xb1};
	uint32_t pc = 0, slot = 0;
	size_t i = 1;
	int ret;

	if (len < 3 || d[0] != '(')
		return 0;
	if (!is_static)
		pc = emit_load(code, pc, K_REF, slot++);
	while (i < len && d[i] != ')') {
		int k = field_kind(d, len, &i);
		if (k < 0)
			return 0;
		pc = emit_load(code, pc, k, slot);
		slot += k == K_LONG || k == K_DOUBLE ? 2 : 1;
		if (slot > 255)
			return 0;
	}
	if (i + 1 >= len)
		return 0; /* no ')' or no return type */
	i++;
	if (d[i] == 'V') {
		ret = K_VOID;
		i++;
	} else if ((ret = field_kind(d, len, &i)) < 0) {
		return 0;
	}
	if (i != len)
		return 0;
	code[pc++] = is_static ? 0xb8 : 0xb7; /* invokestatic, invokespecial */
	code[pc++] = (uint8_t)(mref >> 8);
	code[pc++] = (uint8_t)mref;
	code[pc++] = ret_op[ret];
	*max_locals = (uint16_t)slot;
	int ret_slots = ret == K_VOID ? 0 : ret == K_LONG || ret == K_DOUBLE ? 2 : 1;
	*max_stack = (uint16_t)(slot > (uint32_t)ret_slots ? slot : (uint32_t)ret_slots);
	return pc;
}

/* 1 when Utf8 i starts with prefix. */
static int has_prefix(const struct cf_class *c, uint16_t i, const char *prefix)
{
	const struct cf_const *k = cf_cp(c, i, CF_UTF8);
	size_t n = strlen(prefix);

	return k && k->len >= n && !memcmp(k->utf8, prefix, n);
}

/* Whether every native of c can be wrapped; a reason in why when not. */
static int wrappable(const struct cf_class *c, const char *prefix, unsigned *natives, char *why,
		     size_t whylen)
{
	uint8_t code[FORWARD_MAX];
	uint16_t ml, ms;

	*natives = 0;
	for (uint16_t i = 0; i < c->nmethods; i++) {
		const struct cf_member *m = &c->methods[i];
		const struct cf_const *d = cf_cp(c, m->desc, CF_UTF8);
		const struct cf_const *n = cf_cp(c, m->name, CF_UTF8);
		if (has_prefix(c, m->name, prefix)) {
			snprintf(why, whylen, "a method's name already starts with %s", prefix);
			return 0;
		}
		if (!(m->access & ACC_NATIVE))
			continue;
		(*natives)++;
		if (!d || !n || (n->len && n->utf8[0] == '<') ||
		    !emit_forward(d->utf8, d->len, m->access & ACC_STATIC, 1, code, &ml, &ms)) {
			snprintf(why, whylen, "native method %u has a bad name or descriptor", i);
			return 0;
		}
		if (strlen(prefix) + n->len > 0xffff) {
			snprintf(why, whylen, "native method %u: its prefixed name is too long", i);
			return 0;
		}
	}
	if (*natives && (c->access & ACC_INTERFACE)) {
		snprintf(why, whylen, "native methods in an interface");
		return 0;
	}
	return 1;
}

/* Makes method i (a native) the wrapper of the appended PREFIX+NAME.
 * Returns 0, or -1 when the pool is full or memory runs out. */
static int wrap_one(struct cf_class *c, uint16_t i, const char *prefix, uint16_t code_name,
		    const char *cls)
{
	const struct cf_const *n = cf_cp(c, c->methods[i].name, CF_UTF8);
	const struct cf_const *d = cf_cp(c, c->methods[i].desc, CF_UTF8);
	size_t lp = strlen(prefix);
	char *pname = malloc(lp + n->len + 1), *desc = malloc(d->len + 1u);
	uint8_t code[FORWARD_MAX], *body, *copy = NULL;
	struct cf_code k = {0};
	uint16_t access = c->methods[i].access, mref = 0, pidx = 0, didx = c->methods[i].desc;
	uint32_t blen = 0;

	if (pname && desc) {
		memcpy(pname, prefix, lp);
		memcpy(pname + lp, n->utf8, n->len);
		pname[lp + n->len] = '\0';
		memcpy(desc, d->utf8, d->len);
		desc[d->len] = '\0';
		/* the pool may move: n and d are not used after this */
		mref = cf_cp_methodref(c, cls, pname, desc);
		pidx = mref ? cf_cp_utf8(c, pname) : 0;
	}
	free(pname);
	free(desc);
	d = cf_cp(c, didx, CF_UTF8);
	if (!mref || !pidx || !d)
		return -1;
	k.code_len = emit_forward(d->utf8, d->len, access & ACC_STATIC, mref, code, &k.max_locals,
				  &k.max_stack);
	k.code = code;
	body = k.code_len ? cf_code_write(&k, &blen) : NULL;
	if (body) {
		copy = cf_alloc(c, blen);
		if (copy)
			memcpy(copy, body, blen);
		free(body);
	}
	if (!copy || cf_member_add_attr(&c->methods[i], code_name, blen, copy))
		return -1;
	c->methods[i].access = (uint16_t)(access & ~ACC_NATIVE);
	if (cf_add_method(
		c, (uint16_t)((access & ACC_STATIC) | ACC_PRIVATE | ACC_NATIVE | ACC_SYNTHETIC),
		pidx, didx) < 0)
		return -1;
	return 0;
}

int bci_native_wrap(struct cf_class *c, const char *prefix, uint8_t *wrapper, char *why,
		    size_t whylen)
{
	uint16_t n = c->nmethods, code_name;
	unsigned natives;
	char cls[1024];
	int wrapped = 0;

	why[0] = '\0';
	if (!prefix || !prefix[0] || !wrappable(c, prefix, &natives, why, whylen) || !natives)
		return 0;
	const struct cf_const *k = cf_cp(c, c->this_class, CF_CLASS);
	const struct cf_const *u = k ? cf_cp(c, k->a, CF_UTF8) : NULL;
	if (!u || u->len >= sizeof(cls)) {
		snprintf(why, whylen, "the class name is too long");
		return 0;
	}
	memcpy(cls, u->utf8, u->len);
	cls[u->len] = '\0';
	code_name = cf_cp_utf8(c, "Code");
	if (!code_name)
		return -1;
	for (uint16_t i = 0; i < n; i++) {
		if (!(c->methods[i].access & ACC_NATIVE))
			continue;
		if (wrap_one(c, i, prefix, code_name, cls))
			return -1;
		wrapper[i] = 1;
		wrapped++;
	}
	return wrapped;
}
