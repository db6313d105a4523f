/*
 * trace_file.h - the agent's trace file: one fd, a definitions buffer, and
 * chunk writes.
 *
 * The event path never takes a lock; a thread takes the file mutex only when
 * its buffer is full (once per ~16k events) or when it defines a new method.
 * Definitions pending in the record buffer are always written before any
 * events chunk, so a reader never sees an event before its method.
 */
#ifndef JCAL_TRACE_FILE_H
#define JCAL_TRACE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "common/trace_encoder.h"

/* trace_file_open flag: create a new file only (O_EXCL), never through a
 * symbolic link, readable by its owner only. */
#define TRACE_FILE_PRIVATE 1u
/* trace_file_open flag: a FIFO given as out= that no process reads yet is
 * refused instead of waited for (a command to a running agent, which holds
 * the recording's lock). */
#define TRACE_FILE_NOWAIT 2u

/* Opens path for writing and locks it against other writers, without
 * truncating it. Nothing another user put in a shared directory is
 * followed, written or waited for (common/safe_open.h): OUT.part must be
 * new or this user's own regular file with one link. 0, or -1 + message
 * (cannot create, refused, or another agent is writing it). */
int trace_file_open(const char *path, unsigned flags, char *err, size_t errlen);

/* output=tree: no trace file; path is where the snapshot goes. The
 * definitions are kept (trace_file_keep_definitions). Returns 0. */
int trace_file_open_none(const char *path);

/* output=both: a copy of every definitions chunk is kept as well as
 * written, for the tree snapshots. */
void trace_file_keep_definitions(void);

/* Calls fn with the definitions chunks kept so far, then with the pending
 * definitions as one more chunk (they stay pending), under the file
 * mutex: fn must not call back into trace_file. Returns fn's result. */
int trace_file_definitions(int (*fn)(void *ctx, const uint8_t *chunks, size_t len), void *ctx);

/* Truncates the file and writes its header, once; the first write does it
 * too. 0, or -1 when the file cannot be written (tracing stops). */
int trace_file_begin(void);

/* Gives up a file that was opened but must not stay: closes it and removes
 * it when this agent created it; an existing file was not touched unless
 * something was written. */
void trace_file_abandon(void);

/* The definitions buffer, under the file mutex. */
struct trace_recbuf *trace_file_lock(void);
void trace_file_unlock(void);

/* trace_file_write_events: maxsize= reached, the events were not written. */
#define TRACE_FILE_AT_LIMIT (-2)

/* Writes pending definitions, then enc's chunk, and resets enc. Returns 0,
 * TRACE_FILE_AT_LIMIT, or -1 when the file is no longer writable (the
 * events were dropped). */
int trace_file_write_events(struct trace_events_enc *enc);

/* Writes pending definitions, then the END record with the number of
 * method events and of THREAD_START records in the chunks written (under
 * the file mutex, so both are exact even if a thread still writes or a
 * thread start raced with the start of this recording) and the lost
 * events. After it nothing more is written. 0 or -1. */
int trace_file_write_end(uint64_t lost_events);

/* Writes pending definitions now. */
void trace_file_flush(void);

/* Flushes, closes, and renames OUT.part to OUT (a rename that fails, e.g.
 * over another user's file, is said and leaves the trace at OUT.part);
 * returns the bytes written in all. The module can then open the next
 * recording's file. */
uint64_t trace_file_close(void);

uint64_t trace_file_bytes(void);
/* Non-zero once a write failed (disk full, file size limit): tracing stops. */
int trace_file_failed(void);
/* OUT, and the file being written (OUT.part, or OUT itself for a device,
 * a FIFO or a symbolic link). */
const char *trace_file_path(void);
const char *trace_file_written_path(void);
/* After trace_file_close: where the trace is (OUT, or OUT.part when it
 * could not be renamed). */
const char *trace_file_closed_path(void);

/* maxsize=: event chunks that would take the file past maxsize (less room
 * for the closing records) are not written; the first time, hit() is
 * called (under the file mutex: it must only wake someone). */
void trace_file_set_limit(uint64_t maxsize, void (*hit)(void));
int trace_file_at_limit(void);

/* Method events, and THREAD_START records, in the chunks written so far. */
uint64_t trace_file_events(void);
uint64_t trace_file_threads(void);

/* dump: copies what the file holds so far to dst (through dst.part, then
 * rename) and closes the copy with an END record that counts what the copy
 * holds, so that it reads as a complete trace; events still in the
 * threads' buffers are not in it. dst.part is new or this user's own
 * regular file (as OUT.part); another user's entry at dst in a shared
 * directory is refused first. 0, or -1 + message (when only the rename
 * failed, the message says where the copy is). */
int trace_file_copy(const char *dst, char *err, size_t errlen);

#endif
