/*
 * msg.h - jcal-post's messages on stderr: "jcal-post: LEVEL: ..." on one
 * line (main.c, input.c and calib_cli.c;
 * library code returns errors instead).
 */
#ifndef JCAL_POST_MSG_H
#define JCAL_POST_MSG_H

void msg(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
