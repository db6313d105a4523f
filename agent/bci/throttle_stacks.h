/*
 * throttle_stacks.h - whether methods have a frame on some thread's stack
 * (JVMTI GetAllStackTraces): a switched method whose probes' calls under
 * way have all ended can lose its exit probes at once, instead of after a
 * fixed wait (bci/throttle.c, docs/agent-internals.md, "Switchable
 * probes").
 */
#ifndef JCAL_THROTTLE_STACKS_H
#define JCAL_THROTTLE_STACKS_H

#include <jvmti.h>
#include <stddef.h>

struct jcal_method;

/* Frames looked at per thread: a deeper stack leaves the scan unsure. */
#define THROTTLE_STACKS_DEPTH 2048

/* Whether every call under way can be seen on a platform thread's stack:
 * not when virtual threads may exist that the agent did not see start
 * (GetAllStackTraces leaves them out). */
int throttle_stacks_visible(void);

/* Sets on_stack[i] to whether some thread's stack shows a frame of ms[i]
 * now (inlined frames included); jni: the calling thread's. Returns 0, or -1 when the stacks could
 * not be read or one is deeper than THROTTLE_STACKS_DEPTH (nothing known). */
int throttle_stacks_scan(jvmtiEnv *jvmti, JNIEnv *jni, struct jcal_method *const *ms, size_t n,
			 unsigned char *on_stack);

#endif
