/*
 * test-bci-tiny.c - tiny=count's classifier (agent/bci/bci_tiny.c) on
 * bytecode shapes written by hand (a getter, a setter, a constant, a field
 * compare, a forward switch; a loop, a call, a long method, native,
 * abstract and synchronized methods, an exception handler, an array
 * allocation, bad code), then on the class files of native-tests/bci/src
 * through the rewriter: its tiny methods reach tiny_id and get the one
 * counting probe, the others method_id and every probe. inlined=count's
 * loop-free test (bci_loop_free) on the same shapes, and the rewriter
 * offering the loop-free methods that are not tiny to inlined_id.
 */
#include <stdlib.h>
#include <string.h>

#include "agent/bci/bci_rewrite.h"
#include "agent/bci/bci_tiny.h"
#include "agent/bci/classfile.h"
#include "native-tests/classcorpus.h"
#include "native-tests/test.h"

#define TINY(access, code) bci_tiny((access), (code), sizeof(code), 0)
#define LOOP_FREE(access, code) bci_loop_free((access), (code), sizeof(code))

static void test_shapes(void)
{
	/* int getX() { return x; }: aload_0 getfield #2 ireturn */
	static const uint8_t getter[] = {0x2a, 0xb4, 0x00, 0x02, 0xac};
	/* void setX(int v) { x = v; }: aload_0 iload_1 putfield #2 return */
	static const uint8_t setter[] = {0x2a, 0x1b, 0xb5, 0x00, 0x02, 0xb1};
	/* static int answer() { return 42; }: bipush 42 ireturn */
	static const uint8_t constant[] = {0x10, 42, 0xac};
	/* void empty() {}: return */
	static const uint8_t empty[] = {0xb1};
	/* boolean big(int v) { return v > 10; }: iload_1 bipush 10
	 * if_icmple +7 iconst_1 goto +4 iconst_0 ireturn (forward only) */
	static const uint8_t compare[] = {0x1b, 0x10, 10,   0xa4, 0x00, 0x07,
					  0x04, 0xa7, 0x00, 0x04, 0x03, 0xac};
	/* int pick(int k): iload_1 tableswitch {0: iconst_1, default:
	 * iconst_0} ireturn, every target ahead */
	static const uint8_t sw[] = {0x1b, 0xaa, 0x00, 0x00, 0x00, 0x00, 0x00, 0x15,
				     0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
				     0x00, 0x00, 0x00, 0x13, 0x04, 0xac, 0x03, 0xac};

	CHECK(TINY(0x0001, getter));
	CHECK(TINY(0x0001, setter));
	CHECK(TINY(0x0009, constant));
	CHECK(TINY(0x0001, empty));
	CHECK(TINY(0x0001, compare));
	CHECK(TINY(0x0001, sw));
	/* final, static, private, strictfp change nothing */
	CHECK(TINY(0x0812 | 0x0008, getter));
	/* every tiny shape is loop-free */
	CHECK(LOOP_FREE(0x0001, getter));
	CHECK(LOOP_FREE(0x0001, setter));
	CHECK(LOOP_FREE(0x0009, constant));
	CHECK(LOOP_FREE(0x0001, empty));
	CHECK(LOOP_FREE(0x0001, compare));
	CHECK(LOOP_FREE(0x0001, sw));
}

static void test_not_tiny(void)
{
	/* while (n > 0) n--; return n: iload_1 ifle +9 iinc 1 -1 goto -7 iload_1 ireturn */
	static const uint8_t loop[] = {0x1b, 0x9e, 0x00, 0x09, 0x84, 0x01,
				       0xff, 0xa7, 0xff, 0xf9, 0x1b, 0xac};
	/* for (;;) {}: goto 0 (a branch to itself) */
	static const uint8_t spin[] = {0xa7, 0x00, 0x00};
	/* goto_w backward: nop goto_w -1 */
	static const uint8_t spin_w[] = {0x00, 0xc8, 0xff, 0xff, 0xff, 0xff};
	/* return f(); aload_0 invokevirtual #3 ireturn, and the other invokes */
	static const uint8_t call[] = {0x2a, 0xb6, 0x00, 0x03, 0xac};
	static const uint8_t call_special[] = {0x2a, 0xb7, 0x00, 0x03, 0xb1};
	static const uint8_t call_static[] = {0xb8, 0x00, 0x03, 0xac};
	static const uint8_t call_iface[] = {0x2a, 0xb9, 0x00, 0x03, 0x01, 0x00, 0xac};
	static const uint8_t lambda[] = {0xba, 0x00, 0x03, 0x00, 0x00, 0xb0};
	/* synchronized (this) { }: aload_0 dup monitorenter monitorexit return */
	static const uint8_t monitor[] = {0x2a, 0x59, 0xc2, 0xc3, 0xb1};
	/* new int[n]: iload_1 newarray int areturn; anewarray; multianewarray */
	static const uint8_t array[] = {0x1b, 0xbc, 0x0a, 0xb0};
	static const uint8_t oarray[] = {0x1b, 0xbd, 0x00, 0x02, 0xb0};
	static const uint8_t marray[] = {0x1b, 0x1b, 0xc5, 0x00, 0x02, 0x02, 0xb0};
	/* jsr +3, then ret: a subroutine */
	static const uint8_t jsr[] = {0xa8, 0x00, 0x04, 0xb1, 0x4c, 0xa9, 0x01};
	/* a switch with a target behind it: iload_1 lookupswitch default -1 */
	static const uint8_t back_switch[] = {0x1b, 0xab, 0x00, 0x00, 0xff, 0xff, 0xff,
					      0xff, 0x00, 0x00, 0x00, 0x00, 0xb1};
	/* a branch past the end, an instruction cut short, an unknown opcode */
	static const uint8_t past_end[] = {0x03, 0x99, 0x00, 0x10, 0xb1};
	static const uint8_t cut[] = {0x2a, 0xb4, 0x00};
	static const uint8_t unknown[] = {0xcb, 0xb1};
	/* 36 bytes of straight code: one over HotSpot's MaxInlineSize */
	uint8_t longer[BCI_TINY_MAX_BYTES + 1];
	static const uint8_t getter[] = {0x2a, 0xb4, 0x00, 0x02, 0xac};

	CHECK(!TINY(0x0001, loop));
	CHECK(!TINY(0x0001, spin));
	CHECK(!TINY(0x0001, spin_w));
	CHECK(!TINY(0x0001, call));
	CHECK(!TINY(0x0001, call_special));
	CHECK(!TINY(0x0009, call_static));
	CHECK(!TINY(0x0001, call_iface));
	CHECK(!TINY(0x0009, lambda));
	CHECK(!TINY(0x0001, monitor));
	CHECK(!TINY(0x0001, array));
	CHECK(!TINY(0x0001, oarray));
	CHECK(!TINY(0x0001, marray));
	CHECK(!TINY(0x0001, jsr));
	CHECK(!TINY(0x0001, back_switch));
	CHECK(!TINY(0x0001, past_end));
	CHECK(!TINY(0x0001, cut));
	CHECK(!TINY(0x0001, unknown));
	memset(longer, 0x00, sizeof(longer)); /* nop ... return */
	longer[sizeof(longer) - 1] = 0xb1;
	CHECK(!TINY(0x0001, longer));
	CHECK(bci_tiny(0x0001, longer + 1, BCI_TINY_MAX_BYTES, 0)); /* 35: tiny */
	/* a synchronized getter may wait for its monitor; native, abstract:
	 * no code of their own */
	CHECK(!TINY(0x0021, getter));
	CHECK(!TINY(0x0101, getter));
	CHECK(!TINY(0x0401, getter));
	CHECK(!bci_tiny(0x0101, NULL, 0, 0));
	CHECK(!bci_tiny(0x0401, NULL, 0, 0));
	/* a getter inside a try: an exception handler */
	CHECK(!bci_tiny(0x0001, getter, sizeof(getter), 1));

	/* loop-free (inlined=count): calls, monitors, arrays, any length and
	 * synchronized methods are; loops, subroutines, bad code and methods
	 * without code are not */
	CHECK(LOOP_FREE(0x0001, call));
	CHECK(LOOP_FREE(0x0001, call_special));
	CHECK(LOOP_FREE(0x0009, call_static));
	CHECK(LOOP_FREE(0x0001, call_iface));
	CHECK(LOOP_FREE(0x0009, lambda));
	CHECK(LOOP_FREE(0x0001, monitor));
	CHECK(LOOP_FREE(0x0001, array));
	CHECK(LOOP_FREE(0x0001, oarray));
	CHECK(LOOP_FREE(0x0001, marray));
	CHECK(LOOP_FREE(0x0001, longer));
	CHECK(LOOP_FREE(0x0021, getter));
	CHECK(!LOOP_FREE(0x0001, loop));
	CHECK(!LOOP_FREE(0x0001, spin));
	CHECK(!LOOP_FREE(0x0001, spin_w));
	CHECK(!LOOP_FREE(0x0001, jsr));
	CHECK(!LOOP_FREE(0x0001, back_switch));
	CHECK(!LOOP_FREE(0x0001, past_end));
	CHECK(!LOOP_FREE(0x0001, cut));
	CHECK(!LOOP_FREE(0x0001, unknown));
	CHECK(!LOOP_FREE(0x0101, getter));
	CHECK(!LOOP_FREE(0x0401, getter));
	CHECK(!bci_loop_free(0x0001, NULL, 0));
}

/* The rewriter's callbacks: method_id gives ids from 1, tiny_id counter
 * slots from 0; both note the names they saw. */
struct seen {
	uint32_t next_id, next_slot;
	char tiny[64][64], full[64][64], inl[64][64];
	unsigned ntiny, nfull, ninl;
};

static int full_id(void *ctx, const char *cls, const char *name, const char *desc, uint16_t access,
		   uint32_t *id)
{
	struct seen *s = ctx;

	(void)cls, (void)desc, (void)access;
	if (s->nfull < 64)
		snprintf(s->full[s->nfull++], 64, "%s", name);
	*id = s->next_id++;
	return 0;
}

static int tiny_slot(void *ctx, const char *cls, const char *name, const char *desc,
		     uint16_t access, uint32_t *id)
{
	struct seen *s = ctx;

	(void)cls, (void)desc, (void)access;
	if (s->ntiny < 64)
		snprintf(s->tiny[s->ntiny++], 64, "%s", name);
	*id = s->next_slot++;
	return BCI_COUNT_ONLY;
}

static int inlined_slot(void *ctx, const char *cls, const char *name, const char *desc,
			uint16_t access, uint32_t *id)
{
	struct seen *s = ctx;

	(void)cls, (void)desc, (void)access;
	if (s->ninl < 64)
		snprintf(s->inl[s->ninl++], 64, "%s", name);
	*id = s->next_slot++;
	return BCI_COUNT_ONLY;
}

static int listed(char (*names)[64], unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

/* bcitest/Basics: empty(), earlyReturns(int) and cond(...) are tiny; fib
 * (a call), loop (loops), add (synchronized), addAll, the constructor (a
 * call to super()) and the static initialiser (a loop, an array) are not.
 * A tiny method's code is its counting probe (sipush slot, invokestatic
 * count) and its own code, unchanged. */
static void test_corpus_basics(void)
{
	uint8_t *owned;
	size_t len = 0, olen;
	const uint8_t *in = find_file("bcitest/Basics.class", &len, &owned);
	struct seen s = {.next_id = 1};
	struct bci_config cfg = {
	    .method_id = full_id, .tiny_id = tiny_slot, .is_tiny = bci_tiny, .ctx = &s};
	struct bci_config plain = {.method_id = full_id, .ctx = &s};
	struct bci_stats st;
	uint8_t *out = NULL;
	char err[256];
	struct cf_class c;

	CHECK(in != NULL);
	if (!in)
		return;
	CHECK(bci_rewrite_class(in, len, &cfg, &out, &olen, &st, err, sizeof(err)) == 0);
	CHECK(listed(s.tiny, s.ntiny, "empty"));
	CHECK(listed(s.tiny, s.ntiny, "earlyReturns"));
	CHECK(listed(s.tiny, s.ntiny, "cond"));
	const char *full[] = {"fib", "loop", "add", "addAll", "<init>", "<clinit>", "run"};
	for (size_t i = 0; i < sizeof(full) / sizeof(full[0]); i++) {
		CHECK(listed(s.full, s.nfull, full[i]));
		CHECK(!listed(s.tiny, s.ntiny, full[i]));
	}
	CHECK_EQ_U(st.tiny, s.ntiny);
	CHECK_EQ_U(st.instrumented, s.ntiny + s.nfull);
	CHECK(out && cf_parse(out, olen, &c, err, sizeof(err)) == 0);
	for (uint16_t i = 0; out && i < c.nmethods; i++) {
		char name[64];
		struct cf_code code;

		cf_utf8_str(&c, c.methods[i].name, name, sizeof(name));
		if (strcmp(name, "empty"))
			continue;
		for (uint16_t a = 0; a < c.methods[i].nattrs; a++)
			if (cf_utf8_eq(&c, c.methods[i].attrs[a].name, "Code") &&
			    !cf_code_parse(&c.methods[i].attrs[a], &code, err, sizeof(err))) {
				/* sipush slot; invokestatic count; return */
				CHECK_EQ_U(code.code_len, 7);
				CHECK_EQ_U(code.code[0], 0x11);
				CHECK_EQ_U(code.code[3], 0xb8);
				CHECK_EQ_U(code.code[6], 0xb1);
				CHECK_EQ_U(code.nexc, 0);
				cf_code_free(&code);
			}
	}
	if (out)
		cf_free(&c);
	free(out);
	/* without tiny_id, the same methods get every probe */
	memset(&s, 0, sizeof(s));
	s.next_id = 1;
	out = NULL;
	CHECK(bci_rewrite_class(in, len, &plain, &out, &olen, &st, err, sizeof(err)) == 0);
	CHECK_EQ_U(st.tiny, 0);
	CHECK_EQ_U(s.ntiny, 0);
	CHECK(listed(s.full, s.nfull, "empty"));
	free(out);
	/* with inlined_id too: the loop-free methods that are not tiny reach
	 * it (fib: a call; add: synchronized; the constructor: super()), the
	 * tiny ones still tiny_id, the looping ones method_id */
	cfg.inlined_id = inlined_slot;
	cfg.is_loop_free = bci_loop_free;
	memset(&s, 0, sizeof(s));
	s.next_id = 1;
	out = NULL;
	CHECK(bci_rewrite_class(in, len, &cfg, &out, &olen, &st, err, sizeof(err)) == 0);
	const char *inl[] = {"fib", "add", "<init>"}, *loops[] = {"loop", "addAll", "<clinit>"},
		   *tiny[] = {"empty", "earlyReturns", "cond"};
	for (size_t i = 0; i < 3; i++) {
		CHECK(listed(s.inl, s.ninl, inl[i]) && !listed(s.full, s.nfull, inl[i]));
		CHECK(listed(s.full, s.nfull, loops[i]) && !listed(s.inl, s.ninl, loops[i]));
		CHECK(listed(s.tiny, s.ntiny, tiny[i]) && !listed(s.inl, s.ninl, tiny[i]));
	}
	CHECK_EQ_U(st.inlined, s.ninl);
	CHECK_EQ_U(st.tiny, s.ntiny);
	CHECK_EQ_U(st.instrumented, s.ntiny + s.nfull + s.ninl);
	free(out);
	free(owned);
}

int main(int argc, char **argv)
{
	(void)argc;
	corpus_load(argv[0]);
	RUN(test_shapes);
	RUN(test_not_tiny);
	RUN(test_corpus_basics);
	corpus_free();
	return test_summary("bci-tiny");
}
