/*
 * jvm_process.c - reads a target process's /proc entries (status, maps)
 * and its PerfData file; the parsers of those texts are pure and
 * unit-tested.
 */
#include "agent/launcher/jvm_process.h"

#include "agent/launcher/launcher_io.h"
#include "agent/launcher/perfdata.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	const char *u = proc_status_field(text, "Uid"), *g = proc_status_field(text, "Gid");
	const char *t = proc_status_field(text, "Tgid"), *ns = proc_status_field(text, "NSpid");
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
	return fd < 0 ? NULL : launcher_slurp_fd(fd);
}

int jvm_process_shares_files(const struct proc_handle *h)
{
	/* the same root is not enough: a private /tmp (systemd's PrivateTmp=)
	 * is a mount of another namespace over the same "/" */
	char ours[64], theirs[64];
	struct stat rs, rt;
	ssize_t a = readlink("/proc/self/ns/mnt", ours, sizeof(ours) - 1);
	ssize_t b = readlinkat(h->procfd, "ns/mnt", theirs, sizeof(theirs) - 1);
	if (a <= 0 || b <= 0 || a != b || memcmp(ours, theirs, (size_t)a))
		return 0;
	return stat("/", &rs) == 0 && fstatat(h->procfd, "root", &rt, 0) == 0 &&
	       rs.st_dev == rt.st_dev && rs.st_ino == rt.st_ino;
}

int jvm_process_read(pid_t pid, struct jvm_process *p)
{
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	if (proc_handle_open(&p->proc, pid))
		return -1;
	char *text = proc_handle_read(&p->proc, "status");
	int r = text ? jvm_process_parse_status(text, p) : -1;
	free(text);
	if (r) {
		jvm_process_close(p);
		errno = ESRCH;
		return -1;
	}
	struct passwd *pw = getpwuid(p->uid);
	if (pw && strlen(pw->pw_name) < sizeof(p->user))
		snprintf(p->user, sizeof(p->user), "%s", pw->pw_name);
	else
		snprintf(p->user, sizeof(p->user), "%u", (unsigned)p->uid);
	if (!jvm_process_shares_files(&p->proc))
		snprintf(p->root, sizeof(p->root), "/proc/%d/root", (int)pid);
	return 0;
}

int jvm_process_read_maps(struct jvm_process *p, const char *lib_name)
{
	char *text = proc_handle_read(&p->proc, "maps");
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
	char tmp[128], dir[PATH_MAX], name[16], err[PATH_MAX + 128];
	snprintf(tmp, sizeof(tmp), "%s/tmp", p->root);
	snprintf(name, sizeof(name), "%d", (int)p->nspid);
	/* the directory of the owner's name first, then any other of its uid */
	snprintf(dir, sizeof(dir), "%s/hsperfdata_%s", tmp, p->user);
	if (perfdata_read_owned(dir, name, p->uid, buf, len, err, sizeof(err)) == 0)
		return 0;
	DIR *d = opendir(tmp);
	if (!d)
		return -1;
	int r = -1;
	struct dirent *e;
	while (r && (e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "hsperfdata_", 11) != 0)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", tmp, e->d_name);
		r = perfdata_read_owned(dir, name, p->uid, buf, len, err, sizeof(err));
	}
	closedir(d);
	return r;
}

void jvm_process_close(struct jvm_process *p)
{
	proc_handle_close(&p->proc);
}
