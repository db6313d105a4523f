/*
 * calib_child.c - owns the env-timer child's environment: jcal's options
 * taken out of the JVM option variables, and the JCAL_CALIBRATION_CHILD
 * marker (model in calib_child.h).
 */
#include "calibrator/calib_child.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const option_vars[] = {"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"};

/* Whether one option (quotes removed) loads jcal. */
static int loads_jcal(const char *opt, const char *self)
{
	static const char agentpath[] = "-agentpath:", agentlib[] = "-agentlib:";

	if (!strncmp(opt, agentlib, sizeof(agentlib) - 1)) {
		const char *name = opt + sizeof(agentlib) - 1;
		size_t len = strcspn(name, "=");
		return len == 4 && !strncmp(name, "jcal", 4);
	}
	if (strncmp(opt, agentpath, sizeof(agentpath) - 1))
		return 0;
	const char *path = opt + sizeof(agentpath) - 1;
	size_t len = strcspn(path, "=");
	char p[PATH_MAX], real[PATH_MAX];
	if (len == 0 || len >= sizeof(p))
		return 0;
	memcpy(p, path, len);
	p[len] = '\0';
	const char *slash = strrchr(p, '/');
	if (!strcmp(slash ? slash + 1 : p, "libjcal.so"))
		return 1;
	return self && (!strcmp(p, self) || (realpath(p, real) && !strcmp(real, self)));
}

unsigned calib_child_strip_agent(const char *opts, const char *self, char *out)
{
	const char *rd = opts;
	size_t n = 0;
	unsigned removed = 0;
	char *opt = malloc(strlen(opts) + 1);

	out[0] = '\0';
	if (!opt)
		return 0;
	for (;;) {
		while (*rd && isspace((unsigned char)*rd))
			rd++;
		if (!*rd)
			break;
		/* One option as the JVM reads it: quotes group and are removed. */
		const char *start = rd;
		size_t olen = 0;
		while (*rd && !isspace((unsigned char)*rd)) {
			if (*rd == '\'' || *rd == '"') {
				char q = *rd++;
				while (*rd && *rd != q)
					opt[olen++] = *rd++;
				if (*rd)
					rd++;
			} else {
				opt[olen++] = *rd++;
			}
		}
		opt[olen] = '\0';
		if (loads_jcal(opt, self)) {
			removed++;
			continue;
		}
		if (n)
			out[n++] = ' ';
		memcpy(out + n, start, (size_t)(rd - start));
		n += (size_t)(rd - start);
		out[n] = '\0';
	}
	free(opt);
	return removed;
}

void calib_child_env_free(char **envp)
{
	if (!envp)
		return;
	for (char **e = envp; *e; e++)
		free(*e);
	free(envp);
}

/* The index of NAME in option_vars when kv is "NAME=...", else -1. */
static int option_var(const char *kv)
{
	for (int i = 0; i < (int)(sizeof(option_vars) / sizeof(option_vars[0])); i++) {
		size_t len = strlen(option_vars[i]);
		if (!strncmp(kv, option_vars[i], len) && kv[len] == '=')
			return i;
	}
	return -1;
}

char **calib_child_env(char *const *env, const char *self, pid_t parent)
{
	static const char marker[] = CALIB_CHILD_MARKER "=";
	size_t count = 0, n = 0;
	char **out;

	while (env && env[count])
		count++;
	out = calloc(count + 2, sizeof(*out));
	if (!out)
		return NULL;
	for (size_t i = 0; i < count; i++) {
		const char *kv = env[i];
		int var = option_var(kv);
		char *copy;

		if (!strncmp(kv, marker, sizeof(marker) - 1))
			continue;
		if (var >= 0) {
			size_t name = strlen(option_vars[var]) + 1;
			copy = malloc(strlen(kv) + 1);
			if (!copy)
				goto oom;
			memcpy(copy, kv, name);
			calib_child_strip_agent(kv + name, self, copy + name);
			if (!copy[name]) {
				free(copy);
				continue;
			}
		} else {
			copy = strdup(kv);
			if (!copy)
				goto oom;
		}
		out[n++] = copy;
	}
	size_t len = sizeof(marker) + 24;
	out[n] = malloc(len);
	if (!out[n])
		goto oom;
	snprintf(out[n], len, "%s%ld", marker, (long)parent);
	return out;
oom:
	calib_child_env_free(out);
	return NULL;
}

int calib_child_refuse(const char *marker, char *err, size_t errlen)
{
	if (!marker)
		return 0;
	snprintf(err, errlen,
		 "%s=%.64s is set: this JVM is the env-timer child of a calibration (process "
		 "%.64s), which runs without the agent; unset %s if it came from elsewhere",
		 CALIB_CHILD_MARKER, marker, marker, CALIB_CHILD_MARKER);
	/* One line, whatever the variable holds. */
	for (char *c = err; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -1;
}
