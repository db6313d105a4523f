/*
 * test-bci-hidden.c - the hook of hidden classes (agent/bci/bci_hidden.c)
 * on bcitest/Funnel, compiled like the JDK's JavaLangAccess.defineClass:
 * the call of the tracker's hidden() before the original code, the line
 * table moved, the rest of the class unchanged; a method with a branch and
 * a class without the method left alone; which class names are hooked.
 */
#include <stdlib.h>
#include <string.h>

#include "agent/bci/bci_hidden.h"
#include "agent/bci/classfile.h"
#include "native-tests/classcorpus.h"
#include "native-tests/test.h"

static void test_is_funnel(void)
{
	CHECK(bci_hidden_is_funnel("java/lang/System$2"));
	CHECK(bci_hidden_is_funnel("java/lang/System$17"));
	CHECK(!bci_hidden_is_funnel("java/lang/System$"));
	CHECK(!bci_hidden_is_funnel("java/lang/System"));
	CHECK(!bci_hidden_is_funnel("java/lang/System$Logger"));
	CHECK(!bci_hidden_is_funnel("java/lang/System$2$1"));
	CHECK(!bci_hidden_is_funnel("java/lang/SystemX$2"));
}

/* The Code attribute of the method name desc of c, parsed into k. */
static int code_of(const struct cf_class *c, const char *name, const char *desc, struct cf_code *k)
{
	char err[256];

	for (uint16_t i = 0; i < c->nmethods; i++) {
		const struct cf_member *m = &c->methods[i];
		if (!cf_utf8_eq(c, m->name, name) || !cf_utf8_eq(c, m->desc, desc))
			continue;
		for (uint16_t a = 0; a < m->nattrs; a++)
			if (cf_utf8_eq(c, m->attrs[a].name, "Code"))
				return cf_code_parse(&m->attrs[a], k, err, sizeof(err)) == 0;
	}
	return 0;
}

/* The first line table entry after pc 0 of code k, or 0. */
static unsigned second_line_pc(const struct cf_class *c, const struct cf_code *k)
{
	for (uint16_t i = 0; i < k->nattrs; i++) {
		const struct cf_attr *a = &k->attrs[i];
		if (!cf_utf8_eq(c, a->name, "LineNumberTable") || a->len < 2)
			continue;
		for (uint32_t e = 0; e < (uint32_t)(a->data[0] << 8 | a->data[1]); e++) {
			unsigned pc = (unsigned)(a->data[2 + 4 * e] << 8 | a->data[3 + 4 * e]);
			if (pc)
				return pc;
		}
	}
	return 0;
}

static void test_hook(void)
{
	size_t len, olen;
	uint8_t *in = NULL, *out = NULL;
	struct cf_class o, c;
	struct cf_code ko, kn;
	char msg[256];

	CHECK(find_file("/bcitest/Funnel.class", &len, &in) != NULL);
	if (!in)
		return;
	CHECK(bci_hidden_hook(in, len, "jcal/Tracker", &out, &olen, msg, sizeof(msg)) == 0);
	CHECK(out != NULL);
	if (!out) {
		free(in);
		return;
	}
	CHECK(cf_parse(in, len, &o, msg, sizeof(msg)) == 0);
	CHECK(cf_parse(out, olen, &c, msg, sizeof(msg)) == 0);
	CHECK_EQ_U(c.nmethods, o.nmethods);
	CHECK(code_of(&o, BCI_HIDDEN_METHOD, BCI_HIDDEN_DESC, &ko));
	CHECK(code_of(&c, BCI_HIDDEN_METHOD, BCI_HIDDEN_DESC, &kn));
	CHECK_EQ_U(kn.code_len, ko.code_len + 10);
	/* aload 4; aload_2; iload 7; invokestatic hidden; astore 4; then the original */
	static const uint8_t pro[] = {0x19, 4, 0x2c, 0x15, 7, 0xb8};
	CHECK(!memcmp(kn.code, pro, sizeof(pro)));
	CHECK(kn.code[8] == 0x3a && kn.code[9] == 4);
	CHECK(!memcmp(kn.code + 10, ko.code, ko.code_len));
	const struct cf_const *r =
	    cf_cp(&c, (uint16_t)(kn.code[6] << 8 | kn.code[7]), CF_METHODREF);
	const struct cf_const *cl = r ? cf_cp(&c, r->a, CF_CLASS) : NULL;
	const struct cf_const *nt = r ? cf_cp(&c, r->b, CF_NAMEANDTYPE) : NULL;
	CHECK(cl && cf_utf8_eq(&c, cl->a, "jcal/Tracker"));
	CHECK(nt && cf_utf8_eq(&c, nt->a, BCI_HIDDEN_PROBE) &&
	      cf_utf8_eq(&c, nt->b, BCI_HIDDEN_PROBE_DESC));
	CHECK(kn.max_stack >= 3 && kn.max_locals == ko.max_locals && kn.nexc == 0);
	if (second_line_pc(&o, &ko))
		CHECK_EQ_U(second_line_pc(&c, &kn), second_line_pc(&o, &ko) + 10);
	/* the other methods' code is untouched */
	struct cf_code d0, d1;
	const char *d =
	    "(Ljava/lang/ClassLoader;Ljava/lang/Class;Ljava/lang/String;[BIILjava/security/"
	    "ProtectionDomain;ZILjava/lang/Object;)Ljava/lang/Class;";
	CHECK(code_of(&o, "define0", d, &d0) && code_of(&c, "define0", d, &d1));
	CHECK(d0.code_len == d1.code_len && !memcmp(d0.code, d1.code, d0.code_len));
	cf_code_free(&d0);
	cf_code_free(&d1);
	cf_code_free(&ko);
	cf_code_free(&kn);
	cf_free(&o);
	cf_free(&c);
	free(out);
	free(in);
}

/* A branch in the method, or no such method: nothing written, a reason. */
static void test_left_alone(void)
{
	static const char *const files[] = {"/bcitest/Funnel$Branchy.class",
					    "/bcitest/Basics.class"};
	static const char *const why[] = {"not straight", "no method"};

	for (size_t i = 0; i < 2; i++) {
		size_t len, olen = 1;
		uint8_t *in = NULL, *out = (uint8_t *)1;
		char msg[256];

		CHECK(find_file(files[i], &len, &in) != NULL);
		if (!in)
			continue;
		CHECK(bci_hidden_hook(in, len, "jcal/Tracker", &out, &olen, msg, sizeof(msg)) == 0);
		CHECK(out == NULL && olen == 0);
		CHECK(strstr(msg, why[i]) != NULL);
		free(in);
	}
	size_t olen;
	uint8_t *out;
	char msg[256];
	static const uint8_t junk[] = {0xca, 0xfe, 0xba, 0xbe, 0, 0};
	CHECK(bci_hidden_hook(junk, sizeof(junk), "jcal/Tracker", &out, &olen, msg, sizeof(msg)) ==
	      -1);
	CHECK(out == NULL && msg[0]);
}

int main(int argc, char **argv)
{
	(void)argc;
	corpus_load(argv[0]);
	RUN(test_is_funnel);
	RUN(test_hook);
	RUN(test_left_alone);
	corpus_free();
	return test_summary("bci-hidden");
}
