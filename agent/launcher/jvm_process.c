/*
 * jvm_process.c - reads a target process's /proc entries (status, maps)
 * and its PerfData file; the parsers of those texts are pure and
 * unit-tested.
 */
#include "jvm_process.h"

#include "perfdata.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The value after "Key:" on its own line of text, NULL when absent. */
static const char *status_field(const char *text, const char *key)
{
	size_t klen = strlen(key);
	for (const char *line = text; line && *line;) {
		if (strncmp(line, key, klen) == 0 && line[klen] == ':')
			return line + klen + 1;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return NULL;
}

/* The idx'th (0-based) number of a whitespace-separated list. */
static int nth_number(const char *s, int idx, long *out)
{
	for (int i = 0; s; i++) {
		char *end;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s < '0' || *s > '9')
			return -1;
		long v = strtol(s, &end, 10);
		if (i == idx) {
			*out = v;
			return 0;
		}
		s = end;
	}
	return -1;
}

int jvm_process_parse_status(const char *text, struct jvm_process *p)
{
	const char *u = status_field(text, "Uid"), *g = status_field(text, "Gid");
	const char *t = status_field(text, "Tgid"), *ns = status_field(text, "NSpid");
	long eu, eg, tgid = p->pid, v;
	if (!u || !g || nth_number(u, 1, &eu) || nth_number(g, 1, &eg) ||
	    (t && nth_number(t, 0, &tgid)))
		return -1;
	p->uid = (uid_t)eu;
	p->gid = (gid_t)eg;
	p->tgid = (pid_t)tgid;
	p->nspid = p->pid;
	for (int i = 0; ns && nth_number(ns, i, &v) == 0; i++)
		p->nspid = (pid_t)v;
	return 0;
}

/* Calls fn on the path of every file mapping of maps text until it
 * returns non-zero; returns that value, 0 when none did. */
static int each_mapped_path(const char *text, int (*fn)(const char *path, size_t len, void *arg),
			    void *arg)
{
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t llen = end ? (size_t)(end - line) : strlen(line);
		const char *slash = memchr(line, '/', llen);
		if (slash) {
			int r = fn(slash, llen - (size_t)(slash - line), arg);
			if (r)
				return r;
		}
		line = end ? end + 1 : NULL;
	}
	return 0;
}

struct find_arg {
	const char *name;
	char *out;
	size_t outlen;
};

static int match_base(const char *path, size_t len, void *arg)
{
	struct find_arg *fa = arg;
	static const char deleted[] = " (deleted)";
	size_t dl = sizeof(deleted) - 1;
	if (len > dl && memcmp(path + len - dl, deleted, dl) == 0)
		len -= dl;
	size_t nlen = strlen(fa->name);
	if (len <= nlen || path[len - nlen - 1] != '/' || memcmp(path + len - nlen, fa->name, nlen))
		return 0;
	if (fa->out) {
		if (len >= fa->outlen)
			return 0;
		memcpy(fa->out, path, len);
		fa->out[len] = '\0';
	}
	return 1;
}

int jvm_process_maps_has_jvm(const char *text)
{
	struct find_arg fa = {"libjvm.so", NULL, 0};
	return each_mapped_path(text, match_base, &fa);
}

int jvm_process_maps_find(const char *text, const char *lib_name, char *out, size_t outlen)
{
	struct find_arg fa = {lib_name, out, outlen};
	return each_mapped_path(text, match_base, &fa) ? 0 : -1;
}

char *jvm_process_slurp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 8192, len = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf)
			break;
		if (cap - len < 4096) {
			char *nb = cap < (64u << 20) ? realloc(buf, cap * 2) : NULL;
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (buf)
		buf[len] = '\0';
	return buf;
}

int jvm_process_read(pid_t pid, struct jvm_process *p)
{
	char path[64];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	char *text = jvm_process_slurp(path);
	if (!text) {
		errno = ESRCH;
		return -1;
	}
	int r = jvm_process_parse_status(text, p);
	free(text);
	if (r) {
		errno = ESRCH;
		return -1;
	}
	struct passwd *pw = getpwuid(p->uid);
	if (pw && strlen(pw->pw_name) < sizeof(p->user))
		snprintf(p->user, sizeof(p->user), "%s", pw->pw_name);
	else
		snprintf(p->user, sizeof(p->user), "%u", (unsigned)p->uid);
	/* the target's root, unless it is ours (the usual case) */
	struct stat ours, theirs;
	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	if (stat("/", &ours) || stat(path, &theirs) || ours.st_dev != theirs.st_dev ||
	    ours.st_ino != theirs.st_ino)
		snprintf(p->root, sizeof(p->root), "%s", path);
	return 0;
}

int jvm_process_read_maps(struct jvm_process *p, const char *lib_name)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pid);
	char *text = jvm_process_slurp(path);
	if (!text)
		return -1;
	p->is_jvm = jvm_process_maps_has_jvm(text);
	if (jvm_process_maps_find(text, lib_name, p->jcal_lib, sizeof(p->jcal_lib)))
		p->jcal_lib[0] = '\0';
	free(text);
	return 0;
}

int jvm_process_perfdata(const struct jvm_process *p, unsigned char **buf, size_t *len)
{
	char dir[128], file[PATH_MAX], err[256];
	snprintf(dir, sizeof(dir), "%s/tmp", p->root);
	/* the directory of the owner's name first, then any other */
	snprintf(file, sizeof(file), "%s/hsperfdata_%s/%d", dir, p->user, (int)p->nspid);
	if (access(file, F_OK) == 0)
		return perfdata_read_file(file, buf, len, err, sizeof(err));
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int r = -1;
	struct dirent *e;
	while (r && (e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "hsperfdata_", 11) != 0)
			continue;
		snprintf(file, sizeof(file), "%s/%s/%d", dir, e->d_name, (int)p->nspid);
		if (access(file, F_OK) == 0)
			r = perfdata_read_file(file, buf, len, err, sizeof(err));
	}
	closedir(d);
	return r;
}
