/*
 * msg.h - jcal-post's messages on stderr: "jcal-post: LEVEL: ..." on one
 * line (main.c, input.c, calib_cli.c and the diff command's files;
 * library code returns errors instead).
 */
#ifndef JCAL_POST_MSG_H
#define JCAL_POST_MSG_H

void msg(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* From now on at most cap more notes are printed (0: every one); the ones
 * left out are counted. */
void msg_notes_cap(unsigned cap);
unsigned msg_notes_dropped(void);

#endif
