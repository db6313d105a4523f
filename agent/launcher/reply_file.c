/*
 * reply_file.c - the private directory and file the agent answers into:
 * made with mkdtemp and O_CREAT|O_EXCL|O_NOFOLLOW, so that the file is a
 * new regular file of one link, the kind the agent accepts
 * (common/attach_reply.h); read back only when it is still a regular file.
 */
#include "agent/launcher/reply_file.h"
#include "agent/launcher/launcher_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_REPLY 65536

int reply_file_create(struct reply_file *r, const char *root, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "%s/tmp/jcal-reply-XXXXXX", root);
	if (!mkdtemp(r->dir)) {
		snprintf(err, errlen, "cannot create a reply directory %s: %s", r->dir,
			 strerror(errno));
		r->dir[0] = '\0';
		return -1;
	}
	snprintf(r->file, sizeof(r->file), "%s/reply", r->dir);
	snprintf(r->target, sizeof(r->target), "%s", r->file + strlen(root));
	int fd = open(r->file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", r->file, strerror(errno));
		reply_file_remove(r);
		return -1;
	}
	close(fd);
	return 0;
}

char *reply_file_read(const struct reply_file *r)
{
	struct stat sb;
	/* not blocking on a FIFO put in its place */
	int fd = open(r->file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return NULL;
	}
	return launcher_read_fd(fd, MAX_REPLY, NULL);
}

void reply_file_remove(struct reply_file *r)
{
	if (r->file[0])
		unlink(r->file);
	if (r->dir[0])
		rmdir(r->dir);
	r->file[0] = r->dir[0] = '\0';
}
