/*
 * calib_derive.h - builds a calibration table from a calibration trace
 * (docs/calibration-format.md): for every thread and every pair of consecutive
 * events, the raw delta of metric 0 goes to the step's sequence key (the
 * shared stepper of seqkey.h), which keeps the minimum, the number of
 * samples, the mean and a histogram for the median and p10. The agent calls
 * it at the end of a calibrate run and jcal-post --report calib calls it
 * too, so both produce the same table from the same trace.
 *
 * Meta records of the trace it reads (besides the host fingerprint):
 *   env.<KEY>     the environment cost of KEY ("env.I:E:i:X:I"), an unsigned
 *                 integer in metric 0's raw unit; keys without one get 0
 *   env.method    how those costs were measured (free text)
 *   calib.thread  when present, only threads of this name are counted (the
 *                 calibration workload's thread; JDK threads stay out)
 *   metric.0.unit the table's unit; start.time_ns its creation date
 *   calib.work.<T>.<K>  the untraced cost of a node's work loop of K
 *                 iterations in a method of type T (I i J j N n), metric 0's
 *                 raw unit
 * and the marks CALIB_WORK_MARK "K" in a counted thread's events: the steps
 * after one ran bodies with the work loop of K iterations (0: empty
 * bodies). The statistics of a key (min, mean, quantiles) are those of its
 * empty-body steps; the steps of every length give the key's fit
 * (calib_fit.h) of the overhead against the step's own work, the env
 * cost plus, for a step that ran in a method (entered or returned to
 * normally), that method's work loop.
 */
#ifndef JCAL_CALIB_DERIVE_H
#define JCAL_CALIB_DERIVE_H

#include <stddef.h>
#include <stdint.h>

#include "common/calib_table.h"
#include "common/trace_reader.h"

#define CALIB_WORK_MARK "calib.work="
#define CALIB_WORK_META "calib.work."
/* Work loop lengths a derivation tells apart (0 included). */
#define CALIB_WORK_LEVELS 8
/* Samples a body length needs in a key to be a point of its fit. */
#define CALIB_FIT_MIN_SAMPLES 20

/* What the derivation saw; for the coverage summary of a calibrate run. */
struct calib_derive_info {
	uint64_t events;	/* events in the trace */
	uint64_t deltas;	/* deltas that went into the table */
	uint64_t backwards;	/* deltas < 0 (metric went backwards): left out */
	uint64_t too_large;	/* deltas > CALIB_NUM_MAX (no table holds them): left out */
	unsigned threads;	/* threads with events */
	unsigned threads_used;	/* threads counted */
	char calib_thread[128]; /* meta calib.thread; "" = every thread counted */
	unsigned env_records;	/* env.<KEY> meta records */
	unsigned env_unused;	/* ...of keys that no delta had */
	unsigned env_missing;	/* keys of the table without an env record (env 0) */
	unsigned work_levels;	/* work loop lengths marked, 0 (empty bodies) included */
	uint64_t work_deltas;	/* deltas of the lengths other than 0 */
	unsigned fit_keys;	/* keys with a fit */
	unsigned fit_one_work;	/* keys without: all their steps had the same work */
	unsigned fit_too_few;	/* keys without: too few samples */
	int truncated;		/* the trace's tail was cut off: read up to it */
	char trace_msg[256];	/* the reader's message when truncated */
};

/*
 * Reads the calibration trace at trace_path with the common reader and
 * fills t (initialised here: free it with calib_table_free() whatever the
 * result). info may be NULL. Returns 0, or -1 with err set: the trace
 * cannot be read or is corrupt, an env record is malformed, calib.thread
 * names a thread that has no events, or no delta was found.
 */
int calib_derive_file(const char *trace_path, struct calib_table *t, struct calib_derive_info *info,
		      char *err, size_t errlen);

/*
 * Reads the host fingerprint of a trace from its meta records, stopping as
 * soon as every field was seen (so a long trace is not read to its end).
 * Fields absent from the trace stay "". recalibrated (may be NULL) is set
 * to whether the agent's options (meta "options", written before the
 * fingerprint) asked for in-run bursts (calib_options_recalibrate).
 * Returns the reader's status (TRACE_OK also when stopped early); res->msg
 * says what went wrong.
 */
enum trace_status calib_trace_fingerprint(const char *trace_path, struct calib_fingerprint *fp,
					  int *recalibrated, struct trace_result *res);

/* 1 when an agent option string ("trace,recalibrate=start,out=t.bin") has a
 * recalibrate= option, else 0. */
int calib_options_recalibrate(const char *options);

#endif
