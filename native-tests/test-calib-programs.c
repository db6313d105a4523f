/*
 * test-calib-programs.c - the calibration workload's programs
 * (calibrator/calib_programs.c) are well formed and, run from the thread
 * root as the calibrator thread runs them, produce every sequence key
 * reachable in mode=events and no other (the mode=bci programs, with I/i
 * jitted and H/h interpreted: every key of types I i J j O, natives aside,
 * those mixing interpreted and jitted types included).
 */
#include <stdlib.h>
#include <string.h>

#include "calibrator/calib_programs.h"
#include "common/seqkey.h"
#include "native-tests/test.h"

/* Trace method type of each node type (CALIB_I ... CALIB_h): mode=events
 * runs interpreted; mode=bci after its warm-up has I and i compiled (J j)
 * while H and h, too long to compile, stay interpreted; its cold round
 * runs all four interpreted. */
static const unsigned events_types[CALIB_NODE_TYPES] = {JCAL_MT_INTERP_STATIC, JCAL_MT_INTERP,
							JCAL_MT_NATIVE_STATIC, JCAL_MT_NATIVE,
							JCAL_MT_INTERP_STATIC, JCAL_MT_INTERP};
static const unsigned bci_warm_types[CALIB_NODE_TYPES] = {JCAL_MT_JIT_STATIC,	 JCAL_MT_JIT,
							  JCAL_MT_NATIVE_STATIC, JCAL_MT_NATIVE,
							  JCAL_MT_INTERP_STATIC, JCAL_MT_INTERP};

struct sim {
	const unsigned *mtype;
	struct seqkey_stepper st;
	unsigned char seen[SEQKEY_COUNT];
	unsigned events;
	int bad;
};

static void emit(struct sim *s, int type, unsigned transition)
{
	struct seqkey_step out;
	if (seqkey_step(&s->st, (uint32_t)type + 1, transition, s->mtype[type], &out) != 0) {
		s->bad = 1;
		return;
	}
	s->events++;
	if (out.has_key)
		s->seen[seqkey_index(&out.key)] = 1;
}

/* Runs node pc as Workload.java does; returns 1 when it exits by exception. */
static int run(struct sim *s, const int32_t *code, int pc)
{
	int type = code[pc], flags = code[pc + 1], n = code[pc + 2], c = pc + 4;

	emit(s, type, JCAL_TR_ENTRY);
	for (int k = 0; k < n; k++) {
		if (run(s, code, c) && !(flags & CALIB_CATCHES)) {
			emit(s, type, JCAL_TR_THROW);
			return 1;
		}
		c += code[c + 3];
	}
	emit(s, type, (flags & CALIB_THROWS) ? JCAL_TR_THROW : JCAL_TR_EXIT);
	return (flags & CALIB_THROWS) != 0;
}

static void test_programs_well_formed(void)
{
	struct calib_prog *p;
	size_t n = calib_programs_build(&p);

	CHECK(n > 300);
	for (size_t i = 0; i < n; i++)
		CHECK(calib_program_check(&p[i]) == 0);
	/* A broken size is caught. */
	p[0].code[3]++;
	CHECK(calib_program_check(&p[0]) == -1);
	calib_programs_free(p, n);
}

static void test_programs_cover_every_reachable_key(void)
{
	struct calib_prog *p;
	size_t n = calib_programs_build(&p);
	struct sim *s = calloc(1, sizeof(*s));
	unsigned reachable = 0, covered = 0, extra = 0;
	char name[SEQKEY_TEXT_LEN];

	seqkey_stepper_init(&s->st);
	s->mtype = events_types;
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < n; i++)
			run(s, p[i].code, 0);
	CHECK(!s->bad);
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		struct seqkey k;
		seqkey_from_index(i, &k);
		int r = seqkey_reachable(SEQKEY_MODE_EVENTS, &k);
		reachable += r;
		covered += r && s->seen[i];
		if (!r && s->seen[i]) {
			extra++;
			fprintf(stderr, "  unreachable key produced: %s\n",
				seqkey_format(&k, name));
		} else if (r && !s->seen[i]) {
			fprintf(stderr, "  reachable key missed: %s\n", seqkey_format(&k, name));
		}
	}
	CHECK_EQ_U(reachable, 600);
	CHECK_EQ_U(covered, reachable);
	CHECK_EQ_U(extra, 0);
	seqkey_stepper_free(&s->st);
	free(s);
	calib_programs_free(p, n);
}

/* Whether a key has only types m (and O): 1 << letter index in IiJjNnO. */
static int key_types_in(const struct seqkey *k, unsigned mask)
{
	mask |= 1u << JCAL_MT_OTHER;
	return (mask >> k->m1 & 1) && (mask >> k->m2 & 1) && (mask >> k->m3 & 1);
}

/* Coverage of the bci programs run with types: keys reachable in mode=bci
 * whose types are in mask; no key outside mask may appear. Returns the
 * number of keys that mix interpreted (I i) with jitted (J j) types. */
static unsigned bci_coverage(const unsigned *types, unsigned mask, unsigned expect,
			     const char *what)
{
	const unsigned interp = 1u << JCAL_MT_INTERP_STATIC | 1u << JCAL_MT_INTERP;
	const unsigned jit = 1u << JCAL_MT_JIT_STATIC | 1u << JCAL_MT_JIT;
	struct calib_prog *p;
	size_t n = calib_programs_build_bci(&p);
	struct sim *s = calloc(1, sizeof(*s));
	unsigned reachable = 0, covered = 0, extra = 0, mixed = 0;
	char name[SEQKEY_TEXT_LEN];

	CHECK(n > 300);
	for (size_t i = 0; i < n; i++) {
		CHECK(calib_program_check(&p[i]) == 0);
		for (int pc = 0; pc < p[i].len; pc += 4) /* every header: no native */
			CHECK(p[i].code[pc] == CALIB_I || p[i].code[pc] == CALIB_i ||
			      p[i].code[pc] == CALIB_H || p[i].code[pc] == CALIB_h);
	}
	seqkey_stepper_init(&s->st);
	s->mtype = types;
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < n; i++)
			run(s, p[i].code, 0);
	CHECK(!s->bad);
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		struct seqkey k;
		seqkey_from_index(i, &k);
		int r = seqkey_reachable(SEQKEY_MODE_BCI, &k) && key_types_in(&k, mask);
		reachable += r;
		covered += r && s->seen[i];
		mixed += s->seen[i] && !key_types_in(&k, interp) && !key_types_in(&k, jit);
		if (!r && s->seen[i]) {
			extra++;
			fprintf(stderr, "  unexpected key produced: %s\n", seqkey_format(&k, name));
		} else if (r && !s->seen[i]) {
			fprintf(stderr, "  reachable key missed: %s\n", seqkey_format(&k, name));
		}
	}
	CHECK_EQ_U(reachable, expect);
	CHECK_EQ_U(covered, reachable);
	CHECK_EQ_U(extra, 0);
	fprintf(stderr, "  bci programs, %s: %u of %u keys, %u mixed\n", what, covered, reachable,
		mixed);
	seqkey_stepper_free(&s->st);
	free(s);
	calib_programs_free(p, n);
	return mixed;
}

static void test_bci_programs_cover_interpreted_and_jitted_keys(void)
{
	const unsigned interp = 1u << JCAL_MT_INTERP_STATIC | 1u << JCAL_MT_INTERP;
	const unsigned jit = 1u << JCAL_MT_JIT_STATIC | 1u << JCAL_MT_JIT;
	unsigned mixed = 0, all = 0;
	struct seqkey k;

	/* The cold round, all interpreted: keys of I i O (96)... */
	CHECK_EQ_U(bci_coverage(events_types, interp, 96, "cold round, interpreted"), 0);
	/* ...and after the warm-up every key of I i J j O, those mixing
	 * interpreted and jitted types included: J calling H (J:E:I),
	 * H returning to J (I:X:J), and so on. */
	CHECK_EQ_U(bci_coverage(bci_warm_types, interp | jit, 600, "warm, I/i jitted, H/h not"),
		   408);
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		seqkey_from_index(i, &k);
		if (!seqkey_reachable(SEQKEY_MODE_BCI, &k) || !key_types_in(&k, interp | jit))
			continue;
		all++;
		mixed += !key_types_in(&k, interp) && !key_types_in(&k, jit);
	}
	CHECK_EQ_U(all, 600);
	CHECK_EQ_U(mixed, 408);
}

int main(void)
{
	RUN(test_programs_well_formed);
	RUN(test_programs_cover_every_reachable_key);
	RUN(test_bci_programs_cover_interpreted_and_jitted_keys);
	return test_summary("calib-programs");
}
