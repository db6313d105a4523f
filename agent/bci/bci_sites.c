/*
 * bci_sites.c - the switchable probes' agent side (bci_sites.h): the choice
 * of the classes that get them, the names of the classes instrumented
 * with each kind of probe (a uthash set under a mutex; it keeps a name
 * for the agent's life), and the JNI calls of jcal.Sites.on, throttle and
 * close (agent/java/jcal/Sites.java), through bci_java_static, which
 * throttle.c uses for jcal.Tracker too.
 */
#include "agent/bci/bci_sites.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "agent/base/log.h"
#include "agent/bci/bci_wrapped.h"
#include "agent/core/agent_state.h"

#define SITES_CLASS "jcal/Sites"

struct instrumented {
	UT_hash_handle hh;
	int kinds;   /* BCI_SITES_* bits */
	char name[]; /* "a/b/C" */
};

static atomic_int off;	/* probes=static */
static atomic_int used; /* a class got switchable probes */
static pthread_mutex_t names_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct instrumented *names;

void bci_sites_init(void)
{
	atomic_store(&off, jcal.opts.probes_static);
}

int bci_sites_wanted(JNIEnv *jni, jobject loader)
{
	return !atomic_load(&off) && !bci_wrapped_jdk_loader(jni, loader);
}

void bci_sites_class_done(const char *name, int kind)
{
	size_t n = strlen(name) + 1;
	struct instrumented *c;

	pthread_mutex_lock(&names_mutex);
	HASH_FIND_STR(names, name, c);
	if (!c && (c = calloc(1, sizeof(*c) + n)) != NULL) {
		memcpy(c->name, name, n);
		HASH_ADD_STR(names, name, c);
	}
	if (c)
		c->kinds |= kind;
	pthread_mutex_unlock(&names_mutex);
	if (!c) /* out of memory: such a class is retransformed at every start */
		jcal_debug("mode=bci: %s not remembered (out of memory)", name);
}

void bci_sites_in_use(void)
{
	atomic_store(&used, 1);
}

void bci_sites_class_reset(const char *name)
{
	struct instrumented *c;

	pthread_mutex_lock(&names_mutex);
	HASH_FIND_STR(names, name, c);
	if (c)
		c->kinds = 0;
	pthread_mutex_unlock(&names_mutex);
}

int bci_sites_class_kinds(const char *name)
{
	struct instrumented *c;
	int kinds;

	pthread_mutex_lock(&names_mutex);
	HASH_FIND_STR(names, name, c);
	kinds = c ? c->kinds : 0;
	pthread_mutex_unlock(&names_mutex);
	return kinds;
}

jmethodID bci_java_static(JNIEnv *jni, const char *cls_name, const char *name, const char *sig,
			  jclass *cls)
{
	jmethodID mid = NULL;

	*cls = (*jni)->FindClass(jni, cls_name);
	if (*cls)
		mid = (*jni)->GetStaticMethodID(jni, *cls, name, sig);
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	return mid;
}

int bci_sites_on(JNIEnv *jni, int on)
{
	jclass cls = NULL;
	jmethodID mid;
	jint n = -1;

	if (!atomic_load(&used) || !jni)
		return 0;
	mid = bci_java_static(jni, SITES_CLASS, "on", "(Z)I", &cls);
	if (mid)
		n = (*jni)->CallStaticIntMethod(jni, cls, mid, on ? JNI_TRUE : JNI_FALSE);
	if ((*jni)->ExceptionCheck(jni)) {
		(*jni)->ExceptionClear(jni);
		n = -1;
	}
	if (cls)
		(*jni)->DeleteLocalRef(jni, cls);
	if (n < 0) {
		jcal_warn("mode=bci: the switchable probes could not be turned %s (jcal.Sites.on "
			  "failed)",
			  on ? "on" : "off");
		return -1;
	}
	jcal_debug("mode=bci: switchable probes %s: %d call sites changed", on ? "on" : "off",
		   (int)n);
	return 0;
}

/* A new int[] of v[0..n), or NULL (exception pending or cleared). */
static jintArray int_array(JNIEnv *jni, const void *v, size_t n)
{
	jintArray a = (*jni)->NewIntArray(jni, (jsize)n);

	if (a)
		(*jni)->SetIntArrayRegion(jni, a, 0, (jsize)n, (const jint *)v);
	return a;
}

/* jcal.Sites.NAME(ids[, slots]): the sites it changed, or -1. */
static long call_sites(JNIEnv *jni, const char *name, const uint32_t *ids, const int32_t *slots,
		       size_t n)
{
	jclass cls = NULL;
	jmethodID mid;
	jintArray a = NULL, b = NULL;
	long changed = -1;

	if (!n || n > INT32_MAX)
		return 0;
	mid = bci_java_static(jni, SITES_CLASS, name, slots ? "([I[I)I" : "([I)I", &cls);
	if (mid && (a = int_array(jni, ids, n)) != NULL &&
	    (!slots || (b = int_array(jni, slots, n))))
		changed = slots ? (*jni)->CallStaticIntMethod(jni, cls, mid, a, b)
				: (*jni)->CallStaticIntMethod(jni, cls, mid, a);
	if ((*jni)->ExceptionCheck(jni)) {
		(*jni)->ExceptionClear(jni);
		changed = -1;
	}
	if (a)
		(*jni)->DeleteLocalRef(jni, a);
	if (b)
		(*jni)->DeleteLocalRef(jni, b);
	if (cls)
		(*jni)->DeleteLocalRef(jni, cls);
	return changed;
}

long bci_sites_throttle(JNIEnv *jni, const uint32_t *ids, const int32_t *slots, size_t n)
{
	return call_sites(jni, "throttle", ids, slots, n);
}

long bci_sites_close(JNIEnv *jni, const uint32_t *ids, size_t n)
{
	return call_sites(jni, "close", ids, NULL, n);
}
