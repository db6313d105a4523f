/*
 * kthread.c - per-kernel-thread agent state: a C11 thread-local pointer for
 * the fast path and a pthread key whose destructor closes the counters when
 * the kernel thread exits.
 */
#include "agent/core/kthread.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "agent/core/agent_state.h"

_Thread_local struct jcal_kthread *kthread_current __attribute__((tls_model("initial-exec")));
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static atomic_ulong live;

static void kthread_destroy(void *p)
{
	struct jcal_kthread *kt = p;

	metric_thread_close(&jcal.metrics, &kt->mt);
	if (kthread_current == kt)
		kthread_current = NULL;
	free(kt);
	atomic_fetch_sub(&live, 1);
}

unsigned long kthread_live(void)
{
	return atomic_load(&live);
}

static void make_key(void)
{
	pthread_key_create(&key, kthread_destroy);
}

struct jcal_kthread *kthread_create(void)
{
	struct jcal_kthread *kt = calloc(1, sizeof(*kt));

	if (!kt)
		return NULL;
	pthread_once(&key_once, make_key);
	atomic_fetch_add(&live, 1);
	metric_thread_open(&jcal.metrics, &kt->mt);
	pthread_setspecific(key, kt);
	kthread_current = kt;
	return kt;
}
