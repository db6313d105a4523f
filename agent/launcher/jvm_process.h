/*
 * jvm_process.h - what jcal learns about a target process from /proc
 * before it attaches: whether it exists, its owner, its pid inside its own
 * pid namespace, whether libjvm.so (and an earlier libjcal.so) is mapped,
 * and whether its JVM allows attaching (docs/live-profiling.md). It reads
 * all of it through the process's proc_handle, held from the start.
 */
#ifndef JCAL_JVM_PROCESS_H
#define JCAL_JVM_PROCESS_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "agent/launcher/proc_handle.h"

struct jvm_process {
	struct proc_handle proc; /* the process itself, held */
	pid_t pid;
	pid_t tgid;  /* the process a thread id belongs to; = pid for a process */
	pid_t nspid; /* the pid the JVM sees (last NSpid), = pid outside containers */
	uid_t uid;   /* effective uid and gid: what HotSpot compares with its peer's */
	gid_t gid;
	char user[64];		 /* the uid's name, or the number */
	char root[64];		 /* "" when it sees our files, else "/proc/PID/root" */
	int is_jvm;		 /* libjvm.so is mapped */
	char jcal_lib[PATH_MAX]; /* a libjcal.so already mapped, "" if none */
};

/* From the text of /proc/PID/status (PID: p->pid): fills p's effective
 * uid, gid, Tgid and the innermost NSpid (p->pid when the kernel has no
 * NSpid line). Returns 0 or -1. */
int jvm_process_parse_status(const char *text, struct jvm_process *p);

/* From the text of /proc/PID/maps: 1 when a file whose base name is
 * libjvm.so is mapped. */
int jvm_process_maps_has_jvm(const char *text);

/* From the text of /proc/PID/maps: copies to out the path of the first
 * mapped file whose base name is lib_name (" (deleted)" removed). Returns 0,
 * or -1 when none. */
int jvm_process_maps_find(const char *text, const char *lib_name, char *out, size_t outlen);

/* 1 when the held process sees the files jcal sees: the same mount
 * namespace and the same root; 0 when not, or when that cannot be told
 * (its /proc/PID/root then reaches its files). */
int jvm_process_shares_files(const struct proc_handle *h);

/* Takes hold of pid (proc_handle_open) and reads its /proc/PID/status:
 * fills pid, nspid, uid, gid, user, root. Returns 0, or -1 with errno
 * ESRCH when there is no such process. jvm_process_close lets it go. */
int jvm_process_read(pid_t pid, struct jvm_process *p);

/* Reads /proc/PID/maps: fills is_jvm and jcal_lib (looked up under the
 * base name lib_name). Returns 0, or -1 with errno (EACCES: not ours). */
int jvm_process_read_maps(struct jvm_process *p, const char *lib_name);

/* The target's PerfData file, /proc/PID/root/tmp/hsperfdata_* /NSPID,
 * read into a malloc'd buffer: only a file of the JVM's uid in a
 * directory of its uid (perfdata_read_owned). Returns 0, or -1 when there
 * is none. */
int jvm_process_perfdata(const struct jvm_process *p, unsigned char **buf, size_t *len);

void jvm_process_close(struct jvm_process *p);

/* Reads a whole small /proc file into a malloc'd NUL-terminated string. */
char *jvm_process_slurp(const char *path);

#endif
