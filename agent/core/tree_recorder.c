/*
 * tree_recorder.c - output=tree|both: the Java threads' calling-context
 * trees kept in the agent (see tree_recorder.h): the API, each thread's
 * definition kept with its tree, and the event path. The rest is done by
 * the files of tree_recorder_internal.h: the table and the hook
 * (tree_comp.c), who takes a tree (tree_handshake.c), the registry of
 * live and ended trees (tree_registry.c), maxcontexts= (tree_fold.c) and
 * the snapshots (tree_dump.c).
 */
#include "agent/core/tree_recorder.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/core/tree_recorder_internal.h"
#include "common/safe_open.h"

/* this recording keeps trees: set by the session before it counts the
 * recording (thread_state.c reads it after) */
static atomic_int trees_on;

static char snapshot_path[JCAL_OPT_PATH_MAX + 8];

int tree_recorder_init(const char *path, char *err, size_t errlen)
{
	char tmp[sizeof(snapshot_path) + 64], why[1200];
	struct stat st;
	int fd;

	if ((size_t)snprintf(snapshot_path, sizeof(snapshot_path), "%s", path) >=
	    sizeof(snapshot_path)) {
		snprintf(err, errlen, "snapshot file name too long: %s", path);
		return -1;
	}
	/* another user's file at the name would not be replaced at the end
	 * (safe_open.h): said now rather than after the run */
	if (safe_open_check(path, &st, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "cannot write the tree snapshot to %s: %s", path, why);
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld.check", path, (long)getpid());
	fd = safe_open_new(tmp, O_WRONLY, 0600, why, sizeof(why));
	if (fd < 0) {
		snprintf(err, errlen, "cannot write the tree snapshot to %s: %s", path, why);
		return -1;
	}
	close(fd);
	unlink(tmp);
	atomic_store(&trees_on, 1);
	atomic_store(&tree_fold_at, (int_fast64_t)jcal.opts.maxcontexts);
	return 0;
}

void tree_recorder_off(void)
{
	atomic_store(&trees_on, 0);
}

int tree_recorder_on(void)
{
	return atomic_load(&trees_on);
}

int tree_recorder_choose_table(char *err, size_t errlen)
{
	return tree_comp_choose_table(err, errlen);
}

int tree_recorder_slow_setup(int keep, char *err, size_t errlen)
{
	if (tree_slow_check(err, errlen))
		return -1;
	if (keep && tree_slow_configure()) {
		snprintf(err, errlen, "option 'slow=': out of memory for the calls to keep");
		return -1;
	}
	return 0;
}

int tree_recorder_slow_counts(uint64_t *ns, uint64_t *over, uint64_t *kept, uint64_t *max)
{
	return tree_slow_status(ns, over, kept, max);
}

struct tree_thread *tree_recorder_thread_new(uint32_t serial, unsigned nmetrics)
{
	return tree_registry_thread_new(serial, nmetrics);
}

void tree_recorder_thread_ended(struct tree_thread *tt)
{
	tree_registry_thread_ended(tt);
}

void tree_recorder_thread_start(struct tree_thread *tt, uint64_t java_tid, uint32_t os_tid,
				uint32_t flags, uint64_t time_ns, const char *name,
				const uint64_t *metric)
{
	char *copy = strdup(name ? name : "");

	if (!tt) {
		free(copy);
		return;
	}
	pthread_mutex_lock(&tt->lock);
	if (!tt->defined) {
		tt->os_tid = os_tid;
		tt->tflags = flags;
		tt->start_ns = time_ns;
		if (metric)
			memcpy(tt->start_metric, metric, sizeof(tt->start_metric));
	}
	if (java_tid)
		tt->java_tid = java_tid;
	if (copy) {
		free(tt->name);
		tt->name = copy;
	}
	tt->defined = 1;
	pthread_mutex_unlock(&tt->lock);
}

void tree_recorder_thread_continues(struct tree_thread *tt, int continued)
{
	if (!tt)
		return;
	pthread_mutex_lock(&tt->lock);
	tt->tree.continued = continued;
	pthread_mutex_unlock(&tt->lock);
}

void tree_recorder_thread_end(struct tree_thread *tt, uint64_t time_ns, uint64_t events,
			      const uint64_t *metric)
{
	if (!tt)
		return;
	pthread_mutex_lock(&tt->lock);
	tt->end_known = 1;
	tt->end_ns = time_ns;
	tt->end_events = events;
	memcpy(tt->end_metric, metric, sizeof(tt->end_metric));
	pthread_mutex_unlock(&tt->lock);
}

int tree_recorder_event(struct tree_thread *tt, uint32_t method, unsigned transition, unsigned type,
			const uint64_t *metric)
{
	int64_t added = 0;
	int rare = 0, locked;

	if (!tt)
		return 0;
	locked = tree_handshake_event_begin(tt, &rare); /* rare: a snapshot or a fold held it */
	tt->idle = 0;
	if (tt->failed) {
		tt->lost++;
	} else if (calltree_event(&tt->tree, method, transition, type, metric)) {
		/* out of memory: the tree stays as it was before this event */
		tt->failed = 1;
		tt->lost++;
	}
	if (tt->tree.nnodes - 1 != (uint32_t)tt->counted) {
		added = tree_registry_recount(tt);
		rare = 1;
	}
	tree_handshake_event_done(tt, locked);
	if (added &&
	    (atomic_fetch_add(&tree_registry_contexts, added) + added) >
		atomic_load(&tree_fold_at) &&
	    jcal.opts.maxcontexts)
		tree_fold_all();
	return rare;
}

int tree_recorder_dump(const char *path, char *err, size_t errlen)
{
	return tree_dump_write(path, err, errlen);
}

void tree_recorder_counts(uint64_t *contexts, uint64_t *folded_contexts, uint64_t *folded_calls,
			  uint64_t *events)
{
	struct tree_totals s;

	tree_registry_totals_now(&s);
	if (contexts) {
		int64_t n = atomic_load(&tree_registry_contexts);
		*contexts = n > 0 ? (uint64_t)n : 0;
	}
	if (folded_contexts)
		*folded_contexts = s.folded_contexts;
	if (folded_calls)
		*folded_calls = s.folded_calls;
	if (events)
		*events = s.events;
}

int tree_recorder_table(const char **path, const char **note)
{
	struct tree_comp_info info;

	tree_comp_info(&info);
	*path = info.path;
	*note = info.note;
	return info.state == 1;
}

void tree_recorder_reset(void)
{
	tree_registry_reset();
}

int tree_recorder_finish(char *line, size_t len)
{
	return tree_dump_finish(snapshot_path, line, len);
}
