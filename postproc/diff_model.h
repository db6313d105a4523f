/*
 * diff_model.h - what jcal-post diff compares (docs/jcal-post.md,
 * "Comparing two runs"): the runs of two sides, BASE and NEW (one run
 * each, or a set of runs each), added one after the other from their
 * loaded models into
 *
 *  - one table of names: methods by their normalised class, name and
 *    descriptor (name_norm.h), so that overloads stay apart and the
 *    generated classes of two runs of one build match; thread groups by
 *    their normalised thread name; and the pseudo-frames;
 *  - the flat figures of each method in each run: calls, base, and cum
 *    counting each activation once (the flat report's rule, on the
 *    normalised names), from each thread's whole tree;
 *  - one calling-context tree: the root, one child per thread group (the
 *    threads whose names normalise alike, merged), and below each the
 *    contexts of its threads as paths of normalised names, each node with
 *    its calls and base in each run (cum once finished). Contexts deeper
 *    than the depth limit are folded into one "<deeper frames folded>"
 *    frame, as the reports of one input do (--max-depth).
 *
 * Figures are kept in each run's own unit (TSC ticks for a tsc metric,
 * calibrated unless --raw) and converted to the reports' unit (ns) when a
 * side's figures are read (diff_model_side), so that one run per side
 * shows exactly what jcal-post FILE shows. Memory grows with the distinct
 * calling contexts and methods of all runs (times the runs), never with
 * the events (docs/performance.md).
 *
 * The reports (diff_report.h) and the html export read a finished model:
 * names through diff_model_name(), a node's or a method's figures of one
 * side through diff_model_side(), their comparison through
 * diff_model_compare().
 */
#ifndef JCAL_DIFF_MODEL_H
#define JCAL_DIFF_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "postproc/diff_tree.h"
#include "postproc/model.h"
#include "postproc/name_norm.h"
#include "postproc/threadsel.h"

/* The most runs a side may have. */
#define DIFF_MAX_RUNS 256

/* The name of the trees' root: "<thread root>" (the caller of a thread's
 * outermost frames in the callers report). */
#define DIFF_ROOT_NAME 0u

enum diff_side { DIFF_BASE = 0, DIFF_NEW = 1 };

enum diff_name_kind {
	DIFF_NAME_METHOD,  /* a method of the traces */
	DIFF_NAME_THREAD,  /* a thread group: threads whose names normalise alike */
	DIFF_NAME_SPECIAL, /* the root, folded frames, an unknown method */
};

struct diff_name {
	enum diff_name_kind kind;
	char *key;			/* what matches across runs (kind, normalised parts) */
	char *display;			/* as reports print it (after diff_model_finish): a
					 * method's normalised package.Class.method with the
					 * overload suffix where another method shares its
					 * name (or the descriptor with --sig); a thread
					 * group's normalised name */
	char *match;			/* normalised package.Class.method without descriptor:
					 * what --include and --fail-on's scope match; NULL
					 * for other kinds */
	char *class_sig, *method, *sig; /* a method's normalised parts */
};

/* One input: where it came from and how its figures were made. */
struct diff_run {
	enum diff_side side;
	char *path;
	char *jvm;   /* "jvm.name jvm.version", "" unknown */
	char *mode;  /* "events", "bci", "" unknown */
	char *calib; /* the calibration as reports describe it; NULL raw */
	int calibrated, snapshot;
	uint64_t events;  /* events its threads recorded */
	uint32_t threads; /* threads compared (--thread) */
	double tsc_hz;	  /* > 0: figures are TSC ticks, shown as ns */
};

struct diff_model {
	unsigned nbase, nnew, nruns; /* runs 0 .. nbase-1 are BASE's, then NEW's */
	unsigned added;		     /* runs added so far */
	struct diff_run *runs;
	struct diff_name *names;
	uint32_t nnames;
	size_t names_cap;
	struct diff_name_idx *idx; /* uthash by key */
	struct diff_fig *flat;	   /* nruns per name (methods and pseudo-frames) */
	uint8_t *flat_seen;	   /* nruns per name */
	size_t flat_cap;	   /* names the two arrays hold */
	struct diff_tree tree;
	char metric[64], unit[32]; /* the metric compared, its unit in the reports */
	int sig;		   /* display names with their descriptor */
	uint32_t max_depth;	   /* depth limit of the tree; 0 none */
	uint64_t folded;	   /* contexts folded below it, over all runs */
	/* What normalisation changed: distinct method names (class, name and
	 * descriptor as a trace holds them) whose normalised form differs,
	 * in all and by their kind (name_norm_primary), and distinct thread
	 * names. */
	uint64_t norm_methods, norm_kind[NAME_NORM_NKINDS], norm_threads;
	struct diff_name_idx *norm_seen;
	int finished;
};

/* What of a model diff_model_add takes. */
struct diff_import {
	unsigned metric;	     /* the metric compared */
	const struct threadsel *sel; /* the threads compared; NULL all */
	uint32_t max_depth;	     /* contexts deeper are folded; 0 none */
};

/* nbase, nnew from 1 to DIFF_MAX_RUNS; sig: display names with
 * descriptors. Returns 0 or -1 (no memory, or runs out of range). */
int diff_model_init(struct diff_model *dm, unsigned nbase, unsigned nnew, int sig);
void diff_model_free(struct diff_model *dm);

/* Adds m (finished, named, shaped) as the next run, BASE's runs first;
 * desc describes it (its strings are copied; side and threads are set
 * here). The first run sets the metric's name and unit. Returns 0 or -1
 * (no memory). */
int diff_model_add(struct diff_model *dm, const struct model *m, const struct diff_import *im,
		   const struct diff_run *desc);

/* After the last run: every context's cum, the display names. Returns 0
 * or -1 (no memory). */
int diff_model_finish(struct diff_model *dm);

/* The display name of a name (after diff_model_finish). */
const char *diff_model_name(const struct diff_model *dm, uint32_t name);

/* One side's figures of a method or a context, in the reports' unit. */
struct diff_side_fig {
	uint64_t calls, base, cum; /* medians over the side's runs (diff_stats.h) */
	uint64_t calls_min, calls_max;
	unsigned present; /* runs of the side that have it */
	unsigned runs;	  /* runs of the side */
};

/* figs and seen: the nruns figures of a node (&t->figs[node * nruns]) or
 * of a method (&dm->flat[name * nruns]). */
void diff_model_side(const struct diff_model *dm, const struct diff_fig *figs, const uint8_t *seen,
		     enum diff_side side, struct diff_side_fig *out);

enum diff_status { DIFF_SAME, DIFF_CHANGED, DIFF_ADDED, DIFF_REMOVED };
enum diff_cost {
	DIFF_COST_NONE,	  /* not judged: one run a side */
	DIFF_COST_WITHIN, /* within the runs' spread: noise */
	DIFF_COST_BEYOND, /* beyond it (diff_stats_beyond) */
};

struct diff_cmp {
	struct diff_side_fig base, new_;
	enum diff_status status;
	enum diff_cost cost;   /* of cum */
	uint64_t calls_spread; /* the largest max - min of calls within a side */
	double cost_spread;    /* the larger relative spread of cum, percent */
};

/* Compares the two sides of a node or a method: added (no BASE run has
 * it), removed (no NEW run has it), changed (the calls differ, or with
 * several runs a side the cost changed beyond the spread), else same. */
void diff_model_compare(const struct diff_model *dm, const struct diff_fig *figs,
			const uint8_t *seen, struct diff_cmp *out);

/* The merged-threads tree: dm's tree with the thread groups merged (each
 * context under the root by its path of frames), figures added up, cum
 * set. Free with diff_tree_free. Returns 0 or -1 (no memory). */
int diff_model_merged(const struct diff_model *dm, struct diff_tree *out);

#endif
