/*
 * bci_wrapped.c - the classes that carry native method wrappers in mode=bci
 * (bci_wrapped.h): the prefix set once, the platform class loader (which,
 * with the boot loader, makes the JDK's own classes), and the
 * set of class names loaded with wrappers (under a mutex; only classes that
 * have native methods are in it).
 *
 * A retransformation asks the loaded class first (a method whose name
 * starts with the prefix); a class not prepared yet cannot be asked, and
 * then its name decides.
 */
#include "agent/bci/bci_wrapped.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "agent/base/jvmti_check.h"
#include "agent/base/log.h"
#include "agent/core/agent_state.h"

struct wrapped {
	UT_hash_handle hh;
	char name[]; /* "a/b/C" */
};

static atomic_int prefixed; /* SetNativeMethodPrefix succeeded */
static jobject platform_loader;
static pthread_mutex_t names_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct wrapped *names;

/* The platform class loader, as a global ref in platform_loader (once). */
static void find_platform_loader(JNIEnv *jni)
{
	if (platform_loader || !jni)
		return;
	jclass cl = (*jni)->FindClass(jni, "java/lang/ClassLoader");
	jmethodID get = cl ? (*jni)->GetStaticMethodID(jni, cl, "getPlatformClassLoader",
						       "()Ljava/lang/ClassLoader;")
			   : NULL;
	jobject pl = get ? (*jni)->CallStaticObjectMethod(jni, cl, get) : NULL;
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	if (pl) {
		platform_loader = (*jni)->NewGlobalRef(jni, pl);
		(*jni)->DeleteLocalRef(jni, pl);
	}
	if (cl)
		(*jni)->DeleteLocalRef(jni, cl);
}

int bci_wrapped_init(jvmtiEnv *jvmti, JNIEnv *jni)
{
	jvmtiCapabilities caps;

	find_platform_loader(jni);
	if (atomic_load(&prefixed))
		return 1;
	memset(&caps, 0, sizeof(caps));
	if (jcal.opts.command == JCAL_CMD_CALIBRATE ||
	    jvmti_check_debug(jvmti, (*jvmti)->GetCapabilities(jvmti, &caps), "GetCapabilities") ||
	    !caps.can_set_native_method_prefix) {
		if (jcal.opts.command != JCAL_CMD_CALIBRATE)
			jcal_info("mode=bci: no native method prefix in this JVM: native methods "
				  "are not traced");
		return 0;
	}
	if (jvmti_check_warn(jvmti, (*jvmti)->SetNativeMethodPrefix(jvmti, BCI_NATIVE_PREFIX),
			     "mode=bci: SetNativeMethodPrefix (native methods are not traced)"))
		return 0;
	atomic_store(&prefixed, 1);
	return 1;
}

int bci_wrapped_jdk_loader(JNIEnv *jni, jobject loader)
{
	return !loader || !jni ||
	       (platform_loader && (*jni)->IsSameObject(jni, loader, platform_loader));
}

/* 1 when the loaded class k has a method named with the prefix, 0 when
 * not, -1 when it cannot be asked (not prepared). */
static int has_wrappers(jvmtiEnv *jvmti, jclass k)
{
	jint n = 0;
	jmethodID *ms = NULL;
	int found = 0;

	if ((*jvmti)->GetClassMethods(jvmti, k, &n, &ms) != JVMTI_ERROR_NONE)
		return -1;
	for (jint i = 0; i < n && !found; i++) {
		char *name = NULL;
		if (!jvmti_check_debug(jvmti,
				       (*jvmti)->GetMethodName(jvmti, ms[i], &name, NULL, NULL),
				       "GetMethodName") &&
		    name)
			found = !strncmp(name, BCI_NATIVE_PREFIX, sizeof(BCI_NATIVE_PREFIX) - 1);
		jvmti_free(jvmti, name);
	}
	jvmti_free(jvmti, ms);
	return found;
}

static int known(const char *name)
{
	struct wrapped *w;

	pthread_mutex_lock(&names_mutex);
	HASH_FIND_STR(names, name, w);
	pthread_mutex_unlock(&names_mutex);
	return w != NULL;
}

const char *bci_wrapped_prefix(jvmtiEnv *jvmti, JNIEnv *jni, jclass redefined, jobject loader,
			       const char *name)
{
	if (!atomic_load(&prefixed) || bci_wrapped_jdk_loader(jni, loader))
		return NULL;
	if (redefined) {
		int has = has_wrappers(jvmti, redefined);
		if (has < 0)
			has = known(name);
		if (!has)
			return NULL;
	}
	return BCI_NATIVE_PREFIX;
}

void bci_wrapped_add(const char *name)
{
	size_t n = strlen(name) + 1;
	struct wrapped *w = malloc(sizeof(*w) + n), *old;

	if (!w) /* a later retransformation of this class asks the class */
		return;
	memcpy(w->name, name, n);
	pthread_mutex_lock(&names_mutex);
	HASH_FIND_STR(names, name, old);
	if (!old)
		HASH_ADD_STR(names, name, w);
	pthread_mutex_unlock(&names_mutex);
	if (old)
		free(w);
}
