/*
 * fuzz-bci-target.h - the fuzz target of the mode=bci class rewriter
 * (agent/bci/bci_rewrite.c over agent/bci/classfile.c), included by
 * fuzz-targets.h so that test-fuzz-regressions replays its inputs too.
 *
 * The input is a class file as it is. It is rewritten twice (method ids
 * from 1 with every method traced; ids from 40000, ldc_w probes, with every
 * third method left out by the configuration), and each output is rewritten
 * once more. Each rewrite must: fail only with a one-line message; count
 * every method with code as instrumented, skipped or left out; and when it
 * changed the class, write bytes that parse again with the same fields and
 * methods (access, name, descriptor), every method's Code either untouched
 * or carrying its probes: `sipush/ldc_w ID; invokestatic jcal/Tracker.enter`
 * first, `ID; exit` right before each return, at most one `ID; exitThrow;
 * athrow` handler (exactly one outside constructors) that the exception
 * table reaches with catch-all, every branch, handler, frame and line on an
 * instruction; the ID one the configuration gave to this very method.
 * A third rewrite gives native methods their wrappers (native_prefix): the
 * output must parse with the original methods, `native` gone from exactly
 * the wrapped ones, which now have code, and the renamed natives after
 * them, private, synthetic and native.
 */
#ifndef JCAL_FUZZ_BCI_TARGET_H
#define JCAL_FUZZ_BCI_TARGET_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/bci/bci_rewrite.h"
#include "agent/bci/classfile.h"

#define FUZZ_BCI_REQUIRE(cond)                                                                     \
	do {                                                                                       \
		if (!(cond))                                                                       \
			return __LINE__;                                                           \
	} while (0)

/* The ids one rewrite handed out: names[id - first] = "name desc". */
struct fuzz_bci_ids {
	uint32_t first, next;
	unsigned leave_every; /* leave out every Nth method offered (0: none) */
	unsigned offered, left_out;
	size_t note_bytes; /* the notes' text is built, counted and dropped */
	char **names;
	size_t cap;
	int oom;
};

static int fuzz_bci_method_id(void *ctx, const char *cls, const char *name, const char *desc,
			      uint16_t access, uint32_t *id)
{
	struct fuzz_bci_ids *ids = ctx;
	size_t n = ids->next - ids->first, ln = strlen(name), ld = strlen(desc);
	char *s;

	(void)cls;
	(void)access;
	if (ids->leave_every && ++ids->offered % ids->leave_every == 0) {
		ids->left_out++;
		return 1;
	}
	if (n == ids->cap) {
		char **nn =
		    realloc(ids->names, (ids->cap = ids->cap ? 2 * ids->cap : 16) * sizeof(*nn));
		if (!nn) {
			ids->oom = 1;
			return 1;
		}
		ids->names = nn;
	}
	s = malloc(ln + ld + 2);
	if (!s) {
		ids->oom = 1;
		return 1;
	}
	memcpy(s, name, ln);
	s[ln] = ' ';
	memcpy(s + ln + 1, desc, ld + 1);
	ids->names[n] = s;
	*id = ids->next++;
	return 0;
}

static void fuzz_bci_ids_free(struct fuzz_bci_ids *ids)
{
	for (uint32_t i = 0; i < ids->next - ids->first; i++)
		free(ids->names[i]);
	free(ids->names);
	ids->names = NULL;
}

/* 1 when Utf8 slots a (of class x) and b (of class y) hold the same bytes. */
static int fuzz_bci_same_utf8(const struct cf_class *x, uint16_t a, const struct cf_class *y,
			      uint16_t b)
{
	const struct cf_const *p = cf_cp(x, a, CF_UTF8), *q = cf_cp(y, b, CF_UTF8);

	if (!p || !q)
		return !p && !q && a == b;
	return p->len == q->len && !memcmp(p->utf8, q->utf8, p->len);
}

/* 1 when methodref i of c is jcal/Tracker.NAME(I)V. */
static int fuzz_bci_is_probe_ref(const struct cf_class *c, uint16_t i, const char *name)
{
	const struct cf_const *r = cf_cp(c, i, CF_METHODREF), *k, *nat;

	if (!r || !(k = cf_cp(c, r->a, CF_CLASS)) || !(nat = cf_cp(c, r->b, CF_NAMEANDTYPE)))
		return 0;
	return cf_utf8_eq(c, k->a, BCI_TRACKER_CLASS) && cf_utf8_eq(c, nat->a, name) &&
	       cf_utf8_eq(c, nat->b, "(I)V");
}

/* The id a probe pushes at pc (sipush or ldc_w of an Integer), or -1. */
static int64_t fuzz_bci_probe_id(const struct cf_class *c, const uint8_t *p, uint32_t len,
				 uint32_t pc)
{
	uint16_t v;

	if (pc + 6 > len || p[pc + 3] != 0xb8)
		return -1;
	v = (uint16_t)(p[pc + 1] << 8 | p[pc + 2]);
	if (p[pc] == 0x11)
		return (int16_t)v;
	if (p[pc] == 0x13) {
		const struct cf_const *k = cf_cp(c, v, CF_INTEGER);
		return k ? (int64_t)(int32_t)(uint32_t)k->value : -1;
	}
	return -1;
}

/* 1 when a probe `id; invokestatic NAME` starts at pc. */
static int fuzz_bci_probe_at(const struct cf_class *c, const struct cf_code *k, uint32_t pc,
			     int64_t id, const char *name)
{
	return fuzz_bci_probe_id(c, k->code, k->code_len, pc) == id &&
	       fuzz_bci_is_probe_ref(c, (uint16_t)(k->code[pc + 4] << 8 | k->code[pc + 5]), name);
}

/* Every branch and switch target of the decoded code is an instruction. */
static int fuzz_bci_targets(const struct cf_code *k, const uint8_t *start)
{
	const uint8_t *p = k->code;

	for (uint32_t pc = 0; pc < k->code_len; pc += bci_insn_len(p, k->code_len, pc)) {
		uint8_t op = p[pc];
		int64_t t = -1;
		if ((op >= 0x99 && op <= 0xa8) || op == 0xc6 || op == 0xc7)
			t = (int64_t)pc + (int16_t)(p[pc + 1] << 8 | p[pc + 2]);
		else if (op == 0xc8 || op == 0xc9)
			t = (int64_t)pc + (int32_t)((uint32_t)p[pc + 1] << 24 |
						    (uint32_t)p[pc + 2] << 16 | p[pc + 3] << 8 |
						    p[pc + 4]);
		else if (op == 0xaa || op == 0xab) {
			uint32_t b = pc + 1 + (3 - pc % 4), n = bci_insn_len(p, k->code_len, pc);
			/* default, then the jump offsets (tableswitch) or pairs */
			for (uint32_t o = b; o < pc + n; o += 4) {
				if (o != b && (o < b + 12 || (op == 0xab && (o - b) % 8 == 0)))
					continue;
				int64_t tt = (int64_t)pc + (int32_t)((uint32_t)p[o] << 24 |
								     (uint32_t)p[o + 1] << 16 |
								     p[o + 2] << 8 | p[o + 3]);
				FUZZ_BCI_REQUIRE(tt >= 0 && tt < k->code_len && start[tt]);
			}
			continue;
		} else
			continue;
		FUZZ_BCI_REQUIRE(t >= 0 && t < k->code_len && start[t]);
	}
	return 0;
}

/* StackMapTable frames and LineNumberTable lines sit on instructions. */
static int fuzz_bci_code_attrs(const struct cf_class *c, const struct cf_code *k,
			       const uint8_t *start)
{
	char err[256];

	for (uint16_t i = 0; i < k->nattrs; i++) {
		const struct cf_attr *a = &k->attrs[i];
		if (cf_utf8_eq(c, a->name, "StackMapTable")) {
			struct cf_smt s;
			uint32_t off = 0;
			FUZZ_BCI_REQUIRE(cf_smt_parse(a->data, a->len, &s, err, sizeof(err)) == 0);
			for (uint16_t f = 0; f < s.nframes; f++) {
				off = f == 0 ? s.frames[f].delta : off + s.frames[f].delta + 1u;
				if (off >= k->code_len || !start[off]) {
					cf_smt_free(&s);
					return __LINE__;
				}
			}
			cf_smt_free(&s);
		} else if (cf_utf8_eq(c, a->name, "LineNumberTable")) {
			FUZZ_BCI_REQUIRE(a->len >= 2);
			uint32_t n = (uint32_t)(a->data[0] << 8 | a->data[1]);
			FUZZ_BCI_REQUIRE(a->len == 2 + 4 * n);
			for (uint32_t e = 0; e < n; e++) {
				uint32_t pc =
				    (uint32_t)(a->data[2 + 4 * e] << 8 | a->data[3 + 4 * e]);
				FUZZ_BCI_REQUIRE(pc < k->code_len && start[pc]);
			}
		}
	}
	return 0;
}

/* What the probe walk of one rewritten method found. */
struct fuzz_bci_walk {
	unsigned rets, exits, enters, throws;
	uint32_t throw_pc;
};

/* Walks the instructions: marks their starts, checks the exit probe before
 * every return and counts the probes of id. */
static int fuzz_bci_walk(const struct cf_class *c, const struct cf_code *k, int64_t id,
			 uint8_t *start, struct fuzz_bci_walk *w)
{
	const uint8_t *p = k->code;
	uint32_t prev[2] = {UINT32_MAX, UINT32_MAX}, pc = 0;

	memset(w, 0, sizeof(*w));
	while (pc < k->code_len) {
		uint32_t n = bci_insn_len(p, k->code_len, pc);
		FUZZ_BCI_REQUIRE(n > 0);
		start[pc] = 1;
		if (p[pc] >= 0xac && p[pc] <= 0xb1) {
			w->rets++;
			FUZZ_BCI_REQUIRE(prev[1] != UINT32_MAX && prev[1] + 6 == pc);
			FUZZ_BCI_REQUIRE(fuzz_bci_probe_at(c, k, prev[1], id, "exit"));
		}
		if (fuzz_bci_probe_at(c, k, pc, id, "enter"))
			w->enters++;
		if (fuzz_bci_probe_at(c, k, pc, id, "exit"))
			w->exits++;
		if (fuzz_bci_probe_at(c, k, pc, id, "exitThrow")) {
			w->throws++;
			w->throw_pc = pc;
			FUZZ_BCI_REQUIRE(pc + 6 < k->code_len && p[pc + 6] == 0xbf);
		}
		prev[1] = prev[0];
		prev[0] = pc;
		pc += n;
	}
	return 0;
}

/*
 * One rewritten method: its new Code k, whose original is orig. tracker_before:
 * the original class already named the tracker (its own probes may be there).
 */
static int fuzz_bci_check_method(const struct cf_class *c, const struct cf_code *k, const char *nd,
				 const struct fuzz_bci_ids *ids, uint8_t *used, int tracker_before,
				 unsigned *no_handler)
{
	int64_t id = fuzz_bci_probe_id(c, k->code, k->code_len, 0);
	uint8_t *start;
	struct fuzz_bci_walk w;
	int bad;

	FUZZ_BCI_REQUIRE(id >= ids->first && id < ids->next);
	FUZZ_BCI_REQUIRE(!used[id - ids->first]);
	used[id - ids->first] = 1;
	FUZZ_BCI_REQUIRE(!strcmp(ids->names[id - ids->first], nd));
	FUZZ_BCI_REQUIRE(fuzz_bci_probe_at(c, k, 0, id, "enter"));
	FUZZ_BCI_REQUIRE(k->max_stack >= 1);
	start = calloc(k->code_len + 1u, 1);
	if (!start)
		return 0;
	bad = fuzz_bci_walk(c, k, id, start, &w);
	if (!bad)
		bad = fuzz_bci_targets(k, start);
	if (!bad)
		bad = fuzz_bci_code_attrs(c, k, start);
	for (uint16_t i = 0; i < k->nexc && !bad; i++) {
		const struct cf_exception *e = &k->exc[i];
		if (e->start >= e->end || e->end > k->code_len || !start[e->start] ||
		    (e->end < k->code_len && !start[e->end]) || e->handler >= k->code_len ||
		    !start[e->handler])
			bad = __LINE__;
	}
	if (!bad && !tracker_before && (w.enters != 1 || w.exits != w.rets || w.throws > 1))
		bad = __LINE__;
	if (!bad && !tracker_before && w.throws == 1) {
		const struct cf_exception *e = k->nexc ? &k->exc[k->nexc - 1] : NULL;
		if (!e || e->catch_type != 0 || e->handler != w.throw_pc)
			bad = __LINE__;
	}
	if (!bad && !tracker_before && !w.throws) {
		if (strncmp(nd, "<init> ", 7))
			bad = __LINE__; /* only constructors may lack the handler */
		(*no_handler)++;
	}
	free(start);
	return bad;
}

/* The last Code attribute of a method (the one the rewriter replaces). */
static const struct cf_attr *fuzz_bci_code_of(const struct cf_class *c, const struct cf_member *m)
{
	const struct cf_attr *a = NULL;

	for (uint16_t i = 0; i < m->nattrs; i++)
		if (cf_utf8_eq(c, m->attrs[i].name, "Code"))
			a = &m->attrs[i];
	return a;
}

/* Utf8 slot i (or the name of Class i) as a C string, as the rewriter hands
 * it to its callback (cut at a NUL byte). malloc'd; NULL when out of memory. */
static char *fuzz_bci_dup(const struct cf_class *c, uint16_t i)
{
	const struct cf_const *k = cf_cp(c, i, CF_CLASS);
	char *s;

	if (k)
		i = k->a;
	k = cf_cp(c, i, CF_UTF8);
	s = malloc(k ? k->len + 1u : 1u);
	if (s) {
		if (k)
			memcpy(s, k->utf8, k->len);
		s[k ? k->len : 0] = '\0';
	}
	return s;
}

/* 1 when the class's pool already holds the tracker's name. */
static int fuzz_bci_names_tracker(const struct cf_class *c)
{
	for (uint16_t i = 1; i < c->cp_count; i++)
		if (cf_utf8_eq(c, i, BCI_TRACKER_CLASS))
			return 1;
	return 0;
}

/* "name desc" of method m, as the callback got it; NULL when out of memory. */
static char *fuzz_bci_name_desc(const struct cf_class *c, const struct cf_member *m)
{
	char *name = fuzz_bci_dup(c, m->name), *desc = fuzz_bci_dup(c, m->desc), *nd = NULL;

	if (name && desc && (nd = malloc(strlen(name) + strlen(desc) + 2)) != NULL)
		sprintf(nd, "%s %s", name, desc);
	free(name);
	free(desc);
	return nd;
}

/* What the comparison of a class with its rewrite counted. */
struct fuzz_bci_seen {
	unsigned rewritten, no_handler;
	int tracker_before; /* the original named the tracker already */
};

/* Method i of the original class o against the rewritten class c. */
static int fuzz_bci_compare_method(const struct cf_class *o, const struct cf_class *c, uint16_t i,
				   const struct fuzz_bci_ids *ids, uint8_t *used,
				   struct fuzz_bci_seen *seen)
{
	const struct cf_member *om = &o->methods[i], *nm = &c->methods[i];
	const struct cf_attr *oa = fuzz_bci_code_of(o, om), *na = fuzz_bci_code_of(c, nm);
	struct cf_code k;
	char err[256], *nd;
	int bad;

	FUZZ_BCI_REQUIRE(om->access == nm->access && om->nattrs == nm->nattrs);
	FUZZ_BCI_REQUIRE(om->name == nm->name && om->desc == nm->desc);
	FUZZ_BCI_REQUIRE(fuzz_bci_same_utf8(o, om->name, c, nm->name));
	FUZZ_BCI_REQUIRE(fuzz_bci_same_utf8(o, om->desc, c, nm->desc));
	FUZZ_BCI_REQUIRE(!oa == !na);
	if (!oa || (oa->len == na->len && !memcmp(oa->data, na->data, oa->len)))
		return 0; /* no code, or left alone */
	seen->rewritten++;
	FUZZ_BCI_REQUIRE(cf_code_parse(na, &k, err, sizeof(err)) == 0);
	nd = fuzz_bci_name_desc(c, nm);
	bad = nd ? fuzz_bci_check_method(c, &k, nd, ids, used, seen->tracker_before,
					 &seen->no_handler)
		 : 0;
	free(nd);
	cf_code_free(&k);
	return bad;
}

/* The class in[0..len) against its rewrite out[0..outlen). */
static int fuzz_bci_compare(const uint8_t *in, size_t len, const uint8_t *out, size_t outlen,
			    const struct fuzz_bci_ids *ids, struct fuzz_bci_seen *seen)
{
	struct cf_class o, c;
	char err[256];
	uint8_t *used = calloc(ids->next - ids->first + 1u, 1);
	int bad = 0;

	memset(seen, 0, sizeof(*seen));
	memset(&o, 0, sizeof(o));
	memset(&c, 0, sizeof(c));
	if (!used)
		return 0;
	if (cf_parse(in, len, &o, err, sizeof(err)))
		bad = __LINE__; /* the rewriter parsed it */
	else if (cf_parse(out, outlen, &c, err, sizeof(err)))
		bad = __LINE__; /* what we write must parse */
	else {
		seen->tracker_before = fuzz_bci_names_tracker(&o);
		if (o.major != c.major || o.minor != c.minor || o.access != c.access ||
		    o.this_class != c.this_class || o.super_class != c.super_class ||
		    o.nfields != c.nfields || o.nmethods != c.nmethods || o.nattrs != c.nattrs ||
		    c.cp_count < o.cp_count)
			bad = __LINE__;
		for (uint16_t i = 0; i < o.nfields && !bad; i++)
			if (o.fields[i].name != c.fields[i].name ||
			    o.fields[i].desc != c.fields[i].desc)
				bad = __LINE__;
		for (uint16_t i = 0; i < o.nmethods && !bad; i++)
			bad = fuzz_bci_compare_method(&o, &c, i, ids, used, seen);
	}
	cf_free(&c);
	cf_free(&o);
	free(used);
	return bad;
}

static void fuzz_bci_note(void *ctx, const char *msg)
{
	((struct fuzz_bci_ids *)ctx)->note_bytes += strlen(msg);
}

/* One rewrite of data with ids from first, checked against its input; the
 * output of the first round is rewritten again (ids from first2). */
static int fuzz_bci_round(const uint8_t *data, size_t size, uint32_t first, unsigned leave_every,
			  uint32_t first2)
{
	struct fuzz_bci_ids ids = {.first = first, .next = first, .leave_every = leave_every};
	struct bci_config cfg = {
	    .method_id = fuzz_bci_method_id, .note = fuzz_bci_note, .ctx = &ids};
	struct bci_stats st;
	struct fuzz_bci_seen seen;
	uint8_t *out = NULL;
	size_t outlen = 0;
	char err[512];
	int bad = 0;

	err[0] = '\0';
	if (bci_rewrite_class(data, size, &cfg, &out, &outlen, &st, err, sizeof(err))) {
		if (!err[0] || strnlen(err, sizeof(err)) >= sizeof(err) || out)
			bad = __LINE__;
	} else if (!ids.oom) {
		if (st.instrumented + st.skipped + ids.left_out != st.methods ||
		    (out != NULL) != (st.instrumented > 0))
			bad = __LINE__;
		else if (out &&
			 (bad = fuzz_bci_compare(data, size, out, outlen, &ids, &seen)) == 0) {
			if (seen.rewritten != st.instrumented || seen.no_handler > st.no_handler)
				bad = __LINE__;
			else if (first2)
				bad = fuzz_bci_round(out, outlen, first2, leave_every, 0);
		}
	}
	free(out);
	fuzz_bci_ids_free(&ids);
	return bad;
}

/* The rewrite of o with native wrappers c: the methods o had, in order,
 * with `native` gone from exactly those wrapped, then the renamed natives. */
static int fuzz_bci_compare_natives(const struct cf_class *o, const struct cf_class *c,
				    unsigned natives)
{
	unsigned wrapped = 0;

	FUZZ_BCI_REQUIRE(c->nmethods == o->nmethods + natives);
	for (uint16_t i = 0; i < o->nmethods; i++) {
		const struct cf_member *om = &o->methods[i], *nm = &c->methods[i];
		FUZZ_BCI_REQUIRE(fuzz_bci_same_utf8(o, om->name, c, nm->name));
		FUZZ_BCI_REQUIRE(fuzz_bci_same_utf8(o, om->desc, c, nm->desc));
		/* nothing wrapped (the wrappers are all or none): the flags as they were */
		FUZZ_BCI_REQUIRE((natives ? om->access & ~0x0100u : om->access) == nm->access);
		if (natives && (om->access & 0x0100u)) /* a wrapper now */
			FUZZ_BCI_REQUIRE(!(nm->access & 0x0100u) && fuzz_bci_code_of(c, nm));
		wrapped += natives && (om->access & 0x0100u);
	}
	FUZZ_BCI_REQUIRE(wrapped == natives);
	for (uint16_t i = o->nmethods; i < c->nmethods; i++) {
		const struct cf_const *n = cf_cp(c, c->methods[i].name, CF_UTF8);
		FUZZ_BCI_REQUIRE((c->methods[i].access & 0x1102u) == 0x1102u);
		FUZZ_BCI_REQUIRE(n && n->len > 5 && !memcmp(n->utf8, "jcal$", 5));
	}
	return 0;
}

/* A rewrite with native wrappers (every method traced): when it wrapped
 * natives, the output parses back with them (the probes are checked by the
 * rounds above on the same code paths). */
static int fuzz_bci_natives(const uint8_t *data, size_t size)
{
	struct fuzz_bci_ids ids = {.first = 1, .next = 1};
	struct bci_config cfg = {.method_id = fuzz_bci_method_id,
				 .note = fuzz_bci_note,
				 .ctx = &ids,
				 .native_prefix = "jcal$"};
	struct bci_stats st;
	struct cf_class o, c;
	uint8_t *out = NULL;
	size_t outlen = 0;
	char err[512];
	int bad = 0;

	err[0] = '\0';
	memset(&o, 0, sizeof(o));
	memset(&c, 0, sizeof(c));
	if (bci_rewrite_class(data, size, &cfg, &out, &outlen, &st, err, sizeof(err))) {
		if (!err[0] || strnlen(err, sizeof(err)) >= sizeof(err) || out)
			bad = __LINE__;
	} else if (!ids.oom && out) {
		if (cf_parse(data, size, &o, err, sizeof(err)) ||
		    cf_parse(out, outlen, &c, err, sizeof(err)))
			bad = __LINE__;
		else
			bad = fuzz_bci_compare_natives(&o, &c, st.natives);
	} else if (!ids.oom && st.natives) {
		bad = __LINE__; /* wrapped natives, wrote nothing */
	}
	cf_free(&c);
	cf_free(&o);
	free(out);
	fuzz_bci_ids_free(&ids);
	return bad;
}

/* A rewrite with switchable probes: a clear error, or an output that
 * parses back, every instrumented method switchable exactly when the
 * class's version allows, and, rewritten again the same way, still
 * parses (its BootstrapMethods attribute walked and extended). */
static int fuzz_bci_sites(const uint8_t *data, size_t size, int again)
{
	struct fuzz_bci_ids ids = {.first = 7, .next = 7};
	struct bci_config cfg = {
	    .method_id = fuzz_bci_method_id, .note = fuzz_bci_note, .ctx = &ids, .switchable = 1};
	struct bci_stats st;
	struct cf_class c;
	uint8_t *out = NULL;
	size_t outlen = 0;
	char err[512];
	int bad = 0;

	err[0] = '\0';
	memset(&c, 0, sizeof(c));
	if (bci_rewrite_class(data, size, &cfg, &out, &outlen, &st, err, sizeof(err))) {
		if (!err[0] || strnlen(err, sizeof(err)) >= sizeof(err) || out)
			bad = __LINE__;
	} else if (!ids.oom && out) {
		if (cf_parse(out, outlen, &c, err, sizeof(err)))
			bad = __LINE__;
		else if (st.switchable !=
			 (bci_switchable_version(data, size) ? st.instrumented : 0))
			bad = __LINE__;
		else if (again)
			bad = fuzz_bci_sites(out, outlen, 0);
	}
	cf_free(&c);
	free(out);
	fuzz_bci_ids_free(&ids);
	return bad;
}

/* The target: the input is one class file. */
static inline int fuzz_bci_rewrite(const uint8_t *data, size_t size)
{
	int bad = fuzz_bci_round(data, size, 1, 0, 20000);

	if (!bad)
		bad = fuzz_bci_round(data, size, 40000, 3, 50000);
	if (!bad)
		bad = fuzz_bci_natives(data, size);
	if (!bad)
		bad = fuzz_bci_sites(data, size, 1);
	return bad;
}

#endif
