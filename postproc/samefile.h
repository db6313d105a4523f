/*
 * samefile.h - the output-is-an-input check of jcal-post (docs/jcal-post.md):
 * writing a report or a table over the trace or table it reads would
 * empty or replace that input.
 */
#ifndef JCAL_SAMEFILE_H
#define JCAL_SAMEFILE_H

/*
 * 1 when out is the regular file in (same st_dev and st_ino, so also
 * through symlinks and hard links); in "-" is stdin. 0 otherwise, also
 * when out does not exist yet, is "-" (stdout) or is not a regular file
 * (a FIFO or /dev/null cannot be emptied by writing).
 */
int samefile_is_input(const char *out, const char *in);

#endif
