/*
 * thread_state.c - creates, retires and flushes per-thread agent state.
 *
 * Threads register in a list under a mutex (taken at thread start and end
 * and at VM death only, never per event), so that VM death can reach the
 * buffers of threads that are still running.
 */
#include "agent/core/thread_state.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent/core/agent_state.h"
#include "agent/base/jvmti_check.h"
#include "agent/base/jvmti_compat.h"
#include "agent/base/log.h"
#include "agent/core/trace_file.h"
#include "agent/core/throttle_count.h"
#include "agent/core/tree_recorder.h"

struct jcal_thread thread_state_ended;

static pthread_mutex_t registry_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct jcal_thread *registry;
static uint64_t ended_events, ended_filtered, thread_count, live_count;

static uint64_t wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The thread's THREAD_START: in the trace file, or with output=tree (no
 * trace file) kept with its tree for the snapshots, so that the
 * definitions do not grow with every thread started. */
static void write_thread_start(struct jcal_thread *st, uint64_t java_tid, uint32_t flags,
			       const char *name, const uint64_t *metric)
{
	if (jcal.opts.output == JCAL_OUTPUT_TREE) {
		tree_recorder_thread_start(st->tree, java_tid, (uint32_t)syscall(SYS_gettid), flags,
					   wall_ns(), name, metric);
		return;
	}
	struct trace_recbuf *rb = trace_file_lock();
	trace_rec_thread_start(rb, st->serial, java_tid, (uint32_t)syscall(SYS_gettid), flags,
			       wall_ns(), name, jcal.metrics.n, metric);
	trace_file_unlock();
}

/* A tree for st when the recording keeps trees; a tree that cannot be had
 * loses the thread's events (counted). */
static void new_tree(struct jcal_thread *st)
{
	if (tree_recorder_on() &&
	    !(st->tree = tree_recorder_thread_new(st->serial, jcal.metrics.n)))
		jcal_warn("out of memory for the tree of thread #%u: its events are lost",
			  st->serial);
}

struct jcal_thread *thread_state_create(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, int late)
{
	int is_virtual = jcal.vthreads && jcal_is_virtual(jni, thread);
	size_t cap = is_virtual ? VTHREAD_BUFFER_BYTES : THREAD_BUFFER_BYTES;
	struct jcal_thread *st = calloc(1, sizeof(*st));
	uint8_t *buf = malloc(cap);
	struct jcal_kthread *kt = kthread_get();
	jvmtiThreadInfo info;
	uint64_t java_tid = 0, metric[JCAL_MAX_METRICS] = {0};
	uint32_t flags = late ? TRACE_THREAD_LATE : 0;
	const char *name = "";

	if (!st || !buf || !kt) {
		free(st);
		free(buf);
		return NULL;
	}
	st->serial = atomic_fetch_add(&jcal.next_serial, 1);
	/* the recording first: a session's start sets the trees up before it
	 * counts the recording, and a thread that sees the older count is
	 * set up again at its first event (thread_state_renew) */
	st->recording = st->based = atomic_load(&jcal.recording);
	new_tree(st);
	st->is_virtual = (uint8_t)is_virtual;
	st->manual = jcal.opts.start_manual != 0;
	st->regions = st->manual ? 0 : 1;
	if (is_virtual)
		flags |= TRACE_THREAD_VIRTUAL;
	trace_events_init(&st->enc, buf, cap, st->serial, jcal.metrics.n);

	memset(&info, 0, sizeof(info));
	/* Without it the thread keeps the default name. */
	if (thread && !jvmti_check_debug(jvmti, (*jvmti)->GetThreadInfo(jvmti, thread, &info),
					 "GetThreadInfo")) {
		if (info.name)
			name = info.name;
		if (info.is_daemon)
			flags |= TRACE_THREAD_DAEMON;
		st->is_daemon = info.is_daemon != 0;
		if (jni) {
			if (info.thread_group)
				(*jni)->DeleteLocalRef(jni, info.thread_group);
			if (info.context_class_loader)
				(*jni)->DeleteLocalRef(jni, info.context_class_loader);
		}
	}
	if (thread && jni && jcal.thread_tid)
		java_tid = (uint64_t)(*jni)->GetLongField(jni, thread, jcal.thread_tid);
	st->java_tid = java_tid;
	if (thread && jni)
		st->ref = (*jni)->NewGlobalRef(jni, thread);
	st->name = strdup(name);
	thread_state_metric(st, kt, metric);

	write_thread_start(st, java_tid, flags, name, metric);
	jvmti_free(jvmti, info.name);

	pthread_mutex_lock(&registry_mutex);
	st->next = registry;
	if (registry)
		registry->prev = st;
	registry = st;
	thread_count++;
	live_count++;
	pthread_mutex_unlock(&registry_mutex);

	if (!is_virtual) {
		/* Before VMInit no virtual thread runs; after it, only carriers. */
		if (jcal.carrier_known < 0)
			st->may_carry = 1;
		else if (jcal.carrier_known > 0)
			st->may_carry =
			    !thread || !jni || (*jni)->IsInstanceOf(jni, thread, jcal.carrier_cls);
		kt->platform = st;
	}
	jvmtiError e = (*jvmti)->SetThreadLocalStorage(jvmti, NULL, st);
	if (e != JVMTI_ERROR_NONE) {
		char what[64];
		snprintf(what, sizeof(what), "SetThreadLocalStorage for thread #%u", st->serial);
		jvmti_check_debug(jvmti, e, what);
	}
	return st;
}

uint32_t thread_state_rebase_slow(struct jcal_thread *st, uint32_t recording)
{
	uint8_t manual = jcal.opts.start_manual != 0;

	st->based = recording;
	if (manual && !st->manual && st->regions)
		st->regions--;
	else if (!manual && st->manual)
		st->regions++;
	st->manual = manual;
	return st->regions;
}

int thread_state_renew(struct jcal_thread *st, struct jcal_kthread *kt)
{
	uint64_t metric[JCAL_MAX_METRICS] = {0};
	uint32_t flags = TRACE_THREAD_LATE | (st->is_virtual ? TRACE_THREAD_VIRTUAL : 0) |
			 (st->is_daemon ? TRACE_THREAD_DAEMON : 0);

	if (!thread_state_rebase(st))
		return 0;
	/* seen in an earlier file of this session: a rotation came between */
	if (st->recording >= atomic_load(&jcal.session_first))
		flags |= TRACE_THREAD_CONTINUED;
	/* seq_cst: what the session's start set up before it counted the
	 * recording (the trees on or off) is seen after this */
	st->recording = atomic_load(&jcal.recording);
	if (!tree_recorder_on() && st->tree) {
		tree_recorder_thread_ended(st->tree); /* emptied at the start: freed */
		st->tree = NULL;
	} else if (!st->tree) {
		new_tree(st);
	}
	tree_recorder_thread_continues(st->tree, (flags & TRACE_THREAD_CONTINUED) != 0);
	trace_events_reset(&st->enc);
	st->events = 0;
	st->filtered = 0;
	thread_state_metric(st, kt, metric);
	write_thread_start(st, st->java_tid, flags, st->name ? st->name : "", metric);
	pthread_mutex_lock(&registry_mutex);
	thread_count++;
	pthread_mutex_unlock(&registry_mutex);
	return 1;
}

uint64_t thread_state_live(void)
{
	uint64_t n;
	pthread_mutex_lock(&registry_mutex);
	n = live_count;
	pthread_mutex_unlock(&registry_mutex);
	return n;
}

uint64_t thread_state_count(void)
{
	uint64_t n;
	pthread_mutex_lock(&registry_mutex);
	n = thread_count;
	pthread_mutex_unlock(&registry_mutex);
	return n;
}

void thread_state_new_recording(void)
{
	pthread_mutex_lock(&registry_mutex);
	thread_count = 0;
	ended_events = 0;
	ended_filtered = 0;
	pthread_mutex_unlock(&registry_mutex);
}

void thread_state_control(struct jcal_thread *st, unsigned kind, uint32_t label)
{
	struct jcal_kthread *kt = kthread_get();
	uint64_t metric[JCAL_MAX_METRICS], start[JCAL_MAX_METRICS];
	int failed = 0;

	if (!kt)
		return;
	thread_state_event_start(st, kt, start, metric);
	agent_clock_mark_rare(&st->clock); /* a control event: not a sample */
	atomic_store(&st->busy, 1);
	while (atomic_load(&jcal.stopped) == JCAL_HELD) { /* a rotation: after it */
		atomic_store(&st->busy, 0);
		jcal_hold_wait();
		atomic_store(&st->busy, 1);
	}
	/* its first call in a recording: started in it first, as an event is */
	if (!jcal_stopped() &&
	    (st->recording == atomic_load(&jcal.recording) || thread_state_renew(st, kt))) {
		if (jcal.opts.output == JCAL_OUTPUT_TREE)
			; /* no trace */
		else if (trace_events_full(&st->enc) && trace_file_write_events(&st->enc) != 0)
			failed = 1;
		else
			trace_events_add_control(&st->enc, kind, label, metric);
		if (!failed && st->tree)
			tree_recorder_event(st->tree, label, JCAL_TR_CONTROL, kind, metric);
	}
	atomic_store_explicit(&st->busy, 0, memory_order_release);
	thread_state_event_end(st, kt, start);
	if (failed)
		jcal_tracing_stop();
}

/* Stops st's metric: saves its value now. */
static void metric_pause(struct jcal_thread *st, struct jcal_kthread *kt)
{
	if (st->paused)
		return;
	/* before the agent-free clock, which resumes with it */
	thread_state_metric_raw(st, kt, st->saved);
	st->paused = 1;
}

/* Resumes st's metric from its saved value. */
static void metric_resume(struct jcal_thread *st, struct jcal_kthread *kt)
{
	uint64_t now[JCAL_MAX_METRICS];

	if (!st->paused)
		return;
	metric_read_all(&jcal.metrics, &kt->mt, now);
	for (unsigned i = 0; i < jcal.metrics.n; i++)
		st->offset[i] = st->saved[i] - now[i];
	st->paused = 0;
}

void thread_state_mounted(struct jcal_thread *vt)
{
	struct jcal_kthread *kt = kthread_get();

	if (!kt)
		return;
	if (kt->platform) {
		/* a carrier after all: from now on the TLS says which thread runs */
		kt->platform->may_carry = 1;
		metric_pause(kt->platform, kt);
	}
	metric_resume(vt, kt);
}

void thread_state_carrier_resume(void)
{
	struct jcal_kthread *kt = kthread_get();

	if (kt && kt->platform)
		metric_resume(kt->platform, kt);
}

void thread_state_unmounting(struct jcal_thread *vt)
{
	struct jcal_kthread *kt = kthread_get();

	if (!kt)
		return;
	metric_pause(vt, kt);
	if (kt->platform)
		metric_resume(kt->platform, kt);
}

void thread_state_rename(jvmtiEnv *jvmti, JNIEnv *jni, struct jcal_thread *st)
{
	jvmtiThreadInfo info;
	uint64_t java_tid = 0;

	memset(&info, 0, sizeof(info));
	/* Without it the thread keeps the name it has. */
	if (!st->ref || jvmti_check_debug(jvmti, (*jvmti)->GetThreadInfo(jvmti, st->ref, &info),
					  "GetThreadInfo"))
		return;
	/* A thread first seen before VMInit had no Thread.tid field to read. */
	if (!st->java_tid && jni && jcal.thread_tid) {
		java_tid = (uint64_t)(*jni)->GetLongField(jni, st->ref, jcal.thread_tid);
		st->java_tid = java_tid;
	}
	if (info.name && (!st->name || strcmp(st->name, info.name) || java_tid)) {
		if (jcal.opts.output == JCAL_OUTPUT_TREE) {
			tree_recorder_thread_start(st->tree, java_tid, 0, 0, 0, info.name, NULL);
		} else {
			struct trace_recbuf *rb = trace_file_lock();
			trace_rec_thread_name(rb, st->serial, wall_ns(), info.name, java_tid);
			trace_file_unlock();
		}
		free(st->name);
		st->name = strdup(info.name);
	}
	jvmti_free(jvmti, info.name);
	if (jni && info.thread_group)
		(*jni)->DeleteLocalRef(jni, info.thread_group);
	if (jni && info.context_class_loader)
		(*jni)->DeleteLocalRef(jni, info.context_class_loader);
}

static void write_thread_end(struct jcal_thread *st, const uint64_t *metric)
{
	if (jcal.opts.output == JCAL_OUTPUT_TREE) {
		tree_recorder_thread_end(st->tree, wall_ns(), st->events, metric);
		return;
	}
	struct trace_recbuf *rb = trace_file_lock();
	trace_rec_thread_end(rb, st->serial, wall_ns(), st->events, jcal.metrics.n, metric);
	trace_file_unlock();
}

void thread_state_retire(jvmtiEnv *jvmti, JNIEnv *jni, struct jcal_thread *st)
{
	uint64_t metric[JCAL_MAX_METRICS] = {0};

	struct jcal_kthread *kt = kthread_get();

	pthread_mutex_lock(&registry_mutex);
	/* A rotation flushes every thread in the registry while it holds the
	 * event path: once it is over, this thread's events are in the file
	 * they belong to, and the next file has none of them yet. */
	while (atomic_load(&jcal.stopped) == JCAL_HELD) {
		pthread_mutex_unlock(&registry_mutex);
		jcal_hold_wait();
		pthread_mutex_lock(&registry_mutex);
	}
	if (atomic_load(&jcal.dead)) {
		/* VM death flushed it already and may still be using it. */
		pthread_mutex_unlock(&registry_mutex);
		return;
	}
	/* Between recordings (after a stop) the thread ends unrecorded; a
	 * thread of an earlier recording is not in this one's file. */
	if (!jcal_stopped() && st->recording == atomic_load(&jcal.recording)) {
		if (kt)
			thread_state_metric(st, kt, metric);
		thread_state_rename(jvmti, jni, st);
		if (trace_file_write_events(&st->enc) == 0)
			write_thread_end(st, metric);
		ended_events += st->events;
		ended_filtered += st->filtered;
	}
	if (st->prev)
		st->prev->next = st->next;
	else
		registry = st->next;
	if (st->next)
		st->next->prev = st->prev;
	live_count--;
	pthread_mutex_unlock(&registry_mutex);
	/* its tree stays for the snapshots */
	tree_recorder_thread_ended(st->tree);
	throttle_count_thread_end(st->throttle); /* its counts go to the methods */
	st->throttle = NULL;

	/* The thread is ending: a failure is only logged. */
	jvmti_check_debug(jvmti, (*jvmti)->SetThreadLocalStorage(jvmti, NULL, &thread_state_ended),
			  "SetThreadLocalStorage(ended)");
	/* Without virtual threads the event path takes the state from here:
	 * the sentinel drops the thread's last events, as the TLS does. */
	if (kt && kt->platform == st)
		kt->platform = jcal.vthreads ? NULL : &thread_state_ended;
	if (jni && st->ref)
		(*jni)->DeleteGlobalRef(jni, st->ref);
	free(st->name);
	free(st->enc.buf);
	free(st);
}

uint64_t thread_state_flush_all(jvmtiEnv *jvmti, JNIEnv *jni, uint64_t *threads, uint64_t *filtered)
{
	uint64_t total;

	/* The other side of the asymmetric fence of event_recorder.c. */
	if (jcal.membarrier && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
		jcal_warn("membarrier failed at VM death: %s", strerror(errno));
	pthread_mutex_lock(&registry_mutex);
	total = ended_events;
	*filtered = ended_filtered;
	for (struct jcal_thread *st = registry; st; st = st->next) {
		/* A callback that saw stopped == 0 may still be writing: wait (1 s at most). */
		for (int i = 0; i < 100000 && atomic_load(&st->busy); i++)
			sched_yield();
		if (atomic_load(&st->busy)) {
			jcal_warn("thread #%u still busy at the end of the recording; its last "
				  "events are lost",
				  st->serial);
			continue;
		}
		/* Not seen since an earlier recording: not in this file. */
		if (st->recording != atomic_load(&jcal.recording))
			continue;
		trace_file_write_events(&st->enc);
		thread_state_rename(jvmti, jni, st);
		total += st->events;
		*filtered += st->filtered;
	}
	*threads = thread_count;
	pthread_mutex_unlock(&registry_mutex);
	return total;
}
