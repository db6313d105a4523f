/*
 * jvm_list.h - the running JVMs found through their PerfData files,
 * TMP/hsperfdata_USER/PID (PID as the JVM sees it: in its own /tmp for
 * one of another namespace), for jcal list (docs/live-profiling.md).
 */
#ifndef JCAL_JVM_LIST_H
#define JCAL_JVM_LIST_H

#include <stddef.h>
#include <sys/types.h>

struct jvm_entry {
	pid_t pid;   /* as jcal sees it: the one to give jcal */
	pid_t nspid; /* as the JVM sees it (NSpid), = pid outside containers */
	char user[64];
	char main_class[256]; /* first word of sun.rt.javaCommand */
	char version[64];     /* java.property.java.version, else java.vm.version */
	int attach_enabled;   /* sun.rt.jvmCapabilities starts with '1' */
};

/* Fills e from a PerfData buffer. Returns 0, or -1 when it is not one. */
int jvm_entry_from_perfdata(struct jvm_entry *e, const void *buf, size_t len);

/* The live JVMs of uid (of every user when all_users) found in the
 * directories tmp/hsperfdata_*, each through a file that is its user's in
 * a directory of its user's, and when elsewhere, those of other mount or
 * pid namespaces through their own /tmp; sorted by pid, one entry per
 * pid, in a malloc'd array. Returns 0, or -1 with a message in err. */
int jvm_list_scan(const char *tmp, uid_t uid, int all_users, int elsewhere, struct jvm_entry **out,
		  size_t *n, char *err, size_t errlen);

#endif
