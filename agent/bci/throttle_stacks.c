/*
 * throttle_stacks.c - which of some methods have a frame on a thread's
 * stack (throttle_stacks.h): every platform thread's stack from one
 * GetAllStackTraces (a safepoint), each frame's method matched by name,
 * descriptor and class signature.
 */
#include "agent/bci/throttle_stacks.h"

#include <stdatomic.h>
#include <string.h>

#include "agent/base/jvmti_check.h"
#include "agent/base/log.h"
#include "agent/core/agent_state.h"
#include "agent/core/method_table.h"

int throttle_stacks_visible(void)
{
	return !jcal.vthreads_possible ||
	       (!jcal.loaded_live && jcal.vthreads && !atomic_load(&jcal.vthread_started));
}

/* Whether the frame's method mid is m (its class signature read only when
 * name and descriptor match). */
static int frame_is(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID mid, const char *name, const char *sig,
		    const struct jcal_method *m)
{
	if (strcmp(name, m->name) || strcmp(sig, m->sig))
		return 0;
	jclass cls = NULL;
	char *csig = NULL;
	int same = 0;
	if ((*jvmti)->GetMethodDeclaringClass(jvmti, mid, &cls) == JVMTI_ERROR_NONE &&
	    (*jvmti)->GetClassSignature(jvmti, cls, &csig, NULL) == JVMTI_ERROR_NONE)
		same = strcmp(csig, m->csig) == 0;
	jvmti_free(jvmti, csig);
	if (cls)
		(*jni)->DeleteLocalRef(jni, cls);
	return same;
}

/* Marks the methods of ms that frame f is. 0, or -1 when its method is unreadable. */
static int mark_frame(jvmtiEnv *jvmti, JNIEnv *jni, const jvmtiFrameInfo *f,
		      struct jcal_method *const *ms, size_t n, unsigned char *on_stack)
{
	char *name = NULL, *sig = NULL;
	if (jvmti_check_debug(jvmti, (*jvmti)->GetMethodName(jvmti, f->method, &name, &sig, NULL),
			      "throttle: GetMethodName of a frame"))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!on_stack[i] && frame_is(jvmti, jni, f->method, name, sig, ms[i]))
			on_stack[i] = 1;
	jvmti_free(jvmti, name);
	jvmti_free(jvmti, sig);
	return 0;
}

int throttle_stacks_scan(jvmtiEnv *jvmti, JNIEnv *jni, struct jcal_method *const *ms, size_t n,
			 unsigned char *on_stack)
{
	jvmtiStackInfo *si = NULL;
	jint nt = 0;
	int rc = 0;

	memset(on_stack, 0, n);
	if (jvmti_check_debug(jvmti,
			      (*jvmti)->GetAllStackTraces(jvmti, THROTTLE_STACKS_DEPTH, &si, &nt),
			      "throttle: GetAllStackTraces"))
		return -1;
	for (jint t = 0; t < nt && rc == 0; t++) {
		if (si[t].frame_count >= THROTTLE_STACKS_DEPTH) {
			jcal_debug("throttle: a stack over %d frames", THROTTLE_STACKS_DEPTH);
			rc = -1;
		}
		const jvmtiFrameInfo *fb = si[t].frame_buffer;
		/* a recursion's frames: its method looked at once */
		for (jint k = 0; k < si[t].frame_count && rc == 0; k++)
			if (k == 0 || fb[k].method != fb[k - 1].method)
				rc = mark_frame(jvmti, jni, &fb[k], ms, n, on_stack);
	}
	/* one block: the frame buffers are inside it */
	jvmti_free(jvmti, si);
	return rc;
}
