/*
 * throttle.c - adaptive de-instrumentation in mode=bci (throttle.h): the
 * rule in the metric's unit, the throttle thread that retransforms the
 * picked methods' classes without their probes, the tiny methods that
 * tiny=count gives only the counting probe from their first
 * instrumentation, and the throttle.method.ID meta records of both. The
 * counts and the picking are agent/core/throttle_count.c.
 *
 * Locks: done_mutex guards the list of throttled methods; it is never held
 * while calling the JVM. The file lock may be held while taking it
 * (throttle_finish), never the other way round; the count registry's lock
 * may be taken under it (throttle_count_calls).
 */
#include "agent/bci/throttle.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/core/agent_state.h"
#include "agent/base/jvmti_check.h"
#include "agent/base/log.h"
#include "agent/bci/bci_sites.h"
#include "agent/bci/bci_tiny.h"
#include "agent/bci/throttle_stacks.h"
#include "common/grow.h"
#include "common/throttle_fact.h"
#include "agent/core/trace_file.h"

/* The rule, fixed at load (a later start command's options do not change
 * it): CALLS, and NS as given (the meta record's); 0 without throttle=.
 * tiny_on: tiny=count, inlined_on: inlined=count, fixed at load too. */
static uint64_t max_calls, rule_ns;
static int tiny_on, inlined_on;

/* Whether there are records to keep: throttle=, tiny=count or inlined=count. */
static int records_on(void)
{
	return throttle_count_on || tiny_on || inlined_on;
}

/* The throttle thread takes the picked methods every THROTTLE_WAIT_MIN_NS
 * until it retransforms; then it waits twice as long as the time before
 * (and at least THROTTLE_WAIT_FACTOR times as long as the retransform
 * took), up to THROTTLE_WAIT_MAX_NS. A retransform stops every Java thread
 * while it runs (a safepoint, and the deoptimization of the code that
 * inlined the old methods), at a cost of ~5-35 ms whether one class or ten,
 * and the retransformed classes' methods run interpreted until the JIT
 * compiles them again: methods picked in a burst are taken together, and
 * the stragglers of a server (methods that pass CALLS calls minutes
 * later) come in a few large batches rather than a wave every second,
 * each of which would set the JIT back (docs/agent-internals.md,
 * "Throttling"). */
#define THROTTLE_WAIT_FACTOR 9
#define THROTTLE_WAIT_MIN_NS (20u * 1000 * 1000)
#define THROTTLE_WAIT_MAX_NS (16000ull * 1000 * 1000)

static pthread_mutex_t done_mutex = PTHREAD_MUTEX_INITIALIZER;
/* Methods throttled, in order, with what their record said. */
struct done {
	struct jcal_method *m;
	struct throttle_fact f;
};
static struct done *done;
static size_t ndone, done_cap;

/*
 * The counting probes: a throttled or tiny method of a class outside the
 * JDK keeps one probe, jcal.Tracker.count(slot), and its calls are counted
 * in Java (in an array of each thread's own, which grows to any slot).
 * Slots are handed out in order by the throttle thread and the class file
 * hook (tiny methods; nslots, atomic), announced to Java before the
 * retransform that puts a throttled method's probe in (a tiny method's
 * comes from the hook, which calls no Java: Tracker.counts() reads every
 * slot a thread counted), and read when a recording's file begins (base:
 * the counts then) and ends (counted: the counts then minus base). Under
 * done_mutex: base, nbase, and done[].f.counted.
 */
static atomic_uint nslots;
static uint64_t *base;
static size_t nbase;

/* The JDK's own classes lose every probe, as before: the counter itself
 * (ThreadLocal, the arrays, the list of threads) is JDK code that must
 * never count. */
static int countable(const struct jcal_method *m)
{
	static const char *const jdk[] = {"Ljava/", "Ljdk/", "Lsun/", "Lcom/sun/", "Ljcal/"};

	if (!m->csig)
		return 0;
	for (size_t i = 0; i < sizeof(jdk) / sizeof(jdk[0]); i++)
		if (!strncmp(m->csig, jdk[i], strlen(jdk[i])))
			return 0;
	return 1;
}

/* jcal.Tracker's static method name with signature sig; NULL (exception
 * cleared) when it cannot be found. *cls is a local ref to free. */
static jmethodID tracker_method(JNIEnv *jni, jclass *cls, const char *name, const char *sig)
{
	return bci_java_static(jni, "jcal/Tracker", name, sig, cls);
}

/* jcal.Tracker.counters(n): the slots 0..n-1 exist. 0, or -1. */
static int make_counters(JNIEnv *jni, uint32_t n)
{
	jclass cls = NULL;
	jmethodID mid = tracker_method(jni, &cls, "counters", "(I)V");
	int rc = -1;

	if (mid) {
		(*jni)->CallStaticVoidMethod(jni, cls, mid, (jint)n);
		rc = (*jni)->ExceptionCheck(jni) ? -1 : 0;
		(*jni)->ExceptionClear(jni);
	}
	if (cls)
		(*jni)->DeleteLocalRef(jni, cls);
	return rc;
}

/* jcal.Tracker.counts(): every slot's calls, malloc'ed in *out (n of
 * them). 0, or -1 (nothing to read, or it failed). */
static int read_counters(JNIEnv *jni, uint64_t **out, size_t *n)
{
	jclass cls = NULL;
	jmethodID mid;
	jlongArray a = NULL;

	*out = NULL;
	*n = 0;
	if (!jni && (!jcal.vm || (*jcal.vm)->GetEnv(jcal.vm, (void **)&jni, JNI_VERSION_1_6)))
		return -1;
	mid = tracker_method(jni, &cls, "counts", "()[J");
	if (mid)
		a = (*jni)->CallStaticObjectMethod(jni, cls, mid);
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	if (cls)
		(*jni)->DeleteLocalRef(jni, cls);
	if (!a)
		return -1;
	jsize len = (*jni)->GetArrayLength(jni, a);
	*out = malloc((len ? (size_t)len : 1) * sizeof(**out));
	if (*out) {
		(*jni)->GetLongArrayRegion(jni, a, 0, len, (jlong *)*out);
		*n = (size_t)len;
	}
	(*jni)->DeleteLocalRef(jni, a);
	return *out ? 0 : -1;
}

/* A new counter's slot + 1 (thr_counter's value), or 0 when none is left. */
static uint32_t new_counter(void)
{
	unsigned s = atomic_fetch_add(&nslots, 1);

	return s < INT32_MAX ? s + 1 : 0;
}

/* Gives the batch's countable methods a counter (made in Java first). */
static void give_counters(JNIEnv *jni, struct jcal_method **ms, size_t n)
{
	int given = 0;

	for (size_t j = 0; j < n; j++)
		if (!ms[j]->thr_counter && countable(ms[j]) &&
		    (ms[j]->thr_counter = new_counter()) != 0)
			given = 1;
	if (given && make_counters(jni, atomic_load(&nslots))) {
		jcal_warn("throttle: cannot make the counters of jcal.Tracker: the methods "
			  "throttled now lose every probe, and their later calls are not counted");
		for (size_t j = 0; j < n; j++)
			if (atomic_load(&ms[j]->thr_state) != THROTTLE_DONE)
				ms[j]->thr_counter = 0;
	}
}

void throttle_new_recording(JNIEnv *jni)
{
	uint64_t *v;
	size_t n;

	if (!records_on() || read_counters(jni, &v, &n))
		v = NULL, n = 0;
	pthread_mutex_lock(&done_mutex);
	free(base);
	base = v;
	nbase = n;
	pthread_mutex_unlock(&done_mutex);
}

void throttle_read_counts(JNIEnv *jni)
{
	uint64_t *v = NULL;
	size_t n = 0;
	int ok;

	if (!records_on())
		return;
	ok = !read_counters(jni, &v, &n);
	pthread_mutex_lock(&done_mutex);
	for (size_t i = 0; i < ndone; i++) {
		struct throttle_fact *f = &done[i].f;
		uint32_t slot;

		/* start=manual: the probe counted outside the regions too */
		f->has_counted =
		    ok && !jcal.opts.start_manual && throttle_counter(done[i].m, &slot);
		if (!f->has_counted)
			continue;
		uint64_t now = slot < n ? v[slot] : 0, was = slot < nbase ? base[slot] : 0;
		f->counted = now >= was ? now - was : 0;
	}
	if (ok) { /* the next file of a rotation counts from here */
		free(base);
		base = v;
		nbase = n;
	} else {
		free(v);
	}
	pthread_mutex_unlock(&done_mutex);
}

void throttle_onload(void)
{
	const struct metric_desc *d = &jcal.metrics.m[0];
	uint64_t max_avg;

	/* the calibration workload keeps every probe */
	if ((jcal.opts.throttle_calls || jcal.opts.tiny_count || jcal.opts.inlined_count) &&
	    jcal.opts.command == JCAL_CMD_CALIBRATE)
		jcal_info(
		    "throttle=, tiny=count and inlined=count do not apply to calibrate: every "
		    "probe stays");
	if (jcal.opts.command == JCAL_CMD_CALIBRATE)
		return;
	tiny_on = jcal.opts.tiny_count;
	inlined_on = jcal.opts.inlined_count;
	if (!jcal.opts.throttle_calls)
		return;
	max_calls = jcal.opts.throttle_calls;
	max_avg = rule_ns = jcal.opts.throttle_avg;
	/* tsc: NS in ticks at the start-up estimate of the frequency */
	if (d->kind == METRIC_TSC && jcal.metrics.tsc_hz)
		max_avg = (uint64_t)((double)max_avg * (double)jcal.metrics.tsc_hz / 1e9);
	if (!max_avg)
		max_avg = 1;
	throttle_count_set_rule(max_calls, max_avg);
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

/* Appends m, with its record f, to the methods throttled. 1, or 0 when
 * out of memory (its record is then not written). */
static int done_add(struct jcal_method *m, const struct throttle_fact *f)
{
	int kept;

	pthread_mutex_lock(&done_mutex);
	kept = !grow(&done, &done_cap, ndone + 1);
	if (kept)
		done[ndone++] = (struct done){m, *f};
	pthread_mutex_unlock(&done_mutex);
	return kept;
}

/* A method that only counts from its first instrumentation: tiny (tiny
 * != 0) or inlined. As throttle_tiny. */
static int from_start(struct jcal_method *m, uint32_t *slot, int tiny)
{
	struct throttle_fact f;
	int none = THROTTLE_NONE;

	if (!(tiny ? tiny_on : inlined_on) || !countable(m))
		return 0;
	/* an earlier copy of the class, or another loader's: the same counter */
	if (atomic_load(&m->thr_state) == THROTTLE_DONE)
		return throttle_counter(m, slot);
	/* a method that had its probes (or another thread's claim under way)
	 * keeps them */
	if (atomic_load(&m->thr_calls) ||
	    !atomic_compare_exchange_strong(&m->thr_state, &none, THROTTLE_TAKING))
		return 0;
	m->thr_counter = new_counter();
	memset(&f, 0, sizeof(f));
	f.method = m->id;
	f.time_ns = wall_ns();
	f.tiny = tiny;
	f.inlined = !tiny;
	if (!m->thr_counter || !done_add(m, &f)) {
		m->thr_counter = 0;
		atomic_store(&m->thr_state, THROTTLE_NONE);
		return 0;
	}
	atomic_store(&m->thr_state, THROTTLE_DONE);
	struct trace_recbuf *rb = trace_file_lock();
	if (!jcal_stopped())
		write_fact(rb, &f);
	trace_file_unlock();
	jcal_debug("%s: %s%s%s only counts its calls", tiny ? "tiny" : "inlined", m->csig, m->name,
		   m->sig);
	return throttle_counter(m, slot);
}

int throttle_tiny(struct jcal_method *m, uint32_t *slot)
{
	return from_start(m, slot, 1);
}

int throttle_inlined(struct jcal_method *m, uint32_t *slot)
{
	return from_start(m, slot, 0);
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

/* Method m runs without its probes (or with the one that counts) from
 * now (wall time now): its record, kept and written. */
static void throttled_now(struct jcal_method *m, uint64_t now)
{
	struct throttle_fact f;

	memset(&f, 0, sizeof(f));
	f.method = m->id;
	f.time_ns = now;
	f.timed = atomic_load(&m->thr_timed);
	f.sum = atomic_load(&m->thr_sum);
	f.calls = throttle_count_calls(m);
	int kept = done_add(m, &f);
	atomic_store(&m->thr_state, THROTTLE_DONE);
	struct trace_recbuf *rb = trace_file_lock();
	if (!jcal_stopped() && kept)
		write_fact(rb, &f);
	trace_file_unlock();
	jcal_info("throttle: %s%s%s runs without probes after %llu calls (counted since "
		  "the agent loaded, recorded or not)",
		  m->csig, m->name, m->sig, (unsigned long long)f.calls);
}

/*
 * The switched methods whose exit sites still close (record the exits of
 * the calls under way when they were switched). Every CLOSE_SCAN_NS the
 * throttle thread looks at every thread's stack (throttle_stacks.h): the
 * methods with no frame there have no call under way from before the
 * switch, and their exit sites are turned to nothing at once, in one call
 * (bci_sites_close). The others, and all of them where the stacks cannot
 * tell (virtual threads the agent did not see start, a stack deeper than
 * it reads), close CLOSE_AFTER_NS after the oldest was switched: a call
 * under way longer than that loses its exit (its caller's next recorded
 * exit ends it: a mismatched exit). Throttle thread only.
 */
#define CLOSE_AFTER_NS (200u * 1000 * 1000)
#define CLOSE_SCAN_NS (10u * 1000 * 1000)
static struct jcal_method **closing;
static size_t nclosing, closing_cap;
static uint64_t closing_since; /* mono_ns of the oldest */

static void closing_add(struct jcal_method *m)
{
	if (!nclosing)
		closing_since = mono_ns();
	if (!grow(&closing, &closing_cap, nclosing + 1))
		closing[nclosing++] = m;
}

/* Closes the exit sites of closing[i] but where keep[i] (a frame of it is
 * on a stack; all of them when keep is NULL), and keeps the others. */
static void closing_close(JNIEnv *jni, const unsigned char *keep)
{
	uint32_t *ids = malloc((nclosing ? nclosing : 1) * sizeof(*ids));
	size_t k = 0, kept = 0;

	if (!ids)
		return; /* no memory: they keep closing, at the next try */
	for (size_t i = 0; i < nclosing; i++) {
		if (!keep || !keep[i])
			ids[k++] = closing[i]->id;
		else
			closing[kept++] = closing[i];
	}
	if (k && bci_sites_close(jni, ids, k) < 0)
		jcal_warn("throttle: the exit probes of %zu switched method%s could not be closed "
			  "(jcal.Sites.close failed): they keep running",
			  k, k == 1 ? "" : "s");
	else if (k)
		jcal_debug(
		    "throttle: the exit probes of %zu switched method%s closed after %.0f ms%s", k,
		    k == 1 ? "" : "s", (double)(mono_ns() - closing_since) / 1e6,
		    keep ? " (no frame of them on any thread's stack)" : "");
	nclosing = kept;
	free(ids);
}

/* Closes what can be closed now. Returns how long until the next try, in
 * ns (0: none pending). */
static uint64_t closing_due(jvmtiEnv *jvmti, JNIEnv *jni)
{
	uint64_t waited = mono_ns() - closing_since;

	if (!nclosing)
		return 0;
	if (waited >= CLOSE_AFTER_NS) {
		closing_close(jni, NULL);
		return 0;
	}
	unsigned char *on = throttle_stacks_visible() ? malloc(nclosing) : NULL;
	int scanned = on && throttle_stacks_scan(jvmti, jni, closing, nclosing, on) == 0;
	if (scanned)
		closing_close(jni, on);
	free(on);
	if (!nclosing)
		return 0;
	uint64_t left = CLOSE_AFTER_NS - waited;
	return scanned && left > CLOSE_SCAN_NS ? CLOSE_SCAN_NS : left;
}

/* The picked methods ms[0..n) whose class has only switchable probes
 * (bci_sites.h) and that have a counter are switched, in one call, and
 * moved to the front: their entry sites count, their exit sites close
 * (closing_due). Returns how many were. */
static size_t throttle_switch(JNIEnv *jni, struct jcal_method **ms, size_t n)
{
	uint32_t *ids = malloc((n ? n : 1) * sizeof(*ids));
	int32_t *slots = malloc((n ? n : 1) * sizeof(*slots));
	size_t k = 0;

	for (size_t j = 0; ids && slots && j < n; j++) {
		struct jcal_method *m = ms[j];
		uint32_t slot;
		if (atomic_load(&m->bci_probes) != BCI_SITES_SWITCH || !throttle_counter(m, &slot))
			continue;
		ms[j] = ms[k];
		ms[k] = m;
		ids[k] = m->id;
		slots[k] = (int32_t)slot;
		k++;
	}
	if (k) {
		long changed = bci_sites_throttle(jni, ids, slots, k);
		uint64_t now = wall_ns();
		if (changed < 0) {
			jcal_warn("throttle: %zu method%s keep their probes: jcal.Sites.throttle "
				  "failed",
				  k, k == 1 ? "" : "s");
			for (size_t j = 0; j < k; j++) {
				atomic_store(&ms[j]->thr_state, THROTTLE_FAILED);
				ms[j]->thr_counter = 0;
			}
		} else {
			jcal_debug("throttle: %zu method%s switched, %ld call sites changed", k,
				   k == 1 ? "" : "s", changed);
			for (size_t j = 0; j < k; j++) {
				throttled_now(ms[j], now);
				closing_add(ms[j]);
			}
		}
	}
	free(ids);
	free(slots);
	return k;
}

/* Takes the probes out of the picked methods ms[0..n): the switchable ones
 * switched (throttle_switch), the others by one RetransformClasses of
 * their classes (the hook leaves them out, bci_agent.c). Returns how long
 * that took, in ns. */
static uint64_t throttle_batch(jvmtiEnv *jvmti, JNIEnv *jni, struct jcal_method **ms, size_t n)
{
	jclass *cls = NULL;
	uint64_t t0 = mono_ns();

	give_counters(jni, ms, n);
	for (size_t j = 0; j < n; j++) /* the hook leaves these out from now on */
		atomic_store(&ms[j]->thr_state, THROTTLE_TAKING);
	size_t sw = throttle_switch(jni, ms, n);
	ms += sw;
	n -= sw;
	if (!n) /* a switch deoptimizes the code that inlined the sites: waits as long */
		return mono_ns() - t0 + 1;
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

		if (!k || e != JVMTI_ERROR_NONE) {
			/* the class keeps its instrumented version */
			atomic_store(&m->thr_state, THROTTLE_FAILED);
			m->thr_counter = 0;
			jcal_warn("throttle: %s%s%s keeps its probes: %s", m->csig, m->name, m->sig,
				  k ? "RetransformClasses failed (loglevel=debug says why)"
				    : "its class was not found");
			continue;
		}
		throttled_now(m, now);
	}
	return t2 - t0 ? t2 - t0 : 1;
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
		uint64_t due = closing_due(jcal.jvmti, jni), w = due && due < wait ? due : wait;
		struct timespec ts = {(time_t)(w / 1000000000u), (long)(w % 1000000000u)};
		struct jcal_method *list;
		size_t n = 0;

		nanosleep(&ts, NULL);
		list = throttle_count_take_picked();
		for (struct jcal_method *m = list; m; m = m->thr_next) {
			if (!grow(&ms, &cap, n + 1))
				ms[n++] = m;
			else /* no memory: it keeps its probes */
				atomic_store(&m->thr_state, THROTTLE_FAILED);
		}
		if (n && !atomic_load(&jcal.dead)) {
			uint64_t took = throttle_batch(jcal.jvmti, jni, ms, n);
			wait *= 2;
			if (took > THROTTLE_WAIT_MAX_NS / THROTTLE_WAIT_FACTOR)
				wait = THROTTLE_WAIT_MAX_NS;
			else if (took * THROTTLE_WAIT_FACTOR > wait)
				wait = took * THROTTLE_WAIT_FACTOR;
			if (wait > THROTTLE_WAIT_MAX_NS)
				wait = THROTTLE_WAIT_MAX_NS;
		}
	}
	free(ms);
	free(closing);
	/* not detached: the JVM is going down */
	return NULL;
}

void throttle_start(void)
{
	pthread_t t;
	pthread_attr_t attr;
	int rc;

	if (!throttle_count_on)
		return;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&t, &attr, throttle_main, NULL);
	pthread_attr_destroy(&attr);
	if (rc)
		jcal_warn("throttle: cannot start its thread (%s): no method is throttled",
			  strerror(rc));
}

/* The rule as given: "CALLS:NS" (the meta record's, status's), or "off"
 * with tiny=count alone. */
static void rule_text(char *rule, size_t len)
{
	if (!throttle_count_on)
		snprintf(rule, len, "off");
	else
		snprintf(rule, len, "%llu:%llu", (unsigned long long)max_calls,
			 (unsigned long long)rule_ns);
}

int throttle_status(struct throttle_state *st)
{
	uint32_t slot;

	memset(st, 0, sizeof(*st));
	if (!records_on())
		return 0;
	st->rule_on = throttle_count_on;
	st->tiny_on = tiny_on;
	st->inlined_on = inlined_on;
	rule_text(st->rule, sizeof(st->rule));
	pthread_mutex_lock(&done_mutex);
	for (size_t i = 0; i < ndone; i++) {
		if (done[i].f.tiny) {
			st->tiny++;
			continue;
		}
		if (done[i].f.inlined) {
			st->inlined++;
			continue;
		}
		st->throttled++;
		st->counted += (size_t)throttle_counter(done[i].m, &slot);
	}
	pthread_mutex_unlock(&done_mutex);
	return 1;
}

void throttle_write_meta(struct trace_recbuf *rb)
{
	char rule[64];

	if (!records_on())
		return;
	rule_text(rule, sizeof(rule));
	trace_rec_meta(rb, THROTTLE_META_RULE, rule);
	trace_rec_meta(rb, THROTTLE_META_TIME, THROTTLE_TIME_SELF);
	if (tiny_on) {
		snprintf(rule, sizeof(rule), "%d", BCI_TINY_MAX_BYTES);
		trace_rec_meta(rb, THROTTLE_META_TINY, rule);
	}
	if (inlined_on)
		trace_rec_meta(rb, THROTTLE_META_INLINED, "count");
	pthread_mutex_lock(&done_mutex);
	for (size_t i = 0; i < ndone; i++)
		write_fact(rb, &done[i].f);
	pthread_mutex_unlock(&done_mutex);
}

unsigned throttle_finish(struct trace_recbuf *rb)
{
	unsigned n;

	if (!records_on())
		return 0;
	pthread_mutex_lock(&done_mutex);
	for (size_t i = 0; i < ndone; i++) {
		struct throttle_fact f = done[i].f;

		/* a tiny or inlined method's calls are its counting probe's alone */
		f.final_calls = f.tiny || f.inlined ? 0 : throttle_count_calls(done[i].m);
		f.has_final = 1;
		write_fact(rb, &f);
		done[i].f.has_counted = 0; /* read again for the next file */
	}
	n = (unsigned)ndone;
	pthread_mutex_unlock(&done_mutex);
	return n;
}
