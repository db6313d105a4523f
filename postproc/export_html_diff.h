/*
 * export_html_diff.h - the differential flame graph of jcal-post diff
 * (--report html; docs/jcal-post.md, "Differential flame graph"): one
 * self-contained page drawn from the calling contexts of both runs, merged
 * into one tree, each context with its calls and self cost in BASE and in
 * NEW. The page draws NEW's shape (or BASE's), coloured by change; the
 * figures of both runs are in each frame's tooltip.
 *
 * The data the page reads (const DATA):
 *   {"title":..,"metric":..,"unit":..,"value":"cost"|"calls","notes":[..],
 *    "names":[frame names],"tree":CONTEXT}
 * CONTEXT = [name index, calls BASE, calls NEW, self BASE, self NEW, flags,
 *            CONTEXT...]: the root first, each context's callees after its
 * figures; flags the HTML_DIFF_IN_* and HTML_DIFF_COST_* bits. A run
 * without a context has 0 calls and 0 cost there. Costs are in the
 * metric's unit (ns for time metrics); the page sums the callees' into
 * each frame's cum.
 */
#ifndef JCAL_EXPORT_HTML_DIFF_H
#define JCAL_EXPORT_HTML_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HTML_DIFF_NONE UINT32_MAX /* the root's parent */
#define HTML_DIFF_BASE 0	  /* index of BASE's figures */
#define HTML_DIFF_NEW 1		  /* index of NEW's */
/* Flags of a context: which sides have it, and with several runs a side,
 * whether its cost (cum) changed beyond the runs' spread or within it
 * (neither: not judged). */
#define HTML_DIFF_IN_BASE 1u
#define HTML_DIFF_IN_NEW 2u
#define HTML_DIFF_COST_BEYOND 4u
#define HTML_DIFF_COST_WITHIN 8u
/* The frame that holds, under one caller, the contexts a cut folded. */
#define HTML_DIFF_FOLDED_NAME "<small contexts folded>"

/* One calling context of the merged tree. Contexts are in an array whose
 * first is the root and where a context's caller comes before it. */
struct html_diff_ctx {
	uint32_t parent;  /* index of the caller; HTML_DIFF_NONE for the root */
	const char *name; /* the frame: a method, or a thread under the root */
	uint64_t calls[2];
	uint64_t self[2]; /* self cost, in the metric's unit */
	unsigned flags;	  /* HTML_DIFF_IN_*, HTML_DIFF_COST_* */
};

/* What the page says about the comparison. */
struct html_diff_page {
	const char *title;	  /* the line above the chart */
	const char *metric;	  /* the metric's name */
	const char *unit;	  /* "ns" for time metrics; "" unknown */
	int calls;		  /* start on calls (--value calls), else cost */
	const char *const *notes; /* lines under the title (normalised names, cuts) */
	size_t nnotes;
};

/* Writes the page for the n contexts of ctx (n >= 1) to f. Names are
 * written as JSON strings safe inside the page's script. Returns 0, or -1
 * when out of memory. */
int html_diff_write(FILE *f, const struct html_diff_page *pg, const struct html_diff_ctx *ctx,
		    size_t n);

/* What a cut did. */
struct html_diff_cut {
	double pct;	      /* the --min-pct applied; 0 for none */
	size_t before, after; /* contexts, the folded frames included after */
	size_t folded;	      /* contexts folded */
};

/*
 * The smallest --min-pct of the default cut's ladder (default_cut.h) whose
 * page, estimated per context kept, fits budget bytes; 0 when the whole
 * page does. A context is kept by pct when, in either run, its calls or its
 * cost with its callees' reach pct% of that run's. Returns -1 when out of
 * memory.
 */
double html_diff_default_pct(const struct html_diff_ctx *ctx, size_t n, uint64_t budget);

/*
 * Folds, in place, the contexts that pct does not keep: under each kept
 * caller, one frame HTML_DIFF_FOLDED_NAME holds the calls and cost (with
 * their callees') of the contexts folded there, in each run (and is in
 * the runs they are in; its cost is not judged), so that every frame kept
 * keeps its figures and the totals of calls and cost do not change. *n becomes the contexts left;
 * cut says how many there were. Returns 0, or -1 when out of memory (ctx unchanged).
 */
int html_diff_fold(struct html_diff_ctx *ctx, size_t *n, double pct, struct html_diff_cut *cut);

#endif
