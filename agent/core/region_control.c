/*
 * region_control.c - the natives of jcal.Control.
 *
 * Each Java thread keeps a region depth. start() at depth 0 appends a START
 * control event (and with start=manual enables MethodEntry/Exit for the
 * thread); stop() back to depth 0 appends STOP (and disables them). With
 * the default start=auto a thread begins at depth 1, so stop() pauses it.
 * mark() interns its label (one LABEL record per distinct text) and appends
 * MARK. While a thread's tracing is off, event_recorder.c drops its events.
 */
#include "agent/core/region_control.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/agent_state.h"
#include "agent/base/jvmti_check.h"
#include "agent/base/lib_dir.h"
#include "agent/base/log.h"
#include "agent/core/thread_state.h"
#include "agent/core/trace_file.h"
#include <uthash.h>

jmethodID region_control_mid[6];

struct label {
	char *text;
	uint32_t id;
	UT_hash_handle hh;
};

static pthread_mutex_t label_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct label *labels;
static uint32_t next_label = 1;

int region_control_onload(jvmtiEnv *jvmti)
{
	/* Once per JVM: a start that failed after it (the library stays
	 * loaded, session.c pins it) must not append the jar again at the next
	 * start, each append costing the JVM a class-sharing warning. */
	static int appended;
	char jar[1200];

	if (appended)
		return 0;
	if (jcal_lib_file("jcal-agent.jar", jar, sizeof(jar)))
		return -1;
	/* The caller says what is missing. */
	if (jvmti_check_debug(jvmti, (*jvmti)->AddToBootstrapClassLoaderSearch(jvmti, jar),
			      "AddToBootstrapClassLoaderSearch"))
		return -1;
	appended = 1;
	return 0;
}

uint32_t region_control_label(const char *text)
{
	struct label *l;
	uint32_t id = 0;

	pthread_mutex_lock(&label_mutex);
	HASH_FIND_STR(labels, text, l);
	if (!l) {
		l = calloc(1, sizeof(*l));
		if (l && (l->text = strdup(text)) != NULL) {
			l->id = next_label++;
			HASH_ADD_KEYPTR(hh, labels, l->text, strlen(l->text), l);
			struct trace_recbuf *rb = trace_file_lock();
			trace_rec_label(rb, l->id, l->text);
			trace_file_unlock();
		} else {
			free(l);
			l = NULL;
		}
	}
	if (l)
		id = l->id;
	pthread_mutex_unlock(&label_mutex);
	return id;
}

static void set_method_events(JNIEnv *jni, jvmtiEventMode mode)
{
	jthread self = NULL;

	(void)jni;
	/* Failing, the region still opens or closes: its control events are
	 * recorded, only the thread's method events stay as they were. */
	if (jvmti_check_debug(jcal.jvmti, (*jcal.jvmti)->GetCurrentThread(jcal.jvmti, &self),
			      "GetCurrentThread"))
		return;
	jcal_method_events(mode, self, jvmti_check_debug);
}

/* The calling thread's state, created if it has none yet. */
static struct jcal_thread *current(JNIEnv *jni)
{
	struct jcal_thread *st = thread_state_get(jcal.jvmti);
	jthread self = NULL;

	jcal_hold_wait(); /* a rotation: the region changes after it */
	if (st == &thread_state_ended || jcal_stopped())
		return NULL;
	if (!st &&
	    !jvmti_check_debug(jcal.jvmti, (*jcal.jvmti)->GetCurrentThread(jcal.jvmti, &self),
			       "GetCurrentThread"))
		st = thread_state_create(jcal.jvmti, jni, self, 1);
	if (st)
		thread_state_rebase(st); /* this recording's start= base first */
	return st;
}

static void JNICALL control_start(JNIEnv *jni, jclass cls)
{
	struct jcal_thread *st = current(jni);

	(void)cls;
	if (!st)
		return;
	if (st->regions++ == 0) {
		thread_state_control(st, JCAL_CTL_START, 0);
		if (jcal.opts.start_manual)
			set_method_events(jni, JVMTI_ENABLE);
	}
}

static void JNICALL control_stop(JNIEnv *jni, jclass cls)
{
	struct jcal_thread *st = current(jni);

	(void)cls;
	if (!st || st->regions == 0)
		return;
	if (--st->regions == 0) {
		if (jcal.opts.start_manual)
			set_method_events(jni, JVMTI_DISABLE);
		thread_state_control(st, JCAL_CTL_STOP, 0);
	}
}

static void JNICALL control_mark(JNIEnv *jni, jclass cls, jstring label)
{
	struct jcal_thread *st = current(jni);
	const char *text;

	(void)cls;
	if (!st || st->regions == 0 || !label)
		return;
	text = (*jni)->GetStringUTFChars(jni, label, NULL);
	if (!text)
		return;
	uint32_t id = region_control_label(text);
	(*jni)->ReleaseStringUTFChars(jni, label, text);
	thread_state_control(st, JCAL_CTL_MARK, id);
}

/* Binds the natives of one jcal.Control class and tells it so. */
static int bind(JNIEnv *jni, jclass cls, int remember)
{
	static const JNINativeMethod methods[] = {
	    {"start0", "()V", (void *)control_start},
	    {"stop0", "()V", (void *)control_stop},
	    {"mark0", "(Ljava/lang/String;)V", (void *)control_mark},
	};
	static const char *const wrappers[][2] = {
	    {"start", "()V"}, {"stop", "()V"}, {"mark", "(Ljava/lang/String;)V"}};

	if ((*jni)->RegisterNatives(jni, cls, methods, 3) != 0) {
		(*jni)->ExceptionClear(jni);
		return -1;
	}
	for (int i = 0; i < 3 && remember; i++) {
		region_control_mid[i] =
		    (*jni)->GetStaticMethodID(jni, cls, methods[i].name, methods[i].signature);
		region_control_mid[3 + i] =
		    (*jni)->GetStaticMethodID(jni, cls, wrappers[i][0], wrappers[i][1]);
	}
	jfieldID f = (*jni)->GetStaticFieldID(jni, cls, "bound", "Z");
	if (f)
		(*jni)->SetStaticBooleanField(jni, cls, f, JNI_TRUE);
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	return 0;
}

/* In a running JVM the application may have loaded its own copy of
 * jcal.Control (shipped in its jar) before the agent came: bind those too. */
static void bind_loaded_copies(jvmtiEnv *jvmti, JNIEnv *jni, jclass boot)
{
	jint n = 0;
	jclass *all = NULL;

	if (jvmti_check_debug(jvmti, (*jvmti)->GetLoadedClasses(jvmti, &n, &all),
			      "GetLoadedClasses"))
		return;
	for (jint i = 0; i < n; i++) {
		char *sig = NULL;
		if (!jvmti_check_debug(jvmti,
				       (*jvmti)->GetClassSignature(jvmti, all[i], &sig, NULL),
				       "GetClassSignature") &&
		    sig && !strcmp(sig, "Ljcal/Control;") &&
		    !(*jni)->IsSameObject(jni, all[i], boot) && bind(jni, all[i], 0))
			jcal_debug("cannot bind a copy of jcal.Control loaded by the application");
		jvmti_free(jvmti, sig);
		(*jni)->DeleteLocalRef(jni, all[i]);
	}
	jvmti_free(jvmti, all);
}

void region_control_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, int live)
{
	jclass cls = (*jni)->FindClass(jni, "jcal/Control");

	if (!cls) {
		(*jni)->ExceptionClear(jni);
		jcal_debug("jcal.Control not found: the region API is not available");
		return;
	}
	if (bind(jni, cls, 1))
		jcal_warn("cannot register the natives of jcal.Control");
	if (live)
		bind_loaded_copies(jvmti, jni, cls);
	(*jni)->DeleteLocalRef(jni, cls);
}

void region_control_write_labels(void)
{
	struct label *l, *tmp;

	pthread_mutex_lock(&label_mutex);
	HASH_ITER (hh, labels, l, tmp) {
		struct trace_recbuf *rb = trace_file_lock();
		trace_rec_label(rb, l->id, l->text);
		trace_file_unlock();
	}
	pthread_mutex_unlock(&label_mutex);
}
