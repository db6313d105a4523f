/*
 * event_recorder.c - turns MethodEntry/MethodExit, and in mode=bci the
 * jcal.Tracker probes, into trace events.
 *
 * Per event: find the Java thread's state in JVMTI TLS and the kernel
 * thread's (kthread.h), read the metric(s), map the jmethodID through the
 * kernel thread's cache (a probe's method id through the id pages), append
 * to the Java thread's buffer (output=trace|both) and give it to the
 * thread's tree (output=tree|both, tree_recorder.h); with clock=agentfree
 * read the metric again and take the time in between out of the thread's
 * later values (agent_clock.h).
 * No lock and no allocation unless a thread or method is seen for the first
 * time or the buffer is full.
 *
 * Shutdown handshake with VM death (thread_state_flush_all): a callback sets
 * its thread's busy flag, then checks the stopped flag; VM death sets stopped,
 * then waits for busy to clear, so either the callback sees stopped, or VM
 * death sees it busy. Where membarrier(2) is available the event path uses
 * a plain store and a compiler barrier, and VM death makes every running
 * thread execute a full barrier (MEMBARRIER_CMD_PRIVATE_EXPEDITED) before
 * it reads the flags; elsewhere both sides use sequentially consistent
 * atomics.
 */
#include "agent/core/event_recorder.h"

#include <time.h>

#include "agent/core/agent_state.h"
#include "agent/core/region_control.h"
#include "agent/core/thread_state.h"
#include "agent/core/throttle_count.h"
#include "agent/core/trace_file.h"
#include "agent/core/tree_recorder.h"

static inline unsigned method_type(const struct jcal_method *m)
{
	/* mode=events runs every traced thread in the interpreter (HotSpot's
	 * interp_only_mode), so compiled code is never what runs here. */
	int jitted = jcal.opts.mode == JCAL_MODE_BCI &&
		     atomic_load_explicit(&m->compiled, memory_order_relaxed) > 0;
	return jcal_mtype_of(m->modifiers, jitted);
}

/*
 * A carrier enters VirtualThread.mount(); the thread identity switches to
 * the virtual thread inside it, and switches back inside unmount(), whose
 * exit the carrier sees without its entry (JDK 21-25). From the carrier's
 * side that exit is the return of its mount() call: recorded as such, the
 * carrier's tree stays balanced (its metric paused meanwhile, thread_state.h).
 */
static inline jmethodID carrier_method(struct jcal_thread *st, jmethodID mid, unsigned transition)
{
	if (mid == jcal.vt_mount) {
		if (transition == JCAL_TR_ENTRY)
			st->mounts_open++;
		else if (st->mounts_open)
			st->mounts_open--;
	} else if (mid == jcal.vt_unmount && transition != JCAL_TR_ENTRY && st->mounts_open) {
		st->mounts_open--;
		return jcal.vt_mount;
	}
	return mid;
}

/* A bci probe that ran while no recording does: after stop, only code
 * still running the instrumented version of a method (a frame that was
 * live when its class lost its probes) should get here; status shows the
 * count (docs/live-profiling.md). */
static inline void probe_while_stopped(jmethodID mid)
{
	if (!mid)
		atomic_fetch_add_explicit(&jcal.probes_stopped, 1, memory_order_relaxed);
}

/*
 * The second half of the event path: the thread st is known and traced, its
 * metric read. Appends the event (or counts it filtered), under the busy
 * flag of the shutdown handshake. m: the method when the caller has it
 * already, else NULL (looked up here by mid, or by id). While a rotation
 * holds the event path (JCAL_HELD) the event waits for it, or, when the
 * caller cannot wait (can_wait 0: a critical downcall), nothing is done
 * and 1 is returned; else 0.
 */
static inline int emit(jvmtiEnv *jvmti, JNIEnv *jni, struct jcal_kthread *kt,
		       struct jcal_thread *st, jmethodID mid, uint32_t id, struct jcal_method *m,
		       unsigned transition, const uint64_t *metric, int can_wait)
{
	int stopped;

	for (;;) {
		if (jcal.membarrier) {
			/* VM death issues membarrier(2) between setting stopped and
			 * reading busy: a compiler barrier is enough here
			 * (asymmetric fence). */
			atomic_store_explicit(&st->busy, 1, memory_order_relaxed);
			atomic_signal_fence(memory_order_seq_cst);
		} else {
			atomic_store(&st->busy, 1);
		}
		stopped = atomic_load_explicit(
		    &jcal.stopped, jcal.membarrier ? memory_order_relaxed : memory_order_seq_cst);
		if (__builtin_expect(stopped != JCAL_HELD, 1))
			break;
		/* a rotation changes files: the event waits for the next one
		 * (a critical downcall may not wait: the JNI probe does) */
		atomic_store_explicit(&st->busy, 0, memory_order_release);
		if (!can_wait)
			return 1;
		jcal_hold_wait();
	}
	if (stopped) {
		atomic_store_explicit(&st->busy, 0, memory_order_release);
		probe_while_stopped(mid);
		return 0;
	}
	/* First event of a thread since an earlier recording ended (not traced
	 * when the new one's start=manual leaves it outside every region). */
	if (st->recording != atomic_load_explicit(&jcal.recording, memory_order_relaxed)) {
		agent_clock_mark_rare(&st->clock);
		if (!thread_state_renew(st, kt)) {
			atomic_store_explicit(&st->busy, 0, memory_order_release);
			return 0;
		}
	}
	if (!m && mid) {
		int missed = 0;

		m = method_cache_get(&kt->cache, jvmti, jni, mid, &missed);
		if (missed)
			agent_clock_mark_rare(&st->clock); /* JVMTI calls, a table look-up */
	} else if (!m) {
		m = method_table_by_id(id);
	}
	/* include=/exclude= in mode=events: the event is not recorded, so the
	 * method's time goes to its caller. */
	if (m && m->filtered) {
		st->filtered++;
	} else if (m) {
		unsigned type = method_type(m);
		int rc;

		if (jcal.opts.output != JCAL_OUTPUT_TREE) {
			if (trace_events_full(&st->enc)) {
				agent_clock_mark_rare(&st->clock); /* the chunk written out */
				rc = trace_file_write_events(&st->enc);
				if (rc != 0) {
					/* maxsize= reached: the recording ends there, nothing
					 * is lost. */
					if (rc != TRACE_FILE_AT_LIMIT)
						atomic_fetch_add(&jcal.lost_events, 1);
					atomic_store_explicit(&st->busy, 0, memory_order_release);
					jcal_tracing_stop();
					return 0;
				}
			}
			trace_events_add(&st->enc, transition, type, m->id, metric);
		}
		/* output=tree|both: the same event to the thread's tree; one that
		 * made a new context or waited has its end read */
		if (st->tree && tree_recorder_event(st->tree, m->id, transition, type, metric))
			agent_clock_mark_rare(&st->clock);
		st->events++;
		if (throttle_count_on) /* mode=bci, throttle= (core/throttle_count.h) */
			throttle_count_event(&st->throttle, m, transition, metric[0]);
	}
	atomic_store_explicit(&st->busy, 0, memory_order_release);
	return 0;
}

/*
 * mode=bci with throttle=: a probe outside every region of its thread
 * (start=manual before jcal.Control.start(), or after stop()) records
 * nothing, but its call still counts toward the throttle rule, so that an
 * unrecorded warm-up throttles the tiny methods before the measured part
 * (docs/agent-internals.md, "Throttling"). Under the busy flag of the
 * shutdown handshake, as emit(); the metric read as for a recorded event.
 */
static inline void count_unrecorded(struct jcal_kthread *kt, struct jcal_thread *st, uint32_t id,
				    unsigned transition)
{
	uint64_t metric[JCAL_MAX_METRICS], start[JCAL_MAX_METRICS];
	struct jcal_method *m;

	atomic_store(&st->busy, 1);
	if (!atomic_load(&jcal.stopped) && (m = method_table_by_id(id)) && !m->filtered) {
		thread_state_event_start(st, kt, start, metric);
		throttle_count_event(&st->throttle, m, transition, metric[0]);
		thread_state_event_end(st, kt, start);
	}
	atomic_store_explicit(&st->busy, 0, memory_order_release);
}

/*
 * The event path of both modes: a JVMTI method event passes its jmethodID
 * (id unused); a bci probe passes mid NULL, the method id, and thread NULL
 * (looked up only when the thread is new).
 */
static inline void record(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jmethodID mid, uint32_t id,
			  unsigned transition)
{
	uint64_t metric[JCAL_MAX_METRICS], start[JCAL_MAX_METRICS];
	struct jcal_kthread *kt = kthread_get();
	struct jcal_thread *st;

	if (!kt)
		return;
	/* Without virtual threads (a JDK before 21) a kernel thread runs one
	 * Java thread at a time and keeps its state at hand: no JVMTI call.
	 * With them, so does every platform thread that is not a carrier. */
	if (!jcal.vthreads || (kt->platform && !kt->platform->may_carry))
		st = kt->platform;
	else
		st = thread_state_get(jvmti);
	if (!st) {
		jcal_hold_wait();
		if (jcal_stopped()) {
			probe_while_stopped(mid);
			return;
		}
		if (!thread && (*jvmti)->GetCurrentThread(jvmti, &thread) != JVMTI_ERROR_NONE)
			return;
		st = thread_state_create(jvmti, jni, thread, 1);
		if (!st)
			return;
	}
	if (st == &thread_state_ended || (mid && region_control_is_control_method(mid)))
		return;
	/* outside every region; a later recording's start=auto may put it back */
	if (st->regions == 0 && !thread_state_rebase(st)) {
		if (throttle_count_on && !mid) /* bci probe, throttle=: counted only */
			count_unrecorded(kt, st, id, transition);
		return;
	}
	thread_state_event_start(st, kt, start, metric);
	if (mid && jcal.vt_mount && !st->is_virtual) {
		agent_clock_mark_rare(&st->clock);
		mid = carrier_method(st, mid, transition);
	}
	emit(jvmti, jni, kt, st, mid, id, NULL, transition, metric, 1);
	thread_state_event_end(st, kt, start);
}

/*
 * mode=bci on JDK 22 and later: the probe called from Java through a
 * critical foreign-function downcall, so the thread is still in the Java
 * state: no JNI or JVMTI call may happen here, nor anything slow. Handles
 * the common event (a known platform thread of this recording, a known
 * method, room in its buffer) exactly as record() would and returns 0;
 * returns 1, having done nothing, for every other case, and the Java side
 * then calls the JNI probe, which takes the full path (docs/agent-internals.md,
 * "Probe calls").
 */
static inline int32_t record_critical(uint32_t id, unsigned transition)
{
	uint64_t metric[JCAL_MAX_METRICS], start[JCAL_MAX_METRICS];
	struct jcal_kthread *kt = kthread_current;
	struct jcal_thread *st;
	struct jcal_method *m;

	if (!kt || (jcal.vthreads && !(kt->platform && !kt->platform->may_carry)))
		return 1;
	st = kt->platform;
	if (!st)
		return 1;
	if (st == &thread_state_ended)
		return 0;
	if (st->regions == 0) {
		if (st->based != atomic_load_explicit(&jcal.recording, memory_order_relaxed))
			return 1;      /* a new recording's start= first (record()) */
		if (throttle_count_on) /* counted only */
			count_unrecorded(kt, st, id, transition);
		return 0;
	}
	if (st->recording != atomic_load_explicit(&jcal.recording, memory_order_relaxed) ||
	    !(m = method_table_by_id(id)) ||
	    (jcal.opts.output != JCAL_OUTPUT_TREE && trace_events_full(&st->enc)))
		return 1;
	thread_state_event_start(st, kt, start, metric);
	/* 1: held by a rotation, the JNI probe records it */
	int held = emit(NULL, NULL, kt, st, NULL, id, m, transition, metric, 0);
	thread_state_event_end(st, kt, start);
	return held;
}

int32_t event_critical_enter(int32_t id)
{
	return record_critical((uint32_t)id, JCAL_TR_ENTRY);
}

int32_t event_critical_exit(int32_t id)
{
	return record_critical((uint32_t)id, JCAL_TR_EXIT);
}

int32_t event_critical_exit_throw(int32_t id)
{
	return record_critical((uint32_t)id, JCAL_TR_THROW);
}

/*
 * HotSpot 17 with -XX:+CriticalJNINatives calls these instead of the JNI
 * natives enter1/exit1/exitThrow1 of jcal.TrackerNatives from compiled
 * code: no JNIEnv, no thread-state transition, so the same restrictions
 * as the downcalls above (the thread stays in the Java state). HotSpot
 * finds them by name in the library that holds the registered JNI
 * function, hence exported (agent/libjcal.map).
 */
JNIEXPORT jint JNICALL JavaCritical_jcal_TrackerNatives_enter1(jint id)
{
	return record_critical((uint32_t)id, JCAL_TR_ENTRY);
}

JNIEXPORT jint JNICALL JavaCritical_jcal_TrackerNatives_exit1(jint id)
{
	return record_critical((uint32_t)id, JCAL_TR_EXIT);
}

JNIEXPORT jint JNICALL JavaCritical_jcal_TrackerNatives_exitThrow1(jint id)
{
	return record_critical((uint32_t)id, JCAL_TR_THROW);
}

void JNICALL event_method_entry(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jmethodID method)
{
	record(jvmti, jni, thread, method, 0, JCAL_TR_ENTRY);
}

void JNICALL event_method_exit(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jmethodID method,
			       jboolean was_popped_by_exception, jvalue return_value)
{
	(void)return_value;
	record(jvmti, jni, thread, method, 0,
	       was_popped_by_exception ? JCAL_TR_THROW : JCAL_TR_EXIT);
}

void JNICALL event_probe_enter(JNIEnv *jni, jclass cls, jint id)
{
	(void)cls;
	record(jcal.jvmti, jni, NULL, NULL, (uint32_t)id, JCAL_TR_ENTRY);
}

void JNICALL event_probe_exit(JNIEnv *jni, jclass cls, jint id)
{
	(void)cls;
	record(jcal.jvmti, jni, NULL, NULL, (uint32_t)id, JCAL_TR_EXIT);
}

void JNICALL event_probe_exit_throw(JNIEnv *jni, jclass cls, jint id)
{
	(void)cls;
	record(jcal.jvmti, jni, NULL, NULL, (uint32_t)id, JCAL_TR_THROW);
}

jint JNICALL event_probe_enter1(JNIEnv *jni, jclass cls, jint id)
{
	event_probe_enter(jni, cls, id);
	return 0;
}

jint JNICALL event_probe_exit1(JNIEnv *jni, jclass cls, jint id)
{
	event_probe_exit(jni, cls, id);
	return 0;
}

jint JNICALL event_probe_exit_throw1(JNIEnv *jni, jclass cls, jint id)
{
	event_probe_exit_throw(jni, cls, id);
	return 0;
}

static uint64_t wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static JNIEnv *current_jni(void)
{
	JNIEnv *jni = NULL;
	if ((*jcal.vm)->GetEnv(jcal.vm, (void **)&jni, JNI_VERSION_1_6) != JNI_OK)
		return NULL;
	return jni;
}

void JNICALL event_compiled_load(jvmtiEnv *jvmti, jmethodID method, jint code_size,
				 const void *code_addr, jint map_length,
				 const jvmtiAddrLocationMap *map, const void *compile_info)
{
	struct jcal_method *m;

	(void)code_addr;
	(void)map_length;
	(void)map;
	(void)compile_info;
	/* a rotation (JCAL_HELD): the method's state is kept, its record not
	 * written (this thread may be the JVM's own: it does not wait) */
	if (jcal_stopped() == 1)
		return;
	m = method_table_compiled(jvmti, current_jni(), method, 1);
	if (!m || jcal_stopped())
		return;
	struct trace_recbuf *rb = trace_file_lock();
	trace_rec_compiled_load(rb, m->id, wall_ns(), (uint64_t)(code_size > 0 ? code_size : 0));
	trace_file_unlock();
}

void JNICALL event_compiled_unload(jvmtiEnv *jvmti, jmethodID method, const void *code_addr)
{
	struct jcal_method *m;

	(void)code_addr;
	if (jcal_stopped() == 1) /* JCAL_HELD: as at a load */
		return;
	/* The class may be gone: only known methods can be named. */
	m = method_table_compiled(jvmti, NULL, method, -1);
	if (!m || jcal_stopped())
		return;
	struct trace_recbuf *rb = trace_file_lock();
	trace_rec_compiled_unload(rb, m->id, wall_ns());
	trace_file_unlock();
}
