/*
 * out_stage.h - a recording the agent cannot write where the caller asked:
 * the file is in another mount namespace than the JVM's (a private /tmp, a
 * container), or in a directory the JVM's user cannot write (jcal run as
 * root against a service's JVM). The agent then writes into a stage
 * directory of the JVM's /tmp, made by jcal as the JVM's user, which jcal
 * reaches through /proc/PID/root; once the file is complete jcal copies it
 * to the path the caller named, as the caller (docs/live-profiling.md,
 * "Namespaces, containers and other users"). Between `jcal start` and the
 * `jcal stop` (or `status`) that finds it complete, a note in the caller's
 * /tmp, the caller's own file, says where it goes: never a path the JVM's
 * user could change.
 */
#ifndef JCAL_OUT_STAGE_H
#define JCAL_OUT_STAGE_H

#include <limits.h>
#include <stddef.h>

#include "agent/launcher/jvm_process.h"

#define OUT_STAGE_MAX_FILES 8

struct out_stage {
	char dir[PATH_MAX];    /* the stage directory as jcal reaches it */
	char inside[PATH_MAX]; /* out= for the agent: the stage file in its namespace */
	char dest[PATH_MAX];   /* where the caller asked for it, %p and %t expanded */
	char base[256];	       /* dest's base name, the stage file's name */
};

/* A complete file of the stage, open for reading. */
struct out_staged {
	int fd;
	char suffix[64]; /* after the base name: "", ".tree", ".dump1" */
};

/* Removes one staged file once it was copied. Run as the JVM's user. */
void out_stage_unlink(const struct out_stage *s, const struct out_staged *f);

/* 1 when the agent of p cannot write the file dest itself, with the
 * reason in why; 0 when it can. Run with the JVM user's effective ids;
 * other_user: jcal acts for another user (run_as_switched). */
int out_stage_needed(const struct jvm_process *p, const char *dest, int other_user, char *why,
		     size_t whylen);

/* 0 when the caller can write dest's directory (run as the caller), else
 * -1 with a message in err: checked before a stage is made for it. */
int out_stage_check_dest(const char *dest, char *err, size_t errlen);

/* Makes the stage directory in p's /tmp (as the JVM's user) for dest.
 * Returns 0, or -1 with a message in err. */
int out_stage_create(struct out_stage *s, const struct jvm_process *p, const char *dest, char *err,
		     size_t errlen);

/* Opens the stage's complete files (the base name, and it followed by a
 * dot: not a .part being written): regular files only, never through a
 * link. Run as the JVM's user. Returns how many (at most max); *partial
 * is set when a file is still being written. */
int out_stage_open(const struct out_stage *s, struct out_staged *f, int max, int *partial);

/* Copies one staged file to dest with its suffix (path: where), through
 * a new file renamed into place. Run as the caller. 0, or -1 with err. */
int out_stage_put(const struct out_stage *s, const struct out_staged *f, char *path, size_t pathlen,
		  char *err, size_t errlen);

/* Removes the stage's files and directory. Run as the JVM's user. */
void out_stage_remove(struct out_stage *s);

/* The note of a pending stage of process h (by pid and start time), in
 * the caller's /tmp. Run as the caller. write: 0 or -1 with err; read: 0
 * when there is one (s filled), else -1. */
int out_stage_note_write(const struct out_stage *s, const struct proc_handle *h, char *err,
			 size_t errlen);
int out_stage_note_read(struct out_stage *s, const struct proc_handle *h);
void out_stage_note_remove(const struct proc_handle *h);

#endif
