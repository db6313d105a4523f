/*
 * test-method-table.c - the agent's method table without a JVM
 * (agent/core/method_table.c): a stand-in JVMTI answers for jmethodIDs of
 * classes that are loaded again and again by new class loaders and then
 * unloaded (INVALID_METHODID). Every copy of a method gets the first copy's
 * id, the jmethodIDs of unloaded classes are swept so the table stays
 * bounded, an unload of compiled code still to come keeps its entry, and
 * a method whose jmethodID was swept is found again by its next copy.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/method_table.h"
#include "native-tests/test.h"

#define MAX_MIDS 200000

/* jmethodID k (1-based): class csig[k], method names[k], alive[k]. */
static struct {
	const char *csig, *name, *sig;
	int alive;
} mids[MAX_MIDS + 1];
static unsigned n_mids;

static unsigned index_of(jmethodID m)
{
	uintptr_t k = (uintptr_t)m;
	return k >= 1 && k <= n_mids && mids[k].alive ? (unsigned)k : 0;
}

static jvmtiError JNICALL modifiers(jvmtiEnv *env, jmethodID m, jint *mods)
{
	(void)env;
	if (!index_of(m))
		return JVMTI_ERROR_INVALID_METHODID;
	*mods = 8; /* static */
	return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL name_of(jvmtiEnv *env, jmethodID m, char **name, char **sig, char **gen)
{
	unsigned k = index_of(m);

	(void)env;
	(void)gen;
	if (!k)
		return JVMTI_ERROR_INVALID_METHODID;
	*name = strdup(mids[k].name);
	*sig = strdup(mids[k].sig);
	return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL declaring(jvmtiEnv *env, jmethodID m, jclass *cls)
{
	(void)env;
	if (!index_of(m))
		return JVMTI_ERROR_INVALID_METHODID;
	*cls = (jclass)m; /* the class signature is looked up by the same index */
	return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL class_sig(jvmtiEnv *env, jclass cls, char **sig, char **gen)
{
	unsigned k = index_of((jmethodID)cls);

	(void)env;
	(void)gen;
	if (!k)
		return JVMTI_ERROR_INVALID_CLASS;
	*sig = strdup(mids[k].csig);
	return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL deallocate(jvmtiEnv *env, unsigned char *p)
{
	(void)env;
	free(p);
	return JVMTI_ERROR_NONE;
}

static struct jvmtiInterface_1_ fns;
static jvmtiEnv env_fns = &fns;
static jvmtiEnv *jvmti = &env_fns;

/* A new class loader defines class csig with methods a, b, c: three new
 * jmethodIDs, the first of which is returned. */
static unsigned load(const char *csig)
{
	static const char *names[] = {"a", "b", "c"};
	unsigned first = n_mids + 1;

	for (int i = 0; i < 3; i++) {
		n_mids++;
		mids[n_mids].csig = csig;
		mids[n_mids].name = names[i];
		mids[n_mids].sig = "()V";
		mids[n_mids].alive = 1;
	}
	return first;
}

static void unload(unsigned first)
{
	for (unsigned k = first; k < first + 3; k++)
		mids[k].alive = 0;
}

static struct jcal_method *get(unsigned k)
{
	return method_table_get(jvmti, NULL, (jmethodID)(uintptr_t)k);
}

static void test_copies_share_ids_and_table_stays_bounded(void)
{
	uint64_t methods, live, swept, methods0, live0, swept0;
	unsigned first = load("Lsoak/P;");
	uint32_t ids[3];

	method_table_stats(&methods0, &live0, &swept0);
	for (int i = 0; i < 3; i++)
		ids[i] = get(first + (unsigned)i)->id;
	CHECK(ids[0] != ids[1] && ids[1] != ids[2]);
	unload(first);
	uint64_t most = 0;
	for (int round = 0; round < 20000; round++) {
		unsigned k = load(round % 2 ? "Lsoak/P;" : "Lsoak/Q;");
		for (int i = 0; i < 3; i++) {
			struct jcal_method *m = get(k + (unsigned)i);
			CHECK(m != NULL);
			if (m && round % 2)
				CHECK_EQ_U(m->id, ids[i]);
		}
		unload(k);
		method_table_stats(&methods, &live, &swept);
		if (live > most)
			most = live;
	}
	method_table_stats(&methods, &live, &swept);
	CHECK_EQ_U(methods - methods0, 3 + 3); /* P's and Q's three */
	/* 60003 jmethodIDs met, all but the last three unloaded: swept when
	 * the table reaches 4096, never more than that plus one load */
	CHECK(most <= 4096 + 3);
	CHECK(swept - swept0 >= 60000 - 4096);
}

static void test_compiled_code_keeps_its_entry(void)
{
	unsigned k = load("Lsoak/R;");
	jmethodID mid = (jmethodID)(uintptr_t)k;
	struct jcal_method *m = method_table_compiled(jvmti, NULL, mid, 1);

	CHECK(m != NULL);
	if (!m)
		return;
	CHECK_EQ_I(atomic_load(&m->compiled), 1);
	/* the next copy of R compiles its a() too: the key counts both */
	unsigned k2 = load("Lsoak/R;");
	CHECK(method_table_compiled(jvmti, NULL, (jmethodID)(uintptr_t)k2, 1) == m);
	CHECK_EQ_I(atomic_load(&m->compiled), 2);
	unload(k);
	/* enough churn for several sweeps */
	for (int round = 0; round < 5000; round++) {
		unsigned j = load("Lsoak/S;");
		get(j);
		unload(j);
	}
	/* the unload of the first copy's code comes late: still named */
	CHECK(method_table_compiled(jvmti, NULL, mid, -1) == m);
	CHECK_EQ_I(atomic_load(&m->compiled), 1);
	CHECK(method_table_compiled(jvmti, NULL, mid, -1) == m); /* a second one: ignored */
	CHECK_EQ_I(atomic_load(&m->compiled), 1);
	for (int round = 0; round < 5000; round++) {
		unsigned j = load("Lsoak/S;");
		get(j);
		unload(j);
	}
	/* now swept: an unload of it names nothing */
	CHECK(method_table_compiled(jvmti, NULL, mid, -1) == NULL);
	CHECK(method_table_compiled(jvmti, NULL, (jmethodID)(uintptr_t)k2, -1) == m);
	CHECK_EQ_I(atomic_load(&m->compiled), 0);
}

static void test_swept_method_found_by_next_copy(void)
{
	unsigned k = load("Lsoak/T;");
	struct jcal_method *m = get(k);

	CHECK(m != NULL && m->mid == (jmethodID)(uintptr_t)k);
	unload(k);
	for (int round = 0; round < 5000; round++) {
		unsigned j = load("Lsoak/S;");
		get(j);
		unload(j);
	}
	CHECK(m && m->mid == NULL); /* swept, the method kept */
	unsigned k2 = load("Lsoak/T;");
	CHECK(get(k2) == m);
	CHECK(m && m->mid == (jmethodID)(uintptr_t)k2);
	CHECK(method_table_by_id(m ? m->id : 0) == m);
}

int main(void)
{
	fns.GetMethodModifiers = modifiers;
	fns.GetMethodName = name_of;
	fns.GetMethodDeclaringClass = declaring;
	fns.GetClassSignature = class_sig;
	fns.Deallocate = deallocate;
	RUN(test_copies_share_ids_and_table_stays_bounded);
	RUN(test_compiled_code_keeps_its_entry);
	RUN(test_swept_method_found_by_next_copy);
	method_table_free();
	return test_summary("method-table");
}
