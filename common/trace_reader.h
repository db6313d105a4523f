/*
 * trace_reader.h - streaming reader of jcal trace files.
 *
 * Reads chunk by chunk with bounded memory, checks each chunk's length and
 * CRC, decodes records and events and hands them to a visitor. A file whose
 * tail is cut off (JVM killed mid-write) reads up to the last complete chunk
 * and reports TRACE_TRUNCATED; a bad magic, CRC or record, or an END record
 * whose count of events disagrees with what the file holds, is
 * TRACE_CORRUPT (a count of threads above the file's THREAD_START records
 * is only noted, trace_result.end_threads_missing). Reads
 * format 2.x, 1.x (whose CRCs did not cover headers) and the tree
 * snapshots of 3.x (2.x plus tree records).
 */
#ifndef JCAL_TRACE_READER_H
#define JCAL_TRACE_READER_H

#include <stdint.h>
#include <stdio.h>

#include "common/event_decode.h"
#include "common/trace_format.h"
#include "common/trace_monitor.h"
#include "common/trace_tree.h"

struct trace_method {
	uint32_t id;
	uint32_t modifiers;
	const char *class_sig; /* as the JVM gives it: "Ljava/lang/String;" */
	const char *name;
	const char *sig; /* "(I)V" */
};

struct trace_thread {
	uint32_t serial;
	uint64_t java_tid;
	uint32_t os_tid;
	uint32_t flags;	  /* TRACE_THREAD_* */
	uint64_t time_ns; /* wall clock, ns since the epoch */
	const char *name; /* THREAD_START and THREAD_NAME; NULL for THREAD_END */
	uint64_t events;  /* THREAD_END only */
	unsigned nmetrics;
	uint64_t metric[JCAL_MAX_METRICS];
};

struct trace_event {
	uint32_t thread;    /* serial */
	uint32_t method;    /* JCAL_TR_CONTROL: the label id, 0 for none */
	uint8_t transition; /* enum jcal_transition; JCAL_TR_CONTROL (1.1) */
	uint8_t type;	    /* enum jcal_mtype; JCAL_TR_CONTROL: enum jcal_control */
	uint8_t nmetrics;
	uint64_t metric[JCAL_MAX_METRICS]; /* absolute values */
};

/* Consecutive events of one thread (part of one events chunk), for readers
 * that take events in bulk (trace_visitor.events): n entries in each array,
 * event k's metric values at metric[k * nmetrics]. */
#define TRACE_EVENT_BATCH 1024

struct trace_event_batch {
	uint32_t thread; /* serial */
	unsigned nmetrics;
	size_t n; /* 1..TRACE_EVENT_BATCH */
	const uint32_t *method;
	const uint8_t *transition;
	const uint8_t *type;
	const uint64_t *metric; /* absolute values */
};

struct trace_compiled {
	uint32_t method;
	int load; /* 1 load, 0 unload */
	uint64_t time_ns;
	uint64_t code_size;
};

struct trace_end {
	uint64_t events, threads, lost_events;
};

/* Callbacks; any may be NULL. A non-zero return stops the read
 * (status TRACE_ABORTED). Strings are valid only during the call. */
struct lathist;	   /* common/lathist.h */
struct trace_slow; /* common/trace_slow.h */

struct trace_visitor {
	void *ctx;
	int (*meta)(void *ctx, const char *key, const char *value);
	int (*method)(void *ctx, const struct trace_method *m);
	int (*thread_start)(void *ctx, const struct trace_thread *t);
	int (*thread_name)(void *ctx, const struct trace_thread *t);
	int (*thread_end)(void *ctx, const struct trace_thread *t);
	int (*compiled)(void *ctx, const struct trace_compiled *c);
	int (*event)(void *ctx, const struct trace_event *e);
	/* When set, events come through this instead of event, up to
	 * TRACE_EVENT_BATCH at a time, in the same order. */
	int (*events)(void *ctx, const struct trace_event_batch *b);
	/* When set, called first with each events chunk's undecoded events
	 * (common/event_decode.h): it may take any number of them from r->p
	 * on, decoding them itself and moving r past them; the rest are
	 * decoded and handed to events or event. A non-zero return stops the
	 * read at the last event it took. One that sets r->later takes the
	 * check of END's count of events over (trace_result.events then
	 * leaves its events out). */
	int (*events_raw)(void *ctx, uint32_t thread, struct event_run *r);
	int (*end)(void *ctx, const struct trace_end *e);
	int (*label)(void *ctx, uint32_t id, const char *text);
	/* A MONITOR record: a thread's wait on a monitor (common/trace_monitor.h;
	 * both metric lists of the same length, else corrupt). */
	int (*monitor)(void *ctx, const struct trace_monitor *m);
	/* Tree snapshots (3.0): a thread's tree, then each of its nodes. */
	int (*tree_thread)(void *ctx, const struct trace_tree_thread *t);
	int (*tree_node)(void *ctx, const struct trace_tree_node *n);
	/* 3.1: the histogram of a thread's node (its snapshot index), checked
	 * (lathist_valid); h is the reader's, valid during the call. */
	int (*tree_hist)(void *ctx, uint32_t serial, uint32_t node, const struct lathist *h);
	/* 3.2: a call kept by slow= (common/trace_slow.h), checked: a path of
	 * 1..TRACE_SLOW_PATH_MAX frames, at most TRACE_SLOW_CALLEES callees,
	 * self and the callees no longer than the call. */
	int (*tree_slow)(void *ctx, const struct trace_slow *c);
};

enum trace_status {
	TRACE_OK = 0,
	TRACE_TRUNCATED, /* cut tail: everything before it was read */
	TRACE_CORRUPT,	 /* bad magic, version, CRC or record */
	TRACE_IOERR,	 /* cannot open or read the file */
	TRACE_EMPTY,	 /* zero bytes */
	TRACE_ABORTED,	 /* a visitor callback returned non-zero */
};

struct trace_result {
	enum trace_status status;
	uint64_t chunks;
	uint64_t events;
	uint64_t bytes_read; /* bytes of complete, valid chunks + header */
	uint64_t file_bytes;
	int has_end; /* an END record was seen (clean shutdown) */
	/* THREAD_START records the END record counts but the file does not
	 * hold (an older agent's miscount; everything else reads): 0 when
	 * they agree. */
	uint64_t end_threads_missing;
	unsigned version_major, version_minor;
	unsigned stop_reason; /* enum trace_stop from the file header (2.x): why
			       * the agent stopped writing early; 0 = it did not say */
	char msg[256];	      /* what went wrong, for TRUNCATED and worse */
};

/* Reads the whole file at path (or stdin for "-") through the visitor. */
enum trace_status trace_read_file(const char *path, const struct trace_visitor *v,
				  struct trace_result *res);

/* Same over an open stream; name is used in messages. */
enum trace_status trace_read_stream(FILE *f, const char *name, const struct trace_visitor *v,
				    struct trace_result *res);

/* Decodes one chunk payload (for tests and fuzzing). */
enum trace_status trace_decode_chunk(unsigned kind, const uint8_t *payload, size_t len,
				     const struct trace_visitor *v, struct trace_result *res);

const char *trace_status_str(enum trace_status s);

/* What a stop reason (enum trace_stop) means, for messages:
 * "no space left on the device (disk full)"... */
const char *trace_stop_str(unsigned reason);

/* Why a trace read with res has no END record, as far as the file says:
 * "the agent stopped writing: no space left on the device (disk full)",
 * or, with no stop reason, that the JVM did not shut down cleanly or the
 * agent stopped without recording why. For messages; static text. */
const char *trace_no_end_str(const struct trace_result *res);

#endif
