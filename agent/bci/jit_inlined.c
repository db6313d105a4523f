/*
 * jit_inlined.c - the set of methods the JIT had inlined when a recording
 * starts (jit_inlined.h): the walk over a CompiledMethodLoad event's
 * inlining records, the collection on one thread, the set of their names.
 */
#include "agent/bci/jit_inlined.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "agent/base/jvmti_check.h"
#include "agent/base/log.h"

#define MAX_RECORDS 64

size_t jit_inlined_walk(const void *compile_info, void (*add)(void *ctx, jmethodID m), void *ctx)
{
	const jvmtiCompiledMethodLoadRecordHeader *h = compile_info;
	size_t n = 0;

	for (int k = 0; h && k < MAX_RECORDS; h = h->next, k++) {
		const jvmtiCompiledMethodLoadInlineRecord *r;

		if (h->kind != JVMTI_CMLR_INLINE_INFO)
			continue;
		r = (const jvmtiCompiledMethodLoadInlineRecord *)h;
		if (!r->pcinfo)
			continue;
		for (jint i = 0; i < r->numpcs; i++) {
			const PCStackInfo *p = &r->pcinfo[i];

			/* methods[0] is the innermost frame, the last the root */
			for (jint j = 0; p->methods && j + 1 < p->numstackframes; j++) {
				add(ctx, p->methods[j]);
				n++;
			}
		}
	}
	return n;
}

struct seen_id {
	jmethodID id;
	UT_hash_handle hh;
};

struct named {
	UT_hash_handle hh;
	size_t len;
	char key[]; /* "Lpkg/C;" name desc */
};

/* The thread collecting (collecting set) and the ids it found. */
static atomic_int collecting;
static pthread_t collector;
static struct seen_id *ids;
static int ids_failed;
/* The named set, read by the class file hook on any thread. */
static pthread_mutex_t set_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct named *set;

static void add_id(void *ctx, jmethodID m)
{
	struct seen_id *e;

	(void)ctx;
	HASH_FIND_PTR(ids, &m, e);
	if (e || ids_failed)
		return;
	e = malloc(sizeof(*e));
	if (!e) {
		ids_failed = 1;
		return;
	}
	e->id = m;
	HASH_ADD_PTR(ids, id, e);
}

int jit_inlined_note(const void *compile_info)
{
	if (!atomic_load(&collecting) || !pthread_equal(collector, pthread_self()))
		return 0;
	jit_inlined_walk(compile_info, add_id, NULL);
	return 1;
}

static struct named *named_new(const char *csig, const char *name, const char *desc)
{
	size_t a = strlen(csig), b = strlen(name), c = strlen(desc);
	struct named *e = malloc(sizeof(*e) + a + b + c + 1);

	if (!e)
		return NULL;
	snprintf(e->key, a + b + c + 1, "%s%s%s", csig, name, desc);
	e->len = a + b + c;
	return e;
}

/* Names id into the set (held by the caller); 0, or -1 out of memory. */
static int name_one(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID id, struct named **into)
{
	jclass k = NULL;
	char *csig = NULL, *name = NULL, *desc = NULL;
	struct named *e = NULL, *have;
	int rc = 0;

	/* a method whose class is gone, or that cannot be asked about, is left out */
	if (!jvmti_check_debug(jvmti, (*jvmti)->GetMethodDeclaringClass(jvmti, id, &k),
			       "GetMethodDeclaringClass") &&
	    !jvmti_check_debug(jvmti, (*jvmti)->GetClassSignature(jvmti, k, &csig, NULL),
			       "GetClassSignature") &&
	    !jvmti_check_debug(jvmti, (*jvmti)->GetMethodName(jvmti, id, &name, &desc, NULL),
			       "GetMethodName")) {
		e = named_new(csig, name, desc);
		if (!e)
			rc = -1;
		else {
			HASH_FIND(hh, *into, e->key, e->len, have);
			if (have)
				free(e);
			else
				HASH_ADD(hh, *into, key, e->len, e);
		}
	}
	jvmti_free(jvmti, csig);
	jvmti_free(jvmti, name);
	jvmti_free(jvmti, desc);
	if (k && jni)
		(*jni)->DeleteLocalRef(jni, k);
	return rc;
}

static void free_named(struct named **s)
{
	struct named *e, *tmp;

	HASH_ITER (hh, *s, e, tmp) {
		HASH_DEL(*s, e);
		free(e);
	}
}

long jit_inlined_collect(jvmtiEnv *jvmti, JNIEnv *jni)
{
	struct seen_id *e, *tmp;
	struct named *fresh = NULL;
	jvmtiError err;
	long n = 0;

	jit_inlined_clear();
	ids = NULL;
	ids_failed = 0;
	collector = pthread_self();
	atomic_store(&collecting, 1);
	err = (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD);
	atomic_store(&collecting, 0);
	if (err == JVMTI_ERROR_NONE && !ids_failed)
		HASH_ITER (hh, ids, e, tmp) {
			if (name_one(jvmti, jni, e->id, &fresh)) {
				ids_failed = 1;
				break;
			}
		}
	HASH_ITER (hh, ids, e, tmp) {
		HASH_DEL(ids, e);
		free(e);
	}
	if (err != JVMTI_ERROR_NONE || ids_failed) {
		free_named(&fresh);
		if (err != JVMTI_ERROR_NONE)
			jvmti_check_debug(jvmti, err, "GenerateEvents(CompiledMethodLoad)");
		jcal_info("inlined=count: the JIT's inlining could not be read (%s): the throttle "
			  "rule alone decides",
			  err != JVMTI_ERROR_NONE ? "GenerateEvents failed" : "out of memory");
		return -1;
	}
	n = (long)HASH_COUNT(fresh);
	pthread_mutex_lock(&set_mutex);
	set = fresh;
	pthread_mutex_unlock(&set_mutex);
	return n;
}

int jit_inlined_has(const char *csig, const char *name, const char *desc)
{
	struct named *key = named_new(csig, name, desc), *e = NULL;

	if (!key)
		return 0;
	pthread_mutex_lock(&set_mutex);
	if (set)
		HASH_FIND(hh, set, key->key, key->len, e);
	pthread_mutex_unlock(&set_mutex);
	free(key);
	return e != NULL;
}

void jit_inlined_clear(void)
{
	pthread_mutex_lock(&set_mutex);
	free_named(&set);
	pthread_mutex_unlock(&set_mutex);
}
