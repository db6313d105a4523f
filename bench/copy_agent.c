/*
 * copy_agent.c - the floor of mode=bci in the soak (docs/performance.md):
 * a JVMTI agent that can retransform classes and answers every
 * ClassFileLoadHook with a copy of the class's bytes, as a rewriter does,
 * and does nothing else; what HotSpot keeps per class for such an agent
 * is then measured without any probe or trace. With the option
 * "compiled" it also takes CompiledMethodLoad events, as mode=bci does to
 * type jitted methods (the JVM then makes a jmethodID for each).
 */
#include <jvmti.h>
#include <string.h>

static void JNICALL on_class(jvmtiEnv *jvmti, JNIEnv *jni, jclass redefined, jobject loader,
			     const char *name, jobject domain, jint len, const unsigned char *data,
			     jint *new_len, unsigned char **new_data)
{
	unsigned char *copy;

	(void)jni;
	(void)redefined;
	(void)loader;
	(void)name;
	(void)domain;
	if ((*jvmti)->Allocate(jvmti, len, &copy) != JVMTI_ERROR_NONE)
		return;
	memcpy(copy, data, (size_t)len);
	*new_len = len;
	*new_data = copy;
}

static void JNICALL on_compiled(jvmtiEnv *jvmti, jmethodID method, jint code_size,
				const void *code_addr, jint map_length,
				const jvmtiAddrLocationMap *map, const void *compile_info)
{
	(void)jvmti;
	(void)method;
	(void)code_size;
	(void)code_addr;
	(void)map_length;
	(void)map;
	(void)compile_info;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	jvmtiEnv *jvmti;
	jvmtiCapabilities caps;
	jvmtiEventCallbacks cb;

	int compiled = options && !strcmp(options, "compiled");

	(void)reserved;
	if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK)
		return JNI_ERR;
	memset(&caps, 0, sizeof(caps));
	caps.can_retransform_classes = 1;
	caps.can_generate_all_class_hook_events = 1;
	caps.can_generate_compiled_method_load_events = (unsigned)compiled;
	memset(&cb, 0, sizeof(cb));
	cb.ClassFileLoadHook = on_class;
	cb.CompiledMethodLoad = on_compiled;
	if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE ||
	    (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof(cb)) != JVMTI_ERROR_NONE ||
	    (*jvmti)->SetEventNotificationMode(
		jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL) != JVMTI_ERROR_NONE)
		return JNI_ERR;
	if (compiled && (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
							   JVMTI_EVENT_COMPILED_METHOD_LOAD,
							   NULL) != JVMTI_ERROR_NONE)
		return JNI_ERR;
	return JNI_OK;
}
