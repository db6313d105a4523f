/*
 * recording.h - the part of the agent's recording the calibrator
 * (calibrator/) uses: the agent state (options, metrics, the JVM), the
 * calling thread's traced region, a method's compiled-code count, and meta
 * records in the trace. The calibrator includes no other agent header but
 * log.h, lib_dir.h and jvmti_check.h; the agent's core never calls the
 * calibrator (docs/agent-internals.md, "Files").
 */
#ifndef JCAL_RECORDING_H
#define JCAL_RECORDING_H

#include <jvmti.h>

#include "agent/core/agent_state.h"
#include "common/trace_encoder.h"

struct jcal_thread;

/* The calling thread's trace state, or NULL when it has none or its thread
 * has ended. */
struct jcal_thread *recording_thread(jvmtiEnv *jvmti);

/* Closes the thread's traced region (a STOP control event): nothing of the
 * thread is recorded until recording_region_open. */
void recording_region_close(struct jcal_thread *st);
/* Opens it again (a START control event). */
void recording_region_open(struct jcal_thread *st);

/* A labelled mark (a MARK control event) in the thread's events. */
void recording_mark(struct jcal_thread *st, const char *label);

/* Finds or defines the method as mode=bci does (class signature, name,
 * descriptor, modifiers) and returns how many compiled versions of it
 * are loaded (0 when it cannot be defined). */
int recording_method_compiled(const char *class_sig, const char *name, const char *desc,
			      uint32_t modifiers);

/* The trace's records buffer, under the file mutex, for trace_rec_meta;
 * NULL (and no lock held) when tracing has stopped (VM death, a failed
 * write): nothing can be written then. */
struct trace_recbuf *recording_meta_begin(void);
/* Releases the buffer and writes its records. */
void recording_meta_end(void);

/* A write to the trace failed. */
int recording_failed(void);

#endif
