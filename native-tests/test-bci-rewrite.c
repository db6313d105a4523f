/*
 * test-bci-rewrite.c - the bci rewriter (agent/bci/bci_rewrite.c) on real
 * class files compiled from native-tests/bci/src (make puts them in
 * BUILD/bci/classes): instruction lengths, then every method of every
 * class rewritten, deterministically, with an entry probe, an exit probe
 * before each return, a catch-all last and every branch on an
 * instruction; the tracker class left as it is.
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

int main(int argc, char **argv)
{
	(void)argc;
	corpus_load(argv[0]);
	RUN(test_insn_len);
	RUN(test_rewrite_classes);
	RUN(test_rewrite_tracker_untouched);
	corpus_free();
	return test_summary("bci-rewrite");
}
