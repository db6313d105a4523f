/*
 * calib_child.h - the environment of the calibration's env-timer child JVM
 * and the marker that keeps the agent out of it (docs/agent-internals.md,
 * "Calibrate mode").
 *
 * The child is started without this agent: jcal's -agentpath/-agentlib
 * options are taken out of JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS and
 * _JAVA_OPTIONS, and JCAL_CALIBRATION_CHILD=<parent pid> is set, so that an
 * agent loaded into it anyway refuses to run. Pure code: no JVM, no exit.
 */
#ifndef JCAL_CALIB_CHILD_H
#define JCAL_CALIB_CHILD_H

#include <stddef.h>
#include <sys/types.h>

#define CALIB_CHILD_MARKER "JCAL_CALIBRATION_CHILD"

/*
 * Copies a JVM options string (the syntax of JAVA_TOOL_OPTIONS: options
 * separated by white space, quotes group) to out without the options that
 * load jcal: -agentlib:jcal[=...], and -agentpath:P[=...] where P's last
 * component is libjcal.so or P is self (the running library; may be NULL).
 * The other options are kept as written, separated by one space.
 * out needs strlen(opts) + 1 bytes. Returns how many options were removed.
 */
unsigned calib_child_strip_agent(const char *opts, const char *self, char *out);

/*
 * The child's environment: env (NULL-terminated "NAME=value" strings)
 * with the three option variables stripped as above (dropped when nothing
 * is left), any earlier marker dropped, and CALIB_CHILD_MARKER=parent
 * added. Returns a NULL-terminated array to free with
 * calib_child_env_free, or NULL when out of memory.
 */
char **calib_child_env(char *const *env, const char *self, pid_t parent);
void calib_child_env_free(char **envp);

/*
 * marker: the value of CALIB_CHILD_MARKER in this process's environment
 * (NULL when unset). Returns 0 when the agent may run, or -1 with a
 * one-line message: set, the marker says this JVM is a calibration's
 * env-timer child, where no agent command runs.
 */
int calib_child_refuse(const char *marker, char *err, size_t errlen);

#endif
