/*
 * throttle_count.c - the threads' call counts of throttle= (see
 * throttle_count.h): their registry, the flush of a thread's slot into its
 * method's totals where the rule is checked, and the list of picked
 * methods.
 *
 * Locks: reg_mutex guards the registry of thread counts; it is never held
 * while taking another lock or calling the JVM. agent/bci/throttle.c's
 * lock and the trace file's may be held while taking it, never the other
 * way round.
 */
#include "agent/core/throttle_count.h"

#include <pthread.h>
#include <stdlib.h>

#include "common/throttle_fact.h"

int throttle_count_on;
static uint64_t max_calls, max_avg;

static pthread_mutex_t reg_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct throttle_thread *threads;

/* Picked methods not yet taken: a lock-free stack (each method is pushed
 * once, when its state leaves THROTTLE_NONE; taken whole). */
static _Atomic(struct jcal_method *) pending;

void throttle_count_set_rule(uint64_t calls, uint64_t avg)
{
	max_calls = calls;
	max_avg = avg;
	throttle_count_on = 1;
}

struct throttle_thread *throttle_count_thread_new(void)
{
	struct throttle_thread *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	pthread_mutex_lock(&reg_mutex);
	t->next = threads;
	if (threads)
		threads->prev = t;
	threads = t;
	pthread_mutex_unlock(&reg_mutex);
	return t;
}

void throttle_count_slot_flush(struct throttle_slot *s)
{
	struct jcal_method *m = atomic_load_explicit(&s->m, memory_order_relaxed);
	uint64_t c = atomic_load_explicit(&s->calls, memory_order_relaxed);
	uint64_t calls, timed, sum;

	if (!m || (!c && !s->timed))
		return;
	calls = atomic_fetch_add_explicit(&m->thr_calls, c, memory_order_relaxed) + c;
	timed = atomic_fetch_add_explicit(&m->thr_timed, s->timed, memory_order_relaxed) + s->timed;
	sum = atomic_fetch_add_explicit(&m->thr_sum, s->sum, memory_order_relaxed) + s->sum;
	atomic_store_explicit(&s->calls, 0, memory_order_relaxed);
	s->timed = s->sum = 0;
	if (!throttle_count_on ||
	    atomic_load_explicit(&m->thr_state, memory_order_relaxed) != THROTTLE_NONE ||
	    !throttle_decide(calls, timed, sum, max_calls, max_avg))
		return;
	int none = THROTTLE_NONE;
	if (!atomic_compare_exchange_strong(&m->thr_state, &none, THROTTLE_PENDING))
		return;
	/* Until the throttle thread runs, its counts are what the decision saw. */
	m->thr_next = atomic_load(&pending);
	while (!atomic_compare_exchange_weak(&pending, &m->thr_next, m))
		;
}

void throttle_count_thread_end(struct throttle_thread *t)
{
	if (!t)
		return;
	for (unsigned i = 0; i < THROTTLE_SLOTS; i++)
		throttle_count_slot_flush(&t->slot[i]);
	pthread_mutex_lock(&reg_mutex);
	if (t->prev)
		t->prev->next = t->next;
	else
		threads = t->next;
	if (t->next)
		t->next->prev = t->prev;
	pthread_mutex_unlock(&reg_mutex);
	free(t);
}

uint64_t throttle_count_calls(struct jcal_method *m)
{
	uint64_t n = atomic_load_explicit(&m->thr_calls, memory_order_relaxed);
	unsigned i = m->id & (THROTTLE_SLOTS - 1);

	pthread_mutex_lock(&reg_mutex);
	for (struct throttle_thread *t = threads; t; t = t->next)
		if (atomic_load_explicit(&t->slot[i].m, memory_order_relaxed) == m)
			n += atomic_load_explicit(&t->slot[i].calls, memory_order_relaxed);
	pthread_mutex_unlock(&reg_mutex);
	return n;
}

struct jcal_method *throttle_count_take_picked(void)
{
	return atomic_exchange(&pending, NULL);
}
