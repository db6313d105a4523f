/*
 * test-calib-child.c - the env-timer child's environment
 * (calibrator/calib_child.c) has no jcal option in the JVM option
 * variables, keeps the rest, and carries the marker that makes an agent
 * in that child refuse.
 */
#include <stdlib.h>
#include <string.h>

#include "calibrator/calib_child.h"
#include "native-tests/test.h"

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
	RUN(test_child_strip_agent);
	RUN(test_child_env);
	RUN(test_child_refuse);
	return test_summary("calib-child");
}
