/*
 * jit_inlined.h - the methods the JIT had inlined into compiled code when a
 * recording starts (inlined=count, docs/agent-internals.md, "Methods the
 * JIT inlined").
 *
 * A live attach retransforms the classes of a JVM whose JIT has run for a
 * while: a method it inlined into a compiled caller is small and hot, the
 * kind the throttle rule takes the probes of within seconds, and each of
 * those takes a second retransformation of its class, after which the JIT
 * compiles that class and every caller that inlined it once more. Asked
 * before the retransformation, the JIT's own inlining says which methods
 * those are: the rewriter gives the loop-free ones only the counting probe
 * from the start.
 *
 * jit_inlined_collect asks the JVM for a CompiledMethodLoad event of every
 * compiled method (GenerateEvents, posted on the calling thread, where
 * jit_inlined_note takes them), keeps each method found below the root of
 * some inlining stack, and names them; jit_inlined_has answers for the
 * class file hook until jit_inlined_clear. jit_inlined_walk is pure.
 */
#ifndef JCAL_JIT_INLINED_H
#define JCAL_JIT_INLINED_H

#include <jvmti.h>
#include <jvmticmlr.h>
#include <stddef.h>

/*
 * Calls add(ctx, m) for each method m that compile_info (a CompiledMethodLoad
 * event's, a chain of jvmtiCompiledMethodLoadRecordHeader) gives below the
 * root of an inlining stack: the methods inlined into the compiled one.
 * Other record kinds are skipped; at most 64 records are followed. Returns
 * the number of calls made.
 */
size_t jit_inlined_walk(const void *compile_info, void (*add)(void *ctx, jmethodID m), void *ctx);

/* Collects the inlined methods of every compiled method now (the set is
 * replaced). Returns how many distinct methods were named, or -1 when the
 * JVM cannot tell (then the set is empty). jni: the calling thread's. */
long jit_inlined_collect(jvmtiEnv *jvmti, JNIEnv *jni);

/* From event_compiled_load: 1 when the event is one jit_inlined_collect
 * asked for on this thread (taken here, not recorded), else 0. */
int jit_inlined_note(const void *compile_info);

/* Whether method name/desc of class csig ("Lpkg/C;") is in the set. */
int jit_inlined_has(const char *csig, const char *name, const char *desc);

/* Empties the set. */
void jit_inlined_clear(void);

#endif
