/*
 * loop_files.h - jcal record --loop: the names of a continuous recording's
 * files (out= expanded for each, %n its number) and --keep's policy over
 * them (docs/live-profiling.md, "Continuous recordings"). Pure but for the
 * remove callback: no printing, no exit.
 */
#ifndef JCAL_LOOP_FILES_H
#define JCAL_LOOP_FILES_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* The files of one loop, oldest first: those written (complete) and, last,
 * the one being written. */
struct loop_files {
	char (*name)[PATH_MAX];
	size_t n, cap;
	unsigned seq;  /* %n of the last name made */
	unsigned keep; /* --keep: at most this many files (0: all) */
};

/* The next file's name: pattern with %p (pid), %t (t), %n (one more than
 * the last) and %% expanded into name, and the same escaped for the
 * agent's out= (each '%' doubled) into agent_out. Returns 0, or -1 with
 * err (a bad escape, too long, or a pattern without %n or %t, which would
 * name the same file every period). */
int loop_files_next(struct loop_files *lf, const char *pattern, pid_t pid, time_t t, char *name,
		    size_t namelen, char *agent_out, size_t agentlen, char *err, size_t errlen);

/* in with each '%' doubled, for the agent's out= (which expands %): 0, or
 * -1 when it does not fit in outlen. */
int loop_files_escape(const char *in, char *out, size_t outlen);

/* name is being written now (the start's, or a rotation's). 0, or -1
 * (out of memory). */
int loop_files_add(struct loop_files *lf, const char *name);

/* --keep: removes the oldest files while more than keep are there (the
 * one being written counts, and is never removed), calling remove(name,
 * ctx) for each (its failure is its own to say). Returns how many were
 * removed. */
size_t loop_files_trim(struct loop_files *lf, int (*remove)(const char *name, void *ctx),
		       void *ctx);

void loop_files_free(struct loop_files *lf);

#endif
