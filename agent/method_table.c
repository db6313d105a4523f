/*
 * method_table.c - the global jmethodID table: assigns method ids and writes
 * each method's definition (class, name, signature, modifiers) once.
 *
 * The JVMTI look-ups run outside the mutex; the insert re-checks under it,
 * so two threads meeting a new method at once still define it once.
 */
#include "method_table.h"

#include <pthread.h>
#include <stdlib.h>

#include "trace_file.h"

static pthread_mutex_t table_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct jcal_method *table;
static uint32_t next_id = 1;

struct jcal_method *method_table_find(jmethodID mid)
{
	struct jcal_method *m;

	pthread_mutex_lock(&table_mutex);
	HASH_FIND_PTR(table, &mid, m);
	pthread_mutex_unlock(&table_mutex);
	return m;
}

static void deallocate(jvmtiEnv *jvmti, char *p)
{
	if (p)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)p);
}

struct jcal_method *method_table_get(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID mid)
{
	struct jcal_method *m = method_table_find(mid);
	char *name = NULL, *sig = NULL, *csig = NULL;
	jint mods = 0;
	jclass cls = NULL;

	if (m)
		return m;
	if ((*jvmti)->GetMethodModifiers(jvmti, mid, &mods) != JVMTI_ERROR_NONE)
		mods = 0;
	if ((*jvmti)->GetMethodName(jvmti, mid, &name, &sig, NULL) != JVMTI_ERROR_NONE)
		name = sig = NULL;
	if ((*jvmti)->GetMethodDeclaringClass(jvmti, mid, &cls) == JVMTI_ERROR_NONE && cls) {
		if ((*jvmti)->GetClassSignature(jvmti, cls, &csig, NULL) != JVMTI_ERROR_NONE)
			csig = NULL;
		if (jni)
			(*jni)->DeleteLocalRef(jni, cls);
	}

	pthread_mutex_lock(&table_mutex);
	HASH_FIND_PTR(table, &mid, m);
	if (!m) {
		m = calloc(1, sizeof(*m));
		if (m) {
			m->mid = mid;
			m->id = next_id++;
			m->modifiers = (uint32_t)mods;
			HASH_ADD_PTR(table, mid, m);
			struct trace_recbuf *rb = trace_file_lock();
			trace_rec_method(rb, m->id, m->modifiers, csig ? csig : "L<unknown>;",
					 name ? name : "<unknown>", sig ? sig : "");
			trace_file_unlock();
		}
	}
	pthread_mutex_unlock(&table_mutex);
	deallocate(jvmti, name);
	deallocate(jvmti, sig);
	deallocate(jvmti, csig);
	return m;
}

uint32_t method_table_count(void)
{
	uint32_t n;
	pthread_mutex_lock(&table_mutex);
	n = next_id - 1;
	pthread_mutex_unlock(&table_mutex);
	return n;
}

void method_table_free(void)
{
	struct jcal_method *m, *tmp;

	pthread_mutex_lock(&table_mutex);
	HASH_ITER(hh, table, m, tmp) {
		HASH_DEL(table, m);
		free(m);
	}
	pthread_mutex_unlock(&table_mutex);
}
