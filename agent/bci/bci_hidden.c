/*
 * bci_hidden.c - the hook of hidden classes in mode=bci (bci_hidden.h): finds
 * java.lang.System's JavaLangAccess.defineClass in a class file and puts the
 * call of jcal.Tracker.hidden in front of its code.
 */
#include "agent/bci/bci_hidden.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/bci/bci_rewrite.h"
#include "agent/bci/classfile.h"

#define ACC_STATIC 0x0008
#define ACC_NATIVE 0x0100
#define ACC_ABSTRACT 0x0400

/* aload 4 (byte[] b); aload_2 (Class<?> lookup); iload 7 (int flags);
 * invokestatic hidden; astore 4 */
#define PROLOGUE_LEN 10
#define B_SLOT 4
#define FLAGS_SLOT 7

static uint32_t get_u2(const uint8_t *p)
{
	return (uint32_t)(p[0] << 8 | p[1]);
}

static void put_u2(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

int bci_hidden_is_funnel(const char *name)
{
	static const char base[] = "java/lang/System$";
	const char *p = name + sizeof(base) - 1;

	if (strncmp(name, base, sizeof(base) - 1) || !*p)
		return 0;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

/* 1 when the code has no branch, switch, jsr/ret or wide instruction and
 * decodes to its end. */
static int straight(const uint8_t *code, uint32_t len)
{
	for (uint32_t pc = 0; pc < len;) {
		uint32_t n = bci_insn_len(code, len, pc);
		uint8_t op = code[pc];
		if (!n || (op >= 0x99 && op <= 0xab) || (op >= 0xc4 && op <= 0xc9 && op != 0xc5))
			return 0;
		pc += n;
	}
	return 1;
}

/* The pcs of a LineNumberTable (ranges 0) or LocalVariable(Type)Table
 * (ranges 1) moved by the prologue: a range from 0 grows to cover it.
 * Returns the new body (cf_alloc), or NULL to drop the attribute. */
static uint8_t *shift_table(struct cf_class *c, const struct cf_attr *a, int ranges)
{
	uint32_t stride = ranges ? 10 : 4, n;
	uint8_t *t;

	if (a->len < 2 || a->len != 2 + (n = get_u2(a->data)) * stride)
		return NULL;
	t = cf_alloc(c, a->len);
	if (!t)
		return NULL;
	memcpy(t, a->data, a->len);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *e = t + 2 + i * stride;
		/* pc 0 stays: the prologue belongs to the first line and range */
		if (get_u2(e) > 0)
			put_u2(e, get_u2(e) + PROLOGUE_LEN);
		else if (ranges)
			put_u2(e + 2, get_u2(e + 2) + PROLOGUE_LEN);
	}
	return t;
}

/* The new Code of the hooked method into *a. Returns 0, 1 when the code is
 * not straight (msg), -1 when out of memory or the pool is full. */
static int hook_code(struct cf_class *c, struct cf_attr *a, const char *tracker, char *msg,
		     size_t msglen)
{
	struct cf_code k, nk;
	struct cf_attr *attrs = NULL;
	uint8_t *code = NULL, *body = NULL, *copy = NULL;
	uint32_t blen = 0;
	uint16_t ref;
	int rc = -1;

	if (cf_code_parse(a, &k, msg, msglen))
		return 1;
	if (k.nexc || !straight(k.code, k.code_len) || k.max_locals <= FLAGS_SLOT + 1 ||
	    k.code_len + PROLOGUE_LEN > 65535) {
		snprintf(msg, msglen, "%s is not straight code", BCI_HIDDEN_METHOD);
		cf_code_free(&k);
		return 1;
	}
	nk = k;
	nk.nattrs = 0;
	ref = cf_cp_methodref(c, tracker, BCI_HIDDEN_PROBE, BCI_HIDDEN_PROBE_DESC);
	code = cf_alloc(c, k.code_len + PROLOGUE_LEN);
	attrs = malloc((k.nattrs + 1u) * sizeof(*attrs));
	if (!ref || !code || !attrs)
		goto out;
	for (uint16_t i = 0; i < k.nattrs; i++) {
		struct cf_attr t = k.attrs[i];
		if (cf_utf8_eq(c, t.name, "StackMapTable")) {
			snprintf(msg, msglen, "%s has a StackMapTable", BCI_HIDDEN_METHOD);
			rc = 1;
			goto out;
		}
		int lines = cf_utf8_eq(c, t.name, "LineNumberTable");
		if (!lines && !cf_utf8_eq(c, t.name, "LocalVariableTable") &&
		    !cf_utf8_eq(c, t.name, "LocalVariableTypeTable"))
			continue; /* type annotations would hold stale offsets */
		t.data = shift_table(c, &t, !lines);
		if (t.data)
			attrs[nk.nattrs++] = t;
	}
	uint8_t pro[PROLOGUE_LEN] = {0x19, B_SLOT, 0x2c, 0x15, FLAGS_SLOT,
				     0xb8, 0,	   0,	 0x3a, B_SLOT};
	put_u2(pro + 6, ref);
	memcpy(code, pro, PROLOGUE_LEN);
	memcpy(code + PROLOGUE_LEN, k.code, k.code_len);
	nk.code = code;
	nk.code_len = k.code_len + PROLOGUE_LEN;
	nk.max_stack = k.max_stack < 3 ? 3 : k.max_stack;
	nk.attrs = attrs;
	body = cf_code_write(&nk, &blen);
	copy = body ? cf_alloc(c, blen) : NULL;
	if (copy) {
		memcpy(copy, body, blen);
		a->data = copy;
		a->len = blen;
		rc = 0;
	}
out:
	free(body);
	free(attrs);
	cf_code_free(&k);
	return rc;
}

int bci_hidden_hook(const uint8_t *in, size_t len, const char *tracker, uint8_t **out,
		    size_t *outlen, char *msg, size_t msglen)
{
	struct cf_class c;
	int rc = -1, found = 0;

	*out = NULL;
	*outlen = 0;
	msg[0] = '\0';
	if (cf_parse(in, len, &c, msg, msglen))
		goto done;
	for (uint16_t i = 0; i < c.nmethods && !found; i++) {
		struct cf_member *m = &c.methods[i];
		if (!cf_utf8_eq(&c, m->name, BCI_HIDDEN_METHOD) ||
		    !cf_utf8_eq(&c, m->desc, BCI_HIDDEN_DESC) ||
		    (m->access & (ACC_STATIC | ACC_NATIVE | ACC_ABSTRACT)))
			continue;
		found = 1;
		for (uint16_t a = 0; a < m->nattrs; a++) {
			if (!cf_utf8_eq(&c, m->attrs[a].name, "Code"))
				continue;
			int r = hook_code(&c, &m->attrs[a], tracker, msg, msglen);
			if (r < 0) {
				snprintf(msg, msglen, "constant pool full or out of memory");
				goto done;
			}
			if (r > 0) {
				rc = 0;
				goto done;
			}
			if (cf_write(&c, out, outlen)) {
				snprintf(msg, msglen, "out of memory");
				goto done;
			}
			break;
		}
	}
	if (!found || !*out)
		snprintf(msg, msglen, "no method %s%s with code", BCI_HIDDEN_METHOD,
			 BCI_HIDDEN_DESC);
	rc = 0;
done:
	cf_free(&c);
	return rc;
}
