/*
 * bci_see.c - JNI test library for the end-to-end tests: the native
 * methods of jcaltest.work.BciSee, which mode=events and mode=bci must both
 * see (docs/agent-internals.md, "Natives in mode=bci"): linked by their JNI
 * names (static, instance, synchronized, one that calls back into Java, one
 * that throws) and one linked only by RegisterNatives; and BciSeeLate.mul.
 */
#include <jni.h>

JNIEXPORT jint JNICALL Java_jcaltest_work_BciSee_add(JNIEnv *env, jclass cls, jint a, jint b)
{
	(void)env;
	(void)cls;
	return a + b;
}

JNIEXPORT jlong JNICALL Java_jcaltest_work_BciSee_mix(JNIEnv *env, jobject self, jlong a, jdouble d,
						      jintArray arr)
{
	(void)self;
	return a + (jlong)d + (arr ? (*env)->GetArrayLength(env, arr) : 0);
}

JNIEXPORT jint JNICALL Java_jcaltest_work_BciSee_locked(JNIEnv *env, jclass cls, jint x)
{
	(void)env;
	(void)cls;
	return 2 * x;
}

/* back(i) for i in [0, n): a native calling Java, which calls a native. */
JNIEXPORT jint JNICALL Java_jcaltest_work_BciSee_callback(JNIEnv *env, jclass cls, jint n)
{
	jmethodID back = (*env)->GetStaticMethodID(env, cls, "back", "(I)I");
	jint s = 0;

	for (jint i = 0; back && i < n && !(*env)->ExceptionCheck(env); i++)
		s += (*env)->CallStaticIntMethod(env, cls, back, i);
	return s;
}

JNIEXPORT void JNICALL Java_jcaltest_work_BciSee_fail(JNIEnv *env, jclass cls, jstring msg)
{
	jclass ise = (*env)->FindClass(env, "java/lang/IllegalStateException");
	const char *m = msg ? (*env)->GetStringUTFChars(env, msg, NULL) : NULL;

	(void)cls;
	if (ise)
		(*env)->ThrowNew(env, ise, m ? m : "native");
	if (m)
		(*env)->ReleaseStringUTFChars(env, msg, m);
}

/* Reached only through RegisterNatives: no JNI name links it. */
static jint registered_impl(JNIEnv *env, jclass cls, jint x)
{
	(void)env;
	(void)cls;
	return x + 100;
}

JNIEXPORT jboolean JNICALL Java_jcaltest_work_BciSee_registerAll(JNIEnv *env, jclass cls)
{
	JNINativeMethod m = {(char *)"registered", (char *)"(I)I", (void *)registered_impl};

	return (*env)->RegisterNatives(env, cls, &m, 1) == 0;
}

JNIEXPORT jint JNICALL Java_jcaltest_work_BciSeeLate_mul(JNIEnv *env, jclass cls, jint a, jint b)
{
	(void)env;
	(void)cls;
	return a * b;
}
