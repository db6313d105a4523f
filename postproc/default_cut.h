/*
 * default_cut.h - what jcal-post leaves out by default on a large trace, so
 * that a report or export of a real program stays readable and bounded
 * (docs/jcal-post.md, "Defaults on a large trace"). Each cut is the one a
 * user could ask for with --min-pct or --min-duration, chosen from the
 * trees before the output is written; --all turns the cuts off.
 *
 *  - text tree: a thread with more than DEFAULT_CUT_TREE_CONTEXTS contexts
 *    keeps the contexts of at least DEFAULT_CUT_TREE_PCT% of its cum;
 *  - collapsed, sampled speedscope, pprof, html: the smallest --min-pct of
 *    a 1-2-5 ladder whose output, estimated per kept context, fits
 *    DEFAULT_CUT_BYTES (0 when the whole output does);
 *  - chrome: the smallest --min-duration of a 1-2-5 ladder for which the
 *    spans written (at most, per context, its calls and its raw cum divided
 *    by the duration) fit DEFAULT_CUT_SPANS.
 */
#ifndef JCAL_DEFAULT_CUT_H
#define JCAL_DEFAULT_CUT_H

#include <stddef.h>
#include <stdint.h>

#include "postproc/model.h"
#include "postproc/report.h"
#include "postproc/threadsel.h"

/* A JVM's start-up alone gives the main thread 27 000 to 43 000 contexts
 * (JDK 17 and 25, the test programs); a tree of more than 100 000 is a
 * program of its own, whose full text nobody reads line by line. */
#define DEFAULT_CUT_TREE_CONTEXTS 100000u
#define DEFAULT_CUT_TREE_PCT 0.5
/* "Tens of megabytes at most": what flame graph tools and browsers open
 * at once. */
#define DEFAULT_CUT_BYTES (32u * 1024 * 1024)
/* About 23 MB of Chrome trace JSON at the 113 bytes a span took on a real
 * program (checkstyle). */
#define DEFAULT_CUT_SPANS 200000u

/* The --min-pct values a cut of the context exports tries, smallest first
 * (1-2-5 steps from 0.0001 to 100). */
#define DEFAULT_CUT_NPCT 19
extern const double default_cut_pct_ladder[DEFAULT_CUT_NPCT];

/* What a cut did, for the one note on stderr. */
struct default_cut {
	int active;		/* something was cut */
	double pct;		/* --min-pct applied (tree and context exports) */
	uint64_t min_duration;	/* --min-duration applied (chrome) */
	uint64_t before, after; /* contexts, or calls and the most spans kept */
	size_t threads, cut;	/* threads looked at, threads cut */
	const char *kind;	/* the report */
	const char *unit;	/* of min_duration: " ns" or "" (counts) */
};

/*
 * The default cut of report kind (a --report name) in format fmt, applied
 * to the trees of m that sel selects (NULL: all), on metric metric: folds
 * contexts as --min-pct does. merged: the threads were merged into one (no
 * thread-name frame). chrome is not cut here (default_cut_spans). Returns
 * 0, or -1 when out of memory (m is then only fit for model_free).
 */
int default_cut_trees(struct model *m, const char *kind, enum report_format fmt, unsigned metric,
		      const struct threadsel *sel, int merged, struct default_cut *dc);

/* chrome: the --min-duration (ns for time metrics, else counts) that keeps
 * the spans of the threads sel selects within DEFAULT_CUT_SPANS; 0 when
 * they all fit. Sets dc. */
uint64_t default_cut_spans(const struct model *m, unsigned metric, const struct threadsel *sel,
			   struct default_cut *dc);

/* The note: what was cut and how to see everything (no newline). */
void default_cut_note(const struct default_cut *dc, char *buf, size_t len);

#endif
