/*
 * throttle.c - adaptive de-instrumentation in mode=bci (throttle.h): the
 * registry of the threads' counts, the methods' totals and the rule, the
 * throttle thread that retransforms the picked methods' classes without
 * their probes, and the throttle.method.ID meta records.
 *
 * Locks: reg_mutex guards the registry of thread counts and the list of
 * throttled methods; it is never held while taking another lock or calling
 * the JVM. The file lock may be held while taking it (throttle_finish),
 * never the other way round.
 */
#include "throttle.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent_state.h"
#include "jvmti_check.h"
#include "log.h"
#include "throttle_fact.h"
#include "trace_file.h"

int throttle_on;
/* The rule, fixed at load (a later start command's options do not change
 * it): CALLS, and NS in the first metric's unit. */
static uint64_t max_calls, max_avg, rule_ns;

/* The throttle thread takes the picked methods every THROTTLE_WAIT_MIN_NS,
 * and after a retransform waits THROTTLE_WAIT_FACTOR times as long as it
 * took (up to THROTTLE_WAIT_MAX_NS): a retransform stops every Java thread
 * while it runs (a safepoint, and the deoptimization of the code that
 * inlined the old methods), at a cost of ~5-35 ms whether one class or ten,
 * so methods picked in a burst are taken together in fewer of them. */
#define THROTTLE_WAIT_FACTOR 9
#define THROTTLE_WAIT_MIN_NS (20u * 1000 * 1000)
#define THROTTLE_WAIT_MAX_NS (1000u * 1000 * 1000)

static pthread_mutex_t reg_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct throttle_thread *threads;
/* Methods throttled, in order, with what their record said. */
struct done {
	struct jcal_method *m;
	struct throttle_fact f;
};
static struct done *done;
static size_t ndone, done_cap;

/* Picked methods not yet retransformed: a lock-free stack (each method is
 * pushed once, when its state leaves THROTTLE_NONE; taken whole). */
static _Atomic(struct jcal_method *) pending;

void throttle_onload(void)
{
	const struct metric_desc *d = &jcal.metrics.m[0];

	/* the calibration workload keeps every probe */
	throttle_on = jcal.opts.throttle_calls != 0 && jcal.opts.command != JCAL_CMD_CALIBRATE;
	if (jcal.opts.throttle_calls && !throttle_on)
		jcal_info("throttle= does not apply to calibrate: every probe stays");
	max_calls = jcal.opts.throttle_calls;
	max_avg = rule_ns = jcal.opts.throttle_avg;
	/* tsc: NS in ticks at the start-up estimate of the frequency */
	if (d->kind == METRIC_TSC && jcal.metrics.tsc_hz)
		max_avg = (uint64_t)((double)max_avg * (double)jcal.metrics.tsc_hz / 1e9);
	if (!max_avg)
		max_avg = 1;
}

struct throttle_thread *throttle_thread_new(void)
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

void throttle_slot_flush(struct throttle_slot *s)
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
	if (!throttle_on ||
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

void throttle_thread_end(struct throttle_thread *t)
{
	if (!t)
		return;
	for (unsigned i = 0; i < THROTTLE_SLOTS; i++)
		throttle_slot_flush(&t->slot[i]);
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

/* Calls of m counted so far: its total and what the threads hold (exact
 * once they are quiet; while they run, a flush under way may be missed or
 * counted twice). Caller holds reg_mutex. */
static uint64_t calls_locked(struct jcal_method *m)
{
	uint64_t n = atomic_load_explicit(&m->thr_calls, memory_order_relaxed);
	unsigned i = m->id & (THROTTLE_SLOTS - 1);

	for (struct throttle_thread *t = threads; t; t = t->next)
		if (atomic_load_explicit(&t->slot[i].m, memory_order_relaxed) == m)
			n += atomic_load_explicit(&t->slot[i].calls, memory_order_relaxed);
	return n;
}

static uint64_t wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void write_fact(struct trace_recbuf *rb, const struct throttle_fact *f)
{
	char key[64], val[256];

	if (!throttle_fact_format(f, key, sizeof(key), val, sizeof(val)))
		trace_rec_meta(rb, key, val);
}

/* The classes (every loader's copy) that hold the methods ms[0..n), as
 * local refs in *out (jvmti-allocated array reused). Returns their count. */
static jint find_classes(jvmtiEnv *jvmti, JNIEnv *jni, struct jcal_method **ms, size_t n,
			 jclass **out)
{
	jint count = 0, k = 0;
	jclass *all = NULL;

	if (jvmti_check_warn(jvmti, (*jvmti)->GetLoadedClasses(jvmti, &count, &all),
			     "throttle: GetLoadedClasses"))
		return 0;
	for (jint i = 0; i < count; i++) {
		char *sig = NULL;
		int keep = 0;

		if (!jvmti_check_debug(jvmti,
				       (*jvmti)->GetClassSignature(jvmti, all[i], &sig, NULL),
				       "GetClassSignature") &&
		    sig)
			for (size_t j = 0; j < n && !keep; j++)
				keep = ms[j]->csig && !strcmp(ms[j]->csig, sig);
		jvmti_free(jvmti, sig);
		if (keep)
			all[k++] = all[i];
		else
			(*jni)->DeleteLocalRef(jni, all[i]);
	}
	*out = all;
	return k;
}

/* Takes the probes out of the picked methods ms[0..n): one
 * RetransformClasses of their classes (the hook leaves them out,
 * bci_agent.c). Returns how long that took, in ns. */
static uint64_t throttle_batch(jvmtiEnv *jvmti, JNIEnv *jni, struct jcal_method **ms, size_t n)
{
	jclass *cls = NULL;
	uint64_t t0 = mono_ns();

	for (size_t j = 0; j < n; j++) /* the hook leaves these out from now on */
		atomic_store(&ms[j]->thr_state, THROTTLE_TAKING);
	jint k = find_classes(jvmti, jni, ms, n, &cls);
	uint64_t t1 = mono_ns();
	jvmtiError e = k ? (*jvmti)->RetransformClasses(jvmti, k, cls) : JVMTI_ERROR_NONE;
	uint64_t t2 = mono_ns(), now = wall_ns();

	jcal_debug(
	    "throttle: %zu method%s in %d class%s: found in %.1f ms, retransformed in %.1f ms", n,
	    n == 1 ? "" : "s", (int)k, k == 1 ? "" : "es", (double)(t1 - t0) / 1e6,
	    (double)(t2 - t1) / 1e6);

	for (jint i = 0; i < k; i++)
		(*jni)->DeleteLocalRef(jni, cls[i]);
	jvmti_free(jvmti, cls);
	if (e != JVMTI_ERROR_NONE)
		jvmti_check_debug(jvmti, e, "throttle: RetransformClasses");
	for (size_t j = 0; j < n; j++) {
		struct jcal_method *m = ms[j];
		struct throttle_fact f;

		if (!k || e != JVMTI_ERROR_NONE) {
			/* the class keeps its instrumented version */
			atomic_store(&m->thr_state, THROTTLE_FAILED);
			jcal_warn("throttle: %s%s%s keeps its probes: %s", m->csig, m->name, m->sig,
				  k ? "RetransformClasses failed (loglevel=debug says why)"
				    : "its class was not found");
			continue;
		}
		memset(&f, 0, sizeof(f));
		f.method = m->id;
		f.time_ns = now;
		f.timed = atomic_load(&m->thr_timed);
		f.sum = atomic_load(&m->thr_sum);
		pthread_mutex_lock(&reg_mutex);
		f.calls = calls_locked(m);
		if (ndone == done_cap) {
			size_t cap = done_cap ? 2 * done_cap : 16;
			struct done *d = realloc(done, cap * sizeof(*d));
			if (d) {
				done = d;
				done_cap = cap;
			}
		}
		int kept = ndone < done_cap;
		if (kept)
			done[ndone++] = (struct done){m, f};
		pthread_mutex_unlock(&reg_mutex);
		atomic_store(&m->thr_state, THROTTLE_DONE);
		struct trace_recbuf *rb = trace_file_lock();
		if (!jcal_stopped() && kept)
			write_fact(rb, &f);
		trace_file_unlock();
		jcal_info("throttle: %s%s%s runs without probes after %llu calls (counted since "
			  "the agent loaded, recorded or not)",
			  m->csig, m->name, m->sig, (unsigned long long)f.calls);
	}
	return t2 - t0;
}

static void *throttle_main(void *arg)
{
	JNIEnv *jni = NULL;
	JavaVMAttachArgs args = {JNI_VERSION_1_6, (char *)"jcal throttle", NULL};
	struct jcal_method **ms = NULL;
	size_t cap = 0;

	(void)arg;
	jcal_internal_thread = 1;
	if ((*jcal.vm)->AttachCurrentThreadAsDaemon(jcal.vm, (void **)&jni, &args) != JNI_OK) {
		jcal_warn("throttle: cannot attach its thread to the JVM: no method is throttled");
		return NULL;
	}
	uint64_t wait = THROTTLE_WAIT_MIN_NS;

	while (!atomic_load(&jcal.dead)) {
		struct timespec ts = {(time_t)(wait / 1000000000u), (long)(wait % 1000000000u)};
		struct jcal_method *list;
		size_t n = 0;

		nanosleep(&ts, NULL);
		list = atomic_exchange(&pending, NULL);
		for (struct jcal_method *m = list; m; m = m->thr_next) {
			if (n == cap) {
				size_t c = cap ? 2 * cap : 64;
				struct jcal_method **g = realloc(ms, c * sizeof(*g));
				if (g) {
					ms = g;
					cap = c;
				}
			}
			if (n < cap)
				ms[n++] = m;
			else /* no memory: it keeps its probes */
				atomic_store(&m->thr_state, THROTTLE_FAILED);
		}
		wait = THROTTLE_WAIT_MIN_NS;
		if (n && !atomic_load(&jcal.dead)) {
			uint64_t took = throttle_batch(jcal.jvmti, jni, ms, n);
			if (took > THROTTLE_WAIT_MAX_NS / THROTTLE_WAIT_FACTOR)
				wait = THROTTLE_WAIT_MAX_NS;
			else if (took * THROTTLE_WAIT_FACTOR > wait)
				wait = took * THROTTLE_WAIT_FACTOR;
		}
	}
	free(ms);
	/* not detached: the JVM is going down */
	return NULL;
}

void throttle_start(void)
{
	pthread_t t;
	pthread_attr_t attr;
	int rc;

	if (!throttle_on)
		return;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&t, &attr, throttle_main, NULL);
	pthread_attr_destroy(&attr);
	if (rc)
		jcal_warn("throttle: cannot start its thread (%s): no method is throttled",
			  strerror(rc));
}

void throttle_write_meta(struct trace_recbuf *rb)
{
	char rule[64];

	if (!throttle_on)
		return;
	snprintf(rule, sizeof(rule), "%llu:%llu", (unsigned long long)max_calls,
		 (unsigned long long)rule_ns);
	trace_rec_meta(rb, THROTTLE_META_RULE, rule);
	trace_rec_meta(rb, THROTTLE_META_TIME, THROTTLE_TIME_SELF);
	pthread_mutex_lock(&reg_mutex);
	for (size_t i = 0; i < ndone; i++)
		write_fact(rb, &done[i].f);
	pthread_mutex_unlock(&reg_mutex);
}

unsigned throttle_finish(struct trace_recbuf *rb)
{
	unsigned n;

	if (!throttle_on)
		return 0;
	pthread_mutex_lock(&reg_mutex);
	for (size_t i = 0; i < ndone; i++) {
		struct throttle_fact f = done[i].f;

		f.final_calls = calls_locked(done[i].m);
		f.has_final = 1;
		write_fact(rb, &f);
	}
	n = (unsigned)ndone;
	pthread_mutex_unlock(&reg_mutex);
	return n;
}
