/*
 * thread_state.h - per-Java-thread state of the agent, kept in JVMTI
 * thread-local storage: the events buffer and encoder, the method cache,
 * the metric state, and the registry that lets VM death flush every thread.
 */
#ifndef JCAL_THREAD_STATE_H
#define JCAL_THREAD_STATE_H

#include <jvmti.h>
#include <stdatomic.h>
#include <stdint.h>

#include "method_table.h"
#include "metric.h"
#include "trace_encoder.h"

#define THREAD_BUFFER_BYTES (64 * 1024)

struct jcal_thread {
	atomic_int busy;          /* inside an event callback (see agent.c) */
	uint32_t serial;
	uint64_t events;          /* recorded in all */
	struct metric_thread mt;
	struct method_cache cache;
	struct trace_events_enc enc;
	struct jcal_thread *prev, *next; /* registry */
};

/* Creates the state of the current thread, writes its THREAD_START record
 * and stores it in JVMTI thread-local storage. late: first seen at an event.
 * Returns NULL when memory runs out. */
struct jcal_thread *thread_state_create(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, int late);

/* Records the thread's current name (THREAD_NAME): for a thread first seen
 * before VMInit, whose name could not be read then. */
void thread_state_rename(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, struct jcal_thread *st);

/* At ThreadEnd: writes the thread's events and THREAD_END, frees the state. */
void thread_state_retire(jvmtiEnv *jvmti, struct jcal_thread *st);

/* At VM death (tracing already stopped): waits for callbacks in flight and
 * writes every live thread's buffered events. Returns the total events
 * recorded by all threads, ended or alive; *threads gets the thread count. */
uint64_t thread_state_flush_all(uint64_t *threads);

static inline struct jcal_thread *thread_state_get(jvmtiEnv *jvmti)
{
	void *p = NULL;
	if ((*jvmti)->GetThreadLocalStorage(jvmti, NULL, &p) != JVMTI_ERROR_NONE)
		return NULL;
	return p;
}

#endif
