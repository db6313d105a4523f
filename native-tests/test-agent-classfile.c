/*
 * test-agent-classfile.c - the class-file parser/writer (agent/bci/classfile.c)
 * and the bci rewriter (agent/bci/bci_rewrite.c) on real class files compiled
 * from native-tests/bci/src (make puts them in BUILD/bci/classes) and on a
 * hand-assembled class holding every constant pool tag.
 *
 * The JVM verifier half of the rewriter tests is native-tests/bci/run.sh.
 */
#include <dirent.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agent/bci/bci_rewrite.h"
#include "agent/bci/classfile.h"
#include "native-tests/test.h"

#define MAX_FILES 256

static char class_dir[4096];
static char *files[MAX_FILES];
static int nfiles;

static void find_classes(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && nfiles < MAX_FILES) {
		char path[4096];
		struct stat sb;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &sb))
			continue;
		if (S_ISDIR(sb.st_mode))
			find_classes(path);
		else if (strlen(e->d_name) > 6 &&
			 !strcmp(e->d_name + strlen(e->d_name) - 6, ".class"))
			files[nfiles++] = strdup(path);
	}
	closedir(d);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		p = malloc((size_t)n);
		if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
			free(p);
			p = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return p;
}

static const uint8_t *find_file(const char *suffix, size_t *len, uint8_t **owned)
{
	for (int i = 0; i < nfiles; i++) {
		size_t n = strlen(files[i]), m = strlen(suffix);
		if (n >= m && !strcmp(files[i] + n - m, suffix))
			return *owned = slurp(files[i], len);
	}
	return *owned = NULL;
}

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
	char self[4096];
	snprintf(self, sizeof(self), "%s", argv[0]);
	snprintf(class_dir, sizeof(class_dir), "%s/../bci/classes", dirname(self));
	find_classes(class_dir);
	if (nfiles == 0)
		fprintf(stderr, "  no class files under %s (make builds them)\n", class_dir);
	RUN(test_corpus_present);
	RUN(test_round_trip);
	RUN(test_all_tags);
	RUN(test_malformed);
	RUN(test_refs_past_pool);
	RUN(test_smt_extended);
	RUN(test_insn_len);
	RUN(test_rewrite_classes);
	RUN(test_rewrite_tracker_untouched);
	for (int i = 0; i < nfiles; i++)
		free(files[i]);
	return test_summary("agent-classfile");
}
