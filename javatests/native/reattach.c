/*
 * reattach.c - JNI test library for the end-to-end tests: one native
 * thread that attaches to the JVM as "reuse-1", calls Java, detaches, then
 * attaches again as "reuse-2" on the same kernel thread (docs/agent-internals.md:
 * a reused kernel thread must give two trees, and the second must not be
 * charged the first's metric).
 */
#include <jni.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static JavaVM *vm;

struct job {
	jint first, second;
	long tid[2];
	int failed;
};

static int run_as(const char *name, jint n, jint spin_us, long *tid)
{
	JNIEnv *env;
	JavaVMAttachArgs args = {JNI_VERSION_1_6, (char *)name, NULL};

	if ((*vm)->AttachCurrentThread(vm, (void **)&env, &args) != JNI_OK)
		return -1;
	*tid = (long)syscall(SYS_gettid);
	jclass cls = (*env)->FindClass(env, "jcaltest/work/Reattach");
	jmethodID work = cls ? (*env)->GetStaticMethodID(env, cls, "work", "(II)V") : NULL;
	if (work)
		(*env)->CallStaticVoidMethod(env, cls, work, n, spin_us);
	int bad = !work || (*env)->ExceptionCheck(env);
	if ((*env)->ExceptionCheck(env))
		(*env)->ExceptionClear(env);
	(*vm)->DetachCurrentThread(vm);
	return bad ? -1 : 0;
}

static void *thread_main(void *arg)
{
	struct job *j = arg;

	/* The first Java thread burns CPU; the second does little. */
	if (run_as("reuse-1", j->first, 2000, &j->tid[0]) ||
	    run_as("reuse-2", j->second, 0, &j->tid[1]))
		j->failed = 1;
	return NULL;
}

/* Returns the kernel TID both attachments ran on, or -1 on failure or
 * when the two differ. */
JNIEXPORT jlong JNICALL Java_jcaltest_work_Reattach_runReattach(JNIEnv *env, jclass cls, jint first,
								jint second)
{
	pthread_t t;
	struct job j = {first, second, {0, 0}, 0};

	(void)cls;
	if ((*env)->GetJavaVM(env, &vm) != 0 || pthread_create(&t, NULL, thread_main, &j) != 0)
		return -1;
	pthread_join(t, NULL);
	return j.failed || j.tid[0] != j.tid[1] ? -1 : (jlong)j.tid[0];
}
