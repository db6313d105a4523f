/*
 * test-agent-calib.c - the calibration workload's pure parts: the programs
 * (calibrator/calib_programs.c) are well formed and, run from the thread root as
 * the calibrator thread runs them, produce every sequence key reachable in
 * mode=events and no other (the mode=bci programs, with I/i jitted and
 * H/h interpreted: every key of types I i J j O, natives aside, those
 * mixing interpreted and jitted types included); the environment model (calibrator/calib_env.c)
 * parses the env timer's output and splits call costs over keys; the
 * env-timer child's environment (calibrator/calib_child.c) has no jcal option in
 * the JVM option variables, keeps the rest, and carries the marker that
 * makes an agent in that child refuse.
 */
#include <stdlib.h>
#include <string.h>

#include "calibrator/calib_child.h"
#include "calibrator/calib_env.h"
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

static const char env_text[] =
    "call I I 80.0\ncall I i 84.0\ncall I N 20.0\ncall I n 22.0\n"
    "call i I 81.0\ncall i i 85.0\ncall i N 21.0\ncall i n 23.0\n"
    "call N I 300.0\ncall N i 310.0\ncall N N 150.0\ncall N n 160.0\n"
    "call n I 301.0\ncall n i 311.0\ncall n N 151.0\ncall n n 161.0\n"
    "throw I I 900.0\nthrow I i 910.0\nthrow I N 700.0\nthrow I n 710.0\n"
    "throw i I 901.0\nthrow i i 911.0\nthrow i N 701.0\nthrow i n 711.0\n"
    "throw N I 1000.0\nthrow N i 1010.0\nthrow N N 800.0\nthrow N n 810.0\n"
    "throw n I 1001.0\nthrow n i 1011.0\nthrow n N 801.0\nthrow n n 811.0\n"
    "done\n";

static void test_env_model(void)
{
	struct calib_env e;
	char err[256];

	CHECK(calib_env_parse(&e, env_text, err, sizeof(err)) == 0);
	/* Entry then exit of an empty method: its body costs nothing. */
	CHECK(calib_env_key(&e, "I:E:i:X:I") == 0);
	/* Step ending at an entry: the first half of the call. */
	CHECK(calib_env_key(&e, "O:E:I:E:i") == 42.0);
	/* Return then call: the rest of one call plus the start of the next. */
	CHECK(calib_env_key(&e, "i:X:I:E:N") == 84.0 / 2 + 20.0 / 2);
	/* Exception return: the throwing cost minus the half charged on entry. */
	CHECK(calib_env_key(&e, "n:T:i:X:I") == 711.0 - 23.0 / 2);
	/* Around a whole call the halves add up to the measured cost. */
	CHECK(calib_env_key(&e, "I:E:I:E:n") + calib_env_key(&e, "n:X:I:X:O") == 22.0);
	/* Jitted and root types are costed like their interpreted/static twins. */
	CHECK(calib_env_key(&e, "J:X:j:E:O") == calib_env_key(&e, "I:X:i:E:I"));
	CHECK(calib_env_key(&e, "I:Q:i:X:I") < 0);
	CHECK(calib_env_key(&e, "I:E:i:X") < 0);
}

/* The work loops' costs (mode=bci's env timer): optional, per type and
 * length; a malformed line names itself. */
static void test_env_work(void)
{
	struct calib_env e;
	char err[256], text[4096];

	CHECK(calib_env_parse(&e, env_text, err, sizeof(err)) == 0);
	CHECK(calib_env_work(&e, 'I', 8) == -1);
	snprintf(text, sizeof(text), "%.*swork J 8 12.5\nwork J 128 300.0\nwork i 8 70.0\ndone\n",
		 (int)(sizeof(env_text) - 6), env_text);
	CHECK(calib_env_parse(&e, text, err, sizeof(err)) == 0);
	CHECK(calib_env_work(&e, 'J', 8) == 12.5);
	CHECK(calib_env_work(&e, 'J', 128) == 300.0);
	CHECK(calib_env_work(&e, 'i', 8) == 70.0);
	CHECK(calib_env_work(&e, 'i', 128) == -1);
	CHECK(calib_env_work(&e, 'X', 8) == -1);
	CHECK_EQ_U(e.nwork, 2);
	snprintf(text, sizeof(text), "%.*swork J eight 12.5\ndone\n", (int)(sizeof(env_text) - 6),
		 env_text);
	CHECK(calib_env_parse(&e, text, err, sizeof(err)) == -1);
	CHECK_STR(err, "env timer output line 33 not understood: 'work J eight 12.5'");
	snprintf(text, sizeof(text), "%.*swork J 0 12.5\ndone\n", (int)(sizeof(env_text) - 6),
		 env_text);
	CHECK(calib_env_parse(&e, text, err, sizeof(err)) == -1);
}

/* mode=bci: I i = never-compiled node methods, J j = compiled ones. */
static const char env_bci_text[] =
    "call I I 80.0\ncall I i 84.0\ncall I J 20.0\ncall I j 22.0\n"
    "call i I 81.0\ncall i i 85.0\ncall i J 21.0\ncall i j 23.0\n"
    "call J I 90.0\ncall J i 94.0\ncall J J 0.0\ncall J j 1.0\n"
    "call j I 91.0\ncall j i 95.0\ncall j J 2.0\ncall j j 0.0\n"
    "throw I I 200.0\nthrow I i 210.0\nthrow I J 100.0\nthrow I j 104.0\n"
    "throw i I 201.0\nthrow i i 211.0\nthrow i J 101.0\nthrow i j 105.0\n"
    "throw J I 160.0\nthrow J i 164.0\nthrow J J 0.0\nthrow J j 60.0\n"
    "throw j I 161.0\nthrow j i 165.0\nthrow j J 62.0\nthrow j j 0.0\n"
    "done\n";

static void test_env_model_bci(void)
{
	struct calib_env e;
	char err[256];

	CHECK(calib_env_parse(&e, env_bci_text, err, sizeof(err)) == 0);
	/* Interpreted and jitted types have costs of their own. */
	CHECK(calib_env_key(&e, "I:E:I:E:I") == 40.0);
	CHECK(calib_env_key(&e, "I:E:I:E:J") == 10.0);
	CHECK(calib_env_key(&e, "J:E:J:E:I") == 45.0);
	CHECK(calib_env_key(&e, "J:E:J:E:J") == 0.0);
	/* Compiled j returning to interpreted i, then i calling J. */
	CHECK(calib_env_key(&e, "j:X:i:E:J") == 23.0 / 2 + 21.0 / 2);
	/* A throw from interpreted I caught in compiled j. */
	CHECK(calib_env_key(&e, "I:T:j:X:O") == 161.0 - 91.0 / 2);
	/* Around a whole call from J to i the halves add up to its cost. */
	CHECK(calib_env_key(&e, "O:E:J:E:i") + calib_env_key(&e, "i:X:J:X:O") == 94.0);
	/* The root O calls like an interpreted static method. */
	CHECK(calib_env_key(&e, "I:X:O:E:J") == 80.0 / 2 + 20.0 / 2);
	/* Natives were not measured: no cost rather than a guess. */
	CHECK(calib_env_key(&e, "N:X:I:X:O") < 0);
	CHECK(calib_env_key(&e, "J:E:J:E:n") < 0);
	/* A jitted pair is incomplete: the output is refused, naming it. */
	char cut[sizeof(env_bci_text)];
	snprintf(cut, sizeof(cut), "%s", env_bci_text);
	char *line = strstr(cut, "throw J j 60.0\n");
	CHECK(line != NULL);
	if (line) {
		memmove(line, line + strlen("throw J j 60.0\n"),
			strlen(line + strlen("throw J j 60.0\n")) + 1);
		CHECK(calib_env_parse(&e, cut, err, sizeof(err)) == -1);
		CHECK(strstr(err, "J -> j") != NULL);
	}
}

static void test_env_parse_errors(void)
{
	struct calib_env e;
	char err[256];

	CHECK(calib_env_parse(&e, "call I I 80\n", err, sizeof(err)) == -1);
	CHECK(strstr(err, "done") != NULL);
	CHECK(calib_env_parse(&e, "call I X 80\ndone\n", err, sizeof(err)) == -1);
	CHECK(strstr(err, "line 1") != NULL);
	CHECK(calib_env_parse(&e, "call I I -5\ndone\n", err, sizeof(err)) == -1);
	CHECK(calib_env_parse(&e, "jump I I 5\ndone\n", err, sizeof(err)) == -1);
	CHECK(strstr(err, "jump") != NULL);
	CHECK(calib_env_parse(&e, "call I I 80\ndone\n", err, sizeof(err)) == -1);
	CHECK(strstr(err, "lacks") != NULL);
	CHECK(calib_env_parse(&e, "call I O 80\ndone\n", err, sizeof(err)) == -1);
	CHECK(strstr(err, "line 1") != NULL);
	CHECK(calib_env_parse(&e, "call J J nan\ndone\n", err, sizeof(err)) == -1);
	CHECK(strstr(err, "line 1") != NULL);
	/* an events-mode output with one jitted line must have every I i J j pair */
	CHECK(calib_env_parse(&e, "call J J 1\ndone\n", err, sizeof(err)) == -1);
	CHECK(strstr(err, "lacks") != NULL);
}

static void test_child_strip_agent(void)
{
	static const struct {
		const char *in, *self, *out;
		unsigned removed;
	} cases[] = {
	    {"", NULL, "", 0},
	    {"   ", NULL, "", 0},
	    {"-agentpath:/x/build/libjcal.so=calibrate", NULL, "", 1},
	    {"-Xss2m -agentpath:/x/libjcal.so=trace,recalibrate=start -Dx=1", NULL, "-Xss2m -Dx=1",
	     1},
	    {"  -Xss2m\t-agentlib:jcal=calibrate  ", NULL, "-Xss2m", 1},
	    {"-agentlib:jcal -agentlib:jcalx -agentlib:jca", NULL, "-agentlib:jcalx -agentlib:jca",
	     1},
	    {"-agentpath:libjcal.so", NULL, "", 1},
	    {"-agentpath:/x/libjcal.so.1=trace -agentpath:/x/libother.so", NULL,
	     "-agentpath:/x/libjcal.so.1=trace -agentpath:/x/libother.so", 0},
	    /* quotes group as the JVM reads them, and are kept in what stays */
	    {"'-Dp=a b' \"-agentpath:/a dir/libjcal.so=calibrate\" -Dq=\"c d\"", NULL,
	     "'-Dp=a b' -Dq=\"c d\"", 1},
	    {"-agentpath:/x/\"lib\"jcal.so", NULL, "", 1},
	    /* a renamed copy: only when it is this library */
	    {"-agentpath:/opt/j/prof.so=trace -Xint", "/opt/j/prof.so", "-Xint", 1},
	    {"-agentpath:/opt/j/prof.so=trace -Xint", "/opt/k/prof.so",
	     "-agentpath:/opt/j/prof.so=trace -Xint", 0},
	    {"-agentpath:", NULL, "-agentpath:", 0},
	    {"-agentpath:/x/libjcal.so=a -agentpath:/y/libjcal.so=b", NULL, "", 2},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[256];
		unsigned n = calib_child_strip_agent(cases[i].in, cases[i].self, out);
		CHECK_STR(out, cases[i].out);
		CHECK_EQ_U(n, cases[i].removed);
	}
}

static const char *env_get(char **env, const char *name)
{
	size_t len = strlen(name);
	const char *found = NULL;
	int n = 0;

	for (char **e = env; *e; e++)
		if (!strncmp(*e, name, len) && (*e)[len] == '=') {
			found = *e + len + 1;
			n++;
		}
	return n == 1 ? found : n ? "(twice)" : NULL;
}

static void test_child_env(void)
{
	char *in[] = {"PATH=/bin",
		      "JAVA_TOOL_OPTIONS=-Xss2m -agentpath:/w/libjcal.so=calibrate",
		      "JDK_JAVA_OPTIONS=-agentlib:jcal=trace",
		      "_JAVA_OPTIONS=-Dkeep=1",
		      "JCAL_CALIBRATION_CHILD=99",
		      "JAVA_TOOL_OPTIONS_X=-agentpath:/w/libjcal.so",
		      "EMPTY=",
		      NULL};
	char **env = calib_child_env(in, "/w/libjcal.so", 1234);

	CHECK(env != NULL);
	if (!env)
		return;
	CHECK_STR(env_get(env, "PATH"), "/bin");
	CHECK_STR(env_get(env, "JAVA_TOOL_OPTIONS"), "-Xss2m");
	CHECK(env_get(env, "JDK_JAVA_OPTIONS") == NULL);
	CHECK_STR(env_get(env, "_JAVA_OPTIONS"), "-Dkeep=1");
	CHECK_STR(env_get(env, "JCAL_CALIBRATION_CHILD"), "1234");
	CHECK_STR(env_get(env, "JAVA_TOOL_OPTIONS_X"), "-agentpath:/w/libjcal.so");
	CHECK_STR(env_get(env, "EMPTY"), "");
	size_t n = 0;
	while (env[n])
		n++;
	CHECK_EQ_U(n, 6);
	calib_child_env_free(env);

	char *none[] = {NULL};
	env = calib_child_env(none, NULL, 7);
	CHECK(env && env[0] && !env[1]);
	if (env)
		CHECK_STR(env[0], "JCAL_CALIBRATION_CHILD=7");
	calib_child_env_free(env);
}

static void test_child_refuse(void)
{
	char err[256] = "";

	CHECK_EQ_I(calib_child_refuse(NULL, err, sizeof(err)), 0);
	CHECK_EQ_I(calib_child_refuse("4321", err, sizeof(err)), -1);
	CHECK(strstr(err, "JCAL_CALIBRATION_CHILD=4321") != NULL);
	CHECK(strstr(err, "env-timer child") != NULL);
	CHECK_EQ_I(calib_child_refuse("", err, sizeof(err)), -1);
	CHECK_EQ_I(calib_child_refuse("1\n2", err, sizeof(err)), -1);
	CHECK(strchr(err, '\n') == NULL);
}

int main(void)
{
	RUN(test_programs_well_formed);
	RUN(test_programs_cover_every_reachable_key);
	RUN(test_bci_programs_cover_interpreted_and_jitted_keys);
	RUN(test_env_model);
	RUN(test_env_model_bci);
	RUN(test_env_work);
	RUN(test_env_parse_errors);
	RUN(test_child_strip_agent);
	RUN(test_child_env);
	RUN(test_child_refuse);
	return test_summary("agent-calib");
}
