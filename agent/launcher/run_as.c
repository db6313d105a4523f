/*
 * run_as.c - the effective ids jcal acts with (run_as.h): setresuid and
 * setresgid change only the effective ids, so that the real and saved ids
 * stay root's and the JVM's user can neither signal nor trace jcal.
 */
#include "agent/launcher/run_as.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define RUN_AS_MAX_GROUPS 256

static int switched;
static uid_t owner_uid;
static gid_t owner_gid, caller_gid;
static gid_t caller_groups[RUN_AS_MAX_GROUPS];
static int caller_ngroups;

int run_as_switched(void)
{
	return switched;
}

/* The owner's ids as effective ids. 0 or -1. */
static int take_owner(void)
{
	if (setgroups(1, &owner_gid) || setresgid((gid_t)-1, owner_gid, (gid_t)-1) ||
	    setresuid((uid_t)-1, owner_uid, (uid_t)-1))
		return -1;
	return 0;
}

int run_as_owner(uid_t uid, gid_t gid, char *err, size_t errlen)
{
	if (switched)
		return take_owner() ? (snprintf(err, errlen, "%s", strerror(errno)), -1) : 0;
	if (geteuid() != 0 || uid == 0)
		return 0;
	caller_gid = getegid();
	caller_ngroups = getgroups(RUN_AS_MAX_GROUPS, caller_groups);
	if (caller_ngroups < 0)
		caller_ngroups = 0;
	owner_uid = uid;
	owner_gid = gid;
	if (take_owner()) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	switched = 1;
	return 0;
}

int run_as_caller(void)
{
	if (!switched)
		return 0;
	/* the uid first: changing groups needs root's rights */
	if (setresuid((uid_t)-1, 0, (uid_t)-1) || setresgid((gid_t)-1, caller_gid, (gid_t)-1) ||
	    setgroups((size_t)caller_ngroups, caller_groups))
		return -1;
	return 0;
}
