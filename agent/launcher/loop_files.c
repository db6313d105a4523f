/*
 * loop_files.c - owns the list of a continuous recording's files and
 * --keep's policy over it (loop_files.h).
 */
#include "agent/launcher/loop_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/base/options.h"

int loop_files_escape(const char *in, char *out, size_t outlen)
{
	size_t o = 0;

	for (const char *c = in; *c; c++) {
		if (o + 3 > outlen)
			return -1;
		if (*c == '%')
			out[o++] = '%';
		out[o++] = *c;
	}
	if (!outlen)
		return -1;
	out[o] = '\0';
	return 0;
}

int loop_files_next(struct loop_files *lf, const char *pattern, pid_t pid, time_t t, char *name,
		    size_t namelen, char *agent_out, size_t agentlen, char *err, size_t errlen)
{
	if (!jcal_options_out_varies(pattern)) {
		snprintf(err, errlen,
			 "--loop writes a file per period: -o needs %%n (its number) or %%t (its "
			 "time) in '%s'",
			 pattern);
		return -1;
	}
	if (jcal_options_expand_out_seq(pattern, pid, t, lf->seq + 1, name, namelen, err, errlen))
		return -1;
	if (loop_files_escape(name, agent_out, agentlen)) {
		snprintf(err, errlen, "file name too long: %s", name);
		return -1;
	}
	lf->seq++;
	return 0;
}

int loop_files_add(struct loop_files *lf, const char *name)
{
	if (lf->n == lf->cap) {
		size_t cap = lf->cap ? 2 * lf->cap : 16;
		void *p = realloc(lf->name, cap * sizeof(*lf->name));

		if (!p)
			return -1;
		lf->name = p;
		lf->cap = cap;
	}
	snprintf(lf->name[lf->n++], sizeof(lf->name[0]), "%s", name);
	return 0;
}

size_t loop_files_trim(struct loop_files *lf, int (*remove)(const char *name, void *ctx), void *ctx)
{
	size_t drop = 0;

	if (!lf->keep)
		return 0;
	/* the one being written (the last) stays whatever keep says */
	while (lf->n - drop > lf->keep && lf->n - drop > 1)
		remove(lf->name[drop++], ctx);
	if (drop)
		memmove(lf->name, lf->name + drop, (lf->n - drop) * sizeof(*lf->name));
	lf->n -= drop;
	return drop;
}

void loop_files_free(struct loop_files *lf)
{
	free(lf->name);
	memset(lf, 0, sizeof(*lf));
}
