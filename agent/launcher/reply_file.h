/*
 * reply_file.h - the reply= file of a command to the agent: created by
 * the launcher, 0600, in a private directory of the target's /tmp, read
 * after the agent answered, then removed with its directory
 * (common/attach_reply.h, docs/live-profiling.md).
 */
#ifndef JCAL_REPLY_FILE_H
#define JCAL_REPLY_FILE_H

#include <stddef.h>

struct reply_file {
	char dir[128];	  /* as jcal sees it: ROOT/tmp/jcal-reply-XXXXXX */
	char file[144];	  /* as jcal sees it */
	char target[144]; /* as the JVM sees it: the reply= value */
};

/* Creates ROOT/tmp/jcal-reply-XXXXXX/reply (root: "" or "/proc/PID/root").
 * Returns 0, or -1 with a message in err. */
int reply_file_create(struct reply_file *r, const char *root, char *err, size_t errlen);

/* What the agent wrote (malloc'd, NUL-terminated, at most 64 KB); NULL on
 * error, or when the file is not a regular file any more. */
char *reply_file_read(const struct reply_file *r);

/* Removes the file and its directory. */
void reply_file_remove(struct reply_file *r);

#endif
