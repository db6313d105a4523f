/*
 * bci_agent.c - mode=bci: owns the ClassFileLoadHook, the class filters
 * (include=/exclude=, options.c), method ids assigned at rewrite time, the
 * registration of jcal.Tracker's natives at VMInit and the retransformation
 * of the selected classes loaded before VMInit.
 *
 * Each method the rewriter instruments is defined in the trace right then
 * (method_table_define: class, name, descriptor, access flags -> id, one
 * METHOD record) and its id becomes the constant its probes push; with
 * tiny=count a tiny method (bci_tiny.h) gets only the probe that counts
 * its calls, with its counter's slot (bci/throttle.h). The probes
 * call jcal.Tracker.enter/exit/exitThrow(id), whose natives
 * (event_recorder.c) record events exactly like MethodEntry/MethodExit do.
 *
 * Native methods get Java wrappers with probes (bci_wrapped.h decides which
 * classes); hidden classes reach the rewriter through jcal.Tracker.hidden,
 * called by the JDK's JavaLangAccess.defineClass, which the hook rewrites
 * (bci_hidden.h).
 *
 * With `calibrate` the one class instrumented is the calibration workload,
 * jcal.calib.Workload (its nested classes, Tracker, Control and EnvTimer
 * never): the filters do not apply, and neither natives nor hidden classes
 * are seen.
 */
#include "agent/bci/bci_agent.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/agent_state.h"
#include "agent/bci/bci_hidden.h"
#include "agent/bci/bci_rewrite.h"
#include "agent/bci/bci_sites.h"
#include "agent/bci/bci_tiny.h"
#include "agent/bci/classfile.h"
#include "agent/bci/jit_inlined.h"
#include "agent/bci/bci_wrapped.h"
#include "agent/core/event_recorder.h"
#include "agent/base/jvmti_check.h"
#include "agent/base/log.h"
#include "agent/core/method_table.h"
#include "agent/core/thread_state.h"
#include "agent/bci/throttle.h"
#include "agent/core/trace_file.h"

/* Set once the tracker's natives are registered: rewritten code may run. */
static atomic_int ready;
/* Cleared by stop: classes retransformed then lose their probes (not their
 * native wrappers). */
static atomic_int probes = 1;
/* Set at VMInit with trace: the JDK's JavaLangAccess.defineClass gets its
 * hook when it is (re)transformed; hooked: it got it. */
static atomic_int hidden_on, hidden_hooked;
static jobject tracker_module; /* global ref: the unnamed module of the boot loader */

#define CALIB_WORKLOAD_CLASS "jcal/calib/Workload"

/* Whether class name ("pkg/C") is rewritten. */
static int selected(const char *name)
{
	if (jcal.opts.command == JCAL_CMD_CALIBRATE)
		return !strcmp(name, CALIB_WORKLOAD_CLASS);
	return jcal_bci_instrumented(&jcal.opts, name);
}

void bci_agent_onload(jvmtiCapabilities *caps)
{
	jvmtiCapabilities pot;

	throttle_onload();
	bci_agent_write_meta();
	caps->can_generate_all_class_hook_events = 1;
	caps->can_retransform_classes = 1;
	/* natives are wrapped where the JVM offers the prefix (HotSpot: always) */
	memset(&pot, 0, sizeof(pot));
	if (jcal.opts.command != JCAL_CMD_CALIBRATE && jcal.jvmti &&
	    !jvmti_check_debug(jcal.jvmti,
			       (*jcal.jvmti)->GetPotentialCapabilities(jcal.jvmti, &pot),
			       "GetPotentialCapabilities"))
		caps->can_set_native_method_prefix = pot.can_set_native_method_prefix;
}

void bci_agent_write_meta(void)
{
	char exclude[2 * JCAL_OPT_PATH_MAX];
	struct trace_recbuf *rb;

	jcal_bci_exclude_list(&jcal.opts, exclude, sizeof(exclude));
	rb = trace_file_lock();
	if (jcal.opts.command == JCAL_CMD_CALIBRATE) {
		trace_rec_meta(rb, "bci.include", "jcal.calib.Workload");
		trace_rec_meta(rb, "bci.exclude", "");
	} else {
		trace_rec_meta(rb, "bci.include", jcal.opts.bci_include);
		trace_rec_meta(rb, "bci.exclude", exclude);
	}
	throttle_write_meta(rb);
	trace_file_unlock();
}

struct rewrite_ctx {
	char *csig;	/* "Lpkg/C;" */
	int switchable; /* its probes are switchable (bci_sites.h) */
};

/* Method m gets probes of the class's kind. */
static void probes_of(const struct rewrite_ctx *rc, struct jcal_method *m)
{
	atomic_fetch_or(&m->bci_probes, rc->switchable ? BCI_SITES_SWITCH : BCI_SITES_STATIC);
}

static int assign_id(void *ctx, const char *cls, const char *name, const char *desc,
		     uint16_t access, uint32_t *id)
{
	struct rewrite_ctx *rc = ctx;
	struct jcal_method *m;

	(void)cls;
	m = method_table_define(rc->csig, name, desc, access);
	if (!m || m->id > INT32_MAX)
		return -1;
	/* throttle=: a method picked keeps only the probe that counts its
	 * calls, or none (bci/throttle.h) */
	if (throttle_skips(m)) {
		if (!throttle_counter(m, id))
			return -1;
		probes_of(rc, m);
		return BCI_COUNT_ONLY;
	}
	probes_of(rc, m);
	*id = m->id;
	return 0;
}

/* A tiny method (bci_tiny.h): with tiny=count only the probe that counts
 * its calls, from its first instrumentation on; else as any method. */
static int assign_tiny(void *ctx, const char *cls, const char *name, const char *desc,
		       uint16_t access, uint32_t *id)
{
	struct rewrite_ctx *rc = ctx;
	struct jcal_method *m = method_table_define(rc->csig, name, desc, access);

	if (m && m->id <= INT32_MAX && throttle_tiny(m, id)) {
		probes_of(rc, m);
		return BCI_COUNT_ONLY;
	}
	return assign_id(ctx, cls, name, desc, access, id);
}

/* A loop-free method that is not tiny (bci_tiny.h): with inlined=count,
 * when the JIT had inlined it at the start of the recording
 * (jit_inlined.h), only the probe that counts its calls from then on;
 * else as any method. */
static int assign_inlined(void *ctx, const char *cls, const char *name, const char *desc,
			  uint16_t access, uint32_t *id)
{
	struct rewrite_ctx *rc = ctx;

	if (jit_inlined_has(rc->csig, name, desc)) {
		struct jcal_method *m = method_table_define(rc->csig, name, desc, access);

		if (m && m->id <= INT32_MAX && throttle_inlined(m, id)) {
			probes_of(rc, m);
			return BCI_COUNT_ONLY;
		}
	}
	return assign_id(ctx, cls, name, desc, access, id);
}

/* Probes off (stop): every method keeps its code; natives keep wrappers. */
static int no_id(void *ctx, const char *cls, const char *name, const char *desc, uint16_t access,
		 uint32_t *id)
{
	(void)ctx;
	(void)cls;
	(void)name;
	(void)desc;
	(void)access;
	(void)id;
	return -1;
}

static void note(void *ctx, const char *msg)
{
	(void)ctx;
	jcal_info("mode=bci: %s", msg);
}

/* Named modules already made to read the tracker's module (global refs;
 * a JDK has about a hundred modules). */
#define MAX_MODULES 512
static pthread_mutex_t modules_mutex = PTHREAD_MUTEX_INITIALIZER;
static jobject modules[MAX_MODULES];
static unsigned nmodules;

/* A class in a named module must read the tracker's (unnamed) module.
 * AddModuleReads calls Java code: once per module, not per class. */
static void add_reads(jvmtiEnv *jvmti, JNIEnv *jni, jobject loader, const char *name)
{
	const char *slash = strrchr(name, '/');
	jobject module = NULL;
	char pkg[1024];
	int known = 0;

	if (!tracker_module || !jni || !slash || (size_t)(slash - name) >= sizeof(pkg))
		return;
	memcpy(pkg, name, (size_t)(slash - name));
	pkg[slash - name] = '\0';
	/* Not in a named module, or not known: the class then reads every
	 * unnamed module already. */
	if (jvmti_check_debug(jvmti, (*jvmti)->GetNamedModule(jvmti, loader, pkg, &module),
			      "GetNamedModule") ||
	    !module)
		return;
	pthread_mutex_lock(&modules_mutex);
	for (unsigned i = 0; i < nmodules && !known; i++)
		known = (*jni)->IsSameObject(jni, modules[i], module);
	if (!known && nmodules < MAX_MODULES)
		modules[nmodules++] = (*jni)->NewGlobalRef(jni, module);
	pthread_mutex_unlock(&modules_mutex);
	/* On failure the rewritten class fails to link, with the JVM's message. */
	if (!known)
		jvmti_check_debug(jvmti, (*jvmti)->AddModuleReads(jvmti, module, tracker_module),
				  "AddModuleReads");
	(*jni)->DeleteLocalRef(jni, module);
}

/*
 * Rewrites class name (data[0..len)): with probes when on (switchable ones
 * when sites and its version allow), natives wrapped with prefix (or not,
 * NULL). Returns the new bytes (malloc'd, *outlen) or NULL when it is left
 * as it is (a warning says why when it failed); *st says what the
 * rewriter did (zero when it did not run).
 */
static uint8_t *rewrite(const char *name, const unsigned char *data, jint len, int on, int sites,
			const char *prefix, size_t *outlen, struct bci_stats *st)
{
	struct bci_config cfg;
	struct rewrite_ctx rc;
	uint8_t *out = NULL;
	size_t n = strlen(name);
	char err[256];

	*outlen = 0;
	memset(st, 0, sizeof(*st));
	rc.csig = malloc(n + 3);
	if (!rc.csig)
		return NULL;
	rc.csig[0] = 'L';
	memcpy(rc.csig + 1, name, n);
	memcpy(rc.csig + 1 + n, ";", 2);
	rc.switchable = on && sites && bci_switchable_version(data, (size_t)len);
	memset(&cfg, 0, sizeof(cfg));
	cfg.switchable = rc.switchable;
	cfg.method_id = on ? assign_id : no_id;
	cfg.tiny_id = on && jcal.opts.tiny_count && jcal.opts.command != JCAL_CMD_CALIBRATE
			  ? assign_tiny
			  : NULL;
	cfg.is_tiny = bci_tiny;
	cfg.inlined_id = on && jcal.opts.inlined_count && jcal.opts.command == JCAL_CMD_TRACE
			     ? assign_inlined
			     : NULL;
	cfg.is_loop_free = bci_loop_free;
	cfg.note = note;
	cfg.ctx = &rc;
	cfg.native_prefix = prefix;
	if (bci_rewrite_class(data, (size_t)len, &cfg, &out, outlen, st, err, sizeof(err))) {
		jcal_warn("mode=bci: class %s left as it is: %s", name, err);
		out = NULL;
	}
	if (st->switchable)
		bci_sites_in_use();
	free(rc.csig);
	return out;
}

/* out[0..outlen) (freed) into JVMTI memory for the hook; NULL when out of it. */
static unsigned char *to_jvmti(jvmtiEnv *jvmti, const char *name, uint8_t *out, size_t outlen)
{
	unsigned char *copy = NULL;

	if (outlen > INT32_MAX ||
	    jvmti_check_debug(jvmti, (*jvmti)->Allocate(jvmti, (jlong)outlen, &copy), "Allocate")) {
		jcal_warn("mode=bci: class %s left as it is: out of memory", name);
		copy = NULL;
	} else {
		memcpy(copy, out, outlen);
	}
	free(out);
	return copy;
}

/* The JDK's JavaLangAccess.defineClass: calls jcal.Tracker.hidden first. */
static void hook_funnel(jvmtiEnv *jvmti, JNIEnv *jni, jobject loader, const char *name, jint len,
			const unsigned char *data, jint *new_len, unsigned char **new_data)
{
	uint8_t *out = NULL;
	size_t outlen = 0;
	char msg[256];

	if (bci_hidden_hook(data, (size_t)len, BCI_TRACKER_CLASS, &out, &outlen, msg,
			    sizeof(msg))) {
		jcal_warn("mode=bci: %s left as it is (%s): hidden classes are not instrumented",
			  name, msg);
		return;
	}
	if (!out) {
		jcal_debug("mode=bci: %s: %s", name, msg);
		return;
	}
	*new_data = to_jvmti(jvmti, name, out, outlen);
	if (!*new_data)
		return;
	*new_len = (jint)outlen;
	add_reads(jvmti, jni, loader, name);
	atomic_store(&hidden_hooked, 1);
}

/* The hook's work (bci_agent_class_file_load_hook, below, times it).
 * Returns 1 when it gave the class new bytes. */
static int class_file_load(jvmtiEnv *jvmti, JNIEnv *jni, jclass class_being_redefined,
			   jobject loader, const char *name, jint class_data_len,
			   const unsigned char *class_data, jint *new_class_data_len,
			   unsigned char **new_class_data)
{
	const char *prefix;
	struct bci_stats st;
	uint8_t *out;
	size_t outlen;
	int on = atomic_load(&probes);

	if (atomic_load(&hidden_on) && bci_hidden_is_funnel(name)) {
		hook_funnel(jvmti, jni, loader, name, class_data_len, class_data,
			    new_class_data_len, new_class_data);
		return 0; /* the JDK's funnel: not a class of the program */
	}
	if (!selected(name))
		return 0;
	if (!on)
		bci_sites_class_done(name, BCI_SITES_NONE);
	prefix = bci_wrapped_prefix(jvmti, jni, class_being_redefined, loader, name);
	if (!on && !prefix)
		return 0;
	out = rewrite(name, class_data, class_data_len, on, bci_sites_wanted(jni, loader), prefix,
		      &outlen, &st);
	/* with nothing instrumented (or a class the rewriter refused) there is
	 * nothing to put in at a later start either; hidden classes, never
	 * retransformed, are not remembered (tracker_hidden) */
	if (on)
		bci_sites_class_done(name, st.instrumented > st.switchable ? BCI_SITES_STATIC
									   : BCI_SITES_SWITCH);
	if (!out)
		return 0;
	if (st.natives && !class_being_redefined)
		bci_wrapped_add(name);
	*new_class_data = to_jvmti(jvmti, name, out, outlen);
	if (!*new_class_data)
		return 0;
	add_reads(jvmti, jni, loader, name);
	*new_class_data_len = (jint)outlen;
	return 1;
}

/* The time a class's rewriting takes is the agent's, not the method's that
 * loads the class: taken out of the loading thread's figures. */
void JNICALL bci_agent_class_file_load_hook(jvmtiEnv *jvmti, JNIEnv *jni,
					    jclass class_being_redefined, jobject loader,
					    const char *name, jobject protection_domain,
					    jint class_data_len, const unsigned char *class_data,
					    jint *new_class_data_len,
					    unsigned char **new_class_data)
{
	uint64_t start[JCAL_MAX_METRICS];
	struct jcal_thread *st;

	(void)protection_domain;
	/* Hidden classes come here never (bci_hidden.h), nameless classes not
	 * either. */
	if (!name || !atomic_load(&ready) || atomic_load(&jcal.dead))
		return;
	st = thread_state_work_begin(start);
	if (class_file_load(jvmti, jni, class_being_redefined, loader, name, class_data_len,
			    class_data, new_class_data_len, new_class_data) &&
	    st && !class_being_redefined)
		atomic_fetch_add_explicit(&jcal.work_classes, 1, memory_order_relaxed);
	thread_state_work_end(st, start);
}

/* jcal.TrackerNatives.hidden(byte[] b, Class<?> lookup): b with probes when
 * it is a class the filters select, or null. */
static jbyteArray hidden_rewrite(JNIEnv *jni, jclass cls, jbyteArray b, jclass lookup)
{
	jvmtiEnv *jvmti = jcal.jvmti;
	struct cf_class c;
	char err[256], name[1024];
	jsize len;
	uint8_t *in, *out = NULL;
	size_t outlen = 0;
	struct bci_stats st;
	jbyteArray res = NULL;
	jobject loader = NULL;

	(void)cls;
	if (!b || !atomic_load(&ready) || !atomic_load(&probes) || atomic_load(&jcal.dead))
		return NULL;
	len = (*jni)->GetArrayLength(jni, b);
	in = malloc(len > 0 ? (size_t)len : 1u);
	if (!in)
		return NULL;
	(*jni)->GetByteArrayRegion(jni, b, 0, len, (jbyte *)in);
	if (cf_parse(in, (size_t)len, &c, err, sizeof(err)) == 0)
		cf_utf8_str(&c, c.this_class, name, sizeof(name));
	else
		name[0] = '\0';
	cf_free(&c);
	if (lookup && jvmti_check_debug(jvmti, (*jvmti)->GetClassLoader(jvmti, lookup, &loader),
					"GetClassLoader"))
		loader = NULL;
	if (name[0] && selected(name))
		out = rewrite(name, in, len, 1, loader && bci_sites_wanted(jni, loader), NULL,
			      &outlen, &st);
	free(in);
	if (out && outlen <= INT32_MAX && (res = (*jni)->NewByteArray(jni, (jsize)outlen)) != NULL)
		(*jni)->SetByteArrayRegion(jni, res, 0, (jsize)outlen, (const jbyte *)out);
	free(out);
	if ((*jni)->ExceptionCheck(jni)) { /* out of memory: the class keeps its bytes */
		(*jni)->ExceptionClear(jni);
		return NULL;
	}
	if (res && loader)
		add_reads(jvmti, jni, loader, name);
	if (loader)
		(*jni)->DeleteLocalRef(jni, loader);
	return res;
}

/* Timed as the hook is: the rewriting is the agent's time. */
static jbyteArray JNICALL tracker_hidden(JNIEnv *jni, jclass cls, jbyteArray b, jclass lookup)
{
	uint64_t start[JCAL_MAX_METRICS];
	struct jcal_thread *st = thread_state_work_begin(start);
	jbyteArray res = hidden_rewrite(jni, cls, b, lookup);

	if (res && st)
		atomic_fetch_add_explicit(&jcal.work_classes, 1, memory_order_relaxed);
	thread_state_work_end(st, start);
	return res;
}

/* Whether retransform_loaded retransforms the loaded class name. Probes
 * on: the classes the filters select, but those whose every copy has
 * switchable probes (switched on again, bci_sites.h), and those
 * instrumented before that they no longer select (whose switchable probes
 * would come on again); with funnel, the JDK's JavaLangAccess.defineClass
 * too. Probes off: only the classes with static probes (the switchable
 * ones were switched off). */
static int retransformed(const char *name, int funnel)
{
	int kinds = bci_sites_class_kinds(name);

	if (funnel && bci_hidden_is_funnel(name))
		return 1;
	if (!atomic_load(&probes))
		return (kinds & BCI_SITES_STATIC) != 0;
	return selected(name) ? kinds != BCI_SITES_SWITCH : kinds != 0;
}

/* The loaded classes retransformed() picks: rewritten now (with probes
 * on: those loaded before VMInit, or before the agent attached), or given
 * back their original bytes (probes off). */
static void retransform_loaded(jvmtiEnv *jvmti, JNIEnv *jni, int funnel)
{
	jint n = 0, k = 0;
	jclass *all = NULL;
	jvmtiError e;

	if (jvmti_check_debug(jvmti, (*jvmti)->GetLoadedClasses(jvmti, &n, &all),
			      "mode=bci: GetLoadedClasses (classes loaded before VMInit are not "
			      "instrumented)"))
		return;
	for (jint i = 0; i < n; i++) {
		jboolean modifiable = JNI_FALSE;
		char *sig = NULL;
		int keep = 0;

		/* A class that cannot be asked about is left alone. */
		if (!jvmti_check_debug(jvmti,
				       (*jvmti)->IsModifiableClass(jvmti, all[i], &modifiable),
				       "IsModifiableClass") &&
		    modifiable &&
		    !jvmti_check_debug(jvmti,
				       (*jvmti)->GetClassSignature(jvmti, all[i], &sig, NULL),
				       "GetClassSignature") &&
		    sig && sig[0] == 'L') {
			sig[strlen(sig) - 1] = '\0';
			keep = retransformed(sig + 1, funnel);
			if (keep)
				bci_sites_class_reset(sig + 1);
		}
		jvmti_free(jvmti, sig);
		if (keep)
			all[k++] = all[i];
		else
			(*jni)->DeleteLocalRef(jni, all[i]);
	}
	/* inlined=count: what the JIT inlined, asked before the classes change */
	int inlined = k > 0 && atomic_load(&probes) && jcal.opts.inlined_count &&
		      jcal.opts.command == JCAL_CMD_TRACE;
	if (inlined) {
		long ni = jit_inlined_collect(jvmti, jni);
		if (ni >= 0)
			jcal_debug("inlined=count: the JIT had inlined %ld methods", ni);
	}
	if (k > 0) {
		e = (*jvmti)->RetransformClasses(jvmti, k, all);
		if (e != JVMTI_ERROR_NONE) {
			jcal_warn("mode=bci: %d loaded classes could not be %s "
				  "(RetransformClasses error %d)",
				  (int)k, atomic_load(&probes) ? "instrumented" : "restored",
				  (int)e);
			jvmti_check_debug(jvmti, e, "RetransformClasses");
		} else
			jcal_debug("mode=bci: %d loaded classes retransformed (probes %s)", (int)k,
				   atomic_load(&probes) ? "on" : "off");
	}
	if (inlined)
		jit_inlined_clear();
	for (jint i = 0; i < k; i++)
		(*jni)->DeleteLocalRef(jni, all[i]);
	jvmti_free(jvmti, all);
}

/* jcal.TrackerNatives.addresses(): the critical probes for the JDK 22+ downcalls,
 * or null where they are turned off (JCAL_PROBE_CALL=jni, for comparison). */
static jlongArray JNICALL tracker_addresses(JNIEnv *jni, jclass cls)
{
	const char *how = getenv("JCAL_PROBE_CALL");
	jlong at[3] = {(jlong)(intptr_t)event_critical_enter, (jlong)(intptr_t)event_critical_exit,
		       (jlong)(intptr_t)event_critical_exit_throw};
	jlongArray a;

	(void)cls;
	if (how && !strcmp(how, "jni"))
		return NULL;
	a = (*jni)->NewLongArray(jni, 3);
	if (a)
		(*jni)->SetLongArrayRegion(jni, a, 0, 3, at);
	return a;
}

/*
 * Initialises jcal.Tracker, which builds its downcalls on JDK 22+. Creating
 * a downcall is a restricted operation that warns once for the unnamed
 * modules unless native access is enabled for them; the agent's own
 * downcalls should not warn (nor use up the user's one warning), so native
 * access is enabled for all unnamed modules just for this and put back as
 * it was (java.lang.Module.ALL_UNNAMED_MODULE.enableNativeAccess, through
 * JNI; on JDKs without that field nothing is changed).
 */
static jclass init_tracker(JNIEnv *jni)
{
	jclass tracker;
	jclass mc = (*jni)->FindClass(jni, "java/lang/Module");
	jfieldID all =
	    mc ? (*jni)->GetStaticFieldID(jni, mc, "ALL_UNNAMED_MODULE", "Ljava/lang/Module;")
	       : NULL;
	jfieldID ena = mc ? (*jni)->GetFieldID(jni, mc, "enableNativeAccess", "Z") : NULL;
	jobject unnamed = all && ena ? (*jni)->GetStaticObjectField(jni, mc, all) : NULL;
	jboolean was = JNI_TRUE;

	(*jni)->ExceptionClear(jni);
	if (unnamed) {
		was = (*jni)->GetBooleanField(jni, unnamed, ena);
		if (!was)
			(*jni)->SetBooleanField(jni, unnamed, ena, JNI_TRUE);
	}
	/* FindClass initialises the class it finds. */
	tracker = (*jni)->FindClass(jni, BCI_TRACKER_CLASS);
	jfieldID enter = tracker ? (*jni)->GetStaticFieldID(jni, tracker, "ENTER",
							    "Ljava/lang/invoke/MethodHandle;")
				 : NULL;
	jobject h = enter ? (*jni)->GetStaticObjectField(jni, tracker, enter) : NULL;
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	if (unnamed && !was)
		(*jni)->SetBooleanField(jni, unnamed, ena, JNI_FALSE);
	jcal_debug("mode=bci: probes call libjcal.so through %s",
		   h ? "critical foreign downcalls, JNI for the rest" : "JNI");
	if (h)
		(*jni)->DeleteLocalRef(jni, h);
	if (unnamed)
		(*jni)->DeleteLocalRef(jni, unnamed);
	if (mc)
		(*jni)->DeleteLocalRef(jni, mc);
	return tracker;
}

void bci_agent_vm_init(jvmtiEnv *jvmti, JNIEnv *jni)
{
	static const JNINativeMethod methods[] = {
	    {"enter0", "(I)V", (void *)event_probe_enter},
	    {"exit0", "(I)V", (void *)event_probe_exit},
	    {"exitThrow0", "(I)V", (void *)event_probe_exit_throw},
	    {"addresses", "()[J", (void *)tracker_addresses},
	    {"enter1", "(I)I", (void *)event_probe_enter1},
	    {"exit1", "(I)I", (void *)event_probe_exit1},
	    {"exitThrow1", "(I)I", (void *)event_probe_exit_throw1},
	    {"hidden", "([BLjava/lang/Class;)[B", (void *)tracker_hidden},
	};
	/* The natives first: FindClass initialises the class it finds, and
	 * jcal.Tracker's initialiser calls TrackerNatives.addresses(). */
	jclass nat = (*jni)->FindClass(jni, "jcal/TrackerNatives");
	int bad = !nat || (*jni)->RegisterNatives(jni, nat, methods,
						  sizeof(methods) / sizeof(methods[0])) != 0;
	jclass cls = NULL;

	if (nat)
		(*jni)->DeleteLocalRef(jni, nat);
	if (!bad)
		cls = init_tracker(jni);
	if (bad || !cls) {
		(*jni)->ExceptionClear(jni);
		jcal_error("mode=bci: cannot register the natives of jcal.Tracker (is "
			   "jcal-agent.jar beside libjcal.so?): nothing is instrumented");
		return;
	}
	jobject module = (*jni)->GetModule(jni, cls);
	if (module) {
		tracker_module = (*jni)->NewGlobalRef(jni, module);
		(*jni)->DeleteLocalRef(jni, module);
	}
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	(*jni)->DeleteLocalRef(jni, cls);
	bci_wrapped_init(jvmti, jni);
	bci_sites_init();
	if (jcal.opts.command == JCAL_CMD_TRACE)
		atomic_store(&hidden_on, 1);
	atomic_store(&ready, 1);
	retransform_loaded(jvmti, jni, 1);
	if (atomic_load(&hidden_on) && !atomic_load(&hidden_hooked))
		jcal_info("mode=bci: this JDK has no JavaLangAccess.defineClass to hook (%s): "
			  "hidden classes and lambda proxies are not instrumented",
			  BCI_HIDDEN_DESC);
	if (jcal.opts.command == JCAL_CMD_TRACE)
		throttle_start();
}

void bci_agent_set_probes(jvmtiEnv *jvmti, JNIEnv *jni, int on)
{
	atomic_store(&probes, on);
	if (jni && atomic_load(&ready)) {
		bci_sites_on(jni, on);
		retransform_loaded(jvmti, jni, 0);
	}
}
