/*
 * out_stage.c - the stage directory of a recording the agent cannot write
 * where the caller asked, the copy into place, and the note that remembers
 * a pending one between jcal runs (out_stage.h).
 */
#include "agent/launcher/out_stage.h"

#include "agent/launcher/launcher_io.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOTE_MAX (4 * PATH_MAX + 256)

/* dir of path (up to its last '/'; "/" for a file of the root). */
static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;
	if (n == 0)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)n, path);
}

int out_stage_needed(const struct jvm_process *p, const char *dest, int other_user, char *why,
		     size_t whylen)
{
	char dir[PATH_MAX], theirs[2 * PATH_MAX];
	struct stat a, b;
	dir_of(dest, dir, sizeof(dir));
	snprintf(theirs, sizeof(theirs), "%s%s", p->root, dir);
	if (p->root[0] &&
	    (stat(dir, &a) || stat(theirs, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino)) {
		snprintf(why, whylen,
			 "process %d sees other files than jcal (another mount namespace)",
			 (int)p->pid);
		return 1;
	}
	if (other_user && faccessat(AT_FDCWD, theirs, W_OK | X_OK, AT_EACCESS)) {
		snprintf(why, whylen, "process %d runs as %s, which cannot write %s (%s)",
			 (int)p->pid, p->user, dir, strerror(errno));
		return 1;
	}
	return 0;
}

int out_stage_check_dest(const char *dest, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	struct stat sb;
	const char *why = NULL;
	dir_of(dest, dir, sizeof(dir));
	int st = stat(dir, &sb);
	if (st == 0 && !S_ISDIR(sb.st_mode))
		why = "not a directory";
	else if (st != 0 || faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS))
		why = strerror(errno);
	if (why)
		snprintf(err, errlen, "cannot write %s: %s", dir, why);
	return why ? -1 : 0;
}

int out_stage_create(struct out_stage *s, const struct jvm_process *p, const char *dest, char *err,
		     size_t errlen)
{
	const char *slash = strrchr(dest, '/');
	const char *base = slash ? slash + 1 : dest;
	memset(s, 0, sizeof(*s));
	if (!*base || strlen(base) >= sizeof(s->base) || strlen(dest) >= sizeof(s->dest)) {
		snprintf(err, errlen, "output path %s: no file name of at most %zu bytes", dest,
			 sizeof(s->base) - 1);
		return -1;
	}
	snprintf(s->dest, sizeof(s->dest), "%s", dest);
	snprintf(s->base, sizeof(s->base), "%s", base);
	snprintf(s->dir, sizeof(s->dir), "%s/tmp/jcal-out-XXXXXX", p->root);
	if (!mkdtemp(s->dir)) {
		snprintf(err, errlen,
			 "cannot create a directory for the recording in process %d's /tmp "
			 "(%s): %s",
			 (int)p->pid, s->dir, strerror(errno));
		s->dir[0] = '\0';
		return -1;
	}
	/* the agent expands %: the name it is given has none left to expand */
	size_t o = (size_t)snprintf(s->inside, sizeof(s->inside), "%s/", s->dir + strlen(p->root));
	for (const char *c = base; *c && o + 3 < sizeof(s->inside); c++) {
		if (*c == '%')
			s->inside[o++] = '%';
		s->inside[o++] = *c;
	}
	s->inside[o] = '\0';
	return 0;
}

/* The suffix of a staged name: 0 when it is the base name or the base
 * name, a dot and more (not ".part"). */
static int staged_suffix(const char *base, const char *name, const char **suffix, int *partial)
{
	size_t bl = strlen(base), nl = strlen(name);
	if (nl < bl || memcmp(name, base, bl) || (name[bl] && name[bl] != '.'))
		return -1;
	if (nl >= 5 && !strcmp(name + nl - 5, ".part")) {
		*partial = 1;
		return -1;
	}
	*suffix = name + bl;
	return 0;
}

int out_stage_open(const struct out_stage *s, struct out_staged *f, int max, int *partial)
{
	int n = 0;
	*partial = 0;
	int dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	struct dirent *e;
	while (n < max && (e = readdir(d)) != NULL) {
		const char *suffix;
		struct stat sb;
		if (staged_suffix(s->base, e->d_name, &suffix, partial) ||
		    strlen(suffix) >= sizeof(f[n].suffix))
			continue;
		int fd = openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
			close(fd);
			continue;
		}
		f[n].fd = fd;
		snprintf(f[n].suffix, sizeof(f[n].suffix), "%s", suffix);
		n++;
	}
	closedir(d);
	return n;
}

/* Copies from to to. 0 or -1 (errno). */
static int copy_fd(int from, int to)
{
	static char buf[1 << 16];
	for (;;) {
		ssize_t n = read(from, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return (int)n;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(to, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return -1;
			off += w;
		}
	}
}

int out_stage_put(const struct out_stage *s, const struct out_staged *f, char *path, size_t pathlen,
		  char *err, size_t errlen)
{
	char tmp[PATH_MAX + 16];
	snprintf(path, pathlen, "%s%s", s->dest, f->suffix);
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
		return -1;
	}
	mode_t mask = umask(0);
	umask(mask);
	int r = copy_fd(f->fd, fd);
	int e = errno;
	/* the mode a file the caller creates has (mkstemp made it 0600) */
	if (r == 0 && fchmod(fd, 0666 & ~mask) == 0 && close(fd) == 0 && rename(tmp, path) == 0)
		return 0;
	e = r ? e : errno;
	if (r)
		close(fd);
	unlink(tmp);
	snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
	return -1;
}

void out_stage_unlink(const struct out_stage *s, const struct out_staged *f)
{
	char path[PATH_MAX + 320];
	snprintf(path, sizeof(path), "%s/%s%s", s->dir, s->base, f->suffix);
	unlink(path);
}

void out_stage_remove(struct out_stage *s)
{
	if (!s->dir[0])
		return;
	int dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dfd, e->d_name, 0);
	if (d)
		closedir(d);
	else if (dfd >= 0)
		close(dfd);
	rmdir(s->dir);
	s->dir[0] = '\0';
}

static void note_path(const struct proc_handle *h, char *path, size_t len)
{
	snprintf(path, len, "/tmp/.jcal-pending-%u-%d-%llu", (unsigned)getuid(), (int)h->pid,
		 h->start);
}

int out_stage_note_write(const struct out_stage *s, const struct proc_handle *h, char *err,
			 size_t errlen)
{
	char path[128];
	note_path(h, path, sizeof(path));
	out_stage_note_remove(h);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	fprintf(f, "%s\n%s\n%s\n%s\n", s->dir, s->inside, s->dest, s->base);
	if (fclose(f)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		unlink(path);
		return -1;
	}
	return 0;
}

/* The next line of *text into out; -1 when there is none or it is too long. */
static int next_line(char **text, char *out, size_t len)
{
	char *nl = strchr(*text, '\n');
	if (!nl || (size_t)(nl - *text) >= len)
		return -1;
	memcpy(out, *text, (size_t)(nl - *text));
	out[nl - *text] = '\0';
	*text = nl + 1;
	return 0;
}

int out_stage_note_read(struct out_stage *s, const struct proc_handle *h)
{
	char path[128];
	struct stat sb;
	note_path(h, path, sizeof(path));
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* the caller's own file, which only the caller could have written */
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_uid != getuid() || (sb.st_mode & 022)) {
		close(fd);
		return -1;
	}
	char *text = launcher_read_fd(fd, NOTE_MAX, NULL), *t = text;
	memset(s, 0, sizeof(*s));
	int r = !text || next_line(&t, s->dir, sizeof(s->dir)) ||
			next_line(&t, s->inside, sizeof(s->inside)) ||
			next_line(&t, s->dest, sizeof(s->dest)) ||
			next_line(&t, s->base, sizeof(s->base))
		    ? -1
		    : 0;
	free(text);
	return r;
}

void out_stage_note_remove(const struct proc_handle *h)
{
	char path[128];
	struct stat sb;
	note_path(h, path, sizeof(path));
	if (lstat(path, &sb) == 0 && sb.st_uid == getuid())
		unlink(path);
}
