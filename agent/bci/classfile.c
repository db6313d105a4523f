/*
 * classfile.c - parses and writes class files (JVMS 4): constant pool,
 * fields, methods, attributes; the Code attribute and StackMapTable.
 *
 * Every read is bounds-checked through struct rd; a short or malformed file
 * is an error with the offset, never a crash. Attributes stay as bytes in
 * the class's copy of the input, so an unchanged class writes back
 * byte-identical.
 */
#include "agent/bci/classfile.h"
#include "common/grow.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cf_blob {
	struct cf_blob *next;
	max_align_t data[];
};

/* ---- reading ---- */

struct rd {
	const uint8_t *p;
	size_t len, pos;
	int bad;
};

static int rd_need(struct rd *r, size_t n)
{
	if (r->bad || r->len - r->pos < n) {
		r->bad = 1;
		return 0;
	}
	return 1;
}

static uint8_t rd_u1(struct rd *r)
{
	if (!rd_need(r, 1))
		return 0;
	return r->p[r->pos++];
}

static uint16_t rd_u2(struct rd *r)
{
	if (!rd_need(r, 2))
		return 0;
	uint16_t v = (uint16_t)(r->p[r->pos] << 8 | r->p[r->pos + 1]);
	r->pos += 2;
	return v;
}

static uint32_t rd_u4(struct rd *r)
{
	if (!rd_need(r, 4))
		return 0;
	const uint8_t *p = r->p + r->pos;
	r->pos += 4;
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static const uint8_t *rd_bytes(struct rd *r, size_t n)
{
	if (!rd_need(r, n))
		return NULL;
	const uint8_t *p = r->p + r->pos;
	r->pos += n;
	return p;
}

static int errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Reads a u2 count and allocates that many zeroed elements of size elem
 * into *out (NULL for none). Returns 0, or -1 on a cut input or no memory. */
static int read_table(struct rd *r, uint16_t *n, size_t elem, void **out)
{
	*n = rd_u2(r);
	*out = NULL;
	if (r->bad)
		return -1;
	if (*n == 0)
		return 0;
	*out = calloc(*n, elem);
	return *out ? 0 : -1;
}

static int parse_attrs(struct rd *r, uint16_t *n, struct cf_attr **out)
{
	void *p;
	int rc = read_table(r, n, sizeof(**out), &p);

	*out = p;
	if (rc)
		return -1;
	for (uint16_t i = 0; i < *n; i++) {
		(*out)[i].name = rd_u2(r);
		(*out)[i].len = rd_u4(r);
		(*out)[i].data = rd_bytes(r, (*out)[i].len);
	}
	return r->bad ? -1 : 0;
}

static int parse_members(struct rd *r, uint16_t *n, struct cf_member **out)
{
	void *p;
	int rc = read_table(r, n, sizeof(**out), &p);

	*out = p;
	if (rc)
		return -1;
	for (uint16_t i = 0; i < *n; i++) {
		struct cf_member *m = &(*out)[i];
		m->access = rd_u2(r);
		m->name = rd_u2(r);
		m->desc = rd_u2(r);
		if (parse_attrs(r, &m->nattrs, &m->attrs))
			return -1;
	}
	return 0;
}

static int parse_cp(struct rd *r, struct cf_class *c, char *err, size_t errlen)
{
	c->cp_count = rd_u2(r);
	if (r->bad || c->cp_count == 0)
		return errf(err, errlen, "truncated constant pool");
	c->cp_cap = c->cp_count + 32u;
	c->cp = calloc(c->cp_cap, sizeof(*c->cp));
	if (!c->cp)
		return errf(err, errlen, "out of memory");
	for (uint32_t i = 1; i < c->cp_count; i++) {
		struct cf_const *k = &c->cp[i];
		size_t at = r->pos;
		k->tag = rd_u1(r);
		switch (k->tag) {
		case CF_UTF8:
			k->len = rd_u2(r);
			k->utf8 = rd_bytes(r, k->len);
			break;
		case CF_INTEGER:
		case CF_FLOAT:
			k->value = rd_u4(r);
			break;
		case CF_LONG:
		case CF_DOUBLE:
			k->value = (uint64_t)rd_u4(r) << 32;
			k->value |= rd_u4(r);
			if (++i >= c->cp_count)
				return errf(err, errlen, "8-byte constant in the last pool slot");
			break;
		case CF_CLASS:
		case CF_STRING:
		case CF_METHODTYPE:
		case CF_MODULE:
		case CF_PACKAGE:
			k->a = rd_u2(r);
			break;
		case CF_FIELDREF:
		case CF_METHODREF:
		case CF_IMETHODREF:
		case CF_NAMEANDTYPE:
		case CF_DYNAMIC:
		case CF_INVOKEDYNAMIC:
			k->a = rd_u2(r);
			k->b = rd_u2(r);
			break;
		case CF_METHODHANDLE:
			k->a = rd_u1(r);
			k->b = rd_u2(r);
			break;
		default:
			if (r->bad)
				break;
			return errf(err, errlen,
				    "constant pool slot %u at offset %zu: unknown tag %u", i, at,
				    k->tag);
		}
		if (r->bad)
			return errf(err, errlen, "truncated constant pool at slot %u", i);
	}
	return 0;
}

/* 1 when constant pool index i names a slot of the pool (1 .. cp_count-1). */
static int in_pool(const struct cf_class *c, uint16_t i)
{
	return i != 0 && i < c->cp_count;
}

static int attrs_in_pool(const struct cf_class *c, uint16_t n, const struct cf_attr *a)
{
	for (uint16_t i = 0; i < n; i++)
		if (!in_pool(c, a[i].name))
			return 0;
	return 1;
}

/*
 * Every constant pool index the parser knows (inside the pool, the class
 * header, the members' names, descriptors and attribute names) names a
 * slot of the pool. The rewriter appends constants: an index past the end,
 * which makes the class invalid, would then name one of them and the class
 * would mean something else. Returns 0, or -1 with a message in err.
 */
static int check_pool_refs(const struct cf_class *c, char *err, size_t errlen)
{
	for (uint32_t i = 1; i < c->cp_count; i++) {
		const struct cf_const *k = &c->cp[i];
		int ok = 1;
		switch (k->tag) {
		case CF_CLASS:
		case CF_STRING:
		case CF_METHODTYPE:
		case CF_MODULE:
		case CF_PACKAGE:
			ok = in_pool(c, k->a);
			break;
		case CF_FIELDREF:
		case CF_METHODREF:
		case CF_IMETHODREF:
		case CF_NAMEANDTYPE:
			ok = in_pool(c, k->a) && in_pool(c, k->b);
			break;
		case CF_METHODHANDLE:
		case CF_DYNAMIC:
		case CF_INVOKEDYNAMIC:
			ok = in_pool(c, k->b);
			break;
		default:
			break;
		}
		if (!ok)
			return errf(err, errlen, "constant pool slot %u refers past the pool", i);
	}
	if (c->super_class && !in_pool(c, c->super_class))
		return errf(err, errlen, "super_class refers past the constant pool");
	for (uint16_t i = 0; i < c->ninterfaces; i++)
		if (!in_pool(c, c->interfaces[i]))
			return errf(err, errlen, "interface %u refers past the constant pool", i);
	for (int f = 0; f < 2; f++) {
		const struct cf_member *m = f ? c->methods : c->fields;
		for (uint16_t i = 0, n = f ? c->nmethods : c->nfields; i < n; i++)
			if (!in_pool(c, m[i].name) || !in_pool(c, m[i].desc) ||
			    !attrs_in_pool(c, m[i].nattrs, m[i].attrs))
				return errf(err, errlen, "%s %u refers past the constant pool",
					    f ? "method" : "field", i);
	}
	if (!attrs_in_pool(c, c->nattrs, c->attrs))
		return errf(err, errlen, "a class attribute's name refers past the constant pool");
	return 0;
}

int cf_parse(const uint8_t *data, size_t len, struct cf_class *c, char *err, size_t errlen)
{
	struct rd r = {0};

	memset(c, 0, sizeof(*c));
	c->buf = malloc(len ? len : 1);
	if (!c->buf)
		return errf(err, errlen, "out of memory");
	memcpy(c->buf, data, len);
	r.p = c->buf;
	r.len = len;
	if (rd_u4(&r) != 0xcafebabeu)
		return errf(err, errlen, "not a class file (bad magic)");
	c->minor = rd_u2(&r);
	c->major = rd_u2(&r);
	if (parse_cp(&r, c, err, errlen))
		return -1;
	c->access = rd_u2(&r);
	c->this_class = rd_u2(&r);
	c->super_class = rd_u2(&r);
	c->ninterfaces = rd_u2(&r);
	if (c->ninterfaces) {
		c->interfaces = calloc(c->ninterfaces, sizeof(uint16_t));
		if (!c->interfaces)
			return errf(err, errlen, "out of memory");
		for (uint16_t i = 0; i < c->ninterfaces; i++)
			c->interfaces[i] = rd_u2(&r);
	}
	if (r.bad || parse_members(&r, &c->nfields, &c->fields) ||
	    parse_members(&r, &c->nmethods, &c->methods) || parse_attrs(&r, &c->nattrs, &c->attrs))
		return errf(err, errlen, "truncated or malformed class file at offset %zu", r.pos);
	if (r.pos != len)
		return errf(err, errlen, "%zu bytes after the end of the class file", len - r.pos);
	if (!cf_cp(c, c->this_class, CF_CLASS))
		return errf(err, errlen, "this_class is not a Class constant");
	return check_pool_refs(c, err, errlen);
}

static void free_members(struct cf_member *m, uint16_t n)
{
	for (uint16_t i = 0; m && i < n; i++)
		free(m[i].attrs);
	free(m);
}

void cf_free(struct cf_class *c)
{
	struct cf_blob *b = c->blobs, *next;

	while (b) {
		next = b->next;
		free(b);
		b = next;
	}
	free(c->cp);
	free(c->interfaces);
	free_members(c->fields, c->nfields);
	free_members(c->methods, c->nmethods);
	free(c->attrs);
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

void *cf_alloc(struct cf_class *c, size_t n)
{
	struct cf_blob *b = malloc(sizeof(*b) + n);
	if (!b)
		return NULL;
	b->next = c->blobs;
	c->blobs = b;
	return b->data;
}

/* ---- writing ---- */

struct wr {
	uint8_t *p;
	size_t len, cap;
	int oom;
};

static void wr_bytes(struct wr *w, const void *src, size_t n)
{
	if (w->oom)
		return;
	if (w->len + n < w->len || grow(&w->p, &w->cap, w->len + n)) {
		w->oom = 1;
		return;
	}
	if (n)
		memcpy(w->p + w->len, src, n);
	w->len += n;
}

static void wr_u1(struct wr *w, unsigned v)
{
	uint8_t b = (uint8_t)v;
	wr_bytes(w, &b, 1);
}

static void wr_u2(struct wr *w, unsigned v)
{
	uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};
	wr_bytes(w, b, 2);
}

static void wr_u4(struct wr *w, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
	wr_bytes(w, b, 4);
}

/* Hands over an attribute body written in w: NULL (and freed) when memory
 * ran out or it is too long for an attribute's u4 length. */
static uint8_t *wr_take_attr(struct wr *w, uint32_t *len)
{
	if (w->oom || w->len > UINT32_MAX) {
		free(w->p);
		return NULL;
	}
	*len = (uint32_t)w->len;
	return w->p;
}

static void wr_attrs(struct wr *w, uint16_t n, const struct cf_attr *a)
{
	wr_u2(w, n);
	for (uint16_t i = 0; i < n; i++) {
		wr_u2(w, a[i].name);
		wr_u4(w, a[i].len);
		wr_bytes(w, a[i].data, a[i].len);
	}
}

static void wr_members(struct wr *w, uint16_t n, const struct cf_member *m)
{
	wr_u2(w, n);
	for (uint16_t i = 0; i < n; i++) {
		wr_u2(w, m[i].access);
		wr_u2(w, m[i].name);
		wr_u2(w, m[i].desc);
		wr_attrs(w, m[i].nattrs, m[i].attrs);
	}
}

int cf_write(const struct cf_class *c, uint8_t **out, size_t *outlen)
{
	struct wr w = {0};

	wr_u4(&w, 0xcafebabeu);
	wr_u2(&w, c->minor);
	wr_u2(&w, c->major);
	wr_u2(&w, c->cp_count);
	for (uint32_t i = 1; i < c->cp_count; i++) {
		const struct cf_const *k = &c->cp[i];
		if (k->tag == 0)
			continue;
		wr_u1(&w, k->tag);
		switch (k->tag) {
		case CF_UTF8:
			wr_u2(&w, k->len);
			wr_bytes(&w, k->utf8, k->len);
			break;
		case CF_INTEGER:
		case CF_FLOAT:
			wr_u4(&w, (uint32_t)k->value);
			break;
		case CF_LONG:
		case CF_DOUBLE:
			wr_u4(&w, (uint32_t)(k->value >> 32));
			wr_u4(&w, (uint32_t)k->value);
			break;
		case CF_METHODHANDLE:
			wr_u1(&w, k->a);
			wr_u2(&w, k->b);
			break;
		case CF_CLASS:
		case CF_STRING:
		case CF_METHODTYPE:
		case CF_MODULE:
		case CF_PACKAGE:
			wr_u2(&w, k->a);
			break;
		default:
			wr_u2(&w, k->a);
			wr_u2(&w, k->b);
			break;
		}
	}
	wr_u2(&w, c->access);
	wr_u2(&w, c->this_class);
	wr_u2(&w, c->super_class);
	wr_u2(&w, c->ninterfaces);
	for (uint16_t i = 0; i < c->ninterfaces; i++)
		wr_u2(&w, c->interfaces[i]);
	wr_members(&w, c->nfields, c->fields);
	wr_members(&w, c->nmethods, c->methods);
	wr_attrs(&w, c->nattrs, c->attrs);
	if (w.oom) {
		free(w.p);
		return -1;
	}
	*out = w.p;
	*outlen = w.len;
	return 0;
}

/* ---- constant pool ---- */

const struct cf_const *cf_cp(const struct cf_class *c, uint16_t i, uint8_t tag)
{
	if (i == 0 || i >= c->cp_count || c->cp[i].tag != tag)
		return NULL;
	return &c->cp[i];
}

int cf_utf8_eq(const struct cf_class *c, uint16_t i, const char *s)
{
	const struct cf_const *k = cf_cp(c, i, CF_UTF8);
	size_t n = strlen(s);
	return k && k->len == n && memcmp(k->utf8, s, n) == 0;
}

const char *cf_utf8_str(const struct cf_class *c, uint16_t i, char *buf, size_t buflen)
{
	const struct cf_const *k = cf_cp(c, i, CF_CLASS);
	if (k)
		i = k->a;
	k = cf_cp(c, i, CF_UTF8);
	size_t n = k ? k->len : 0;
	if (n >= buflen)
		n = buflen - 1;
	if (k)
		memcpy(buf, k->utf8, n);
	buf[n] = '\0';
	return buf;
}

static uint16_t cp_add(struct cf_class *c, const struct cf_const *k)
{
	if (c->cp_count >= 0xffff)
		return 0;
	if (grow(&c->cp, &c->cp_cap, (size_t)c->cp_count + 1))
		return 0;
	c->cp[c->cp_count] = *k;
	return c->cp_count++;
}

uint16_t cf_cp_utf8(struct cf_class *c, const char *s)
{
	for (uint16_t i = 1; i < c->cp_count; i++)
		if (cf_utf8_eq(c, i, s))
			return i;
	size_t n = strlen(s);
	if (n > 0xffff)
		return 0;
	uint8_t *copy = cf_alloc(c, n + 1);
	if (!copy)
		return 0;
	memcpy(copy, s, n + 1);
	struct cf_const k = {.tag = CF_UTF8, .len = (uint16_t)n, .utf8 = copy};
	return cp_add(c, &k);
}

static uint16_t cp_pair(struct cf_class *c, uint8_t tag, uint16_t a, uint16_t b)
{
	if (!a)
		return 0;
	for (uint16_t i = 1; i < c->cp_count; i++)
		if (c->cp[i].tag == tag && c->cp[i].a == a && c->cp[i].b == b)
			return i;
	struct cf_const k = {.tag = tag, .a = a, .b = b};
	return cp_add(c, &k);
}

uint16_t cf_cp_class(struct cf_class *c, const char *name)
{
	return cp_pair(c, CF_CLASS, cf_cp_utf8(c, name), 0);
}

uint16_t cf_cp_integer(struct cf_class *c, int32_t v)
{
	for (uint16_t i = 1; i < c->cp_count; i++)
		if (c->cp[i].tag == CF_INTEGER && (uint32_t)c->cp[i].value == (uint32_t)v)
			return i;
	struct cf_const k = {.tag = CF_INTEGER, .value = (uint32_t)v};
	return cp_add(c, &k);
}

uint16_t cf_cp_methodref(struct cf_class *c, const char *cls, const char *name, const char *desc)
{
	uint16_t ci = cf_cp_class(c, cls);
	uint16_t ni = cf_cp_utf8(c, name);
	uint16_t di = cf_cp_utf8(c, desc);
	if (!ci || !ni || !di)
		return 0;
	return cp_pair(c, CF_METHODREF, ci, cp_pair(c, CF_NAMEANDTYPE, ni, di));
}

uint16_t cf_cp_nameandtype(struct cf_class *c, const char *name, const char *desc)
{
	uint16_t ni = cf_cp_utf8(c, name);
	uint16_t di = cf_cp_utf8(c, desc);
	if (!ni || !di)
		return 0;
	return cp_pair(c, CF_NAMEANDTYPE, ni, di);
}

uint16_t cf_cp_methodhandle(struct cf_class *c, uint8_t kind, uint16_t ref)
{
	return ref ? cp_pair(c, CF_METHODHANDLE, kind, ref) : 0;
}

uint16_t cf_cp_invokedynamic(struct cf_class *c, uint16_t bsm, uint16_t nat)
{
	if (!nat)
		return 0;
	for (uint16_t i = 1; i < c->cp_count; i++)
		if (c->cp[i].tag == CF_INVOKEDYNAMIC && c->cp[i].a == bsm && c->cp[i].b == nat)
			return i;
	struct cf_const k = {.tag = CF_INVOKEDYNAMIC, .a = bsm, .b = nat};
	return cp_add(c, &k);
}

/* ---- members ---- */

int cf_add_method(struct cf_class *c, uint16_t access, uint16_t name, uint16_t desc)
{
	struct cf_member *m;

	if (c->nmethods == 0xffff)
		return -1;
	m = realloc(c->methods, ((size_t)c->nmethods + 1) * sizeof(*m));
	if (!m)
		return -1;
	c->methods = m;
	m[c->nmethods] = (struct cf_member){.access = access, .name = name, .desc = desc};
	return c->nmethods++;
}

int cf_member_add_attr(struct cf_member *m, uint16_t name, uint32_t len, const uint8_t *data)
{
	struct cf_attr *a;

	if (m->nattrs == 0xffff)
		return -1;
	a = realloc(m->attrs, ((size_t)m->nattrs + 1) * sizeof(*a));
	if (!a)
		return -1;
	m->attrs = a;
	a[m->nattrs++] = (struct cf_attr){.name = name, .len = len, .data = data};
	return 0;
}

int cf_class_set_attr(struct cf_class *c, uint16_t name, uint32_t len, const uint8_t *data)
{
	struct cf_attr *a;

	for (uint16_t i = 0; i < c->nattrs; i++)
		if (c->attrs[i].name == name) {
			c->attrs[i].len = len;
			c->attrs[i].data = data;
			return 0;
		}
	if (c->nattrs == 0xffff)
		return -1;
	a = realloc(c->attrs, ((size_t)c->nattrs + 1) * sizeof(*a));
	if (!a)
		return -1;
	c->attrs = a;
	a[c->nattrs++] = (struct cf_attr){.name = name, .len = len, .data = data};
	return 0;
}

/* ---- Code ---- */

int cf_code_parse(const struct cf_attr *a, struct cf_code *code, char *err, size_t errlen)
{
	struct rd r = {.p = a->data, .len = a->len};

	memset(code, 0, sizeof(*code));
	code->max_stack = rd_u2(&r);
	code->max_locals = rd_u2(&r);
	code->code_len = rd_u4(&r);
	code->code = rd_bytes(&r, code->code_len);
	code->nexc = rd_u2(&r);
	if (r.bad)
		return errf(err, errlen, "truncated Code attribute");
	if (code->nexc) {
		code->exc = calloc(code->nexc, sizeof(*code->exc));
		if (!code->exc)
			return errf(err, errlen, "out of memory");
		for (uint16_t i = 0; i < code->nexc; i++) {
			code->exc[i].start = rd_u2(&r);
			code->exc[i].end = rd_u2(&r);
			code->exc[i].handler = rd_u2(&r);
			code->exc[i].catch_type = rd_u2(&r);
		}
	}
	if (parse_attrs(&r, &code->nattrs, &code->attrs) || r.pos != r.len) {
		cf_code_free(code);
		return errf(err, errlen, "malformed Code attribute");
	}
	return 0;
}

uint8_t *cf_code_write(const struct cf_code *code, uint32_t *len)
{
	struct wr w = {0};

	wr_u2(&w, code->max_stack);
	wr_u2(&w, code->max_locals);
	wr_u4(&w, code->code_len);
	wr_bytes(&w, code->code, code->code_len);
	wr_u2(&w, code->nexc);
	for (uint16_t i = 0; i < code->nexc; i++) {
		wr_u2(&w, code->exc[i].start);
		wr_u2(&w, code->exc[i].end);
		wr_u2(&w, code->exc[i].handler);
		wr_u2(&w, code->exc[i].catch_type);
	}
	wr_attrs(&w, code->nattrs, code->attrs);
	return wr_take_attr(&w, len);
}

void cf_code_free(struct cf_code *code)
{
	free(code->exc);
	free(code->attrs);
	memset(code, 0, sizeof(*code));
}

/* ---- StackMapTable ---- */

static int smt_vtypes(struct rd *r, struct cf_smt *s, uint16_t n, uint32_t *first, size_t *cap)
{
	*first = s->nvt;
	for (uint16_t i = 0; i < n; i++) {
		if (grow(&s->vt, cap, (size_t)s->nvt + 1))
			return -1;
		struct cf_vtype *v = &s->vt[s->nvt++];
		v->tag = rd_u1(r);
		v->data = 0;
		if (v->tag == CF_VT_OBJECT || v->tag == CF_VT_UNINIT)
			v->data = rd_u2(r);
		else if (v->tag > CF_VT_UNINIT)
			r->bad = 1;
		if (r->bad)
			return -1;
	}
	return 0;
}

int cf_smt_parse(const uint8_t *data, uint32_t len, struct cf_smt *s, char *err, size_t errlen)
{
	struct rd r = {.p = data, .len = len};
	size_t cap = 0;

	memset(s, 0, sizeof(*s));
	s->nframes = rd_u2(&r);
	if (r.bad)
		return errf(err, errlen, "truncated StackMapTable");
	if (s->nframes) {
		s->frames = calloc(s->nframes, sizeof(*s->frames));
		if (!s->frames)
			return errf(err, errlen, "out of memory");
	}
	for (uint16_t i = 0; i < s->nframes; i++) {
		struct cf_frame *f = &s->frames[i];
		uint8_t k = f->kind = rd_u1(&r);
		int bad = 0;
		if (k < 64) {
			f->delta = k;
		} else if (k < 128) {
			f->delta = k - 64;
			f->nstack = 1;
			bad = smt_vtypes(&r, s, 1, &f->stack, &cap);
		} else if (k < 247) {
			bad = -1;
		} else if (k == 247) {
			f->delta = rd_u2(&r);
			f->nstack = 1;
			bad = smt_vtypes(&r, s, 1, &f->stack, &cap);
		} else if (k <= 251) {
			f->delta = rd_u2(&r);
		} else if (k < 255) {
			f->delta = rd_u2(&r);
			f->nlocals = k - 251;
			bad = smt_vtypes(&r, s, f->nlocals, &f->locals, &cap);
		} else {
			f->delta = rd_u2(&r);
			f->nlocals = rd_u2(&r);
			bad = smt_vtypes(&r, s, f->nlocals, &f->locals, &cap);
			if (!bad) {
				f->nstack = rd_u2(&r);
				bad = smt_vtypes(&r, s, f->nstack, &f->stack, &cap);
			}
		}
		if (bad || r.bad) {
			cf_smt_free(s);
			return errf(err, errlen, "malformed StackMapTable frame %u (type %u)", i,
				    k);
		}
	}
	if (r.pos != r.len) {
		cf_smt_free(s);
		return errf(err, errlen, "StackMapTable: %zu bytes after the last frame",
			    r.len - r.pos);
	}
	return 0;
}

static void wr_vtypes(struct wr *w, const struct cf_smt *s, uint32_t first, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		const struct cf_vtype *v = &s->vt[first + i];
		wr_u1(w, v->tag);
		if (v->tag == CF_VT_OBJECT || v->tag == CF_VT_UNINIT)
			wr_u2(w, v->data);
	}
}

uint8_t *cf_smt_write(const struct cf_smt *s, uint32_t *len)
{
	struct wr w = {0};

	wr_u2(&w, s->nframes);
	for (uint16_t i = 0; i < s->nframes; i++) {
		const struct cf_frame *f = &s->frames[i];
		uint8_t k = f->kind;
		if (k < 64) {
			if (f->delta < 64) {
				wr_u1(&w, f->delta);
			} else {
				wr_u1(&w, 251);
				wr_u2(&w, f->delta);
			}
		} else if (k < 128 || k == 247) {
			if (k < 128 && f->delta < 64) {
				wr_u1(&w, 64 + f->delta);
			} else {
				wr_u1(&w, 247);
				wr_u2(&w, f->delta);
			}
			wr_vtypes(&w, s, f->stack, 1);
		} else {
			wr_u1(&w, k);
			wr_u2(&w, f->delta);
			if (k == 255)
				wr_u2(&w, f->nlocals);
			wr_vtypes(&w, s, f->locals, f->nlocals);
			if (k == 255) {
				wr_u2(&w, f->nstack);
				wr_vtypes(&w, s, f->stack, f->nstack);
			}
		}
	}
	return wr_take_attr(&w, len);
}

void cf_smt_free(struct cf_smt *s)
{
	free(s->frames);
	free(s->vt);
	memset(s, 0, sizeof(*s));
}
