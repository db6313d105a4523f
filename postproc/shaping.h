/*
 * shaping.h - filters and shaping shared by every report: the trees of a
 * loaded model are rebuilt in place before a report reads them.
 *
 *  --exclude PAT   frames of matching methods are folded into their caller:
 *                  their base goes to the caller, their callees become the
 *                  caller's callees (paths that become equal are merged);
 *  --include PAT   only calling contexts with a matching frame on their
 *                  path keep their base; their callers stay as structure
 *                  (base 0), every other context is dropped;
 *  --top N         only the N methods with the largest cum (each activation
 *                  once, over the selected threads) keep frames of their
 *                  own; the others are folded into their callers;
 *  --min-pct P     a context whose cum is under P% of its thread's cum is
 *                  folded, with its subtree, into its parent;
 *  --simple        class names without their package;
 *  pools           the selected threads of one pool become one tree per
 *                  pool (pools.h; unless --split-pools);
 *  --merge-threads the selected threads become one tree, paths merged.
 *
 * Patterns are globs (fnmatch) on "package.Class.method" without the
 * signature; several patterns of one kind match when any does. The steps
 * run in the order above; calls of folded frames are dropped, no metric is
 * lost except by --include.
 */
#ifndef JCAL_SHAPING_H
#define JCAL_SHAPING_H

#include <stddef.h>

#include "postproc/model.h"
#include "postproc/threadsel.h"

struct shape_opts {
	const char **include, **exclude;
	size_t ninclude, nexclude;
	size_t top;		     /* 0: off */
	double min_pct;		     /* <= 0: off */
	unsigned metric;	     /* metric for --top and --min-pct */
	int simple, sig;	     /* names: without packages; with signature */
	int merge;		     /* --merge-threads */
	int pools;		     /* threads of one pool as one tree (pools.h) */
	const struct threadsel *sel; /* threads to shape (and merge); NULL: all */
};

struct shape_info {
	size_t merged;	/* threads merged into one (0: no merge) */
	size_t elided;	/* threads left out by the selection */
	size_t folded;	/* contexts folded by --exclude, --top and --min-pct */
	size_t dropped; /* contexts dropped by --include */
	size_t pools;	/* pools whose threads were grouped (0: none) */
	size_t pooled;	/* the threads in them */
};

/*
 * The depth limit of the reports that print calling contexts (--max-depth,
 * docs/jcal-post.md): dst becomes a copy of src (finished) in which the
 * children of every node at level max_depth are replaced by one
 * pseudo-frame, method CALLTREE_FOLDED_METHOD, whose calls are the calls of
 * all the frames folded into it and whose base is their cum. Every kept
 * node keeps its calls, base and cum; the root's cum and the sum of all
 * calls are unchanged. *folded (may be NULL) gets the number of contexts
 * folded. dst is finished; free it with calltree_free. Returns 0 or -1
 * (no memory; dst is then freed).
 */
int shape_cap_depth(const struct calltree *src, uint32_t max_depth, struct calltree *dst,
		    uint64_t *folded);

/* --min-pct on one thread's tree (finished): contexts whose cum is under
 * the threshold (shape_pct_threshold) are folded, with their subtree, into
 * their parent; info->folded counts them. Returns 0 or -1 (no memory). */
int shape_min_pct(struct calltree *t, unsigned metric, double pct, struct shape_info *info);

/* The smallest cum a context keeps under --min-pct pct: pct% of the root's
 * cum, rounded up. A context is kept iff its cum reaches it (a parent's cum
 * is never below its child's, so the kept contexts form a tree). */
uint64_t shape_pct_threshold(const struct calltree *t, unsigned metric, double pct);

/* True when o asks for any change of the trees or names. */
int shape_active(const struct shape_opts *o);

/* Applies o to m (after model_finish and model_names). With merge, m's
 * thread list becomes the one merged thread; when pools grouped threads,
 * it becomes the selected threads with the groups in their place (the
 * report then selects no more). Returns 0, or -1 when out of
 * memory (m is then only fit for model_free). */
int shape_apply(struct model *m, const struct shape_opts *o, struct shape_info *info);

/* "Class.method" from "pkg.sub.Class.method": the display name without the
 * package of its class, written to buf (always terminated when len > 0).
 * Returns the length needed, like snprintf. */
size_t shape_simple_name(const char *class_desc, const char *method, const char *sig, char *buf,
			 size_t len);

/* The name patterns are matched against: "package.Class.method" without
 * the signature, "<unknown method #id>" for a method without a record. */
void shape_method_name(const struct model *m, uint32_t method, char *buf, size_t len);

/* Glob match of a method name against patterns (any of them). */
int shape_match(const char **pats, size_t npats, const char *name);

struct u64map;
/* shape_match() of a method's shape_method_name(), the answer cached in
 * cache (method -> 1 + match; a method not cached for want of memory is
 * asked again next time). */
int shape_method_matches(const struct model *m, struct u64map *cache, const char **pats,
			 size_t npats, uint32_t method);

#endif
