/*
 * test-bci-rewrite.c - the bci rewriter (agent/bci/bci_rewrite.c) on real
 * class files compiled from native-tests/bci/src (make puts them in
 * BUILD/bci/classes): instruction lengths, then every method of every
 * class rewritten, deterministically, with an entry probe, an exit probe
 * before each return, a catch-all last and every branch on an
 * instruction; the tracker class left as it is. Native methods with a
 * prefix (bcitest/Natives): each becomes a wrapper that calls the native
 * renamed, with probes or without (method ids refused), all or none; the
 * prefix changes nothing in a class without natives. Switchable probes:
 * invokedynamic sites bootstrapped by the tracker with the method's id.
 *
 * The JVM verifier half of the rewriter tests is native-tests/bci/run.sh.
 */
#include <stdlib.h>
#include <string.h>

#include "agent/bci/bci_rewrite.h"
#include "agent/bci/classfile.h"
#include "native-tests/classcorpus.h"
#include "native-tests/test.h"

static void test_insn_len(void)
{
	/* tableswitch at pc 1: 2 bytes padding, low 0 high 1 */
	uint8_t code[] = {0x00, 0xaa, 0, 0, 0, 0, 0,  20, 0, 0, 0,  0,	 0,
			  0,	0,    1, 0, 0, 0, 20, 0,  0, 0, 20, 0xb1};
	CHECK_EQ_U(bci_insn_len(code, sizeof(code), 1), 23);
	CHECK_EQ_U(bci_insn_len(code, sizeof(code), 0), 1);
	CHECK_EQ_U(bci_insn_len(code, sizeof(code) - 2, 1), 0); /* runs past the end */
	uint8_t wide[] = {0xc4, 0x84, 0x01, 0x00, 0x00, 0x05, 0xc4, 0x15, 0x01, 0x00};
	CHECK_EQ_U(bci_insn_len(wide, sizeof(wide), 0), 6);
	CHECK_EQ_U(bci_insn_len(wide, sizeof(wide), 6), 4);
	uint8_t badop[] = {0xcb};
	CHECK_EQ_U(bci_insn_len(badop, 1, 0), 0);
}

struct idgen {
	uint32_t next;
};

static int give_id(void *ctx, const char *cls, const char *name, const char *desc, uint16_t access,
		   uint32_t *id)
{
	struct idgen *g = ctx;
	(void)cls;
	(void)desc;
	(void)access;
	if (!strcmp(name, "lookup"))
		return 1; /* excluded */
	*id = g->next++;
	return 0;
}

/* Checks a rewritten method: entry probe, one exit probe before each
 * return, a catch-all last in the table, every branch on an instruction. */
static void check_method(const struct cf_class *c, const struct cf_member *mb, int ctor)
{
	struct cf_code code;
	char err[256];

	for (uint16_t a = 0; a < mb->nattrs; a++) {
		if (!cf_utf8_eq(c, mb->attrs[a].name, "Code"))
			continue;
		CHECK(cf_code_parse(&mb->attrs[a], &code, err, sizeof(err)) == 0);
		const uint8_t *p = code.code;
		CHECK(p[0] == 0x11 || p[0] == 0x13);
		CHECK_EQ_U(p[3], 0xb8);
		unsigned rets = 0, probes = 0;
		uint32_t pc = 0, last = 0;
		uint8_t *start = calloc(code.code_len + 1, 1);
		while (pc < code.code_len) {
			uint32_t n = bci_insn_len(p, code.code_len, pc);
			CHECK(n > 0);
			if (!n)
				break;
			start[pc] = 1;
			if (p[pc] >= 0xac && p[pc] <= 0xb1) {
				rets++;
				/* sipush/ldc_w id; invokestatic exit */
				CHECK(pc >= 6 && p[pc - 3] == 0xb8 &&
				      (p[pc - 6] == 0x11 || p[pc - 6] == 0x13));
			}
			if (p[pc] == 0xb8)
				probes++;
			last = pc;
			pc += n;
		}
		CHECK_EQ_U(pc, code.code_len);
		for (uint32_t q = 0; q < code.code_len; q += bci_insn_len(p, code.code_len, q)) {
			uint8_t op = p[q];
			if ((op >= 0x99 && op <= 0xa8) || op == 0xc6 || op == 0xc7) {
				int32_t t = (int32_t)q + (int16_t)(p[q + 1] << 8 | p[q + 2]);
				CHECK(t >= 0 && (uint32_t)t < code.code_len && start[t]);
			}
			if (!bci_insn_len(p, code.code_len, q))
				break;
		}
		CHECK(rets > 0);
		CHECK(code.nexc > 0);
		if (code.nexc) {
			const struct cf_exception *e = &code.exc[code.nexc - 1];
			CHECK_EQ_U(e->catch_type, 0);
			CHECK_EQ_U(e->end, e->handler);
			CHECK(e->handler + 7u <= code.code_len && start[e->handler]);
			if (e->handler + 7u <= code.code_len) {
				CHECK(p[e->handler] == 0x11 || p[e->handler] == 0x13);
				CHECK_EQ_U(p[e->handler + 3], 0xb8);
				CHECK_EQ_U(p[e->handler + 6], 0xbf); /* athrow */
			}
			if (!ctor)
				CHECK_EQ_U(e->start, 6);
			else
				CHECK(e->start > 6);
			/* after the handler: nothing, or trampolines (goto_w) */
			for (uint32_t q = e->handler + 7u; q < code.code_len; q += 5)
				CHECK_EQ_U(p[q], 0xc8);
			CHECK(last >= e->handler + 6u);
		}
		CHECK(code.max_stack >= 2);
		free(start);
		cf_code_free(&code);
	}
}

static void test_rewrite_classes(void)
{
	unsigned total = 0, instrumented = 0;

	for (int i = 0; i < nfiles; i++) {
		size_t len, olen, olen2;
		uint8_t *in = slurp(files[i], &len), *out = NULL, *out2 = NULL;
		struct idgen g = {1}, g2 = {1};
		struct bci_config cfg = {.method_id = give_id, .ctx = &g};
		struct bci_stats st;
		char err[256];
		struct cf_class c;

		if (!in)
			continue;
		CHECK(bci_rewrite_class(in, len, &cfg, &out, &olen, &st, err, sizeof(err)) == 0);
		/* deterministic */
		cfg.ctx = &g2;
		CHECK(bci_rewrite_class(in, len, &cfg, &out2, &olen2, &st, err, sizeof(err)) == 0);
		CHECK(olen == olen2 && (!out || memcmp(out, out2, olen) == 0));
		total += st.methods;
		instrumented += st.instrumented;
		if (out) {
			CHECK(cf_parse(out, olen, &c, err, sizeof(err)) == 0);
			for (uint16_t m = 0; m < c.nmethods; m++) {
				char name[64];
				cf_utf8_str(&c, c.methods[m].name, name, sizeof(name));
				if (!strcmp(name, "lookup") || !strcmp(name, "condWideNoFrame") ||
				    !strcmp(name, "nearLimit"))
					continue;
				check_method(&c, &c.methods[m], !strcmp(name, "<init>"));
			}
			cf_free(&c);
		}
		free(out);
		free(out2);
		free(in);
	}
	CHECK(total > 80);
	CHECK(instrumented + 5 >= total);
}

static void test_rewrite_tracker_untouched(void)
{
	struct bci_config cfg = {.method_id = give_id, .tracker = "bcitest/Basics"};
	struct idgen g = {1};
	size_t len, olen;
	uint8_t *in = NULL, *out = (uint8_t *)1;
	struct bci_stats st;
	char err[256];

	cfg.ctx = &g;
	CHECK(find_file("/bcitest/Basics.class", &len, &in) != NULL);
	if (!in)
		return;
	CHECK(bci_rewrite_class(in, len, &cfg, &out, &olen, &st, err, sizeof(err)) == 0);
	CHECK(out == NULL);
	CHECK_EQ_U(st.instrumented, 0);
	free(in);
}

/* Every method refused: what stop and throttle= retransform. */
static int no_id(void *ctx, const char *cls, const char *name, const char *desc, uint16_t access,
		 uint32_t *id)
{
	(void)ctx;
	(void)cls;
	(void)name;
	(void)desc;
	(void)access;
	(void)id;
	return 1;
}

static void count_note(void *ctx, const char *msg)
{
	(*(unsigned *)ctx)++;
	(void)msg;
}

/* The Code attribute of method m, parsed (zeroed when it has none). */
static int code_of(const struct cf_class *c, const struct cf_member *m, struct cf_code *k)
{
	char err[256];

	memset(k, 0, sizeof(*k));
	for (uint16_t a = 0; a < m->nattrs; a++)
		if (cf_utf8_eq(c, m->attrs[a].name, "Code"))
			return cf_code_parse(&m->attrs[a], k, err, sizeof(err)) == 0;
	return 0;
}

/* The wrapper m calls its native: `invoke* PREFIX+NAME DESC` right before its
 * return (after the exit probe when probes is set) and the renamed native
 * is among the methods, private, synthetic, with m's static bit. */
static void check_wrapper(const struct cf_class *c, const struct cf_member *m, int probes)
{
	struct cf_code k;
	char name[128], desc[256], want[160];

	cf_utf8_str(c, m->name, name, sizeof(name));
	cf_utf8_str(c, m->desc, desc, sizeof(desc));
	snprintf(want, sizeof(want), "jcal$%s", name);
	CHECK(!(m->access & 0x0100));
	CHECK(code_of(c, m, &k));
	if (!k.code)
		return;
	uint32_t ret = probes ? k.code_len - 7 - 1 : k.code_len - 1; /* before the handler */
	CHECK(k.code[ret] >= 0xac && k.code[ret] <= 0xb1);
	uint32_t call = ret - 3 - (probes ? 6 : 0);
	CHECK_EQ_U(k.code[call], (m->access & 0x0008) ? 0xb8 : 0xb7);
	if (probes) {
		CHECK(k.code[0] == 0x11 && k.code[3] == 0xb8); /* enter probe */
		CHECK_EQ_U(k.nexc, 1);
	} else {
		CHECK_EQ_U(k.nexc, 0);
	}
	const struct cf_const *r =
	    cf_cp(c, (uint16_t)(k.code[call + 1] << 8 | k.code[call + 2]), CF_METHODREF);
	const struct cf_const *nat = r ? cf_cp(c, r->b, CF_NAMEANDTYPE) : NULL;
	CHECK(nat && cf_utf8_eq(c, nat->a, want) && cf_utf8_eq(c, nat->b, desc));
	int found = 0;
	for (uint16_t i = 0; i < c->nmethods; i++) {
		const struct cf_member *n = &c->methods[i];
		if (!cf_utf8_eq(c, n->name, want) || !cf_utf8_eq(c, n->desc, desc))
			continue;
		found++;
		CHECK_EQ_U(n->access,
			   0x1102u | (m->access & 0x0008u)); /* synthetic native private */
		CHECK_EQ_U(n->nattrs, 0);
	}
	CHECK_EQ_U(found, 1);
	cf_code_free(&k);
}

/* bcitest/Natives with and without probes: 7 wrappers and their natives. */
static void test_native_wrappers(void)
{
	size_t len, olen;
	uint8_t *in = NULL, *out = NULL;
	struct idgen g = {1};
	struct bci_config cfg = {.method_id = give_id, .ctx = &g, .native_prefix = "jcal$"};
	struct bci_stats st;
	struct cf_class o, c;
	char err[256];

	CHECK(find_file("/bcitest/Natives.class", &len, &in) != NULL);
	if (!in)
		return;
	CHECK(cf_parse(in, len, &o, err, sizeof(err)) == 0);
	for (int probes = 1; probes >= 0; probes--) {
		cfg.method_id = probes ? give_id : no_id;
		CHECK(bci_rewrite_class(in, len, &cfg, &out, &olen, &st, err, sizeof(err)) == 0);
		CHECK_EQ_U(st.natives, 7);
		CHECK_EQ_U(st.instrumented, probes ? st.methods : 0);
		CHECK(out != NULL && cf_parse(out, olen, &c, err, sizeof(err)) == 0);
		if (!out)
			break;
		CHECK_EQ_U(c.nmethods, o.nmethods + 7u);
		for (uint16_t i = 0; i < o.nmethods; i++) {
			CHECK(c.methods[i].name == o.methods[i].name);
			CHECK(c.methods[i].desc == o.methods[i].desc);
			/* the wrapper keeps the modifiers (synchronized too) but native */
			CHECK_EQ_U(c.methods[i].access, o.methods[i].access & ~0x0100u);
			if (o.methods[i].access & 0x0100)
				check_wrapper(&c, &c.methods[i], probes);
		}
		cf_free(&c);
		free(out);
		out = NULL;
	}
	/* all or none: a method's name already starts with the prefix ("run") */
	unsigned notes = 0;
	cfg.method_id = no_id;
	cfg.native_prefix = "ru";
	cfg.note = count_note;
	cfg.ctx = &notes;
	CHECK(bci_rewrite_class(in, len, &cfg, &out, &olen, &st, err, sizeof(err)) == 0);
	CHECK_EQ_U(st.natives, 0);
	CHECK(out == NULL);
	CHECK_EQ_U(notes, 1);
	cf_free(&o);
	free(in);
}

/* A class without natives comes out byte for byte the same with a prefix. */
static void test_prefix_without_natives(void)
{
	unsigned same = 0;

	for (int i = 0; i < nfiles; i++) {
		size_t len, a_len, b_len;
		uint8_t *in = slurp(files[i], &len), *a = NULL, *b = NULL;
		struct idgen ga = {1}, gb = {1};
		struct bci_config ca = {.method_id = give_id, .ctx = &ga};
		struct bci_config cb = {.method_id = give_id, .ctx = &gb, .native_prefix = "jcal$"};
		struct bci_stats st;
		char err[256];

		if (!in || strstr(files[i], "/Natives.class")) {
			free(in);
			continue;
		}
		CHECK(bci_rewrite_class(in, len, &ca, &a, &a_len, &st, err, sizeof(err)) == 0);
		CHECK(bci_rewrite_class(in, len, &cb, &b, &b_len, &st, err, sizeof(err)) == 0);
		CHECK_EQ_U(st.natives, 0);
		CHECK(a_len == b_len && (!a) == (!b) && (!a || !memcmp(a, b, a_len)));
		same++;
		free(a);
		free(b);
		free(in);
	}
	CHECK(same > 20);
}

/* The BootstrapMethods attribute of c: its body and entry count, or NULL. */
static const struct cf_attr *bootstrap_methods(const struct cf_class *c, unsigned *n)
{
	*n = 0;
	for (uint16_t a = 0; a < c->nattrs; a++)
		if (cf_utf8_eq(c, c->attrs[a].name, "BootstrapMethods")) {
			*n = (unsigned)(c->attrs[a].data[0] << 8 | c->attrs[a].data[1]);
			return &c->attrs[a];
		}
	return NULL;
}

/* The u2 at p. */
static unsigned u2(const uint8_t *p)
{
	return (unsigned)(p[0] << 8 | p[1]);
}

/* The static argument of BootstrapMethods entry e whose method is
 * TRACKER.site, or -1. */
static int64_t site_arg(const struct cf_class *c, const struct cf_attr *bm, unsigned e)
{
	uint32_t at = 2;
	char buf[256];

	for (unsigned i = 0; i < e; i++)
		at += 4 + 2 * u2(bm->data + at + 2);
	const struct cf_const *mh = cf_cp(c, (uint16_t)u2(bm->data + at), CF_METHODHANDLE);
	const struct cf_const *mr = mh ? cf_cp(c, mh->b, CF_METHODREF) : NULL;
	const struct cf_const *nt = mr ? cf_cp(c, mr->b, CF_NAMEANDTYPE) : NULL;
	const struct cf_const *arg = cf_cp(c, (uint16_t)u2(bm->data + at + 4), CF_INTEGER);
	if (!mh || mh->a != 6 || !nt || u2(bm->data + at + 2) != 1 || !arg ||
	    strcmp(cf_utf8_str(c, mr->a, buf, sizeof(buf)), BCI_TRACKER_CLASS) ||
	    strcmp(cf_utf8_str(c, nt->a, buf, sizeof(buf)), "site") ||
	    strcmp(cf_utf8_str(c, nt->b, buf, sizeof(buf)), BCI_SITE_DESC))
		return -1;
	return (int64_t)(uint32_t)arg->value;
}

/* Switchable probes: every probe is the id pushed, then invokedynamic KIND(I)V, its site
 * bootstrapped by a new BootstrapMethods entry (after the class's own,
 * kept as they were) of TRACKER.site with the method's id; a class of
 * version 50 gets invokestatic probes. */
static void test_switchable_sites(void)
{
	unsigned classes = 0, methods = 0;

	for (int i = 0; i < nfiles; i++) {
		size_t len, olen;
		uint8_t *in = slurp(files[i], &len), *out = NULL;
		struct idgen g = {100};
		struct bci_config cfg = {.method_id = give_id, .ctx = &g, .switchable = 1};
		struct bci_stats st;
		struct cf_class orig, c;
		char err[256], name[64];
		unsigned had, now;

		if (!in)
			continue;
		CHECK(bci_switchable_version(in, len));
		CHECK(bci_rewrite_class(in, len, &cfg, &out, &olen, &st, err, sizeof(err)) == 0);
		CHECK_EQ_U(st.switchable, st.instrumented);
		if (!out || cf_parse(in, len, &orig, err, sizeof(err))) {
			free(in);
			continue;
		}
		CHECK(cf_parse(out, olen, &c, err, sizeof(err)) == 0);
		const struct cf_attr *ob = bootstrap_methods(&orig, &had);
		const struct cf_attr *nb = bootstrap_methods(&c, &now);
		CHECK(nb != NULL);
		CHECK_EQ_U(now, had + st.switchable);
		if (ob && nb)
			CHECK(nb->len > ob->len &&
			      !memcmp(nb->data + 2, ob->data + 2, ob->len - 2u));
		for (uint16_t m = 0; nb && m < c.nmethods; m++) {
			struct cf_code code;
			cf_utf8_str(&c, c.methods[m].name, name, sizeof(name));
			/* not instrumented: excluded, or skipped by the rewriter */
			if (!strcmp(name, "lookup") || !strcmp(name, "condWideNoFrame") ||
			    !strcmp(name, "nearLimit") || !code_of(&c, &c.methods[m], &code))
				continue;
			const uint8_t *p = code.code;
			const struct cf_const *k = cf_cp(&c, (uint16_t)u2(p + 4), CF_INVOKEDYNAMIC);
			const struct cf_const *nt = k ? cf_cp(&c, k->b, CF_NAMEANDTYPE) : NULL;
			char kind[32] = "", desc[32] = "";
			if (nt) {
				cf_utf8_str(&c, nt->a, kind, sizeof(kind));
				cf_utf8_str(&c, nt->b, desc, sizeof(desc));
			}
			CHECK((p[0] == 0x11 || p[0] == 0x13) && p[3] == 0xba && p[6] == 0 &&
			      p[7] == 0);
			CHECK(!strcmp(kind, "enter") && !strcmp(desc, "(I)V"));
			CHECK(k && k->a >= had && site_arg(&c, nb, k->a) >= 100);
			methods++;
			cf_code_free(&code);
		}
		cf_free(&c);
		cf_free(&orig);
		free(out);
		/* version 50: invokestatic probes */
		in[6] = 0;
		in[7] = 50;
		CHECK(!bci_switchable_version(in, len));
		g.next = 100;
		CHECK(bci_rewrite_class(in, len, &cfg, &out, &olen, &st, err, sizeof(err)) == 0);
		CHECK_EQ_U(st.switchable, 0);
		CHECK(out && cf_parse(out, olen, &c, err, sizeof(err)) == 0);
		if (out)
			cf_free(&c);
		free(out);
		free(in);
		classes++;
	}
	CHECK(classes > 5);
	CHECK(methods > 60);
}

int main(int argc, char **argv)
{
	(void)argc;
	corpus_load(argv[0]);
	RUN(test_insn_len);
	RUN(test_rewrite_classes);
	RUN(test_rewrite_tracker_untouched);
	RUN(test_native_wrappers);
	RUN(test_prefix_without_natives);
	RUN(test_switchable_sites);
	corpus_free();
	return test_summary("bci-rewrite");
}
