/*
 * method_table.c - the global jmethodID table: assigns method ids and writes
 * each method's definition (class, name, signature, modifiers) once.
 *
 * The JVMTI look-ups run outside the mutex; the insert re-checks under it,
 * so two threads meeting a new method at once still define it once.
 * Methods are keyed by (class, name, descriptor) (method_table.h) and every
 * mode fills the id pages; jmethodIDs of unloaded classes are swept out of
 * the table as it grows.
 */
#include "agent/core/method_table.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/method_index.h"
#include "agent/core/trace_file.h"

static pthread_mutex_t table_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct jcal_method *table;  /* by jmethodID (hh) */
static struct jcal_method *by_key; /* by (class, name, descriptor) (hk) */
static uint32_t next_id = 1;
/* The table is swept (sweep()) when it holds this many jmethodIDs. */
#define SWEEP_MIN 4096u
static unsigned sweep_at = SWEEP_MIN;
static uint64_t swept;

_Atomic(method_slot *) method_pages[METHOD_PAGES];

/* jmethodID -> method without the mutex (method_index.h); inserted with
 * the uthash entry, under the mutex. */
static struct method_index fast;
static int fast_ready;

/* Under the mutex: makes mid -> m visible to find()'s
 * lock-free path (without memory for it, the locked path still finds it). */
static void index_add(jmethodID mid, struct jcal_method *m)
{
	if (!fast_ready)
		fast_ready = method_index_init(&fast) == 0;
	if (fast_ready)
		method_index_add(&fast, mid, m);
}

static int (*filter_keep)(const char *csig);
static uint32_t filtered_count;

void method_table_set_filter(int (*keep)(const char *csig))
{
	filter_keep = keep;
}

void method_table_refilter(int (*keep)(const char *csig))
{
	uint32_t n;

	pthread_mutex_lock(&table_mutex);
	filter_keep = keep;
	filtered_count = 0;
	n = next_id;
	for (uint32_t id = 1; id < n; id++) {
		struct jcal_method *m = method_table_by_id(id);

		if (!m)
			continue;
		m->filtered = keep && m->csig && !keep(m->csig);
		filtered_count += m->filtered;
	}
	pthread_mutex_unlock(&table_mutex);
}

uint32_t method_table_filtered_count(void)
{
	pthread_mutex_lock(&table_mutex);
	uint32_t n = filtered_count;
	pthread_mutex_unlock(&table_mutex);
	return n;
}

/* Under the mutex: a new method with the next id, its METHOD record
 * written, reachable by id. NULL when memory runs out. */
static struct jcal_method *new_method(uint32_t mods, const char *csig, const char *name,
				      const char *sig)
{
	uint32_t id = next_id, p = id >> METHOD_PAGE_BITS;
	struct jcal_method *m;
	method_slot *page;

	if (p >= METHOD_PAGES)
		return NULL;
	page = atomic_load_explicit(&method_pages[p], memory_order_relaxed);
	if (!page) {
		page = calloc(METHOD_PAGE, sizeof(*page));
		if (!page)
			return NULL;
		atomic_store_explicit(&method_pages[p], page, memory_order_release);
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	next_id++;
	m->id = id;
	m->modifiers = mods;
	if (filter_keep && csig && !filter_keep(csig)) {
		m->filtered = 1;
		filtered_count++;
	}
	/* Kept for the next recording's file (method_table_write_all); without
	 * memory for it a later recording names the method "<unknown>". */
	m->csig = strdup(csig ? csig : "L<unknown>;");
	m->name = strdup(name ? name : "<unknown>");
	m->sig = strdup(sig ? sig : "");
	struct trace_recbuf *rb = trace_file_lock();
	trace_rec_method(rb, m->id, m->modifiers, csig ? csig : "L<unknown>;",
			 name ? name : "<unknown>", sig ? sig : "");
	trace_file_unlock();
	atomic_store_explicit(&page[id & (METHOD_PAGE - 1)], m, memory_order_release);
	return m;
}

/* Under the mutex: the method of key (csig, name, desc), defined if new. */
static struct jcal_method *keyed_method(uint32_t mods, const char *csig, const char *name,
					const char *desc)
{
	size_t lc = strlen(csig), ln = strlen(name), ld = strlen(desc);
	size_t len = lc + ln + ld + 2;
	char *key = malloc(len + 1);
	struct jcal_method *m;

	if (!key)
		return NULL;
	/* Modified UTF-8 has no NUL byte: NUL separates the parts. */
	memcpy(key, csig, lc + 1);
	memcpy(key + lc + 1, name, ln + 1);
	memcpy(key + lc + ln + 2, desc, ld + 1);
	HASH_FIND(hk, by_key, key, len, m);
	if (m) {
		free(key);
		return m;
	}
	m = new_method(mods, csig, name, desc);
	if (!m) {
		free(key);
		return NULL;
	}
	m->key = key;
	m->keylen = len;
	HASH_ADD_KEYPTR(hk, by_key, m->key, m->keylen, m);
	return m;
}

struct jcal_method *method_table_define(const char *csig, const char *name, const char *desc,
					uint32_t modifiers)
{
	struct jcal_method *m;

	pthread_mutex_lock(&table_mutex);
	m = keyed_method(modifiers, csig, name, desc);
	pthread_mutex_unlock(&table_mutex);
	return m;
}

/* The method of jmethodID mid, NULL when not in the table. */
static struct jcal_method *find(jmethodID mid)
{
	struct jcal_method *m = method_index_find(&fast, mid);

	if (m)
		return m;
	pthread_mutex_lock(&table_mutex);
	HASH_FIND_PTR(table, &mid, m);
	pthread_mutex_unlock(&table_mutex);
	return m && m->primary ? m->primary : m;
}

struct jcal_method *method_table_compiled(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID mid, int delta)
{
	struct jcal_method *m, *entry;

	/* A load defines the method; an unload names only a known one (its
	 * class may be gone). */
	if (delta > 0 && !method_table_get(jvmti, jni, mid))
		return NULL;
	pthread_mutex_lock(&table_mutex);
	HASH_FIND_PTR(table, &mid, entry);
	m = entry && entry->primary ? entry->primary : entry;
	if (entry && (delta > 0 || atomic_load(&entry->mid_compiled) > 0)) {
		atomic_fetch_add(&entry->mid_compiled, delta);
		if (delta > 0 || atomic_load(&m->compiled) > 0)
			atomic_fetch_add(&m->compiled, delta);
	}
	pthread_mutex_unlock(&table_mutex);
	return m;
}

/* Under the mutex: drops every jmethodID whose class was unloaded (JVMTI
 * says it is invalid; HotSpot never hands the same value out again) and
 * that has no compiled code whose unload is still to come. A redirecting
 * entry is freed; a method keeps its id, key and definition (the trace and
 * later recordings name it; the next copy of its class finds it by key)
 * and only loses its jmethodID. The next sweep comes when the table has
 * doubled, so sweeping costs O(1) per insert. */
static void sweep(jvmtiEnv *jvmti)
{
	struct jcal_method *m, *tmp;
	jint mods;

	HASH_ITER (hh, table, m, tmp) {
		if (atomic_load(&m->mid_compiled) > 0 ||
		    (*jvmti)->GetMethodModifiers(jvmti, m->mid, &mods) !=
			JVMTI_ERROR_INVALID_METHODID)
			continue;
		HASH_DEL(table, m);
		if (fast_ready)
			method_index_remove(&fast, m->mid);
		swept++;
		if (m->primary)
			free(m);
		else
			m->mid = NULL;
	}
	sweep_at = 2 * HASH_CNT(hh, table);
	if (sweep_at < SWEEP_MIN)
		sweep_at = SWEEP_MIN;
}

static void deallocate(jvmtiEnv *jvmti, char *p)
{
	if (p)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)p);
}

struct jcal_method *method_table_get(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID mid)
{
	struct jcal_method *m = find(mid);
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
	if (m && m->primary) {
		m = m->primary;
	} else if (!m) {
		if (HASH_CNT(hh, table) >= sweep_at)
			sweep(jvmti);
		/* A method JVMTI cannot name (it answers for live classes) gets
		 * an id of its own. */
		if (csig && name && sig)
			m = keyed_method((uint32_t)mods, csig, name, sig);
		else
			m = new_method((uint32_t)mods, csig, name, sig);
		if (m && !m->mid) {
			m->mid = mid;
			HASH_ADD_PTR(table, mid, m);
			index_add(mid, m);
		} else if (m) {
			/* Another jmethodID of a known key: a redirecting entry. */
			struct jcal_method *alias = calloc(1, sizeof(*alias));
			if (alias) {
				alias->mid = mid;
				alias->id = m->id;
				alias->modifiers = m->modifiers;
				alias->primary = m;
				HASH_ADD_PTR(table, mid, alias);
				index_add(mid, m);
			}
		}
	}
	pthread_mutex_unlock(&table_mutex);
	deallocate(jvmti, name);
	deallocate(jvmti, sig);
	deallocate(jvmti, csig);
	return m;
}

void method_table_write_all(void)
{
	uint32_t n;

	pthread_mutex_lock(&table_mutex);
	n = next_id;
	pthread_mutex_unlock(&table_mutex);
	for (uint32_t id = 1; id < n; id++) {
		struct jcal_method *m = method_table_by_id(id);
		if (!m)
			continue;
		struct trace_recbuf *rb = trace_file_lock();
		trace_rec_method(rb, m->id, m->modifiers, m->csig ? m->csig : "L<unknown>;",
				 m->name ? m->name : "<unknown>", m->sig ? m->sig : "");
		trace_file_unlock();
	}
}

uint32_t method_table_count(void)
{
	uint32_t n;
	pthread_mutex_lock(&table_mutex);
	n = next_id - 1;
	pthread_mutex_unlock(&table_mutex);
	return n;
}

void method_table_stats(uint64_t *methods, uint64_t *mids, uint64_t *mids_swept)
{
	pthread_mutex_lock(&table_mutex);
	*methods = next_id - 1;
	*mids = HASH_CNT(hh, table);
	*mids_swept = swept;
	pthread_mutex_unlock(&table_mutex);
}

void method_table_free(void)
{
	struct jcal_method *m, *tmp;

	pthread_mutex_lock(&table_mutex);
	if (fast_ready)
		method_index_free(&fast);
	fast_ready = 0;
	HASH_ITER (hh, table, m, tmp) {
		HASH_DEL(table, m);
		if (m->primary || !m->key) {
			if (!m->primary) {
				free(m->csig);
				free(m->name);
				free(m->sig);
			}
			free(m); /* else freed below */
		}
	}
	HASH_ITER (hk, by_key, m, tmp) {
		HASH_DELETE(hk, by_key, m);
		free(m->csig);
		free(m->name);
		free(m->sig);
		free(m->key);
		free(m);
	}
	for (uint32_t p = 0; p < METHOD_PAGES; p++)
		free(atomic_exchange(&method_pages[p], NULL));
	pthread_mutex_unlock(&table_mutex);
}
