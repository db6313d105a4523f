/*
 * monitor_events.c - records the JVM's monitor events (monitor_events.h).
 *
 * The callbacks run on the waiting thread. The start of a wait (a
 * contended enter, an Object.wait) only keeps the thread's metric readings
 * and the time in its state; the end writes one MONITOR record
 * (common/trace_monitor.h) with both readings, the monitor object's class
 * and the method on top of the thread's stack (for a wait, the caller of
 * Object.wait). The record goes to the definitions buffer under the file
 * mutex, as a new method's METHOD record does, inside the busy flag of the
 * shutdown handshake (event_recorder.c), so no record follows END. Nothing
 * here runs on the method event path.
 */
#include "agent/core/monitor_events.h"

#include <string.h>
#include <time.h>

#include "agent/core/agent_state.h"
#include "agent/core/method_table.h"
#include "agent/core/thread_state.h"
#include "agent/core/trace_file.h"

/* Frames looked at for the caller of Object.wait: above it at most
 * Object.wait0 (JDK 21 and later), wait(long) and wait(). A contended
 * enter needs the top frame only: the stack walk is about half of what a
 * record costs (docs/performance.md, "The monitor events"). */
#define MONITOR_FRAMES 4

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The calling thread's state when it is traced now, else NULL. */
static struct jcal_thread *traced_thread(jvmtiEnv *jvmti, struct jcal_kthread **kt)
{
	struct jcal_thread *st;

	*kt = kthread_get();
	if (!*kt || jcal_internal_thread || jcal_stopped())
		return NULL;
	if (!jcal.vthreads || ((*kt)->platform && !(*kt)->platform->may_carry))
		st = (*kt)->platform;
	else
		st = thread_state_get(jvmti);
	if (!st || st == &thread_state_ended)
		return NULL;
	return st->regions || thread_state_rebase(st) ? st : NULL;
}

static struct jcal_monitor_open *open_of(struct jcal_thread *st, unsigned kind)
{
	return kind == TRACE_MON_ENTER ? &st->mon_enter : &st->mon_wait;
}

static void begin(jvmtiEnv *jvmti, unsigned kind)
{
	uint64_t start[JCAL_MAX_METRICS];
	struct jcal_kthread *kt;
	struct jcal_thread *st = traced_thread(jvmti, &kt);
	struct jcal_monitor_open *o;

	if (!st)
		return;
	o = open_of(st, kind);
	thread_state_event_start(st, kt, start, o->metric);
	agent_clock_mark_rare(&st->clock); /* not an ordinary event */
	o->time_ns = clock_ns(CLOCK_REALTIME);
	o->mono_ns = clock_ns(CLOCK_MONOTONIC);
	o->recording = atomic_load(&jcal.recording);
	o->open = 1;
	thread_state_event_end(st, kt, start);
}

/* The METHOD id of the frame on top of the stack; with skip_object, of
 * the first frame outside java.lang.Object (the caller of Object.wait).
 * 0 when not known. */
static uint32_t top_method(jvmtiEnv *jvmti, JNIEnv *jni, int skip_object)
{
	jvmtiFrameInfo f[MONITOR_FRAMES];
	jint n = 0;

	if ((*jvmti)->GetStackTrace(jvmti, NULL, 0, skip_object ? MONITOR_FRAMES : 1, f, &n) !=
	    JVMTI_ERROR_NONE)
		return 0;
	for (jint i = 0; i < n; i++) {
		struct jcal_method *m = method_table_get(jvmti, jni, f[i].method);

		if (!m)
			return 0;
		if (skip_object && m->csig && !strcmp(m->csig, "Ljava/lang/Object;"))
			continue;
		return m->id;
	}
	return 0;
}

/* The class signature of object (JVMTI-allocated, deallocate it), or NULL. */
static char *class_of(jvmtiEnv *jvmti, JNIEnv *jni, jobject object)
{
	jclass cls;
	char *sig = NULL;

	if (!jni || !object || !(cls = (*jni)->GetObjectClass(jni, object)))
		return NULL;
	if ((*jvmti)->GetClassSignature(jvmti, cls, &sig, NULL) != JVMTI_ERROR_NONE)
		sig = NULL;
	(*jni)->DeleteLocalRef(jni, cls);
	return sig;
}

/* Writes r as st's, under the busy flag (the shutdown handshake); after a
 * rotation that began another file meanwhile, nothing. */
static void write_record(struct jcal_thread *st, struct jcal_kthread *kt, uint32_t recording,
			 struct trace_monitor *r)
{
	atomic_store(&st->busy, 1);
	while (atomic_load(&jcal.stopped) == JCAL_HELD) { /* a rotation: after it */
		atomic_store(&st->busy, 0);
		jcal_hold_wait();
		atomic_store(&st->busy, 1);
	}
	if (!jcal_stopped() && atomic_load(&jcal.recording) == recording &&
	    (st->recording == recording || thread_state_renew(st, kt))) {
		struct trace_recbuf *rb = trace_file_lock();

		r->thread = st->serial;
		trace_rec_monitor(rb, r);
		trace_file_unlock();
	}
	atomic_store_explicit(&st->busy, 0, memory_order_release);
}

static void finish(jvmtiEnv *jvmti, JNIEnv *jni, jobject object, unsigned kind, uint32_t flags)
{
	uint64_t start[JCAL_MAX_METRICS];
	struct jcal_kthread *kt;
	struct jcal_thread *st = traced_thread(jvmti, &kt);
	struct jcal_monitor_open *o;
	struct trace_monitor r;
	char *sig;

	if (!st || !(o = open_of(st, kind))->open)
		return;
	o->open = 0;
	memset(&r, 0, sizeof(r));
	thread_state_event_start(st, kt, start, r.end);
	agent_clock_mark_rare(&st->clock);
	r.wall_ns = clock_ns(CLOCK_MONOTONIC) - o->mono_ns;
	r.kind = kind;
	r.flags = flags;
	r.time_ns = o->time_ns;
	r.nmetrics = jcal.metrics.n;
	memcpy(r.start, o->metric, sizeof(r.start));
	sig = class_of(jvmti, jni, object);
	r.class_sig = sig ? sig : "L<unknown>;";
	r.method = top_method(jvmti, jni, kind == TRACE_MON_WAIT);
	write_record(st, kt, o->recording, &r);
	if (sig)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
	thread_state_event_end(st, kt, start);
}

void JNICALL monitor_contended_enter(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object)
{
	(void)jni;
	(void)thread;
	(void)object;
	begin(jvmti, TRACE_MON_ENTER);
}

void JNICALL monitor_contended_entered(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object)
{
	(void)thread;
	finish(jvmti, jni, object, TRACE_MON_ENTER, 0);
}

void JNICALL monitor_wait(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
			  jlong timeout)
{
	(void)jni;
	(void)thread;
	(void)object;
	(void)timeout;
	begin(jvmti, TRACE_MON_WAIT);
}

void JNICALL monitor_waited(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
			    jboolean timed_out)
{
	(void)thread;
	finish(jvmti, jni, object, TRACE_MON_WAIT, timed_out ? TRACE_MON_TIMED_OUT : 0);
}
