/*
 * safe_open.c - the one place where jcal decides whether to open a file in
 * a directory that other users may write to (safe_open.h): the rules of a
 * shared directory, the checks of a name jcal makes up, the walk along a
 * user's symbolic links, and the reply= file's convention.
 *
 * Every entry is looked at through a descriptor of its directory (fstatat,
 * openat), so that the directory judged is the one the file is opened in.
 */
#include "common/safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "common/errmsg.h"

#define OPEN_BASE (O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
/* Symbolic links followed one by one, as the kernel allows (MAXSYMLINKS). */
#define MAX_HOPS 40

/* An entry and the directory it is in. */
struct entry {
	int dfd; /* the directory, O_PATH */
	struct stat dir;
	struct stat st; /* the entry's lstat, when exists */
	int exists;
	int magic;	  /* a link of /proc, st is what it leads to (proc_link) */
	const char *base; /* in path */
	char dirpath[PATH_MAX];
};

static int shared_dir(const struct stat *dir)
{
	return (dir->st_mode & S_ISVTX) && (dir->st_mode & (S_IWGRP | S_IWOTH));
}

/* "user NAME (uid N)", or "uid N" for a uid without a name. */
static void owner_name(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char tmp[1024];

	if (getpwuid_r(uid, &pw, tmp, sizeof(tmp), &res) == 0 && res)
		snprintf(buf, len, "user %s (uid %u)", pw.pw_name, (unsigned)uid);
	else
		snprintf(buf, len, "uid %u", (unsigned)uid);
}

static const char *kind_name(mode_t m)
{
	if (S_ISREG(m))
		return "a regular file";
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISSOCK(m))
		return "a socket";
	return "a device";
}

/* -1 + err when a directory on the way to path (dir, as path gives it) is
 * another user's symbolic link in a shared directory: the kernel's
 * protected_symlinks judges every link of a path, not only the last. */
static int dir_links_refuse(const char *dir, const char *path, char *err, size_t errlen)
{
	char pre[PATH_MAX], parent[PATH_MAX], who[320];
	size_t n = strlen(dir);
	struct stat ls, ds;

	for (size_t i = 1; i <= n && n < sizeof(pre); i++) {
		if ((i < n && dir[i] != '/') || dir[i - 1] == '/')
			continue;
		memcpy(pre, dir, i);
		pre[i] = '\0';
		if (lstat(pre, &ls) || !S_ISLNK(ls.st_mode))
			continue;
		const char *slash = strrchr(pre, '/');
		if (!slash)
			snprintf(parent, sizeof(parent), ".");
		else
			snprintf(parent, sizeof(parent), "%.*s",
				 slash == pre ? 1 : (int)(slash - pre), pre);
		if (stat(parent, &ds) || !shared_dir(&ds) || ls.st_uid == geteuid() ||
		    ls.st_uid == ds.st_uid)
			continue;
		owner_name(ls.st_uid, who, sizeof(who));
		errmsg_set(
		    err, errlen,
		    "%s: the directory %s on its way is a symbolic link of %s in %s, a sticky "
		    "directory others can write to: not followed (as fs.protected_symlinks "
		    "would refuse); remove it or give another name",
		    path, pre, who, parent);
		errno = EACCES;
		return -1;
	}
	return 0;
}

/* Opens the directory of path and looks at the entry. 0, or -1 + err. */
static int entry_look(const char *path, struct entry *e, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	e->dfd = -1;
	e->exists = 0;
	e->magic = 0;
	e->base = slash ? slash + 1 : path;
	if (!*e->base) {
		errmsg_set(err, errlen, "%s names a directory, not a file", path);
		errno = EISDIR;
		return -1;
	}
	if (n >= sizeof(e->dirpath)) {
		errmsg_set(err, errlen, "%s: file name too long", path);
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!slash)
		snprintf(e->dirpath, sizeof(e->dirpath), ".");
	else if (n == 0)
		snprintf(e->dirpath, sizeof(e->dirpath), "/");
	else
		snprintf(e->dirpath, sizeof(e->dirpath), "%.*s", (int)n, path);
	if (dir_links_refuse(e->dirpath, path, err, errlen))
		return -1;
	e->dfd = open(e->dirpath, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (e->dfd < 0 || fstat(e->dfd, &e->dir)) {
		int en = errno;
		errmsg_set(err, errlen, "cannot open the directory %s of %s: %s", e->dirpath, path,
			   strerror(en));
		if (e->dfd >= 0)
			close(e->dfd);
		e->dfd = -1;
		errno = en;
		return -1;
	}
	if (fstatat(e->dfd, e->base, &e->st, AT_SYMLINK_NOFOLLOW) == 0) {
		e->exists = 1;
	} else if (errno != ENOENT) {
		int en = errno;
		errmsg_set(err, errlen, "cannot look at %s: %s", path, strerror(en));
		close(e->dfd);
		e->dfd = -1;
		errno = en;
		return -1;
	}
	return 0;
}

/* Closes the directory; errno is left as it was. */
static void entry_done(struct entry *e)
{
	int en = errno;

	if (e->dfd >= 0)
		close(e->dfd);
	e->dfd = -1;
	errno = en;
}

/* -1 + err when the entry is another user's in a shared directory. */
static int entry_refuse_foreign(const struct entry *e, const char *path, char *err, size_t errlen)
{
	uid_t uid = e->st.st_uid;
	char who[320];
	mode_t m = e->st.st_mode;

	if (!e->exists || !shared_dir(&e->dir) || uid == geteuid() || uid == e->dir.st_uid)
		return 0;
	owner_name(uid, who, sizeof(who));
	errmsg_set(err, errlen,
		   "%s is %s of %s in %s, a sticky directory others can write to: not %s (as "
		   "fs.protected_%s would refuse); remove it or give another name",
		   path, kind_name(m), who, e->dirpath,
		   S_ISLNK(m)	? "followed"
		   : S_ISREG(m) ? "written or replaced"
				: "written",
		   S_ISLNK(m)	 ? "symlinks"
		   : S_ISFIFO(m) ? "fifos"
				 : "regular");
	errno = EACCES;
	return -1;
}

/* Clears O_NONBLOCK; returns fd. */
static int blocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0 && (fl & O_NONBLOCK))
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

int safe_open_check(const char *path, struct stat *st, char *err, size_t errlen)
{
	struct entry e;
	int rc;

	if (entry_look(path, &e, err, errlen))
		return -1;
	rc = entry_refuse_foreign(&e, path, err, errlen);
	if (!rc && e.exists) {
		*st = e.st;
		rc = 1;
	}
	entry_done(&e);
	return rc;
}

static int create_in(const struct entry *e, const char *path, int flags, mode_t mode, char *err,
		     size_t errlen)
{
	int fd = openat(e->dfd, e->base, flags | O_CREAT | O_EXCL | O_NOFOLLOW | OPEN_BASE, mode);

	if (fd < 0) {
		int en = errno;
		errmsg_set(err, errlen, "cannot create %s: %s", path, strerror(en));
		errno = en;
		return -1;
	}
	return blocking(fd);
}

int safe_open_new(const char *path, int flags, mode_t mode, char *err, size_t errlen)
{
	struct entry e;
	int fd;

	if (entry_look(path, &e, err, errlen))
		return -1;
	fd = create_in(&e, path, flags, mode, err, errlen);
	entry_done(&e);
	return fd;
}

/* Why st is not the user's own regular file with one link, or NULL. */
static const char *not_own(const struct stat *st, char *buf, size_t len)
{
	char who[320];

	if (!S_ISREG(st->st_mode)) {
		snprintf(buf, len, "it is %s, not a regular file", kind_name(st->st_mode));
	} else if (st->st_uid != geteuid()) {
		owner_name(st->st_uid, who, sizeof(who));
		snprintf(buf, len, "it belongs to %s", who);
	} else if (st->st_nlink != 1) {
		snprintf(buf, len, "it has %lu hard links", (unsigned long)st->st_nlink);
	} else {
		return NULL;
	}
	return buf;
}

/* Opens the existing entry of safe_open_own once it passed not_own; -1
 * with errno ENOENT when it went away meanwhile (the caller tries again). */
static int open_own_existing(const struct entry *e, const char *path, int flags, char *err,
			     size_t errlen)
{
	char why[400];
	struct stat fs;
	int fd = openat(e->dfd, e->base, flags | O_NOFOLLOW | OPEN_BASE);

	if (fd < 0) {
		int en = errno;
		if (en != ENOENT)
			errmsg_set(err, errlen, "cannot open %s: %s", path,
				   en == ELOOP ? "it is a symbolic link" : strerror(en));
		errno = en;
		return -1;
	}
	/* what was opened, whatever the name held a moment ago */
	if (fstat(fd, &fs))
		snprintf(why, sizeof(why), "%s", strerror(errno));
	else if (!not_own(&fs, why, sizeof(why)))
		return blocking(fd);
	errmsg_set(err, errlen,
		   "%s: %s: jcal writes there only a regular file of its own with one link", path,
		   why);
	close(fd);
	errno = EACCES;
	return -1;
}

int safe_open_own(const char *path, int flags, mode_t mode, int *created, char *err, size_t errlen)
{
	struct entry e;
	char why[400];
	int fd = -1;

	*created = 0;
	errmsg_set(err, errlen, "cannot create %s: it keeps changing", path);
	if (entry_look(path, &e, err, errlen))
		return -1;
	for (int tries = 0; tries < 8; tries++) {
		if (!e.exists) {
			fd = create_in(&e, path, flags, mode, err, errlen);
			if (fd >= 0 || errno != EEXIST)
				break;
			if (fstatat(e.dfd, e.base, &e.st, AT_SYMLINK_NOFOLLOW))
				continue; /* gone again */
			e.exists = 1;
		}
		if (not_own(&e.st, why, sizeof(why))) {
			errmsg_set(err, errlen,
				   "%s: %s: jcal writes there only a regular file of its own with "
				   "one link (another user may have put it there; remove it)",
				   path, why);
			errno = EACCES;
			fd = -1;
			break;
		}
		fd = open_own_existing(&e, path, flags, err, errlen);
		if (fd >= 0 || errno != ENOENT)
			break;
		e.exists = 0; /* removed between the look and the open */
	}
	*created = fd >= 0 && !e.exists;
	entry_done(&e);
	return fd;
}

/* Opens the existing, final entry of safe_open_in_place (not a link). */
static int open_final(const struct entry *e, const char *path, int flags, unsigned how, char *err,
		      size_t errlen)
{
	struct stat fs;
	int fifo = S_ISFIFO(e->st.st_mode);
	int fl = (fifo ? (flags & ~O_ACCMODE) | O_WRONLY : flags) | (e->magic ? 0 : O_NOFOLLOW);
	int fd = openat(e->dfd, e->base, fl | OPEN_BASE);

	if (fd < 0 && errno == ENXIO && fifo) {
		if (!(how & SAFE_OPEN_WAIT)) {
			errmsg_set(err, errlen,
				   "%s is a FIFO that no process reads: start its reader first",
				   path);
			errno = ENXIO;
			return -1;
		}
		fd = openat(e->dfd, e->base, fl | O_NOCTTY | O_CLOEXEC);
	}
	if (fd < 0) {
		int en = errno;
		errmsg_set(err, errlen, "cannot open %s: %s", path, strerror(en));
		errno = en;
		return -1;
	}
	if (fstat(fd, &fs) || fs.st_dev != e->st.st_dev || fs.st_ino != e->st.st_ino) {
		errmsg_set(err, errlen, "%s changed while it was being opened: not written", path);
		close(fd);
		errno = EAGAIN;
		return -1;
	}
	return blocking(fd);
}

/* Whether the link e is one of /proc's (/dev/stdout leads to
 * /proc/self/fd/1): its text is not always a path (pipe:[N]), and it names
 * a file the process has open, so the kernel follows it, and e->st becomes
 * what it leads to. */
static int proc_link(struct entry *e)
{
	struct statfs fs;

	if (fstatfs(e->dfd, &fs) || fs.f_type != PROC_SUPER_MAGIC ||
	    fstatat(e->dfd, e->base, &e->st, 0))
		return 0;
	e->magic = 1;
	return 1;
}

/* The next name along the symbolic link e (in cur), into cur. */
static int follow(const struct entry *e, char *cur, size_t len, const char *path, char *err,
		  size_t errlen)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(e->dfd, e->base, target, sizeof(target) - 1);
	int w;

	if (n < 0) {
		int en = errno;
		errmsg_set(err, errlen, "cannot read the symbolic link %s: %s", cur, strerror(en));
		errno = en;
		return -1;
	}
	target[n] = '\0';
	w = target[0] == '/' ? snprintf(cur, len, "%s", target)
			     : snprintf(cur, len, "%s/%s", e->dirpath, target);
	if (w < 0 || (size_t)w >= len) {
		errmsg_set(err, errlen, "%s: the name its symbolic links lead to is too long",
			   path);
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int safe_open_in_place(const char *path, int flags, mode_t mode, unsigned how, int *created,
		       char *err, size_t errlen)
{
	char cur[PATH_MAX];
	struct entry e;
	int fd = -1;

	*created = 0;
	if (snprintf(cur, sizeof(cur), "%s", path) >= (int)sizeof(cur)) {
		errmsg_set(err, errlen, "%s: file name too long", path);
		errno = ENAMETOOLONG;
		return -1;
	}
	for (int hops = 0; hops <= MAX_HOPS; hops++) {
		if (entry_look(cur, &e, err, errlen))
			return -1;
		if (entry_refuse_foreign(&e, cur, err, errlen)) {
			entry_done(&e);
			return -1;
		}
		if (!e.exists) {
			fd = create_in(&e, cur, flags, mode, err, errlen);
			*created = fd >= 0;
		} else if (S_ISLNK(e.st.st_mode) && !proc_link(&e)) {
			int bad = follow(&e, cur, sizeof(cur), path, err, errlen);
			entry_done(&e);
			if (bad)
				return -1;
			continue;
		} else {
			/* the last name, or a link of /proc opened as it leads */
			fd = open_final(&e, cur, flags, how, err, errlen);
		}
		entry_done(&e);
		/* a name that changed between the look and the open: look again */
		if (fd < 0 && (errno == EEXIST || errno == ELOOP || errno == EAGAIN) &&
		    hops < MAX_HOPS)
			continue;
		return fd;
	}
	errmsg_set(err, errlen, "%s: too many symbolic links", path);
	errno = ELOOP;
	return -1;
}

/* Why the directory of a reply file is not one made for it, or NULL. */
static const char *reply_dir_wrong(const struct entry *e, char *buf, size_t len)
{
	const char *name = strrchr(e->dirpath, '/');
	char who[320];

	name = name ? name + 1 : e->dirpath;
	if (strncmp(name, "jcal-reply-", 11) != 0) {
		snprintf(buf, len, "its directory %s is not named jcal-reply-*", e->dirpath);
	} else if (e->dir.st_uid != geteuid()) {
		owner_name(e->dir.st_uid, who, sizeof(who));
		snprintf(buf, len, "its directory %s belongs to %s", e->dirpath, who);
	} else if (e->dir.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(buf, len, "others may write to its directory %s", e->dirpath);
	} else {
		return NULL;
	}
	return buf;
}

/* Why st is not a reply file made for the purpose, or NULL. */
static const char *reply_file_wrong(const struct stat *st, char *buf, size_t len)
{
	if (not_own(st, buf, len))
		return buf;
	if (st->st_size != 0)
		snprintf(buf, len, "it is not empty (%lld bytes)", (long long)st->st_size);
	else if (st->st_mode & (S_IRWXG | S_IRWXO))
		snprintf(buf, len, "group or others may use it (mode %04o)",
			 (unsigned)(st->st_mode & 07777));
	else
		return NULL;
	return buf;
}

int safe_open_reply(const char *path, char *err, size_t errlen)
{
	struct entry e;
	struct stat fs;
	char why[2 * PATH_MAX];
	const char *bad;
	int fd = -1;

	if (entry_look(path, &e, err, errlen))
		return -1;
	/* the directory itself is not reached through a symbolic link */
	if (!(bad = reply_dir_wrong(&e, why, sizeof(why)))) {
		struct stat ls;
		if (lstat(e.dirpath, &ls) || !S_ISDIR(ls.st_mode) || ls.st_ino != e.dir.st_ino ||
		    ls.st_dev != e.dir.st_dev)
			bad = strcpy(why, "its directory is a symbolic link");
	}
	if (!bad && !e.exists)
		bad = strcpy(why, "it does not exist (the agent never creates it)");
	if (!bad)
		bad = reply_file_wrong(&e.st, why, sizeof(why));
	if (!bad) {
		fd = openat(e.dfd, e.base, O_WRONLY | O_NOFOLLOW | OPEN_BASE);
		if (fd < 0 || fstat(fd, &fs))
			bad = strcpy(why, strerror(errno));
		else if (fs.st_ino != e.st.st_ino || fs.st_dev != e.st.st_dev)
			bad = strcpy(why, "it changed while it was being opened");
		else
			bad = reply_file_wrong(&fs, why, sizeof(why));
	}
	entry_done(&e);
	if (bad) {
		if (fd >= 0)
			close(fd);
		errmsg_set(err, errlen,
			   "reply=%s: not written: %s; the agent answers only into an empty file "
			   "made for it (docs/live-profiling.md, \"The reply file\")",
			   path, bad);
		errno = EACCES;
		return -1;
	}
	return blocking(fd);
}
