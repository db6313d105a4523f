/*
 * test-calib-env.c - the calibration's environment model
 * (calibrator/calib_env.c) parses the env timer's output and splits call
 * costs over keys; the work loops' costs of mode=bci; malformed output.
 */
#include <stdlib.h>
#include <string.h>

#include "calibrator/calib_env.h"
#include "native-tests/test.h"

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

int main(void)
{
	RUN(test_env_model);
	RUN(test_env_model_bci);
	RUN(test_env_work);
	RUN(test_env_parse_errors);
	return test_summary("calib-env");
}
