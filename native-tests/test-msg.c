/*
 * test-msg.c - jcal-post's messages (postproc/msg.c): one escaped line
 * each; a note or warning that repeats an earlier one word for word is
 * printed once (several inputs share their notes), errors every time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "native-tests/test.h"
#include "postproc/msg.h"

/* Runs the messages with stderr sent to a file; returns what it got. */
static char *captured(void (*fn)(void))
{
	static char buf[4096];
	char path[] = "/tmp/jcal-test-msg-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	size_t n = 0;

	if (fd < 0 || saved < 0)
		return NULL;
	fflush(stderr);
	dup2(fd, 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	FILE *f = fdopen(fd, "r");
	if (f) {
		rewind(f);
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	unlink(path);
	return buf;
}

static void some_messages(void)
{
	msg("note", "no calibration table in %s", "/d");
	msg("note", "no calibration table in %s", "/d"); /* the second input's */
	msg("warning", "no calibration table in %s", "/d");
	msg("note", "no calibration table in %s", "/e");
	msg("error", "bad %s", "x");
	msg("error", "bad %s", "x");
	msg("warning", "name \033[1m%s", "bold");
}

static void test_repeats_once(void)
{
	CHECK_STR(captured(some_messages), "jcal-post: note: no calibration table in /d\n"
					   "jcal-post: warning: no calibration table in /d\n"
					   "jcal-post: note: no calibration table in /e\n"
					   "jcal-post: error: bad x\n"
					   "jcal-post: error: bad x\n"
					   "jcal-post: warning: name \\x1b[1mbold\n");
}

int main(void)
{
	RUN(test_repeats_once);
	return test_summary("msg");
}
