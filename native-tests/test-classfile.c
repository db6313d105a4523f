/*
 * test-classfile.c - the class-file parser/writer (agent/bci/classfile.c)
 * on real class files compiled from native-tests/bci/src (make puts them
 * in BUILD/bci/classes) and on a hand-assembled class holding every
 * constant pool tag: byte-identical round trips, every cut and broken
 * file refused (and not rewritten), references past the pool, extended
 * stack map frames.
 *
 * The rewriter's own tests: test-bci-rewrite.c.
 */
#include <stdlib.h>
#include <string.h>

#include "agent/bci/bci_rewrite.h"
#include "agent/bci/classfile.h"
#include "native-tests/classcorpus.h"
#include "native-tests/test.h"

static void test_corpus_present(void)
{
	size_t len;
	uint8_t *p;

	CHECK(nfiles >= 20);
	CHECK(find_file("/bcitest/Big.class", &len, &p) != NULL);
	free(p);
	CHECK(find_file("/bcitest/Modern$Point.class", &len, &p) != NULL);
	free(p);
}

/* Parse + write of every class, of every Code attribute and StackMapTable,
 * is byte-identical. */
static void test_round_trip(void)
{
	unsigned codes = 0, smts = 0, frames = 0, tags[32] = {0};

	for (int i = 0; i < nfiles; i++) {
		struct cf_class c;
		char err[256];
		size_t len, olen;
		uint8_t *in = slurp(files[i], &len), *out = NULL;

		CHECK(in != NULL);
		if (!in)
			continue;
		if (cf_parse(in, len, &c, err, sizeof(err))) {
			fprintf(stderr, "  %s: %s\n", files[i], err);
			CHECK(0);
			free(in);
			continue;
		}
		for (uint32_t k = 1; k < c.cp_count; k++)
			tags[c.cp[k].tag & 31]++;
		CHECK(cf_write(&c, &out, &olen) == 0);
		CHECK_EQ_U(olen, len);
		CHECK(out && olen == len && memcmp(out, in, len) == 0);
		free(out);
		for (uint16_t m = 0; m < c.nmethods; m++)
			for (uint16_t a = 0; a < c.methods[m].nattrs; a++) {
				const struct cf_attr *at = &c.methods[m].attrs[a];
				struct cf_code code;
				uint32_t clen;
				if (!cf_utf8_eq(&c, at->name, "Code"))
					continue;
				CHECK(cf_code_parse(at, &code, err, sizeof(err)) == 0);
				uint8_t *body = cf_code_write(&code, &clen);
				CHECK(body && clen == at->len && memcmp(body, at->data, clen) == 0);
				free(body);
				codes++;
				for (uint16_t k = 0; k < code.nattrs; k++) {
					struct cf_smt s;
					if (!cf_utf8_eq(&c, code.attrs[k].name, "StackMapTable"))
						continue;
					CHECK(cf_smt_parse(code.attrs[k].data, code.attrs[k].len,
							   &s, err, sizeof(err)) == 0);
					body = cf_smt_write(&s, &clen);
					CHECK(body && clen == code.attrs[k].len &&
					      memcmp(body, code.attrs[k].data, clen) == 0);
					free(body);
					frames += s.nframes;
					smts++;
					cf_smt_free(&s);
				}
				cf_code_free(&code);
			}
		cf_free(&c);
		free(in);
	}
	CHECK(codes > 80);
	CHECK(smts > 30);
	CHECK(frames > 100);
	/* javac's output uses these tags (lambdas: InvokeDynamic, MethodHandle,
	 * MethodType); the hand-made class covers the rest. */
	CHECK(tags[CF_INVOKEDYNAMIC] > 0 && tags[CF_METHODHANDLE] > 0 && tags[CF_METHODTYPE] > 0);
	CHECK(tags[CF_LONG] > 0 && tags[CF_DOUBLE] > 0 && tags[CF_INTEGER] > 0);
}

/* A class with every constant pool tag, assembled by hand. */
static const uint8_t all_tags[] = {
    0xca,	   0xfe, 0xba, 0xbe, 0x00, 0x00, 0x00, 0x45, /* magic, 0.69 */
    0x00,	   0x17,				     /* cp_count 23 */
    /* 1 */ 0x01,  0x00, 0x01, 'A',
    /* 2 */ 0x07,  0x00, 0x01,
    /* 3 */ 0x01,  0x00, 0x10, 'j',  'a',  'v',	 'a',  '/',  'l',  'a',	 'n',
    'g',	   '/',	 'O',  'b',  'j',  'e',	 'c',  't',
    /* 4 */ 0x07,  0x00, 0x03,
    /* 5 */ 0x03,  0x80, 0x00, 0x00, 0x01,
    /* 6 */ 0x04,  0x3f, 0x80, 0x00, 0x00,
    /* 7 */ 0x05,  0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* 8 unusable */
    /* 9 */ 0x06,  0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18, /* 10 unusable */
    /* 11 */ 0x08, 0x00, 0x01,
    /* 12 */ 0x01, 0x00, 0x01, 'I',
    /* 13 */ 0x0c, 0x00, 0x01, 0x00, 0x0c,
    /* 14 */ 0x09, 0x00, 0x02, 0x00, 0x0d,
    /* 15 */ 0x0a, 0x00, 0x02, 0x00, 0x0d,
    /* 16 */ 0x0b, 0x00, 0x02, 0x00, 0x0d,
    /* 17 */ 0x0f, 0x06, 0x00, 0x0f,
    /* 18 */ 0x10, 0x00, 0x0c,
    /* 19 */ 0x11, 0x00, 0x00, 0x00, 0x0d,
    /* 20 */ 0x12, 0x00, 0x00, 0x00, 0x0d,
    /* 21 */ 0x13, 0x00, 0x01,
    /* 22 */ 0x14, 0x00, 0x01, 0x00, 0x21, 0x00, 0x02, 0x00, 0x04,	 /* access, this, super */
    0x00,	   0x00,						 /* interfaces */
    0x00,	   0x01, 0x00, 0x08, 0x00, 0x01, 0x00, 0x0c, 0x00, 0x00, /* field static int A */
    0x00,	   0x00,						 /* methods */
    0x00,	   0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x03, 0xaa, 0xbb, 0xcc, /* attribute "A" */
};

static void test_all_tags(void)
{
	struct cf_class c;
	char err[256], buf[64];
	uint8_t *out = NULL;
	size_t olen;

	CHECK(cf_parse(all_tags, sizeof(all_tags), &c, err, sizeof(err)) == 0);
	CHECK_EQ_U(c.major, 69);
	CHECK_EQ_U(c.cp[5].value, 0x80000001u);
	CHECK_EQ_U(c.cp[7].value, 0x0102030405060708ull);
	CHECK_EQ_U(c.cp[8].tag, 0);
	CHECK_EQ_U(c.cp[17].a, 6);
	CHECK_EQ_U(c.cp[17].b, 15);
	CHECK_EQ_U(c.cp[21].tag, CF_MODULE);
	CHECK_EQ_U(c.cp[22].tag, CF_PACKAGE);
	CHECK_STR(cf_utf8_str(&c, c.super_class, buf, sizeof(buf)), "java/lang/Object");
	CHECK_EQ_U(c.nfields, 1);
	CHECK_EQ_U(c.attrs[0].len, 3);
	CHECK(cf_write(&c, &out, &olen) == 0);
	CHECK(olen == sizeof(all_tags) && memcmp(out, all_tags, olen) == 0);
	free(out);

	/* find-or-add */
	CHECK_EQ_U(cf_cp_utf8(&c, "A"), 1);
	CHECK_EQ_U(cf_cp_class(&c, "java/lang/Object"), 4);
	CHECK_EQ_U(cf_cp_integer(&c, (int32_t)0x80000001u), 5);
	uint16_t m = cf_cp_methodref(&c, "jcal/Tracker", "enter", "(I)V");
	CHECK_EQ_U(m, 28); /* Utf8, Class, Utf8 x2, NameAndType, then the ref */
	CHECK_EQ_U(cf_cp_methodref(&c, "jcal/Tracker", "enter", "(I)V"), m);
	CHECK_EQ_U(c.cp_count, 29);
	CHECK(cf_write(&c, &out, &olen) == 0);
	cf_free(&c);
	CHECK(cf_parse(out, olen, &c, err, sizeof(err)) == 0);
	CHECK_STR(cf_utf8_str(&c, c.cp[c.cp[28].a].a, buf, sizeof(buf)), "jcal/Tracker");
	cf_free(&c);
	free(out);
}

/* Every truncation and a few corruptions fail cleanly (ASan watches). */
static void test_malformed(void)
{
	size_t len;
	uint8_t *in = NULL;
	const uint8_t *p = find_file("/bcitest/Switches.class", &len, &in);
	struct cf_class c;
	char err[256];

	CHECK(p != NULL);
	if (!p)
		return;
	for (size_t n = 0; n < len; n++) {
		int rc = cf_parse(p, n, &c, err, sizeof(err));
		CHECK(rc == -1);
		CHECK(err[0] != '\0');
		cf_free(&c);
	}
	uint8_t *bad = malloc(len + 1);
	memcpy(bad, p, len);
	bad[len] = 0;
	CHECK(cf_parse(bad, len + 1, &c, err, sizeof(err)) == -1);
	CHECK(strstr(err, "after the end") != NULL);
	cf_free(&c);
	bad[10] = 2; /* first constant: tag 2 does not exist */
	CHECK(cf_parse(bad, len, &c, err, sizeof(err)) == -1);
	CHECK(strstr(err, "unknown tag") != NULL);
	cf_free(&c);
	bad[0] = 0;
	CHECK(cf_parse(bad, len, &c, err, sizeof(err)) == -1);
	cf_free(&c);
	/* rewriting random garbage fails cleanly too */
	for (size_t k = 0; k < len; k++)
		bad[k] = (uint8_t)(p[k] ^ (k % 7 == 3 ? 0x5a : 0));
	uint8_t *out;
	size_t olen;
	struct bci_stats st;
	struct bci_config cfg = {0};
	(void)bci_rewrite_class(bad, len, &cfg, &out, &olen, &st, err, sizeof(err));
	free(out);
	free(bad);
	free(in);
}

/* An index past the constant pool would name the probes' constants once the
 * rewriter appends them: the parser refuses it (found by fuzz-bci-rewrite). */
static void test_refs_past_pool(void)
{
	/* offsets in all_tags: slot 11 String's index, the field's descriptor,
	 * the super_class, the class attribute's name */
	static const struct {
		size_t at;
		const char *what;
	} cases[] = {{68, "slot 11"},
		     {sizeof(all_tags) - 17, "field 0"},
		     {sizeof(all_tags) - 27, "super_class"},
		     {sizeof(all_tags) - 9, "class attribute"}};
	struct cf_class c;
	char err[256];
	uint8_t bad[sizeof(all_tags)];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(bad, all_tags, sizeof(bad));
		bad[cases[i].at] = 0x00;
		bad[cases[i].at + 1] = 0x17; /* 23 = cp_count: one past the pool */
		CHECK(cf_parse(bad, sizeof(bad), &c, err, sizeof(err)) == -1);
		CHECK(strstr(err, cases[i].what) != NULL && strstr(err, "past the") != NULL);
		if (!strstr(err, cases[i].what))
			fprintf(stderr, "  %s: %s\n", cases[i].what, err);
		cf_free(&c);
	}
}

static void test_smt_extended(void)
{
	/* same_frame delta 5, same_locals_1 (int) delta 2, chop 1 delta 300 */
	static const uint8_t smt[] = {0x00, 0x03, 0x05, 0x42, 0x01, 0xfa, 0x01, 0x2c};
	struct cf_smt s;
	char err[128];
	uint32_t len;

	CHECK(cf_smt_parse(smt, sizeof(smt), &s, err, sizeof(err)) == 0);
	CHECK_EQ_U(s.nframes, 3);
	CHECK_EQ_U(s.frames[1].delta, 2);
	CHECK_EQ_U(s.vt[s.frames[1].stack].tag, CF_VT_INTEGER);
	CHECK_EQ_U(s.frames[2].delta, 300);
	s.frames[0].delta = 64;	 /* -> same_frame_extended */
	s.frames[1].delta = 100; /* -> same_locals_1_stack_item_extended */
	uint8_t *p = cf_smt_write(&s, &len);
	static const uint8_t want[] = {0x00, 0x03, 0xfb, 0x00, 0x40, 0xf7,
				       0x00, 0x64, 0x01, 0xfa, 0x01, 0x2c};
	CHECK(p && len == sizeof(want) && memcmp(p, want, len) == 0);
	free(p);
	cf_smt_free(&s);
	CHECK(cf_smt_parse(smt, sizeof(smt) - 1, &s, err, sizeof(err)) == -1);
}

int main(int argc, char **argv)
{
	(void)argc;
	corpus_load(argv[0]);
	RUN(test_corpus_present);
	RUN(test_round_trip);
	RUN(test_all_tags);
	RUN(test_malformed);
	RUN(test_refs_past_pool);
	RUN(test_smt_extended);
	corpus_free();
	return test_summary("classfile");
}
