/*
 * method_table.h - jmethodID -> method id, modifiers and compiled state.
 *
 * One global uthash table (mutex; entered once per new method) that assigns
 * ids and writes each METHOD record exactly once; a lock-free index of the
 * same jmethodIDs (method_index.h) in front of it, so that a known method is
 * found without the mutex; and a small per-thread 2-way cache in front of
 * that.
 *
 * Every method is keyed by (class signature, name, descriptor): mode=bci's
 * rewriter defines methods that way before they have a jmethodID, and a
 * later jmethodID look-up of the same method (CompiledMethodLoad) finds the
 * same struct, hence the same id and the same `compiled` counter; a class
 * loaded again by another class loader gets the ids of the first copy, in
 * both modes, so a program that keeps loading copies of its classes does
 * not grow the table. jmethodIDs of unloaded classes are swept out as the
 * table grows. Ids map back to methods without a lock (method_table_by_id,
 * for the bci probes).
 */
#ifndef JCAL_METHOD_TABLE_H
#define JCAL_METHOD_TABLE_H

#include <jvmti.h>
#include <stdatomic.h>
#include <stdint.h>

#include <uthash.h>

struct jcal_method {
	jmethodID mid;
	uint32_t id;
	uint32_t modifiers;
	atomic_int compiled; /* live compiled versions (CompiledMethodLoad - Unload) */
	/* the same for this entry's jmethodID alone: an entry is not swept while
	 * an unload of its code is still to come */
	atomic_int mid_compiled;
	uint8_t filtered; /* mode=events: its class is not selected (include=/exclude=) */
	/* throttle= (mode=bci, core/throttle_count.h): calls counted so far, the
	 * completed ones and their metric sum (flushed from the threads'
	 * counts now and then), its state and the pending list's link */
	atomic_uint_fast64_t thr_calls, thr_timed, thr_sum;
	atomic_int thr_state;
	struct jcal_method *thr_next;
	/* its counter's slot in jcal.Tracker + 1 once throttled with the probe
	 * that only counts (bci/throttle.c); 0: none, it has no probe at all */
	uint32_t thr_counter;
	/* mode=bci: the kinds of probe its class was rewritten with
	 * (BCI_SITES_SWITCH, BCI_SITES_STATIC of agent/bci/bci_sites.h) */
	atomic_int bci_probes;
	UT_hash_handle hh;
	/* The (class, name, descriptor) key, NUL-separated, and its hash
	 * handle; primary is set on a jmethodID entry that only redirects to
	 * the method of that key (a second jmethodID for the same key, e.g. the
	 * same class in two loaders). mid is NULL once the class of the
	 * method's jmethodID was unloaded and the table swept. */
	char *key;
	size_t keylen;
	UT_hash_handle hk;
	struct jcal_method *primary;
	char *csig, *name, *sig; /* the definition, for the next recording's file */
};

#define METHOD_CACHE_SETS 2048 /* x 2 ways */

struct method_cache {
	jmethodID mid[METHOD_CACHE_SETS][2];
	struct jcal_method *m[METHOD_CACHE_SETS][2];
};

/* Finds or defines the method (writing its METHOD record). jni may be NULL.
 * Returns NULL only when memory runs out. */
struct jcal_method *method_table_get(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID mid);
/* CompiledMethodLoad (delta 1, defines the method) or Unload (-1, known
 * methods only): counts the compiled version on the method and on mid's
 * own entry. Returns the method, NULL when unknown. */
struct jcal_method *method_table_compiled(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID mid, int delta);
uint32_t method_table_count(void);
/* Methods defined, jmethodIDs in the table now, jmethodIDs swept so far. */
void method_table_stats(uint64_t *methods, uint64_t *mids, uint64_t *mids_swept);
/* A new recording's file: writes the METHOD record of every method known. */
void method_table_write_all(void);
void method_table_free(void);

/* mode=events with include=/exclude=: keep(class signature) decides, when
 * a method is defined, whether its events are recorded (method->filtered
 * otherwise). Call before any method is defined. */
void method_table_set_filter(int (*keep)(const char *csig));
/* A later recording's filters (keep, or NULL for none): every method known
 * is judged again. Call while no event runs (between recordings). */
void method_table_refilter(int (*keep)(const char *csig));
/* Methods defined so far whose events are not recorded. */
uint32_t method_table_filtered_count(void);

/* Finds or defines the method csig ("Lpkg/C;"), name, desc with
 * the given modifiers (the class file's access flags), writing its METHOD
 * record once. Returns NULL only when memory runs out. */
struct jcal_method *method_table_define(const char *csig, const char *name, const char *desc,
					uint32_t modifiers);

/* Ids -> methods, readable without a lock: pages of METHOD_PAGE entries,
 * published with release stores once the method is complete. */
#define METHOD_PAGE_BITS 12
#define METHOD_PAGE (1u << METHOD_PAGE_BITS)
#define METHOD_PAGES 65536u /* ids below 2^28 */
typedef _Atomic(struct jcal_method *) method_slot;
extern _Atomic(method_slot *) method_pages[METHOD_PAGES];

static inline struct jcal_method *method_table_by_id(uint32_t id)
{
	method_slot *page;

	if (id >> METHOD_PAGE_BITS >= METHOD_PAGES)
		return NULL;
	page = atomic_load_explicit(&method_pages[id >> METHOD_PAGE_BITS], memory_order_acquire);
	if (!page)
		return NULL;
	return atomic_load_explicit(&page[id & (METHOD_PAGE - 1)], memory_order_acquire);
}

static inline unsigned method_cache_set(jmethodID mid)
{
	uintptr_t h = (uintptr_t)mid;
	h ^= h >> 17;
	h *= 0x9e3779b97f4a7c15ull;
	return (unsigned)(h >> 40) & (METHOD_CACHE_SETS - 1);
}

/* The event-path lookup: cache hit without a lock, else the global table
 * (JVMTI calls for a method not seen yet), which sets *missed to 1. */
static inline struct jcal_method *method_cache_get(struct method_cache *c, jvmtiEnv *jvmti,
						   JNIEnv *jni, jmethodID mid, int *missed)
{
	unsigned s = method_cache_set(mid);
	struct jcal_method *m;

	if (c->mid[s][0] == mid)
		return c->m[s][0];
	if (c->mid[s][1] == mid) {
		/* Keep the most recent in way 0. */
		m = c->m[s][1];
		c->mid[s][1] = c->mid[s][0];
		c->m[s][1] = c->m[s][0];
		c->mid[s][0] = mid;
		c->m[s][0] = m;
		return m;
	}
	*missed = 1;
	m = method_table_get(jvmti, jni, mid);
	if (m) {
		c->mid[s][1] = c->mid[s][0];
		c->m[s][1] = c->m[s][0];
		c->mid[s][0] = mid;
		c->m[s][0] = m;
	}
	return m;
}

#endif
