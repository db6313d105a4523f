/*
 * test-safe-open.c - common/safe_open.c against what another user can put
 * in a shared directory: tables of entries (nothing, the user's own file,
 * another user's file, FIFO, symbolic link, hard link, directory) in a
 * sticky world-writable directory, one owned by the other user, and a
 * private one, and what each function must do with them.
 *
 * Entries of another user are made by chown to OTHER_UID, which needs
 * root: without it those rows print a SKIP line and count as skipped.
 * A watchdog alarm turns any open that blocks (a FIFO) into a failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/safe_open.h"
#include "native-tests/test.h"

#define OTHER_UID 54321u
#define WATCHDOG_SECONDS 20

static char base[128];
static int skipped;
static int is_root;

/* Where an entry is made. */
enum where {
	SHARED,	      /* sticky, 1777, the test's own */
	SHARED_OTHER, /* sticky, 1777, owned by OTHER_UID */
	PRIVATE,      /* 0755, the test's own */
};

/* What the entry is. */
enum kind {
	NONE,
	REG,	  /* "data\n" */
	REG_LINK, /* a regular file with a second hard link */
	FIFO,
	FIFO_READ, /* a FIFO with a reader */
	SYMLINK,   /* to ../target.txt ("precious\n") */
	DANGLING,  /* a symbolic link to ../fresh.txt, which does not exist */
	DIR,
};

enum owner { ME, OTHER };

static const char *const WHERE_NAME[] = {"shared", "shared-other", "private"};

/* A fresh directory for one row: ROW/{shared,shared-other,private} and
 * ROW/target.txt. */
static void row_dirs(const char *row, char *dir, size_t len)
{
	static unsigned n;
	char p[1024];

	snprintf(dir, len, "%s/%u-%s", base, n++, row);
	CHECK(mkdir(dir, 0755) == 0);
	for (int w = 0; w < 3; w++) {
		snprintf(p, sizeof(p), "%s/%s", dir, WHERE_NAME[w]);
		CHECK(mkdir(p, 0755) == 0);
		if (w != PRIVATE)
			CHECK(chmod(p, 01777) == 0);
		if (w == SHARED_OTHER && is_root)
			CHECK(chown(p, OTHER_UID, OTHER_UID) == 0);
	}
	snprintf(p, sizeof(p), "%s/target.txt", dir);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("precious\n", f);
		fclose(f);
	}
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int reader_fd = -1;

/* Makes the entry path of kind, owned by owner. */
static void make_entry(const char *dir, const char *path, enum kind k, enum owner o)
{
	char p[1024];

	switch (k) {
	case NONE:
		return;
	case REG:
		write_text(path, "data\n");
		break;
	case REG_LINK:
		write_text(path, "data\n");
		snprintf(p, sizeof(p), "%s.link", path);
		CHECK(link(path, p) == 0);
		break;
	case FIFO:
	case FIFO_READ:
		CHECK(mkfifo(path, 0666) == 0);
		if (k == FIFO_READ) {
			reader_fd = open(path, O_RDONLY | O_NONBLOCK);
			CHECK(reader_fd >= 0);
		}
		break;
	case SYMLINK:
		snprintf(p, sizeof(p), "%s/target.txt", dir);
		CHECK(symlink(p, path) == 0);
		break;
	case DANGLING:
		snprintf(p, sizeof(p), "%s/fresh.txt", dir);
		CHECK(symlink(p, path) == 0);
		break;
	case DIR:
		CHECK(mkdir(path, 0755) == 0);
		break;
	}
	if (o == OTHER)
		CHECK(lchown(path, OTHER_UID, OTHER_UID) == 0);
}

static void end_row(void)
{
	if (reader_fd >= 0)
		close(reader_fd);
	reader_fd = -1;
}

/* Whether a row can run here; prints the SKIP line when not. */
static int can_run(const char *fn, const char *row, enum where w, enum owner o)
{
	if (is_root || (o == ME && w != SHARED_OTHER))
		return 1;
	printf("SKIP %s %s: entries of another user need root (chown)\n", fn, row);
	skipped++;
	return 0;
}

static char *slurp(const char *path)
{
	static char buf[256];
	int fd = open(path, O_RDONLY | O_NONBLOCK);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* Reports a row's failure with its name. */
#define ROW_CHECK(row, cond)                                                                       \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "  row %s:\n", row);                                       \
			CHECK(cond);                                                               \
		}                                                                                  \
	} while (0)

/* ---- safe_open_check and safe_open_in_place: a name the user gave ---- */

struct given_row {
	const char *name;
	enum where where;
	enum kind kind;
	enum owner owner;
	int check;	    /* safe_open_check: -1, 0, 1 */
	int opened;	    /* safe_open_in_place opens (1) or refuses (0) */
	const char *why;    /* in the refusal */
	const char *target; /* target.txt afterwards */
};

static const struct given_row GIVEN[] = {
    {"nothing there", SHARED, NONE, ME, 0, 1, NULL, "precious\n"},
    {"own file", SHARED, REG, ME, 1, 1, NULL, "precious\n"},
    {"own symlink in a shared dir: followed", SHARED, SYMLINK, ME, 1, 1, NULL, "written"},
    {"other's symlink in a shared dir", SHARED, SYMLINK, OTHER, -1, 0,
     "a symbolic link of uid 54321", "precious\n"},
    {"symlink of the shared dir's owner: followed", SHARED_OTHER, SYMLINK, OTHER, 1, 1, NULL,
     "written"},
    {"other's symlink in a private dir: followed", PRIVATE, SYMLINK, OTHER, 1, 1, NULL, "written"},
    {"other's FIFO in a shared dir", SHARED, FIFO_READ, OTHER, -1, 0, "fs.protected_fifos",
     "precious\n"},
    {"other's file in a shared dir", SHARED, REG, OTHER, -1, 0, "fs.protected_regular",
     "precious\n"},
    {"other's directory in a shared dir", SHARED, DIR, OTHER, -1, 0, "a directory of uid 54321",
     "precious\n"},
    {"own FIFO without a reader: refused, not waited for", SHARED, FIFO, ME, 1, 0,
     "no process reads", "precious\n"},
    {"own FIFO with a reader", SHARED, FIFO_READ, ME, 1, 1, NULL, "precious\n"},
    {"own dangling symlink: its target created", SHARED, DANGLING, ME, 1, 1, NULL, "precious\n"},
    {"other's dangling symlink in a shared dir", SHARED, DANGLING, OTHER, -1, 0, "not followed",
     "precious\n"},
};

static void given_row(const struct given_row *r)
{
	char dir[512], path[1024], target[1024], err[2048] = "";
	struct stat st;
	int created = -1;

	row_dirs("given", dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/%s/out.bin", dir, WHERE_NAME[r->where]);
	snprintf(target, sizeof(target), "%s/target.txt", dir);
	make_entry(dir, path, r->kind, r->owner);
	ROW_CHECK(r->name, safe_open_check(path, &st, err, sizeof(err)) == r->check);
	if (r->check < 0)
		ROW_CHECK(r->name, strstr(err, r->why) && strstr(err, path));
	err[0] = '\0';
	int fd = safe_open_in_place(path, O_RDWR, 0644, 0, &created, err, sizeof(err));
	ROW_CHECK(r->name, (fd >= 0) == r->opened);
	if (fd >= 0) {
		ROW_CHECK(r->name, (fcntl(fd, F_GETFL) & O_NONBLOCK) == 0);
		ROW_CHECK(r->name, created == (r->kind == NONE || r->kind == DANGLING));
		if (r->kind == SYMLINK)
			ROW_CHECK(r->name,
				  pwrite(fd, "written", 7, 0) == 7 && ftruncate(fd, 7) == 0);
		if (r->kind == FIFO_READ)
			ROW_CHECK(r->name, (fcntl(fd, F_GETFL) & O_ACCMODE) == O_WRONLY);
		close(fd);
	} else {
		ROW_CHECK(r->name, r->why && strstr(err, r->why));
		if (!r->why || !strstr(err, r->why))
			fprintf(stderr, "    err: %s\n", err);
	}
	ROW_CHECK(r->name, !strcmp(slurp(target), r->target));
	if (r->kind == DANGLING) {
		snprintf(target, sizeof(target), "%s/fresh.txt", dir);
		ROW_CHECK(r->name, (access(target, F_OK) == 0) == r->opened);
	}
	end_row();
}

static void test_given(void)
{
	for (size_t i = 0; i < sizeof(GIVEN) / sizeof(GIVEN[0]); i++)
		if (can_run("test_given", GIVEN[i].name, GIVEN[i].where, GIVEN[i].owner))
			given_row(&GIVEN[i]);
}

/* Links followed one at a time: one of another user's anywhere along the
 * way is refused; a loop ends. */
static void test_given_chain(void)
{
	char dir[512], a[1024], b[1024], t[1024], err[2048];
	int created;

	row_dirs("chain", dir, sizeof(dir));
	snprintf(a, sizeof(a), "%s/private/first", dir);
	snprintf(b, sizeof(b), "%s/shared/second", dir);
	snprintf(t, sizeof(t), "%s/target.txt", dir);
	CHECK(symlink(b, a) == 0);
	CHECK(symlink(t, b) == 0);
	if (is_root) {
		CHECK(lchown(b, OTHER_UID, OTHER_UID) == 0);
		CHECK(safe_open_in_place(a, O_WRONLY, 0644, 0, &created, err, sizeof(err)) == -1);
		CHECK(strstr(err, b) && strstr(err, "symbolic link of uid 54321"));
		CHECK(!strcmp(slurp(t), "precious\n"));
	} else {
		printf("SKIP test_given_chain other's link: needs root (chown)\n");
		skipped++;
	}
	/* a directory on the way that is another user's link in a shared dir */
	snprintf(a, sizeof(a), "%s/shared/dirlink", dir);
	snprintf(b, sizeof(b), "%s/private", dir);
	CHECK(symlink(b, a) == 0);
	snprintf(a, sizeof(a), "%s/shared/dirlink/out.bin", dir);
	if (is_root) {
		struct stat st;
		snprintf(t, sizeof(t), "%s/shared/dirlink", dir);
		CHECK(lchown(t, OTHER_UID, OTHER_UID) == 0);
		CHECK(safe_open_check(a, &st, err, sizeof(err)) == -1);
		CHECK(strstr(err, t) && strstr(err, "on its way is a symbolic link of uid 54321"));
		CHECK(safe_open_own(a, O_WRONLY, 0644, &created, err, sizeof(err)) == -1);
		snprintf(t, sizeof(t), "%s/private/out.bin", dir);
		CHECK(access(t, F_OK) != 0);
	}
	snprintf(a, sizeof(a), "%s/private/loop", dir);
	CHECK(symlink(a, a) == 0);
	CHECK(safe_open_in_place(a, O_WRONLY, 0644, 0, &created, err, sizeof(err)) == -1);
	CHECK(errno == ELOOP && strstr(err, "too many symbolic links"));
}

/* A link that leads into /proc/self/fd (as /dev/stdout does) opens the
 * file the process has open there, here a pipe, whose link text
 * (pipe:[N]) is no path. */
static void test_given_proc(void)
{
	char dir[512], link[1024], target[64], err[2048], got[8] = "";
	int p[2], created = -1;

	CHECK(pipe(p) == 0);
	row_dirs("proc", dir, sizeof(dir));
	snprintf(target, sizeof(target), "/proc/self/fd/%d", p[1]);
	snprintf(link, sizeof(link), "%s/private/stdout-like", dir);
	CHECK(symlink(target, link) == 0);
	int fd = safe_open_in_place(link, O_RDWR, 0644, 0, &created, err, sizeof(err));
	CHECK(fd >= 0 && created == 0);
	if (fd < 0)
		fprintf(stderr, "    err: %s\n", err);
	CHECK(fd >= 0 && write(fd, "x", 1) == 1);
	CHECK(read(p[0], got, 1) == 1 && got[0] == 'x');
	if (fd >= 0)
		close(fd);
	close(p[0]);
	close(p[1]);
}

/* ---- safe_open_own: a name jcal makes up (OUT.part) ---- */

struct own_row {
	const char *name;
	enum where where;
	enum kind kind;
	enum owner owner;
	int opened, created;
	const char *why;
};

static const struct own_row OWN[] = {
    {"nothing there: created", SHARED, NONE, ME, 1, 1, NULL},
    {"own regular file: reused, not truncated", SHARED, REG, ME, 1, 0, NULL},
    {"own file with a second hard link", SHARED, REG_LINK, ME, 0, 0, "2 hard links"},
    {"FIFO without a reader", SHARED, FIFO, ME, 0, 0, "a FIFO, not a regular file"},
    {"other's FIFO with a reader", SHARED, FIFO_READ, OTHER, 0, 0, "a FIFO, not a regular file"},
    {"own symbolic link", SHARED, SYMLINK, ME, 0, 0, "a symbolic link, not a regular file"},
    {"other's regular file", SHARED, REG, OTHER, 0, 0, "belongs to uid 54321"},
    {"other's regular file in a private dir", PRIVATE, REG, OTHER, 0, 0, "belongs to uid 54321"},
    {"directory", SHARED, DIR, ME, 0, 0, "a directory, not a regular file"},
};

static void own_row(const struct own_row *r)
{
	char dir[512], path[1024], err[2048] = "";
	struct stat st;
	int created = -1;

	row_dirs("own", dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/%s/out.bin.part", dir, WHERE_NAME[r->where]);
	make_entry(dir, path, r->kind, r->owner);
	int fd = safe_open_own(path, O_RDWR, 0644, &created, err, sizeof(err));
	ROW_CHECK(r->name, (fd >= 0) == r->opened);
	if (fd >= 0) {
		ROW_CHECK(r->name, created == r->created);
		ROW_CHECK(r->name, fstat(fd, &st) == 0 && S_ISREG(st.st_mode));
		ROW_CHECK(r->name, created ? (st.st_mode & 07777) == 0644 : st.st_size == 5);
		close(fd);
	} else {
		ROW_CHECK(r->name, strstr(err, r->why) && strstr(err, path));
		if (!strstr(err, r->why))
			fprintf(stderr, "    err: %s\n", err);
	}
	if (r->kind == SYMLINK) {
		snprintf(path, sizeof(path), "%s/target.txt", dir);
		ROW_CHECK(r->name, !strcmp(slurp(path), "precious\n"));
	}
	end_row();
}

static void test_own(void)
{
	for (size_t i = 0; i < sizeof(OWN) / sizeof(OWN[0]); i++)
		if (can_run("test_own", OWN[i].name, OWN[i].where, OWN[i].owner))
			own_row(&OWN[i]);
}

/* safe_open_new: only a new file, whatever is there. */
static void test_new(void)
{
	static const enum kind kinds[] = {REG, FIFO, SYMLINK, DANGLING, DIR};
	char dir[512], path[1024], err[2048];
	struct stat st;

	row_dirs("new", dir, sizeof(dir));
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		snprintf(path, sizeof(path), "%s/shared/n%zu", dir, i);
		make_entry(dir, path, kinds[i], ME);
		CHECK(safe_open_new(path, O_WRONLY, 0600, err, sizeof(err)) == -1);
		CHECK(errno == EEXIST && strstr(err, path));
	}
	snprintf(path, sizeof(path), "%s/fresh.txt", dir);
	CHECK(access(path, F_OK) != 0); /* the dangling link's target */
	snprintf(path, sizeof(path), "%s/shared/new", dir);
	int fd = safe_open_new(path, O_WRONLY, 0600, err, sizeof(err));
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 07777) == 0600);
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/no-such-dir/new", dir);
	CHECK(safe_open_new(path, O_WRONLY, 0600, err, sizeof(err)) == -1);
	CHECK(errno == ENOENT && strstr(err, "no-such-dir"));
}

/* ---- safe_open_reply: only a file made for the answer ---- */

enum reply_setup {
	R_GOOD,
	R_NOT_EMPTY,
	R_DIR_NAME,
	R_DIR_OPEN,
	R_FILE_MODE,
	R_SYMLINK,
	R_HARDLINK,
	R_FIFO,
	R_DIR_SYMLINK,
	R_MISSING,
	R_FILE_OTHER,
	R_DIR_OTHER,
};

struct reply_row {
	const char *name;
	enum reply_setup setup;
	const char *why; /* NULL: written */
};

static const struct reply_row REPLY[] = {
    {"the launcher's file", R_GOOD, NULL},
    {"not empty", R_NOT_EMPTY, "it is not empty (5 bytes)"},
    {"directory not named jcal-reply-*", R_DIR_NAME, "is not named jcal-reply-*"},
    {"directory others may write to", R_DIR_OPEN, "others may write to its directory"},
    {"file others may read", R_FILE_MODE, "group or others may use it (mode 0644)"},
    {"symbolic link", R_SYMLINK, "a symbolic link, not a regular file"},
    {"hard link", R_HARDLINK, "2 hard links"},
    {"FIFO", R_FIFO, "a FIFO, not a regular file"},
    {"directory reached through a symbolic link", R_DIR_SYMLINK,
     "its directory is a symbolic link"},
    {"missing", R_MISSING, "does not exist"},
    {"file of another user", R_FILE_OTHER, "belongs to uid 54321"},
    {"directory of another user", R_DIR_OTHER, "belongs to uid 54321"},
};

/* Makes the reply file of a row; returns its path in path. */
static void reply_make(const char *dir, enum reply_setup s, char *path, size_t len)
{
	char d[600], p[700];

	snprintf(d, sizeof(d), "%s/%s", dir, s == R_DIR_NAME ? "replies" : "jcal-reply-abc123");
	CHECK(mkdir(d, 0700) == 0);
	if (s == R_DIR_OPEN)
		CHECK(chmod(d, 0777) == 0);
	snprintf(path, len, "%s/reply", d);
	switch (s) {
	case R_SYMLINK:
		snprintf(p, sizeof(p), "%s/target.txt", dir);
		CHECK(symlink(p, path) == 0);
		return;
	case R_FIFO:
		CHECK(mkfifo(path, 0600) == 0);
		return;
	case R_MISSING:
		return;
	case R_DIR_SYMLINK:
		snprintf(p, sizeof(p), "%s/jcal-reply-link", dir);
		CHECK(symlink(d, p) == 0);
		write_text(path, "");
		CHECK(chmod(path, 0600) == 0);
		snprintf(path, len, "%s/reply", p);
		return;
	default:
		break;
	}
	write_text(path, s == R_NOT_EMPTY ? "data\n" : "");
	CHECK(chmod(path, s == R_FILE_MODE ? 0644 : 0600) == 0);
	if (s == R_HARDLINK) {
		snprintf(p, sizeof(p), "%s/second", d);
		CHECK(link(path, p) == 0);
	}
	if (s == R_FILE_OTHER)
		CHECK(chown(path, OTHER_UID, OTHER_UID) == 0);
	if (s == R_DIR_OTHER)
		CHECK(chown(d, OTHER_UID, OTHER_UID) == 0);
}

static void test_reply(void)
{
	for (size_t i = 0; i < sizeof(REPLY) / sizeof(REPLY[0]); i++) {
		const struct reply_row *r = &REPLY[i];
		char dir[512], path[1024], err[2048] = "";

		if ((r->setup == R_FILE_OTHER || r->setup == R_DIR_OTHER) &&
		    !can_run("test_reply", r->name, PRIVATE, OTHER))
			continue;
		row_dirs("reply", dir, sizeof(dir));
		reply_make(dir, r->setup, path, sizeof(path));
		int fd = safe_open_reply(path, err, sizeof(err));
		ROW_CHECK(r->name, (fd >= 0) == !r->why);
		if (fd >= 0) {
			ROW_CHECK(r->name, write(fd, "ok\n", 3) == 3);
			close(fd);
			ROW_CHECK(r->name, !strcmp(slurp(path), "ok\n"));
		} else {
			ROW_CHECK(r->name, strstr(err, r->why) && strstr(err, "reply="));
			if (!strstr(err, r->why))
				fprintf(stderr, "    err: %s\n", err);
		}
		snprintf(path, sizeof(path), "%s/target.txt", dir);
		ROW_CHECK(r->name, !strcmp(slurp(path), "precious\n"));
	}
}

int main(void)
{
	char cmd[256];

	umask(022);
	is_root = geteuid() == 0;
	/* an open that blocks ends the test (a failure) instead of hanging it */
	alarm(WATCHDOG_SECONDS);
	snprintf(base, sizeof(base), "/tmp/jcal-test-safe-open-XXXXXX");
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_given);
	RUN(test_given_chain);
	RUN(test_given_proc);
	RUN(test_own);
	RUN(test_new);
	RUN(test_reply);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", base);
	printf("test-safe-open: %d passed, %d failed, %d skipped\n", test_passed, test_failed,
	       skipped);
	return test_failed ? 1 : 0;
}
