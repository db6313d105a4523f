/*
 * calib_natives.c - native methods of the calibration workload: Workload.N
 * and Workload.n run a program node like their Java twins (call children
 * through JNI, catch or propagate, throw), and EnvTimer's natives time calls
 * made from native code in the -Xint child JVM.
 */
#include "calibrator/calib_natives.h"

#include <stdio.h>

#include "calibrator/calib_programs.h"

static jclass workload_cls, envtimer_cls;
static jobject workload_inst, envtimer_inst, thrown;
static jmethodID node_mid[CALIB_NODE_TYPES];
static jmethodID leaf_mid[8];
static jfieldID work_fid;
/* Workload.work for the natives: loop iterations of a node's own work */
static int work_iterations;
static volatile unsigned work_sink;

/* The natives' twin of the Java nodes' work loop (Workload.java). */
static void body_work(jint pc)
{
	unsigned s = (unsigned)pc;

	for (int j = 0; j < work_iterations; j++)
		s = s * 31u + (unsigned)j;
	if (s == 42u)
		work_sink = s;
}

void calib_natives_set_work(JNIEnv *env, int iterations)
{
	work_iterations = iterations;
	if (work_fid)
		(*env)->SetStaticIntField(env, workload_cls, work_fid, iterations);
}

static void JNICALL workload_set_native_work(JNIEnv *env, jclass cls, jint iterations)
{
	(void)env;
	(void)cls;
	work_iterations = iterations;
}

jclass calib_natives_workload_class(void)
{
	return workload_cls;
}

jobject calib_natives_workload_instance(void)
{
	return workload_inst;
}

jmethodID calib_natives_method(int type)
{
	return type >= 0 && type < CALIB_NODE_TYPES ? node_mid[type] : NULL;
}

/* Odd types are instance methods; another type calls nothing, as in the
 * Java nodes' switch. */
static void call_node(JNIEnv *env, jint type, jintArray prog, jint pc)
{
	if (type < 0 || type >= CALIB_NODE_TYPES)
		return;
	if (type & 1)
		(*env)->CallVoidMethod(env, workload_inst, node_mid[type], prog, pc);
	else
		(*env)->CallStaticVoidMethod(env, workload_cls, node_mid[type], prog, pc);
}

void calib_natives_call(JNIEnv *env, int type, jintArray prog, jint pc)
{
	call_node(env, type, prog, pc);
	if ((*env)->ExceptionCheck(env))
		(*env)->ExceptionClear(env);
}

/* The body of Workload.N and Workload.n (see Workload.java for the format). */
static void run_node(JNIEnv *env, jintArray prog, jint pc)
{
	jint hdr[4], child[4];

	(*env)->GetIntArrayRegion(env, prog, pc, 4, hdr);
	body_work(pc);
	jint c = pc + 4;
	for (jint k = 0; k < hdr[2]; k++) {
		(*env)->GetIntArrayRegion(env, prog, c, 4, child);
		call_node(env, child[0], prog, c);
		if ((*env)->ExceptionCheck(env)) {
			if (!(hdr[1] & 2))
				return; /* propagate: this native exits by exception */
			(*env)->ExceptionClear(env);
		} else {
			body_work(pc);
		}
		c += child[3];
	}
	if (hdr[1] & 1)
		(*env)->Throw(env, (jthrowable)thrown);
}

static void JNICALL workload_N(JNIEnv *env, jclass cls, jintArray prog, jint pc)
{
	(void)cls;
	run_node(env, prog, pc);
}

static void JNICALL workload_n(JNIEnv *env, jobject self, jintArray prog, jint pc)
{
	(void)self;
	run_node(env, prog, pc);
}

static int fail(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "calibration workload: %s", what);
	return -1;
}

static jobject static_field(JNIEnv *env, jclass cls, const char *name, const char *sig)
{
	jfieldID f = (*env)->GetStaticFieldID(env, cls, name, sig);
	jobject o = f ? (*env)->GetStaticObjectField(env, cls, f) : NULL;
	return o ? (*env)->NewGlobalRef(env, o) : NULL;
}

int calib_natives_register_workload(JNIEnv *env, char *err, size_t errlen)
{
	static const JNINativeMethod methods[] = {
	    {"N", "([II)V", (void *)workload_N},
	    {"n", "([II)V", (void *)workload_n},
	    {"setNativeWork", "(I)V", (void *)workload_set_native_work},
	};
	static const char *const names[CALIB_NODE_TYPES] = {"I", "i", "N", "n", "H", "h"};
	jclass cls = (*env)->FindClass(env, "jcal/calib/Workload");

	if (!cls) {
		(*env)->ExceptionClear(env);
		return fail(err, errlen,
			    "class jcal.calib.Workload not found (is "
			    "jcal-calibrator.jar beside libjcal.so?)");
	}
	if ((*env)->RegisterNatives(env, cls, methods, 3) != 0) {
		(*env)->ExceptionClear(env);
		return fail(err, errlen, "RegisterNatives failed for jcal.calib.Workload");
	}
	workload_cls = (*env)->NewGlobalRef(env, cls);
	for (int t = 0; t < CALIB_NODE_TYPES; t++) {
		node_mid[t] = (t & 1) ? (*env)->GetMethodID(env, cls, names[t], "([II)V")
				      : (*env)->GetStaticMethodID(env, cls, names[t], "([II)V");
		if (!node_mid[t]) {
			(*env)->ExceptionClear(env);
			return fail(err, errlen, "a node method of jcal.calib.Workload is missing");
		}
	}
	work_fid = (*env)->GetStaticFieldID(env, cls, "work", "I");
	if (!work_fid) {
		(*env)->ExceptionClear(env);
		return fail(err, errlen, "the field work of jcal.calib.Workload is missing");
	}
	workload_inst = static_field(env, cls, "INSTANCE", "Ljcal/calib/Workload;");
	thrown = static_field(env, cls, "THROWN", "Ljcal/calib/Workload$Thrown;");
	(*env)->DeleteLocalRef(env, cls);
	if (!workload_inst || !thrown) {
		(*env)->ExceptionClear(env);
		return fail(err, errlen, "cannot initialise jcal.calib.Workload");
	}
	return 0;
}

/* ---- EnvTimer (the -Xint child JVM) ---- */

static void JNICALL env_leaf_static(JNIEnv *env, jclass cls)
{
	(void)env;
	(void)cls;
}

static void JNICALL env_leaf(JNIEnv *env, jobject self)
{
	(void)env;
	(void)self;
}

static void JNICALL env_throw_static(JNIEnv *env, jclass cls)
{
	(void)cls;
	(*env)->Throw(env, (jthrowable)thrown);
}

static void JNICALL env_throw(JNIEnv *env, jobject self)
{
	(void)self;
	(*env)->Throw(env, (jthrowable)thrown);
}

/* kind 0..7: callee as in EnvTimer.java; -1: no call. */
static void env_loop(JNIEnv *env, jint kind, jint n)
{
	for (jint k = 0; k < n; k++) {
		if (kind < 0)
			continue;
		if (kind & 1)
			(*env)->CallVoidMethod(env, envtimer_inst, leaf_mid[kind]);
		else
			(*env)->CallStaticVoidMethod(env, envtimer_cls, leaf_mid[kind]);
		if ((*env)->ExceptionCheck(env))
			(*env)->ExceptionClear(env);
	}
}

static void JNICALL env_loop_static(JNIEnv *env, jclass cls, jint kind, jint n)
{
	(void)cls;
	env_loop(env, kind, n);
}

static void JNICALL env_loop_inst(JNIEnv *env, jobject self, jint kind, jint n)
{
	(void)self;
	env_loop(env, kind, n);
}

static int register_envtimer(JNIEnv *env)
{
	static const JNINativeMethod methods[] = {
	    {"leafN", "()V", (void *)env_leaf_static},	 {"leafn", "()V", (void *)env_leaf},
	    {"throwN", "()V", (void *)env_throw_static}, {"thrown", "()V", (void *)env_throw},
	    {"loopN", "(II)V", (void *)env_loop_static}, {"loopn", "(II)V", (void *)env_loop_inst},
	};
	static const char *const leaves[8] = {"leafI",	"leafi",  "leafN",  "leafn",
					      "throwI", "throwi", "throwN", "thrown"};
	jclass cls = (*env)->FindClass(env, "jcal/calib/EnvTimer");

	if (!cls || (*env)->RegisterNatives(env, cls, methods, 6) != 0)
		return -1;
	envtimer_cls = (*env)->NewGlobalRef(env, cls);
	for (int k = 0; k < 8; k++) {
		leaf_mid[k] = (k & 1) ? (*env)->GetMethodID(env, cls, leaves[k], "()V")
				      : (*env)->GetStaticMethodID(env, cls, leaves[k], "()V");
		if (!leaf_mid[k])
			return -1;
	}
	envtimer_inst = static_field(env, cls, "INSTANCE", "Ljcal/calib/EnvTimer;");
	return envtimer_inst ? 0 : -1;
}

/* Called when the env-timer child JVM runs System.load(libjcal.so). */
JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved)
{
	JNIEnv *env;
	char err[256];

	(void)reserved;
	if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK)
		return JNI_ERR;
	if (calib_natives_register_workload(env, err, sizeof(err)) || register_envtimer(env)) {
		fprintf(stderr, "jcal: error: %s\n", err);
		return JNI_ERR;
	}
	return JNI_VERSION_1_6;
}
