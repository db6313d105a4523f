/*
 * safe_open.h - opening the files jcal writes in a directory that other
 * users may write to (a shared /tmp), so that nothing another user put
 * there makes jcal block, write its data to them, or write through their
 * link into the user's own files (docs/live-profiling.md, "Safe outputs").
 *
 * A shared directory is a sticky directory (mode +t) that group or others
 * may write to. In one, an entry that belongs neither to the user (the
 * effective uid) nor to the directory's owner is another user's: jcal does
 * not follow it (a symbolic link), write into it (a FIFO, a regular file)
 * or replace it, whatever the kernel's fs.protected_symlinks,
 * protected_fifos and protected_regular are set to (their rules, the
 * strictest level).
 *
 * Nothing here blocks: an entry is looked at (lstat) before it is opened,
 * and opened with O_NONBLOCK; a FIFO is waited for only where the caller
 * asks and the FIFO passed the checks. Every function returns a descriptor
 * (close-on-exec, O_NONBLOCK cleared) or -1 with errno set and one line in
 * err that names the path and why.
 */
#ifndef JCAL_SAFE_OPEN_H
#define JCAL_SAFE_OPEN_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Looks at what lies at a name the user gave (out=, a dump's file, a
 * snapshot's name), before jcal writes it or renames a file over it.
 * Returns 0 when nothing is there, 1 when something is (*st: its lstat),
 * -1 when it is another user's entry in a shared directory or the
 * directory cannot be opened. */
int safe_open_check(const char *path, struct stat *st, char *err, size_t errlen);

/* Creates path, which must not exist (O_CREAT|O_EXCL|O_NOFOLLOW): for a
 * name jcal makes up. flags: O_WRONLY or O_RDWR (and O_APPEND). errno is
 * EEXIST when something is already there. */
int safe_open_new(const char *path, int flags, mode_t mode, char *err, size_t errlen);

/* A name jcal makes up beside the user's and reuses (OUT.part): created
 * as safe_open_new does; when something is there already, only the user's
 * own regular file with one link is opened (not truncated), anything else
 * (a FIFO, a symbolic link, another user's file, a hard link) refused.
 * *created says which. */
int safe_open_own(const char *path, int flags, mode_t mode, int *created, char *err, size_t errlen);

/* safe_open_in_place flag: a FIFO that no process reads yet is waited for
 * (a blocking open) instead of refused. */
#define SAFE_OPEN_WAIT 1u

/* A name the user gave, written where it is (a device, a FIFO, a symbolic
 * link, a log file): follows symbolic links one at a time, refusing any
 * that is another user's in a shared directory, then opens what the last
 * one names without following again, or creates it (O_EXCL) when nothing
 * is there. A link of /proc (/dev/stdout leads to /proc/self/fd/1) names a
 * file the process has open and is opened as the kernel follows it. A FIFO
 * is opened O_WRONLY whatever flags say. Neither truncates. *created:
 * whether it made the file. */
int safe_open_in_place(const char *path, int flags, mode_t mode, unsigned how, int *created,
		       char *err, size_t errlen);

/* The reply= file of a command to a running agent, opened for writing
 * only when it is a file made for the purpose (common/attach_reply.h):
 * an empty regular file with one link, the user's own, that neither group
 * nor others may read or write, not a symbolic link, in a directory named
 * jcal-reply-* that is the user's own and that no one else may write to.
 * Never created, never truncated. */
int safe_open_reply(const char *path, char *err, size_t errlen);

#endif
