/*
 * run_as.h - whose rights jcal acts with. Run as root against another
 * user's JVM, jcal takes that user's effective ids (and its group alone)
 * for everything it does in the JVM's files and for the attach itself
 * (HotSpot accepts a peer of its own effective uid and gid), and keeps
 * root as its real and saved id: only to put a recording the JVM's user
 * could not write where the caller asked (out_stage.h). Run as anyone
 * else, jcal is the JVM's user already and nothing changes.
 */
#ifndef JCAL_RUN_AS_H
#define JCAL_RUN_AS_H

#include <stddef.h>
#include <sys/types.h>

/* Takes uid and gid as effective ids (and gid as the only group) when
 * jcal runs as root and uid is not root; remembers the caller's. Returns
 * 0, or -1 with a message in err. */
int run_as_owner(uid_t uid, gid_t gid, char *err, size_t errlen);

/* Back to the caller's ids (a no-op when run_as_owner changed nothing).
 * Returns 0 or -1 (errno). */
int run_as_caller(void);

/* 1 when run_as_owner took another user's ids. */
int run_as_switched(void);

#endif
