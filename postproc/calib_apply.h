/*
 * calib_apply.h - applying a calibration table in jcal-post: which table
 * (the one matching the trace's fingerprint in the calibration directory,
 * or an explicit file), the tree builder's compensation hook, and the
 * counts the summary reports (key coverage, clamped and fallback deltas).
 *
 * Compensation covers metric 0 only (the metric the table was measured
 * with); other metrics of a multi-metric trace stay raw.
 */
#ifndef JCAL_CALIB_APPLY_H
#define JCAL_CALIB_APPLY_H

#include <stddef.h>
#include <stdint.h>

#include "common/calib_table.h"
#include "common/calltree.h"

struct calib_apply {
	struct calib_table table;
	int active;		   /* a table is loaded and applied */
	char path[4096];	   /* its file */
	int fp_known;		   /* fp_match / fp_diff are set */
	int fp_match;		   /* its fingerprint is the trace's */
	char fp_diff[1024];	   /* the differing fields (table vs trace) otherwise */
	uint64_t deltas;	   /* deltas of metric 0 compensated */
	uint64_t clamped;	   /* ...whose raw value was below comp: 0 */
	uint64_t fallback_similar; /* key missing: same transitions, static-ness ignored */
	uint64_t fallback_global;  /* key missing: the table's smallest comp */
	unsigned keys_seen;	   /* distinct keys of the trace's deltas */
	unsigned keys_found;	   /* ...of which the table has */
	uint8_t seen[SEQKEY_COUNT];
	/* --calib inrun: how far the run's own comps moved from the stored
	 * table of the same fingerprint, (inrun - stored) / stored per key. */
	int has_ref;
	char ref_path[4096];
	unsigned shift_keys;
	double shift_median, shift_low, shift_high;
	/* calibration directory entries that are not regular files (a FIFO,
	 * a device...), skipped unopened: "x.txt (a FIFO), ..." or "" */
	char skipped[1024];
};

/* Returns 0 or -1 (out of memory). */
int calib_apply_init(struct calib_apply *a);
void calib_apply_free(struct calib_apply *a);

/* Zeroes the counts of compensated deltas (a trace read again). */
void calib_apply_counts_reset(struct calib_apply *a);

/* The compensation hook (ctx = struct calib_apply *): metric 0 gets
 * max(0, raw - comp of the key or its fallback); other metrics raw. */
int64_t calib_apply_comp(void *ctx, const struct seqkey *key, unsigned metric, uint64_t raw_delta);

/* The same for n deltas of metric 0 (calltree_comp's batch function). */
void calib_apply_comp_batch(void *ctx, const uint16_t *key, const uint64_t *delta, int64_t *out,
			    size_t n);

/* What a tree builder compensated itself through calltree_comp's table
 * (calltree_comp's counted function): deltas per key and clamped ones, added
 * to the counts as calib_apply_comp_batch would have. */
void calib_apply_counted(void *ctx, const uint64_t *deltas_by_key, uint64_t clamped);

enum calib_select {
	CALIB_SEL_APPLIED, /* a table is active */
	CALIB_SEL_NONE,	   /* no table: raw figures; msg is the note to show */
	CALIB_SEL_ERROR,   /* msg is the error */
};

/* What a trace says about how it was taken, for calib_apply_hint: its
 * meta values java.home, jvm.exec, mode, metrics, metric.0.why and clock
 * (any may be NULL). */
struct calib_hint {
	const char *java_home, *exec, *mode, *metrics, *metric_why;
	const char *clock; /* NULL: a trace of the raw clock (made before clock=) */
};

/* The command that writes the calibration table such a trace needs: its
 * JVM's java (-Xint for an interpreted run) with libjcal.so's calibrate and
 * the trace's mode, an explicitly chosen metric and clock=raw for a trace
 * of the raw clock. */
void calib_apply_hint(const struct calib_hint *h, char *buf, size_t len);

/*
 * Chooses the table. calib is the --calib value (a file or a directory) or
 * NULL for the calibration directory ($JCAL_CALIB_DIR, else
 * ~/.local/share/jcal/calib). A file is loaded whatever its fingerprint
 * (check it with calib_apply_check_fingerprint once the trace's is known);
 * a directory is searched for the table of trace_fp, which must then be
 * known (NULL: the trace comes from stdin and cannot be read twice); when
 * it has none but one that differs only in the clock, the note says so.
 */
/*
 * Whether the table's clock differs from the trace's (a table measured
 * with clock=raw holds the agent's own work, one measured with
 * clock=agentfree does not: applied to a trace of the other clock it takes
 * out far too much or too little). Returns 1 with msg saying so, else 0.
 */
int calib_apply_clock_differs(const struct calib_table *t, const char *table_path,
			      const struct calib_fingerprint *trace_fp, char *msg, size_t len);

enum calib_select calib_apply_select(struct calib_apply *a, const char *calib,
				     const struct calib_fingerprint *trace_fp, char *msg,
				     size_t len);

/* --calib inrun: derives the table from the calibration samples the agent
 * recorded in this very trace (recalibrate=start), so that compensation
 * follows the overhead of this run rather than a table from another
 * process. */
enum calib_select calib_apply_inrun(struct calib_apply *a, const char *trace_path, char *msg,
				    size_t len);

/* --calib inrun: compares the in-run comps (estimator already applied)
 * with those of the stored table at path under the same estimator; fills
 * the shift fields. Returns 0, or -1 when path cannot be read. */
int calib_apply_compare(struct calib_apply *a, const char *path, enum calib_estimator est);

/* Compares the active table with the trace's fingerprint; returns 1 (and
 * fills msg with a warning naming the differing fields) when they differ. */
int calib_apply_check_fingerprint(struct calib_apply *a, const struct calib_fingerprint *trace_fp,
				  char *msg, size_t len);

/* "PATH (fingerprint matches)" or "PATH (fingerprint differs: ...)". */
void calib_apply_describe(const struct calib_apply *a, char *buf, size_t len);

#endif
