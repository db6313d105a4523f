/*
 * agent.c - the agent's lifecycle (agent.h), driven by the entry points in
 * entry.c: load (options, metric choice, JVMTI capabilities and callbacks,
 * trace header), VMInit, thread start/end, VM death (flush everything,
 * print the summary line) and unload. What calibrate and recalibrate= add
 * comes in through struct agent_hooks. The recording's state, begin and
 * end, its output and header records are shared with the live session
 * (session.c) through agent_internal.h; this file never calls session.c.
 */
#include <jvmti.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/agent_internal.h"
#include "common/attach_reply.h"
#include "agent/core/agent_state.h"
#include "agent/bci/bci_agent.h"
#include "agent/bci/jit_inlined.h"
#include "agent/bci/throttle.h"
#include "agent/core/event_recorder.h"
#include "agent/base/host_info.h"
#include "agent/base/jvmti_check.h"
#include "agent/base/jvmti_compat.h"
#include "agent/core/region_control.h"
#include "agent/base/log.h"
#include "agent/core/method_table.h"
#include "agent/core/monitor_events.h"
#include "agent/core/thread_state.h"
#include "agent/recording_limits.h"
#include "agent/core/trace_file.h"
#include "agent/core/tree_recorder.h"

static atomic_int loaded;		/* Agent_OnLoad or a first Agent_OnAttach ran */
static atomic_int vm_inited;		/* VMInit arrived: the JVM is up, the trace is real */
static const struct agent_hooks *hooks; /* set by agent_load; may be NULL */
static int live;			/* attached to a running JVM */

/* how a duration=/maxsize= limit ends the recording: set by agent_load */
static recording_limits_stop_fn limits_stop;

/* The recording (agent_internal.h) and its lock. */
static pthread_mutex_t rec_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct agent_rec rec;

struct agent_rec *agent_rec_lock(void)
{
	pthread_mutex_lock(&rec_mutex);
	return &rec;
}

void agent_rec_unlock(void)
{
	pthread_mutex_unlock(&rec_mutex);
}

/* mode=events with include=/exclude=: events of the methods of classes
 * not selected are not recorded (docs/agent-internals.md, "Filtering"). */
static int events_filter_on(void)
{
	return jcal.opts.mode == JCAL_MODE_EVENTS && jcal.opts.command == JCAL_CMD_TRACE &&
	       (jcal.opts.bci_include[0] || jcal.opts.bci_exclude[0]);
}

static int events_filter_keep(const char *csig)
{
	char name[1024];
	size_t len = strlen(csig);

	/* "Lpkg/Cls;" -> "pkg/Cls" (the patterns take either separator) */
	if (len >= 2 && csig[0] == 'L' && csig[len - 1] == ';')
		snprintf(name, sizeof(name), "%.*s", (int)(len - 2), csig + 1);
	else
		snprintf(name, sizeof(name), "%s", csig);
	return jcal_class_selected(&jcal.opts, name);
}

filter_fn *agent_events_filter(void)
{
	return events_filter_on() ? events_filter_keep : NULL;
}

void agent_write_header_meta(const char *options)
{
	struct host_info host;
	struct timespec now;
	char names[JCAL_MAX_METRICS * JCAL_OPT_METRIC_MAX], key[80];
	struct trace_recbuf *rb;

	host_info_read(&host);
	clock_gettime(CLOCK_REALTIME, &now);
	metric_set_names(&jcal.metrics, names, sizeof(names));

	rb = trace_file_lock();
	trace_rec_meta(rb, "agent.version", JCAL_AGENT_VERSION);
	trace_rec_meta(rb, "mode", jcal_mode_name(jcal.opts.mode));
	trace_rec_meta(rb, "clock", jcal_clock_name(jcal.opts.clock));
	if (jcal.opts.mode == JCAL_MODE_BCI)
		trace_rec_meta(rb, "probes", jcal.opts.probes_static ? "static" : "switch");
	trace_rec_meta(rb, "options", options ? options : "");
	if (events_filter_on()) {
		trace_rec_meta(rb, "filter.include", jcal.opts.bci_include);
		trace_rec_meta(rb, "filter.exclude", jcal.opts.bci_exclude);
	}
	trace_rec_meta_u64(rb, "pid", (uint64_t)getpid());
	trace_rec_meta_u64(rb, "start.time_ns",
			   (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec);
	trace_rec_meta(rb, "metrics", names);
	for (unsigned i = 0; i < jcal.metrics.n; i++) {
		const struct metric_desc *d = &jcal.metrics.m[i];
		snprintf(key, sizeof(key), "metric.%u.name", i);
		trace_rec_meta(rb, key, d->name);
		snprintf(key, sizeof(key), "metric.%u.unit", i);
		trace_rec_meta(rb, key, d->unit);
		snprintf(key, sizeof(key), "metric.%u.why", i);
		trace_rec_meta(rb, key, d->why);
	}
	if (jcal.metrics.tsc_hz)
		trace_rec_meta_u64(rb, "tsc.hz", jcal.metrics.tsc_hz);
	host_info_write(&host, rb);
	/* label=KEY:VALUE: jcal-post's pprof export labels the samples with them */
	for (unsigned i = 0; i < jcal.opts.nlabels; i++) {
		snprintf(key, sizeof(key), "label.%s", jcal.opts.label_key[i]);
		trace_rec_meta(rb, key, jcal.opts.label_value[i]);
	}
	/* Written at VMInit: the file is not touched before the JVM is up. */
	trace_file_unlock();
}

static void meta_property(jvmtiEnv *jvmti, struct trace_recbuf *rb, const char *key,
			  const char *property)
{
	char *value = NULL, what[64];
	/* A property the JVM does not have is left out of the trace. */
	snprintf(what, sizeof(what), "GetSystemProperty(%s)", property);
	if (!jvmti_check_debug(jvmti, (*jvmti)->GetSystemProperty(jvmti, property, &value), what) &&
	    value) {
		trace_rec_meta(rb, key, value);
		jvmti_free(jvmti, value);
	}
}

/* "mixed mode" or "interpreted mode" (-Xint): the first part of
 * java.vm.info; calibration tables are per execution mode. */
static void meta_exec_mode(jvmtiEnv *jvmti, struct trace_recbuf *rb)
{
	char *value = NULL;

	if (jvmti_check_debug(jvmti, (*jvmti)->GetSystemProperty(jvmti, "java.vm.info", &value),
			      "GetSystemProperty(java.vm.info)") ||
	    !value)
		return;
	value[strcspn(value, ",")] = '\0';
	trace_rec_meta(rb, "jvm.exec", value);
	jvmti_free(jvmti, value);
}

void agent_write_vm_meta(jvmtiEnv *jvmti)
{
	struct trace_recbuf *rb = trace_file_lock();
	meta_property(jvmti, rb, "jvm.name", "java.vm.name");
	meta_property(jvmti, rb, "jvm.vendor", "java.vm.vendor");
	meta_property(jvmti, rb, "jvm.version", "java.vm.version");
	meta_property(jvmti, rb, "java.version", "java.version");
	meta_property(jvmti, rb, "java.home", "java.home");
	meta_exec_mode(jvmti, rb);
	if (live)
		trace_rec_meta(rb, "attached", "1");
	trace_file_unlock();
	trace_file_flush();
}

/* output=tree|both: the trees choose their calibration table before any
 * event (tree_recorder.h) by the fingerprint, whose JVM fields the JVM has
 * from the start: written at load too (again by agent_write_vm_meta).
 * 0, or -1 + message (calib= cannot be used). */
static int start_tree_table(jvmtiEnv *jvmti, char *err, size_t errlen)
{
	struct trace_recbuf *rb = trace_file_lock();

	meta_property(jvmti, rb, "jvm.name", "java.vm.name");
	meta_property(jvmti, rb, "jvm.vendor", "java.vm.vendor");
	meta_property(jvmti, rb, "jvm.version", "java.vm.version");
	meta_exec_mode(jvmti, rb);
	trace_file_unlock();
	return tree_recorder_choose_table(err, errlen);
}

/* A compiled method's load: one that inlined=count asked for on this
 * thread (agent/bci/jit_inlined.h) is its alone, any other is recorded. */
static void JNICALL on_compiled_load(jvmtiEnv *jvmti, jmethodID method, jint code_size,
				     const void *code_addr, jint map_length,
				     const jvmtiAddrLocationMap *map, const void *compile_info)
{
	if (jit_inlined_note(compile_info))
		return;
	event_compiled_load(jvmti, method, code_size, code_addr, map_length, map, compile_info);
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");

	(void)thread;
	atomic_store(&vm_inited, 1);
	trace_file_begin();
	if (cls) {
		jcal.thread_tid = (*jni)->GetFieldID(jni, cls, "tid", "J");
		(*jni)->DeleteLocalRef(jni, cls);
	}
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	/* The main thread ran Java code before VMInit: its name is known now. */
	struct jcal_thread *st = thread_state_get(jvmti);
	if (st && st != &thread_state_ended)
		thread_state_rename(jvmti, jni, st);
	if (jcal.vthreads) {
		/* VirtualThread.mount() is entered on the carrier and its matching
		 * return is VirtualThread.unmount()'s exit (event_recorder.c). */
		jclass vt = (*jni)->FindClass(jni, "java/lang/VirtualThread");
		if (vt) {
			jcal.vt_mount = (*jni)->GetMethodID(jni, vt, "mount", "()V");
			jcal.vt_unmount = (*jni)->GetMethodID(jni, vt, "unmount", "()V");
			(*jni)->DeleteLocalRef(jni, vt);
		}
		if ((*jni)->ExceptionCheck(jni))
			(*jni)->ExceptionClear(jni);
		if (!jcal.vt_mount || !jcal.vt_unmount)
			jcal.vt_mount = jcal.vt_unmount = NULL;
		jclass ct = (*jni)->FindClass(jni, "jdk/internal/misc/CarrierThread");
		if (ct) {
			jcal.carrier_cls = (*jni)->NewGlobalRef(jni, ct);
			(*jni)->DeleteLocalRef(jni, ct);
		}
		if ((*jni)->ExceptionCheck(jni))
			(*jni)->ExceptionClear(jni);
		jcal.carrier_known = jcal.carrier_cls ? 1 : -1;
		if (!jcal.carrier_cls)
			jcal_debug(
			    "jdk.internal.misc.CarrierThread not found: every platform thread's "
			    "state is looked up in JVMTI TLS");
	}
	agent_write_vm_meta(jvmti);
	if (jcal.opts.mode == JCAL_MODE_BCI)
		bci_agent_vm_init(jvmti, jni);
	if (jcal.opts.command == JCAL_CMD_TRACE)
		region_control_vm_init(jvmti, jni, live);
	recording_limits_start(&jcal.opts, limits_stop);
	if (hooks && hooks->vm_init)
		hooks->vm_init(jvmti, jni);
}

static int load_failure = JCAL_ATTACH_FAILED; /* what a failed agent_load was */

static void JNICALL on_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	if (jcal_internal_thread)
		return;
	jcal_hold_wait(); /* a rotation: started in the next file */
	if (jcal_stopped() || thread_state_get(jvmti))
		return;
	thread_state_create(jvmti, jni, thread, 0);
}

static void JNICALL on_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	struct jcal_thread *st = thread_state_get(jvmti);

	(void)thread;
	if (st && st != &thread_state_ended)
		thread_state_retire(jvmti, jni, st);
}

/* Virtual threads (JDK 21+). The first method event of a virtual thread
 * (VirtualThread.run) comes before VirtualThreadStart, so the state may
 * exist already. */
static void JNICALL on_vthread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread vthread)
{
	struct jcal_thread *st = thread_state_get(jvmti);

	jcal_hold_wait(); /* a rotation: started in the next file */
	atomic_store(&jcal.vthread_started, 1);
	if (jcal_stopped())
		return;
	if (!st)
		st = thread_state_create(jvmti, jni, vthread, 0);
	/* Its first mount: the carrier's metric stops here. */
	if (st && st != &thread_state_ended && st->is_virtual)
		thread_state_mounted(st);
}

static void JNICALL on_vthread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread vthread)
{
	struct jcal_thread *st = thread_state_get(jvmti);

	(void)vthread;
	if (!st || st == &thread_state_ended)
		return;
	thread_state_retire(jvmti, jni, st);
	/* Its last unmount: the carrier's metric goes on. */
	thread_state_carrier_resume();
}

/* HotSpot's mount/unmount extension events: a virtual thread's metric only
 * runs while it is mounted (thread_state.h). */
static void JNICALL on_vthread_mount(jvmtiEnv *jvmti, ...)
{
	struct jcal_thread *st = thread_state_get(jvmti);
	if (st && st != &thread_state_ended && st->is_virtual)
		thread_state_mounted(st);
}

static void JNICALL on_vthread_unmount(jvmtiEnv *jvmti, ...)
{
	struct jcal_thread *st = thread_state_get(jvmti);
	if (st && st != &thread_state_ended && st->is_virtual)
		thread_state_unmounting(st);
}

/* Enables the mount/unmount extension events; returns how many were found. */
static int enable_mount_events(jvmtiEnv *jvmti)
{
	jint n = 0;
	jvmtiExtensionEventInfo *ev = NULL;
	int found = 0;

	/* Without them the caller warns. */
	if (jvmti_check_debug(jvmti, (*jvmti)->GetExtensionEvents(jvmti, &n, &ev),
			      "GetExtensionEvents"))
		return 0;
	for (jint i = 0; i < n; i++) {
		jvmtiExtensionEvent fn = NULL;
		if (!strcmp(ev[i].id, "com.sun.hotspot.events.VirtualThreadMount"))
			fn = (jvmtiExtensionEvent)on_vthread_mount;
		else if (!strcmp(ev[i].id, "com.sun.hotspot.events.VirtualThreadUnmount"))
			fn = (jvmtiExtensionEvent)on_vthread_unmount;
		/* Delivered only once also enabled by index (docs/agent-internals.md). */
		if (fn &&
		    !jvmti_check_debug(
			jvmti,
			(*jvmti)->SetExtensionEventCallback(jvmti, ev[i].extension_event_index, fn),
			ev[i].id) &&
		    !jvmti_check_debug(
			jvmti,
			(*jvmti)->SetEventNotificationMode(
			    jvmti, JVMTI_ENABLE, (jvmtiEvent)ev[i].extension_event_index, NULL),
			ev[i].id))
			found++;
	}
	for (jint i = 0; i < n; i++) {
		jvmti_free(jvmti, ev[i].id);
		jvmti_free(jvmti, ev[i].short_description);
		for (jint p = 0; p < ev[i].param_count; p++)
			jvmti_free(jvmti, ev[i].params[p].name);
		jvmti_free(jvmti, ev[i].params);
	}
	jvmti_free(jvmti, ev);
	return found;
}

void agent_rec_finish(JNIEnv *jni, const char *reason)
{
	if (!rec.active)
		return;
	rec.active = 0;
	jcal_tracing_stop();
	recording_limits_cancel();
	agent_rec_close(jni, reason);
}

void agent_rec_close(JNIEnv *jni, const char *reason)
{
	uint64_t threads = 0, events, bytes, lost, filtered = 0;
	char filter_note[128] = "";
	char names[JCAL_MAX_METRICS * JCAL_OPT_METRIC_MAX];
	struct trace_recbuf *rb;

	throttle_read_counts(jni); /* mode=bci, throttle=: the counting probes' calls */
	events = thread_state_flush_all(jcal.jvmti, jni, &threads, &filtered);
	lost = atomic_load(&jcal.lost_events);
	rb = trace_file_lock();
	if (events_filter_on()) {
		uint32_t excluded = method_table_filtered_count();

		trace_rec_meta_u64(rb, "filter.events", filtered);
		trace_rec_meta_u64(rb, "filter.methods", excluded);
		snprintf(filter_note, sizeof(filter_note),
			 " - %llu events of %u excluded methods not recorded",
			 (unsigned long long)filtered, excluded);
	}
	if (jcal.metrics.tsc_hz)
		trace_rec_meta_u64(rb, "tsc.hz", metric_set_tsc_hz_final(&jcal.metrics));
	if (atomic_load(&jcal.work_classes) || atomic_load(&jcal.work_metric)) {
		/* mode=bci, clock=agentfree: the class work taken out */
		trace_rec_meta_u64(rb, "agent_work.classes", atomic_load(&jcal.work_classes));
		trace_rec_meta_u64(rb, "agent_work.metric", atomic_load(&jcal.work_metric));
	}
	if (reason)
		trace_rec_meta(rb, "stop.reason", reason);
	throttle_finish(rb); /* mode=bci, throttle=: the final counts */
	trace_file_unlock();
	/* output=tree|both: the snapshot (tree_recorder.h); tree has no trace */
	if (jcal.opts.output == JCAL_OUTPUT_TREE) {
		tree_recorder_finish(rec.last, sizeof(rec.last));
		trace_file_close();
		return;
	}
	trace_file_write_end(lost);
	threads = trace_file_threads();
	if (jcal.opts.output == JCAL_OUTPUT_BOTH)
		tree_recorder_finish(NULL, 0);
	bytes = trace_file_close();
	metric_set_names(&jcal.metrics, names, sizeof(names));
	snprintf(rec.last, sizeof(rec.last),
		 "%s: %llu events, %llu threads, %u methods, metric %s, %llu bytes "
		 "(%.2f bytes/event)%s%s%s%s",
		 trace_file_closed_path(), (unsigned long long)events, (unsigned long long)threads,
		 method_table_count(), names, (unsigned long long)bytes,
		 events ? (double)bytes / (double)events : 0.0, filter_note,
		 trace_file_failed() ? " - INCOMPLETE: a write failed" : "",
		 reason ? " - stopped: " : "", reason ? reason : "");
	jcal_info("wrote %s", rec.last);
	if (rec.active)
		return; /* a rotation: the recording goes on in the next file */
	if (hooks && hooks->finish && hooks->finish(jcal.out_path))
		_exit(1);
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
	(void)jvmti;
	if (hooks && hooks->vm_death)
		hooks->vm_death();
	pthread_mutex_lock(&rec_mutex);
	atomic_store(&jcal.dead, 1);
	agent_rec_finish(jni, NULL);
	pthread_mutex_unlock(&rec_mutex);
}

static int check(jvmtiError e, const char *what)
{
	return jvmti_check(jcal.jvmti, e, what);
}

/* Whether pot offers can_support_virtual_threads (a JDK 21 bit that JDK
 * 17's header does not name: jvmti_compat.h); if not, the bit is cleared
 * from caps. */
static int vthreads_offered(const jvmtiCapabilities *pot, jvmtiCapabilities *caps)
{
	jvmtiCapabilities vt;
	const unsigned char *p = (const unsigned char *)pot, *v = (const unsigned char *)&vt;
	unsigned char *c = (unsigned char *)caps;

	memset(&vt, 0, sizeof(vt));
	jcal_caps_set_virtual_threads(&vt);
	for (size_t i = 0; i < sizeof(vt); i++)
		if ((p[i] & v[i]) != v[i]) {
			for (size_t j = 0; j < sizeof(vt); j++)
				c[j] &= (unsigned char)~v[j];
			return 0;
		}
	return 1;
}

/* A recording asks for the JVM's monitor events (monitor_events.c) when
 * the JVM offers them; without them, one line says what is missing. */
static void want_monitor_events(jvmtiEnv *jvmti, jvmtiCapabilities *caps)
{
	jvmtiCapabilities pot;

	if (jcal.opts.command != JCAL_CMD_TRACE)
		return;
	memset(&pot, 0, sizeof(pot));
	if (!jvmti_check_debug(jvmti, (*jvmti)->GetPotentialCapabilities(jvmti, &pot),
			       "GetPotentialCapabilities") &&
	    pot.can_generate_monitor_events)
		caps->can_generate_monitor_events = 1;
	else
		jcal_info("this JVM offers no monitor events: the trace will not say which waits "
			  "were on a monitor or in Object.wait");
}

/* The monitor events' callbacks. */
static void monitor_callbacks(jvmtiEventCallbacks *cb)
{
	cb->MonitorContendedEnter = monitor_contended_enter;
	cb->MonitorContendedEntered = monitor_contended_entered;
	cb->MonitorWait = monitor_wait;
	cb->MonitorWaited = monitor_waited;
}

static int setup_jvmti(void)
{
	jvmtiEnv *jvmti = jcal.jvmti;
	jvmtiCapabilities caps;
	struct jcal_event_callbacks cb;
	static const jvmtiEvent events[] = {
	    JVMTI_EVENT_VM_INIT,
	    JVMTI_EVENT_VM_DEATH,
	    JVMTI_EVENT_THREAD_START,
	    JVMTI_EVENT_THREAD_END,
	    JVMTI_EVENT_METHOD_ENTRY,
	    JVMTI_EVENT_METHOD_EXIT,
	    JVMTI_EVENT_COMPILED_METHOD_LOAD,
	    JVMTI_EVENT_COMPILED_METHOD_UNLOAD,
	};

	/* mode=bci: no method events, which would run every thread in the
	 * interpreter; natives are not traced (docs/agent-internals.md). */
	int bci = jcal.opts.mode == JCAL_MODE_BCI;

	memset(&caps, 0, sizeof(caps));
	caps.can_generate_method_entry_events = !bci;
	caps.can_generate_method_exit_events = !bci;
	caps.can_generate_compiled_method_load_events = 1;
	if (bci)
		bci_agent_onload(&caps);
	if (jcal.vthreads)
		jcal_caps_set_virtual_threads(&caps);
	want_monitor_events(jvmti, &caps);
	if (live) {
		/* In a running JVM some capabilities are no longer offered: do
		 * without compiled-code events or virtual-thread support then. */
		jvmtiCapabilities pot;
		memset(&pot, 0, sizeof(pot));
		if (!check((*jvmti)->GetPotentialCapabilities(jvmti, &pot),
			   "GetPotentialCapabilities")) {
			caps.can_generate_compiled_method_load_events &=
			    pot.can_generate_compiled_method_load_events;
			if (jcal.vthreads && !vthreads_offered(&pot, &caps))
				jcal.vthreads = 0;
		}
	}
	if (check((*jvmti)->AddCapabilities(jvmti, &caps), "AddCapabilities"))
		return -1;
	jcal.monitor_events = caps.can_generate_monitor_events;

	memset(&cb, 0, sizeof(cb));
	cb.base.VMInit = on_vm_init;
	cb.base.VMDeath = on_vm_death;
	cb.base.ThreadStart = on_thread_start;
	cb.base.ThreadEnd = on_thread_end;
	cb.base.MethodEntry = event_method_entry;
	cb.base.MethodExit = event_method_exit;
	cb.base.CompiledMethodLoad = on_compiled_load;
	cb.base.CompiledMethodUnload = event_compiled_unload;
	if (bci)
		cb.base.ClassFileLoadHook = bci_agent_class_file_load_hook;
	monitor_callbacks(&cb.base);
	cb.VirtualThreadStart = on_vthread_start;
	cb.VirtualThreadEnd = on_vthread_end;
	if (check((*jvmti)->SetEventCallbacks(
		      jvmti, &cb.base, jcal.vthreads ? (jint)sizeof(cb) : (jint)sizeof(cb.base)),
		  "SetEventCallbacks"))
		return -1;
	if (jcal.vthreads) {
		if (check(
			(*jvmti)->SetEventNotificationMode(
			    jvmti, JVMTI_ENABLE, (jvmtiEvent)JCAL_EVENT_VIRTUAL_THREAD_START, NULL),
			"SetEventNotificationMode(VirtualThreadStart)") ||
		    check((*jvmti)->SetEventNotificationMode(
			      jvmti, JVMTI_ENABLE, (jvmtiEvent)JCAL_EVENT_VIRTUAL_THREAD_END, NULL),
			  "SetEventNotificationMode(VirtualThreadEnd)"))
			return -1;
		if (enable_mount_events(jvmti) != 2)
			jcal_warn("this JVM has no virtual-thread mount/unmount events: a virtual "
				  "thread's metric will include time it spent unmounted");
	}
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		/* calibrate and start=manual enable method events per thread. */
		int method_event =
		    events[i] == JVMTI_EVENT_METHOD_ENTRY || events[i] == JVMTI_EVENT_METHOD_EXIT;
		if (method_event &&
		    (bci || jcal.opts.command == JCAL_CMD_CALIBRATE || jcal.opts.start_manual))
			continue;
		if ((events[i] == JVMTI_EVENT_COMPILED_METHOD_LOAD ||
		     events[i] == JVMTI_EVENT_COMPILED_METHOD_UNLOAD) &&
		    !caps.can_generate_compiled_method_load_events)
			continue;
		if (check((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, events[i], NULL),
			  "SetEventNotificationMode"))
			return -1;
	}
	if (bci && check((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
							    JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL),
			 "SetEventNotificationMode(ClassFileLoadHook)"))
		return -1;
	jcal_monitor_events(JVMTI_ENABLE, jvmti_check);
	return 0;
}

void agent_rec_began(const char *options)
{
	rec.active = 1;
	clock_gettime(CLOCK_REALTIME, &rec.since);
	snprintf(rec.options, sizeof(rec.options), "%s", options ? options : "");
	trace_file_set_limit(jcal.opts.maxsize, recording_limits_wake);
}

/* The recording is on: what status reports. */
static void recording_began(const char *options)
{
	pthread_mutex_lock(&rec_mutex);
	agent_rec_began(options);
	pthread_mutex_unlock(&rec_mutex);
}

/* The period of clock=agentfree's second read, in ordinary events (a burst
 * of reads at the start of each, common/agent_clock.h): JCAL_CLOCK_EVERY
 * (1..65536; for comparisons, 1 reads at every event), else
 * AGENT_CLOCK_EVERY_DEFAULT (docs/accuracy.md, "The agent-free clock"). */
static unsigned clock_every_env(void)
{
	const char *v = getenv("JCAL_CLOCK_EVERY");
	char *end;
	unsigned long n;

	if (!v || !*v)
		return AGENT_CLOCK_EVERY_DEFAULT;
	n = strtoul(v, &end, 10);
	if (*end || n < 1 || n > 65536) {
		jcal_warn("JCAL_CLOCK_EVERY=%s is not a number in 1..65536: using %u", v,
			  AGENT_CLOCK_EVERY_DEFAULT);
		return AGENT_CLOCK_EVERY_DEFAULT;
	}
	return (unsigned)n;
}

jint agent_load_options(JavaVM *vm, const char *options)
{
	char err[1024];

	/* A second -agentpath/-agentlib of this library shares its state with
	 * the first: refuse it rather than count every event twice. */
	if (atomic_exchange(&loaded, 1)) {
		jcal_error("libjcal.so is already loaded in this JVM (option '%s'): give "
			   "-agentpath once",
			   options ? options : "");
		/* The JVM stops now without unloading the first: leave no file
		 * (the first one's was opened but not yet written). */
		trace_file_abandon();
		return JNI_ERR;
	}
	jcal.vm = vm;
	jcal.clock_every = clock_every_env();
	atomic_init(&jcal.next_serial, 1);
	atomic_init(&jcal.recording, 1);
	if (jcal_options_parse(options, &jcal.opts, err, sizeof(err))) {
		jcal_error("%s", err);
		return JNI_ERR;
	}
	return JNI_OK;
}

int agent_open_output(unsigned flags, char *err, size_t errlen)
{
	char path[JCAL_OPT_PATH_MAX + 8];

	if (jcal.opts.output == JCAL_OUTPUT_TREE
		? trace_file_open_none(jcal.out_path)
		: trace_file_open(jcal.out_path, flags, err, errlen))
		return -1;
	if (jcal.opts.output == JCAL_OUTPUT_TRACE) {
		tree_recorder_off(); /* a later start may switch (thread_state_renew) */
		return 0;
	}
	snprintf(path, sizeof(path), "%s%s", jcal.out_path,
		 jcal.opts.output == JCAL_OUTPUT_BOTH ? ".tree" : "");
	if (jcal.opts.output == JCAL_OUTPUT_BOTH)
		trace_file_keep_definitions();
	if (tree_recorder_init(path, err, errlen)) {
		trace_file_abandon();
		return -1;
	}
	return 0;
}

jint agent_load(const char *options, const struct agent_hooks *with, recording_limits_stop_fn stop)
{
	char err[1024];

	hooks = with;
	limits_stop = stop;
	if (jcal.opts.command == JCAL_CMD_HELP) {
		fputs(jcal_options_help(), stdout);
		fflush(stdout);
		exit(0);
	}
	if (jcal.opts.command == JCAL_CMD_NONE || jcal_command_is_live(jcal.opts.command)) {
		if (jcal_command_is_live(jcal.opts.command)) {
			jcal_error("option '%s' is a command for a JVM where the agent already "
				   "runs (jcal start|stop|dump|status PID, or jcmd PID "
				   "JVMTI.agent_load); at start-up use trace",
				   options ? options : "");
			return JNI_ERR;
		}
		jcal_error("no mode given in '%s': use trace, calibrate or help "
			   "(e.g. -agentpath:libjcal.so=trace,out=t.bin)",
			   options ? options : "");
		return JNI_ERR;
	}
	if (jcal_log_init(jcal.opts.log, jcal.opts.loglevel, err, sizeof(err))) {
		jcal_error("log=%s: %s", jcal.opts.log, err);
		return JNI_ERR;
	}
	if (jcal_options_expand_out(jcal.opts.out, getpid(), time(NULL), jcal.out_path,
				    sizeof(jcal.out_path), err, sizeof(err))) {
		jcal_error("%s", err);
		return JNI_ERR;
	}
	/* JVMTI 21 (virtual threads) where the JVM has it, else 1.2 (JDK 17). */
	if ((*jcal.vm)->GetEnv(jcal.vm, (void **)&jcal.jvmti, JCAL_JVMTI_VERSION_21) == JNI_OK) {
		jcal.vthreads = 1;
		jcal.vthreads_possible = 1;
	} else if ((*jcal.vm)->GetEnv(jcal.vm, (void **)&jcal.jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
		jcal_error("this JVM does not offer JVMTI 1.2");
		return JNI_ERR;
	}
	if (hooks && hooks->onload &&
	    hooks->onload(jcal.jvmti, jcal.out_path, sizeof(jcal.out_path), err, sizeof(err))) {
		jcal_error("%s", err);
		return JNI_ERR;
	}
	/* The calibration's own trace is private to this run (calibrator/calibrate.c).
	 * Before the jar joins the boot class path: an attach that cannot
	 * write its output leaves the JVM as it was. */
	if (agent_open_output(jcal.opts.command == JCAL_CMD_CALIBRATE ? TRACE_FILE_PRIVATE : 0, err,
			      sizeof(err))) {
		jcal_error("%s", err);
		load_failure = JCAL_ATTACH_OUTPUT;
		return JNI_ERR;
	}
	/* calibrate,mode=bci needs jcal.Tracker too (jcal-agent.jar). */
	if (jcal.opts.command == JCAL_CMD_CALIBRATE && jcal.opts.mode == JCAL_MODE_BCI &&
	    region_control_onload(jcal.jvmti)) {
		jcal_error("option 'mode=bci' needs jcal-agent.jar beside libjcal.so (the "
			   "jcal.Tracker class)");
		trace_file_abandon();
		return JNI_ERR;
	}
	if (jcal.opts.command == JCAL_CMD_TRACE && region_control_onload(jcal.jvmti)) {
		if (jcal.opts.start_manual || jcal.opts.mode == JCAL_MODE_BCI) {
			jcal_error("option '%s' needs jcal-agent.jar beside libjcal.so "
				   "(the jcal.Control and jcal.Tracker classes)",
				   jcal.opts.start_manual ? "start=manual" : "mode=bci");
			trace_file_abandon();
			return JNI_ERR;
		}
		jcal_debug("jcal-agent.jar not found beside libjcal.so: no jcal.Control API");
	}
	/* After the file: a bad out= must fail before any metric warning. The
	 * file is not truncated until the JVM is up (trace_file.c). */
	if (metric_set_open(&jcal.metrics, &jcal.opts, err, sizeof(err))) {
		jcal_error("%s", err);
		trace_file_abandon();
		return JNI_ERR;
	}
	/* A cheaper shutdown handshake on the event path (event_recorder.c). */
	jcal.membarrier =
	    syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
	if (events_filter_on())
		method_table_set_filter(events_filter_keep);
	agent_write_header_meta(options);
	if (jcal.opts.output != JCAL_OUTPUT_TRACE &&
	    (tree_recorder_slow_setup(1, err, sizeof(err)) ||
	     start_tree_table(jcal.jvmti, err, sizeof(err)))) {
		jcal_error("%s", err);
		trace_file_abandon();
		return JNI_ERR;
	}
	if (setup_jvmti()) {
		trace_file_abandon();
		return JNI_ERR;
	}
	jcal_debug("tracing to %s", jcal.out_path);
	recording_began(options);
	return JNI_OK;
}

void agent_unload(void)
{
	/* Normally VM death has written everything; this covers a JVM that
	 * never delivered it. A JVM that never came up (a failure during
	 * start-up) leaves no trace, and an existing file as it was. */
	if (jcal.opts.command != JCAL_CMD_HELP && jcal.jvmti) {
		pthread_mutex_lock(&rec_mutex);
		atomic_store(&jcal.dead, 1);
		if (atomic_load(&vm_inited))
			agent_rec_finish(NULL, NULL);
		else
			trace_file_abandon();
		pthread_mutex_unlock(&rec_mutex);
	}
	jcal_log_close();
}

int agent_is_running(void)
{
	return atomic_load(&loaded) && jcal.jvmti != NULL;
}

void agent_load_cancel(void)
{
	atomic_store(&loaded, 0);
}

int agent_load_attached(JavaVM *vm, const char *options, recording_limits_stop_fn stop)
{
	JNIEnv *jni = NULL;

	live = 1;
	jcal.loaded_live = 1; /* kept if this load fails: only makes throttle_stacks careful */
	load_failure = JCAL_ATTACH_FAILED;
	if (agent_load(options, NULL, stop) != JNI_OK) {
		atomic_store(&loaded, 0);
		live = 0;
		return load_failure;
	}
	if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_6) != JNI_OK)
		jni = NULL;
	/* What VMInit does at a JVM's start: the JVM is up already. */
	if (jni)
		on_vm_init(jcal.jvmti, jni, NULL);
	/* Methods compiled before the attach: their compiled state. */
	jvmti_check_debug(
	    jcal.jvmti, (*jcal.jvmti)->GenerateEvents(jcal.jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD),
	    "GenerateEvents(CompiledMethodLoad)");
	return JCAL_ATTACH_OK;
}
