/*
 * tree_handshake.c - output=tree|both: the take/give protocol between a
 * thread's own events and whoever else takes its tree (docs/agent-internals.md,
 * "Events without a lock"). The events' side is inline in
 * tree_recorder_internal.h (tree_handshake_event_begin/_done), on the
 * event path; the other side is here.
 *
 * Who touches a thread's tree. Its own thread's events do, one at a time;
 * dumps, folds, status and the thread's end do from other threads, under
 * tt->lock. Where membarrier(2) is registered (jcal.membarrier) an event
 * takes no lock: it sets busy (a plain store and a compiler barrier), then
 * goes on alone unless want is raised, in which case it clears busy and
 * takes the lock. Another thread raises want, has every running thread of
 * the process execute a full memory barrier (MEMBARRIER_CMD_PRIVATE_EXPEDITED),
 * takes the lock and waits until busy is clear: either the event saw want,
 * or the other thread sees it busy (the asymmetric fence of the event
 * path's shutdown handshake, event_recorder.c). A pass over every tree
 * (a dump, a fold) raises want on all of them and pays one membarrier
 * (microseconds, more in a VM); the lock it saves costs every event tens
 * of nanoseconds. Without membarrier every event takes the lock. An ended
 * thread's tree takes no more events: the lock alone.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent/core/tree_recorder_internal.h"
#include "agent/base/log.h"

/* After raising want: every running thread executes a full barrier, so
 * that an event either saw want or left busy visible. */
static void fence_events(void)
{
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
		jcal_warn("membarrier failed: %s", strerror(errno));
}

void tree_handshake_want_all(int up)
{
	if (!jcal.membarrier)
		return;
	for (struct tree_thread *tt = tree_registry_head; tt; tt = tt->next)
		if (!tt->ended)
			atomic_fetch_add(&tt->want, up > 0 ? 1 : -1);
	if (up > 0)
		fence_events();
}

void tree_handshake_take(struct tree_thread *tt)
{
	pthread_mutex_lock(&tt->lock);
	if (jcal.membarrier && !tt->ended)
		for (unsigned i = 0; atomic_load_explicit(&tt->busy, memory_order_acquire); i++)
			if (i >= 64)
				sched_yield();
	calltree_flush(&tt->tree);
}

void tree_handshake_give(struct tree_thread *tt)
{
	pthread_mutex_unlock(&tt->lock);
}

void tree_handshake_lock(struct tree_thread *tt)
{
	if (jcal.membarrier && !tt->ended) {
		atomic_fetch_add(&tt->want, 1);
		fence_events();
	}
	tree_handshake_take(tt);
}

void tree_handshake_unlock(struct tree_thread *tt, int was_ended)
{
	if (jcal.membarrier && !was_ended)
		atomic_fetch_sub(&tt->want, 1);
	tree_handshake_give(tt);
}
