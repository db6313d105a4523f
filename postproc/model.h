/*
 * model.h - a trace loaded for reporting: meta data, methods, and one
 * calling-context tree per Java thread.
 *
 * model_visitor() gives the trace reader's callbacks; model_load() reads a
 * file through them. Events go straight into the thread's tree builder, so
 * memory grows with methods, threads and calling contexts, not with events.
 * model_finish() closes the trees; model_names() fixes how method names
 * are printed.
 */
#ifndef JCAL_MODEL_H
#define JCAL_MODEL_H

#include <stdint.h>
#include <uthash.h>

#include "common/calltree.h"
#include "common/trace_reader.h"
#include "postproc/model_method.h"

struct tree_workers;

/* Methods by "class\1name\1signature", for merging the copies of one
 * method that several class loaders define. */
struct model_sig_idx {
	char *key;
	uint32_t id;
	UT_hash_handle hh;
};

struct model_thread {
	uint32_t serial;
	uint64_t java_tid;
	uint32_t os_tid;
	uint32_t flags;	    /* TRACE_THREAD_* */
	char *name;	    /* "thread-#N" until a record names it */
	int started, ended; /* THREAD_START / THREAD_END seen */
	uint64_t start_ns, end_ns, end_events;
	int has_tree; /* saw at least one event */
	/* Metric values the agent read at THREAD_START / THREAD_END (raw
	 * units); the span between them minus the tree's root cum is what the
	 * thread spent outside any event pair. */
	unsigned nstart_metric, nend_metric;
	uint64_t start_metric[JCAL_MAX_METRICS], end_metric[JCAL_MAX_METRICS];
	struct calltree tree;
	/* A tree snapshot's thread (TREE_THREAD): its flags (TRACE_TREE_*),
	 * and while its nodes are read, the tree node of each snapshot index. */
	uint32_t snap_flags;
	uint32_t *snap_map;
	size_t snap_cap; /* grown as the nodes come */
	uint32_t snap_nodes, snap_next;
	UT_hash_handle hh;
};

/* The range of tsc.hz accepted (model_finish): 1 MHz to 100 GHz. */
#define MODEL_TSC_HZ_MIN 1e6
#define MODEL_TSC_HZ_MAX 1e11

struct model_metric {
	char name[64];
	char unit[32]; /* "ns" for tsc (converted) and cputime; "" unknown */
	char why[128]; /* why the agent chose it, "" if not recorded */
	double tsc_hz; /* > 0: values are TSC ticks, shown as ns */
};

struct model_meta {
	char *key, *value;
};

/* Index of the meta records by key (uthash), so that each record is found
 * in constant time however many keys a trace holds. */
struct model_meta_idx {
	const char *key; /* the record's own key string */
	size_t i;	 /* position in model.meta */
	UT_hash_handle hh;
};

struct model {
	struct model_meta *meta; /* in the order first seen */
	size_t nmeta, meta_cap;
	struct model_meta_idx *meta_idx; /* uthash by key */
	struct model_method *methods;	 /* uthash by id */
	size_t nmethods_defined;
	struct model_sig_idx *sig_idx;	   /* uthash by class, name and signature */
	size_t nmethods_merged;		   /* methods whose events count for an earlier copy */
	struct model_thread *threads;	   /* uthash by serial */
	struct model_thread **thread_list; /* by serial, after model_finish */
	size_t nthreads;
	struct model_thread *last_thread;
	unsigned nmetrics;
	struct model_metric metric[JCAL_MAX_METRICS];
	struct calltree_comp comp; /* compensation hook for every tree */
	int has_comp;
	/* A tree snapshot (format 3.x): trees from TREE records, no events.
	 * snapshot_raw: its compensated figures are replaced by the raw ones
	 * (--raw). */
	int snapshot, snapshot_raw;
	int has_end;
	struct trace_end end;
	uint64_t compiled_loads, compiled_unloads;
	char err[256];		      /* why a callback stopped the read */
	struct tree_workers *workers; /* model_jobs(): trees built by them */
	int chunk_jobs;		      /* ...from chunks they decode themselves */
	int chunks_later;	      /* chunks were handed to them undecoded */
	int redo;		      /* model_redo(): read again on one thread */
	int trees_err;		      /* their error once they are done */
};

void model_init(struct model *m, const struct calltree_comp *comp);
void model_free(struct model *m);

/* 1 when the file at path is a tree snapshot (format 3.x), 0 when not or
 * when it cannot be read (the error comes when it is loaded). */
int model_peek_snapshot(const char *path);

/* Whether the trees m holds came from a tree snapshot whose figures were
 * compensated in the agent (and are shown so: not --raw). */
int model_snapshot_compensated(const struct model *m);

/* The reader callbacks that fill m. */
void model_visitor(struct model *m, struct trace_visitor *v);

/* Builds the trees of the events read next on jobs threads beside the
 * reading one (tree_workers.h; 0: on the reading thread); model_finish()
 * waits for them and reports a batch that failed. With chunks set, the
 * threads also decode the events chunks they can (one metric), so the
 * file must be one that can be read again (model_redo). The compensation
 * hook must be safe to call from several threads. Returns 0, or -1 when
 * the threads cannot be started (the trees are then built in place). */
int model_jobs(struct model *m, unsigned jobs, int chunks);

/* After the read, when jobs threads decoded chunks: waits for them, then
 * 1 when the file must be read again on one thread (model_free,
 * model_init and a read without jobs) because only the reader's own
 * decoding says exactly what is wrong: a chunk they could not decode to
 * its end, or an END record counting other events than the trees hold.
 * Else 0. */
int model_redo(struct model *m);

/* Reads path ("-" for stdin) into m. Returns the reader's status; for
 * TRACE_ABORTED m->err says why. */
enum trace_status model_load(struct model *m, const char *path, struct trace_result *res);

/* Closes every tree, sorts the threads and derives the metric list from
 * the meta data. Returns 0, or -1 with m->err set. */
int model_finish(struct model *m);

/* Computes display names ("pkg.Class.method", with the JVM signature when
 * with_sig) for every method, adding "<unknown method #id>" entries for ids
 * used in events without a METHOD record. Returns 0 or -1 (no memory). */
int model_names(struct model *m, int with_sig);

/* Display name of a method id (after model_names). */
const char *model_method_name(const struct model *m, uint32_t id);

/* Value of meta key, or NULL. */
const char *model_meta(const struct model *m, const char *key);

/* Metric index of name, or -1. */
int model_metric_index(const struct model *m, const char *name);

/* A raw metric value in the unit reports show (TSC ticks -> ns, saturated
 * at UINT64_MAX). */
uint64_t model_value(const struct model *m, unsigned metric, uint64_t v);

/* The same for a metric of TSC frequency hz (<= 0: not a TSC, v as is). */
uint64_t model_ticks_value(double hz, uint64_t v);

/* "virtual", "daemon" or "platform". */
const char *model_thread_kind(const struct model_thread *t);

/* The first few threads as "name#serial, ..." for messages. */
void model_thread_names(const struct model *m, char *buf, size_t len);

#endif
