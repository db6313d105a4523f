/*
 * agent_internal.h - what the lifecycle (agent.c) shares with the live
 * recording session (session.c), and no other file: the recording's state
 * under its lock, its begin and end, its output and header records, and
 * the load of a first attach. session.c builds on agent.c; agent.c never
 * calls session.c (the stop a limit runs is handed to agent_load).
 */
#ifndef JCAL_AGENT_INTERNAL_H
#define JCAL_AGENT_INTERNAL_H

#include <jvmti.h>
#include <stddef.h>
#include <time.h>

#include "agent/agent.h"
#include "agent/base/options.h"
#include "agent/recording_limits.h"

/* The recording: start, stop, dump, status and VM death take its lock, so
 * that they run one at a time (docs/live-profiling.md). */
struct agent_rec {
	int active;	       /* a file is open and events are recorded */
	struct timespec since; /* CLOCK_REALTIME at its start */
	char options[4 * JCAL_OPT_PATH_MAX];
	char last[1400];   /* the summary of the last recording that ended */
	unsigned file_seq; /* out='s %n of the file being written (0: the first, 1) */
};

/* Takes the recording's lock and returns the recording; agent_rec_unlock
 * gives the lock back. */
struct agent_rec *agent_rec_lock(void);
void agent_rec_unlock(void);

/* Under the lock: the recording is on (what status reports), from now,
 * with its options; the trace file's maxsize= armed. */
void agent_rec_began(const char *options);

/* Under the lock: writes everything, closes the file (under its name
 * now) and prints the summary line. reason: why the recording ended before
 * the JVM did (a meta record the reports show), or NULL. */
void agent_rec_finish(JNIEnv *jni, const char *reason);

/* Under the lock, the event path stopped or held (JCAL_HELD): what
 * agent_rec_finish writes, without ending the recording: every thread's
 * buffer flushed, the file ended and closed (or the trees' snapshot
 * written), the summary line printed and kept. A rotation's first half. */
void agent_rec_close(JNIEnv *jni, const char *reason);

/* The recording's output at jcal.out_path: the trace file (output=trace|
 * both), and the trees' snapshot (output=tree|both, tree_recorder.h) at
 * out= or, beside the trace, <out>.tree; the trees on or off for it (each
 * recording of a JVM may have its own output=). flags: trace_file_open's.
 * 0, or -1 + message. */
int agent_open_output(unsigned flags, char *err, size_t errlen);

/* mode=events with include=/exclude=: which methods are recorded, for
 * method_table_refilter() (NULL: every one). */
typedef int filter_fn(const char *csig);
filter_fn *agent_events_filter(void);

/* The trace header's records of the agent: version, mode, options, the
 * metrics, the host. */
void agent_write_header_meta(const char *options);

/* The JVM's name and version, once it is up. */
void agent_write_vm_meta(jvmtiEnv *jvmti);

/* A first attach, once its options passed (agent_load_options): loads the
 * agent into the running JVM (agent_load; stop as there), then does what
 * VMInit does at a JVM's start. JCAL_ATTACH_OK, or what failed (enum
 * jcal_attach_code) with the load undone. */
int agent_load_attached(JavaVM *vm, const char *options, recording_limits_stop_fn stop);

/* A first attach that goes no further than agent_load_options: a later
 * load may start the agent. */
void agent_load_cancel(void);

#endif
