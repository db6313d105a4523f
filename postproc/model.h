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
#include "common/trace_slow.h"
#include "postproc/model_method.h"
#include "postproc/tree_group.h"
#include "postproc/waits.h"

struct tree_workers;
struct model_fold;
struct threadsel;

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
	/* A merged profile's thread (merge.h): its input (index in
	 * model.inputs; MODEL_INPUT_MANY for one made of several inputs'), its
	 * own name and serial there (name adds the input: "main [2
	 * host:pid]"); plain NULL in a profile of one input. */
	uint32_t input;
	char *plain;
	uint32_t own_serial;
	/* A group: the threads folded or merged into this one tree
	 * (model_fold, --merge-threads), nfolded of them. */
	int group;
	size_t nfolded;
	/* A shell (cli.shells): tree holds the root and the counts only;
	 * the contexts it had, and those deeper than the summary's depth
	 * limit, counted before the rest was let go. */
	int shell;
	uint64_t shell_contexts, shell_deep;
	/* A pool's group (pools.h): its threads' serials (nfolded), its index
	 * in model.pools. */
	uint32_t *pool_serials;
	size_t pool_index;
	UT_hash_handle hh;
};

#define MODEL_INPUT_MANY UINT32_MAX

/* A label of an input: the agent's label=KEY:VALUE (meta label.KEY). */
struct model_label {
	char *key, *value;
};

/* One input of a merged profile (jcal-post FILE...), as the summary lists
 * it and the pprof export labels its samples. */
struct model_input {
	char *path;
	char *host, *pid, *jvm; /* "" unknown */
	char *metrics;		/* the recorded metrics, "a+b" */
	char *calib;		/* the calibration as reports describe it; NULL raw */
	char *tag;		/* what its threads' names carry: "2 host:pid" */
	int snapshot, calibrated;
	uint64_t events;
	size_t threads;
	struct model_label *labels;
	size_t nlabels;
};

/* The range of tsc.hz accepted (model_finish): 1 MHz to 100 GHz. */
#define MODEL_TSC_HZ_MIN 1e6
#define MODEL_TSC_HZ_MAX 1e11

struct model_metric {
	char name[64];
	char unit[32]; /* "ns" for tsc (converted) and cputime; "" unknown */
	char why[128]; /* why the agent chose it, "" if not recorded */
	double tsc_hz; /* > 0: values are TSC ticks, shown as ns */
	int offcpu;    /* made by offcpu_add (postproc/offcpu.h), not recorded */
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
	/* The snapshot's histograms of calls (format 3.1) are kept in the
	 * trees (calltree_keep_hists): set before the load by the readers of
	 * single calls' durations (latency.c); else they are skipped. */
	int want_hists;
	/* A snapshot of slow=: the calls its agent kept (TREE_SLOW records,
	 * longest first; method ids as written), nslow of them. */
	struct trace_slow *slow;
	size_t nslow, slow_cap;
	/* Its slow= (model_finish, from the snapshot.slow.* meta): slow_inputs
	 * 1 with DURATION in ns, MAX and the calls that long; 0 without. A
	 * merged profile (merge.c): its inputs that are snapshots, those of
	 * them of slow=, the smallest DURATION, the MAX and the calls that
	 * long added up. */
	size_t snap_inputs, slow_inputs;
	uint64_t slow_ns, slow_max, slow_over;
	int has_end;
	struct trace_end end;
	uint64_t compiled_loads, compiled_unloads;
	struct waits waits;	      /* the JVM's monitor events (MONITOR records) */
	char err[256];		      /* why a callback stopped the read */
	struct tree_workers *workers; /* model_jobs(): trees built by them */
	int chunk_jobs;		      /* ...from chunks they decode themselves */
	int chunks_later;	      /* chunks were handed to them undecoded */
	int redo;		      /* model_redo(): read again on one thread */
	int trees_err;		      /* their error once they are done */
	/* model_fold(): the threads are folded into one group (model_fold.c);
	 * after model_finish, folded is set, the thread list is the group and
	 * fold_elided counts the threads the selection left out. */
	struct model_fold *fold;
	int folded;
	size_t fold_elided;
	/* A merged profile (merge.h): its inputs, the next method id it gives. */
	struct model_input *inputs;
	size_t ninputs;
	uint32_t next_method;
	/* The groups of the threads of one pool (pools.h), npools of them. */
	struct model_thread **pools;
	size_t npools;
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

/* The id whose tree node an event of method id counts for: the first
 * copy's, for a copy of a method another class loader defined too. */
uint32_t model_event_method(const struct model *m, uint32_t id);

/* The thread of serial, or NULL. */
const struct model_thread *model_thread_find(const struct model *m, uint32_t serial);

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

/* Whether sel selects t: by its name, or in a merged profile by its own
 * name too (--thread main picks the main thread of every input). */
int model_thread_selected(const struct threadsel *sel, const struct model_thread *t);

/* Frees a thread's record and what it holds (not its hash entry). */
void model_thread_free(struct model_thread *t);

/* The threads t stands for: nfolded for a group, else 1. */
size_t model_thread_count(const struct model_thread *t);

/*
 * Before the read, for a report that shows no thread apart (flat, callers,
 * --merge-threads; docs/jcal-post.md, "Memory: threads folded"): each
 * thread that sel selects (NULL: every one) is folded into one tree
 * (tree_group.h), the others are counted (fold_elided) and dropped, so
 * that memory grows with the calling contexts, not with the threads. With
 * MODEL_FOLD_WHILE_READING (a trace read from a file), a thread is folded once its
 * THREAD_END is read; a thread with records after it makes the read stop
 * (model_fold_broken): read the file again without folding. Otherwise, or
 * for the threads that never ended, at model_finish. After model_finish
 * the thread list is the group, named and numbered as --merge-threads
 * names its merged thread, with the figures and the order of children of
 * the selected threads merged in serial order. Returns 0 or -1 (no
 * memory).
 */
int model_fold(struct model *m, const struct threadsel *sel, unsigned flags);

#define MODEL_FOLD_WHILE_READING 1u /* fold each thread at its THREAD_END */
/* the group's statistics are the threads' added up (--merge-threads shows
 * them); without it the group has none (flat and callers read none, and
 * warn of no saturated sum of them) */
#define MODEL_FOLD_STATS 2u

/* The smallest and largest serial of m's threads (the folded ones too) in
 * *min and *max, and whether one is serial 0 in *zero; returns 0 when m
 * has no thread. */
int model_serials(const struct model *m, uint32_t *min, uint32_t *max, int *zero);

/* 1 when the read stopped because a folded thread had records after its
 * THREAD_END (model_fold). */
int model_fold_broken(const struct model *m);

/* A merged profile (merge.h) folds its inputs' threads the same way
 * (after model_fold without MODEL_FOLD_WHILE_READING): t (a finished tree, its serial
 * and names the profile's) is added as source who (tree_group.h); a group
 * (an input folded as it was read) brings the threads it holds and
 * elided, those its selection left out; any other thread is selected
 * here. map gives t's method ids as m's. Returns 0 or -1 (no memory). */
int model_fold_add(struct model *m, const struct model_thread *t, uint32_t who, size_t elided,
		   tree_group_method_fn map, void *ctx);

/* ...the smallest and largest serial of the threads the groups brought,
 * and whether one was serial 0 (the merged thread's number) */
void model_fold_serials(struct model *m, uint32_t min, uint32_t max, int zero);

/* ...and after the last, the group as the thread list. Returns 0 or -1
 * with m->err. */
int model_fold_done(struct model *m);

/* The id of m's method of src's class, name and signature (src from
 * another model) in *id: 0; 1 when m has none or src has no METHOD record;
 * -1 when out of memory. */
int model_method_lookup(const struct model *m, const struct model_method *src, uint32_t *id);

/* A method defined in another model, as m's: the id of m's method of the
 * same class, name and signature, defined here when new; an undefined one
 * (no METHOD record) always gets a new id. For merged profiles. Returns 0
 * or -1 (no memory). */
int model_method_import(struct model *m, const struct model_method *src, uint32_t *id);

#endif
