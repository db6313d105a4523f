/*
 * jvm_list.c - scans the hsperfdata directories: a file named after a pid
 * whose process is alive and maps libjvm.so (when its maps can be read: a
 * stale file's pid may have been reused) is a running JVM, when the file
 * and its directory belong to that process's user: any user can make
 * /tmp/hsperfdata_NAME and put files in it. The user shown is the
 * process's, not the directory's name. A JVM of another mount or pid
 * namespace (a private /tmp, a container) has its file in its own /tmp
 * under the pid it sees: those are found from /proc, each process's file
 * read through /proc/PID/root.
 */
#include "agent/launcher/jvm_list.h"

#include "agent/launcher/jvm_process.h"
#include "agent/launcher/perfdata.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int jvm_entry_from_perfdata(struct jvm_entry *e, const void *buf, size_t len)
{
	struct perfdata pd;
	char err[128], cmd[1024], caps[8];
	if (perfdata_open(&pd, buf, len, err, sizeof(err)))
		return -1;
	if (perfdata_string(&pd, "sun.rt.javaCommand", cmd, sizeof(cmd)) || !cmd[0])
		snprintf(cmd, sizeof(cmd), "?");
	size_t w = strcspn(cmd, " ");
	snprintf(e->main_class, sizeof(e->main_class), "%.*s", (int)w, cmd);
	if (perfdata_string(&pd, "java.property.java.version", e->version, sizeof(e->version)) &&
	    perfdata_string(&pd, "java.property.java.vm.version", e->version, sizeof(e->version)))
		snprintf(e->version, sizeof(e->version), "?");
	e->attach_enabled =
	    perfdata_string(&pd, "sun.rt.jvmCapabilities", caps, sizeof(caps)) || caps[0] != '0';
	return 0;
}

/* 1 when the process p holds maps libjvm.so, or its maps cannot be read. */
static int maps_jvm(struct jvm_process *p)
{
	char *maps = proc_handle_read(&p->proc, "maps");
	if (!maps)
		return 1;
	int jvm = jvm_process_maps_has_jvm(maps);
	free(maps);
	return jvm;
}

static int by_pid(const void *a, const void *b)
{
	pid_t x = ((const struct jvm_entry *)a)->pid, y = ((const struct jvm_entry *)b)->pid;
	return (x > y) - (x < y);
}

/* The entry of the file NAME of dir when pid NAME is a live JVM of a user
 * the list shows whose file it is. Returns 1 when e was filled. */
static int entry_of(const char *dir, const char *name, uid_t uid, int all_users,
		    struct jvm_entry *e)
{
	char *end, err[4096 + 256];
	struct jvm_process p;
	long pid = strtol(name, &end, 10);
	if (name[0] < '1' || name[0] > '9' || *end || pid > 0x3fffffff ||
	    jvm_process_read((pid_t)pid, &p))
		return 0;
	unsigned char *buf = NULL;
	size_t len;
	/* a process of another pid namespace has another file of this name */
	int ok = (all_users || p.uid == uid) && p.nspid == p.pid && maps_jvm(&p) &&
		 perfdata_read_owned(dir, name, p.uid, &buf, &len, err, sizeof(err)) == 0;
	memset(e, 0, sizeof(*e));
	e->pid = e->nspid = (pid_t)pid;
	snprintf(e->user, sizeof(e->user), "%s", p.user);
	ok = ok && jvm_entry_from_perfdata(e, buf, len) == 0;
	free(buf);
	jvm_process_close(&p);
	return ok;
}

/* Room for one more entry. 0, or -1 out of memory. */
static int grow(struct jvm_entry **out, size_t n, size_t *cap)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 16;
	struct jvm_entry *ne = realloc(*out, nc * sizeof(**out));
	if (!ne)
		return -1;
	*out = ne;
	*cap = nc;
	return 0;
}

/* Adds the live JVMs of one hsperfdata directory. */
static int scan_dir(const char *dir, uid_t uid, int all_users, struct jvm_entry **out, size_t *n,
		    size_t *cap)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (grow(out, *n, cap)) {
			closedir(d);
			return -1;
		}
		if (entry_of(dir, de->d_name, uid, all_users, &(*out)[*n]))
			(*n)++;
	}
	closedir(d);
	return 0;
}

/* 1 when /proc/NAME/ns/WHICH is the namespace of jcal's (ours: its link),
 * or when it cannot be read (no process of another namespace to list). */
static int same_ns(const char *name, const char *which, const char *ours)
{
	char path[300], theirs[64];
	snprintf(path, sizeof(path), "/proc/%s/ns/%s", name, which);
	ssize_t n = readlink(path, theirs, sizeof(theirs) - 1);
	if (n <= 0)
		return 1;
	theirs[n] = '\0';
	return strcmp(theirs, ours) == 0;
}

/* 1 when process NAME sees jcal's files and pids: the /tmp scan lists it
 * (cheap, before anything is read of the process, with no user lookup). */
static int at_home(const char *name, const char *mnt, const char *pid, const struct stat *root)
{
	char path[300];
	struct stat sb;
	snprintf(path, sizeof(path), "/proc/%s/root", name);
	return same_ns(name, "mnt", mnt) && same_ns(name, "pid", pid) &&
	       (stat(path, &sb) || (sb.st_dev == root->st_dev && sb.st_ino == root->st_ino));
}

/* The entry of process NAME of /proc when it is a JVM of a user the list
 * shows that sees other files than jcal or another pid: its PerfData file
 * is in its own /tmp, named by the pid it sees. Returns 1 when e was
 * filled. */
static int entry_elsewhere(const char *name, uid_t uid, int all_users, struct jvm_entry *e)
{
	char *end;
	struct jvm_process p;
	long pid = strtol(name, &end, 10);
	if (name[0] < '1' || name[0] > '9' || *end || pid > 0x3fffffff ||
	    jvm_process_read((pid_t)pid, &p))
		return 0;
	unsigned char *buf = NULL;
	size_t len;
	int ok = (all_users || p.uid == uid) && (p.root[0] || p.nspid != p.pid) &&
		 p.tgid == p.pid && maps_jvm(&p) && jvm_process_perfdata(&p, &buf, &len) == 0;
	memset(e, 0, sizeof(*e));
	e->pid = (pid_t)pid;
	e->nspid = p.nspid;
	snprintf(e->user, sizeof(e->user), "%s", p.user);
	ok = ok && jvm_entry_from_perfdata(e, buf, len) == 0;
	free(buf);
	jvm_process_close(&p);
	return ok;
}

/* Adds the JVMs of other namespaces (entry_elsewhere). */
static int scan_proc(uid_t uid, int all_users, struct jvm_entry **out, size_t *n, size_t *cap)
{
	char mnt[64] = "", pid[64] = "";
	struct stat root;
	ssize_t a = readlink("/proc/self/ns/mnt", mnt, sizeof(mnt) - 1);
	ssize_t b = readlink("/proc/self/ns/pid", pid, sizeof(pid) - 1);
	DIR *d = a > 0 && b > 0 && stat("/", &root) == 0 ? opendir("/proc") : NULL;
	if (!d)
		return 0;
	mnt[a] = pid[b] = '\0';
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (grow(out, *n, cap)) {
			closedir(d);
			return -1;
		}
		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    at_home(de->d_name, mnt, pid, &root))
			continue;
		if (entry_elsewhere(de->d_name, uid, all_users, &(*out)[*n]))
			(*n)++;
	}
	closedir(d);
	return 0;
}

int jvm_list_scan(const char *tmp, uid_t uid, int all_users, int elsewhere, struct jvm_entry **out,
		  size_t *n, char *err, size_t errlen)
{
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	DIR *d = opendir(tmp);
	if (!d) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	struct dirent *de;
	int r = 0;
	while (r == 0 && (de = readdir(d)) != NULL) {
		char dir[3072];
		struct stat sb;
		if (strncmp(de->d_name, "hsperfdata_", 11) != 0)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", tmp, de->d_name);
		if (lstat(dir, &sb) || !S_ISDIR(sb.st_mode) || (!all_users && sb.st_uid != uid))
			continue;
		r = scan_dir(dir, uid, all_users, out, n, &cap);
	}
	closedir(d);
	if (r == 0 && elsewhere)
		r = scan_proc(uid, all_users, out, n, &cap);
	if (r) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), by_pid);
	/* one line per pid, should two directories of its user name it */
	size_t kept = 0;
	for (size_t i = 0; i < *n; i++)
		if (kept == 0 || (*out)[kept - 1].pid != (*out)[i].pid)
			(*out)[kept++] = (*out)[i];
	*n = kept;
	return 0;
}
