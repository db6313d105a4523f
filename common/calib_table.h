/*
 * calib_table.h - calibration tables (docs/calibration-format.md):
 * per sequence key the minimum observed delta, samples, the execution
 * environment's own cost (env) and the compensation value
 * comp = max(0, min - env), plus mean, median and p10 of the samples; the
 * host fingerprint the table belongs to; text read/write, merge, diff,
 * check; compensation lookup with fallback; where tables live.
 *
 * Shared by the agent (writes the table at the end of a calibrate run) and
 * jcal-post (applies, shows, merges...). Nothing here prints or exits:
 * errors come back as a return value and a one-line message in err.
 */
#ifndef JCAL_CALIB_TABLE_H
#define JCAL_CALIB_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "common/calib_fit.h"
#include "common/seqkey.h"

#define CALIB_FORMAT_VERSION 3 /* 3 added a= b=, 2 q=; 1 and 2 are still read */
#define CALIB_VALUE_MAX 256    /* longest header value kept, NUL included */

/* The largest number of a key line (2^53 - 1, docs/calibration-format.md):
 * exact as a double, so that merged averages and the mean stay exact, and
 * sums of 16 quantiles cannot wrap. Larger values are refused when parsed
 * and capped when set (calib_table_set, calib_table_merge). */
#define CALIB_NUM_MAX 9007199254740991ull
#define CALIB_NUM_MAX_TEXT "9007199254740991"
/* The longest line a table may have, newline excluded. */
#define CALIB_LINE_MAX 65536

/* Host fingerprint fields, in file order (docs/calibration-format.md). */
enum calib_fp_field {
	CALIB_FP_CPU_VENDOR,
	CALIB_FP_CPU_FAMILY,
	CALIB_FP_CPU_MODEL,
	CALIB_FP_CPU_STEPPING,
	CALIB_FP_CPU_MODEL_NAME,
	CALIB_FP_KERNEL,
	CALIB_FP_JVM_VENDOR,
	CALIB_FP_JVM_VERSION,
	CALIB_FP_JVM_EXEC, /* "mixed mode" or "interpreted mode" (-Xint): costs differ */
	CALIB_FP_MODE,
	CALIB_FP_METRICS,
	CALIB_FP_AGENT_VERSION,
	/* the agent's clock= (docs/accuracy.md): "raw" when a trace or table
	 * does not say (made before the agent-free clock) */
	CALIB_FP_CLOCK,
	CALIB_FP_COUNT,
};

#define CALIB_CLOCK_DEFAULT "raw"

struct calib_fingerprint {
	char field[CALIB_FP_COUNT][CALIB_VALUE_MAX]; /* "" when unknown */
};

/* Header name of a field in a table ("cpu.vendor") and the trace meta key
 * it comes from ("host.cpu.vendor"). */
const char *calib_fp_name(unsigned field);
const char *calib_fp_meta_key(unsigned field);

/* Every field "" except the clock, CALIB_CLOCK_DEFAULT. */
void calib_fingerprint_clear(struct calib_fingerprint *fp);

/* Takes one trace meta record: returns 1 when key is a fingerprint field
 * (stored, blanks at both ends and control characters cleaned), else 0. */
int calib_fingerprint_set_meta(struct calib_fingerprint *fp, const char *key, const char *value);

/* Bit mask (1 << field) of the fields that differ; 0 = same host/JVM/mode/
 * metric/agent. */
uint32_t calib_fingerprint_diff(const struct calib_fingerprint *a,
				const struct calib_fingerprint *b);

/* The fields of mask as text: "cpu.model '85' vs '106', kernel '6.1.0' vs
 * '6.5.0'" (a's value first), cut to len. */
void calib_fingerprint_diff_text(const struct calib_fingerprint *a,
				 const struct calib_fingerprint *b, uint32_t mask, char *buf,
				 size_t len);

/* FNV-1a 64 of the canonical form ("name=value\n" for every field, in
 * order; the clock only when it is not CALIB_CLOCK_DEFAULT, so that the
 * tables of the raw clock keep the names they had), and the stable file
 * name "calib-<16 hex>.txt" (buf >= 32). */
uint64_t calib_fingerprint_hash(const struct calib_fingerprint *fp);
void calib_fingerprint_filename(const struct calib_fingerprint *fp, char *buf, size_t len);

/* Quantiles of a key's samples kept for the cond estimator: q[j] is the
 * (j + 1/2) / CALIB_NQ quantile (3.1%, 9.4%, ... 96.9%). */
#define CALIB_NQ 16

/* Per-key values. The statistics describe the raw deltas of the key's
 * samples (metric 0, raw units), env not subtracted. */
struct calib_entry {
	uint8_t present;
	uint8_t has_stats; /* mean, median and p10 are known */
	uint8_t has_q;	   /* q is known (needs has_stats) */
	uint64_t min;	   /* smallest observed delta */
	uint64_t samples;  /* deltas observed */
	uint64_t env;	   /* environment cost; 0 = not measured */
	uint64_t comp;	   /* max(0, min - env): what jcal-post subtracts */
	double mean;
	uint64_t median, p10;
	uint64_t q[CALIB_NQ]; /* non-decreasing, q[0] >= min */
	/* the overhead as a function of the step's own work w (calib_fit.h):
	 * raw = w + fit_a + fit_b * w; both >= 0 */
	uint8_t has_fit;
	double fit_a, fit_b;
};

/* Four int32 lanes (GCC and Clang vector extensions: SSE2 on x86-64, NEON
 * on arm64, plain code elsewhere). */
typedef int32_t calib_v4 __attribute__((vector_size(16)));

/* How a key was resolved by calib_table_lookup(). */
enum calib_match {
	CALIB_EXACT,	/* the key is in the table */
	CALIB_SIMILAR,	/* same transitions, static-ness ignored (I~i, J~j, N~n) */
	CALIB_GLOBAL,	/* the table's smallest comp */
	CALIB_NO_TABLE, /* the table has no key at all: comp 0 */
};

struct calib_table {
	struct calib_fingerprint fp;
	char created[64];		  /* ISO 8601 UTC, "2024-05-01T12:00:00Z" */
	char unit[32];			  /* raw unit of metric 0: ns, ticks, count */
	char env_method[CALIB_VALUE_MAX]; /* how env was measured */
	struct calib_entry *e;		  /* SEQKEY_COUNT entries, by seqkey_index */
	unsigned nkeys;			  /* entries present */
	int estimator;			  /* enum calib_estimator in use */
	/* lookup cache, rebuilt by calib_table_prepare() */
	int prepared;
	uint64_t global_comp;
	uint16_t *resolved; /* SEQKEY_COUNT: index of the entry used */
	uint8_t *match;	    /* SEQKEY_COUNT: enum calib_match */
	/* per key (SEQKEY_COUNT, by seqkey_index, the fallback resolved): what
	 * a delta of it is compensated by under the estimator, as a count.
	 * o are the overheads that split the deltas, 16 of them as int32 in
	 * four vectors (all INT32_MAX when the comp does not depend on the
	 * delta), and sel[n] the comp of a delta with n of them at or below
	 * it. A key whose overheads do not fit in 31 bits is wide: it takes
	 * calib_entry_cond(). Built by calib_table_prepare(), dropped whenever
	 * an entry or the estimator changes. */
	struct calib_step {
		calib_v4 o[CALIB_NQ / 4];
		uint64_t sel[CALIB_NQ + 1];
		int rare; /* wide or fit: not the count's sel (one test, not two) */
		int wide;
		/* fit 1 (fit): the comp is calib_fit_comp(fit_a, fit_b, delta)
		 * instead; fit 2 (cfit): for a delta above fit_h (the entry's
		 * q[15]) it is calib_cfit_comp(fit_a, fit_b, fit_h, sel[CALIB_NQ],
		 * delta), sel[CALIB_NQ] being cond's mean of all 16 overheads */
		int fit;
		/* 1 when the key's match is CALIB_SIMILAR, resp. CALIB_GLOBAL:
		 * added up per delta by calib_comp_batch */
		uint32_t similar, global;
		double fit_a, fit_b;
		uint64_t fit_h;
		/* to 256 bytes: a key's step is found by a shift */
		uint8_t pad[256 - 4 * 16 - 8 * (CALIB_NQ + 1) - 6 * 4 - 3 * 8];
	} * step;
};

/* Returns 0 or -1 (out of memory). An empty table, empty header. */
int calib_table_init(struct calib_table *t);
void calib_table_free(struct calib_table *t);

/* Sets one key: comp is computed from min and env. Invalidates the lookup
 * cache. */
void calib_table_set(struct calib_table *t, const struct seqkey *k, const struct calib_entry *e);

/* Entry of key k, or NULL when absent. */
const struct calib_entry *calib_table_get(const struct calib_table *t, const struct seqkey *k);

/* Keys with a quantile vector (q). */
unsigned calib_table_keys_with_q(const struct calib_table *t);

/* Keys with a fit of the overhead against the step's work (a, b). */
unsigned calib_table_keys_with_fit(const struct calib_table *t);

/* Keys with env = 0 (no environment measurement). */
unsigned calib_table_env_missing(const struct calib_table *t);

/* Keys reachable in mode (seqkey_reachable) and how many of them the table
 * has; either pointer may be NULL. */
void calib_table_coverage(const struct calib_table *t, enum seqkey_mode mode, unsigned *reachable,
			  unsigned *present);

/* Builds the lookup cache (fallbacks for every key). Returns 0 or -1 (out
 * of memory). calib_table_lookup() calls it when needed. */
int calib_table_prepare(struct calib_table *t);

/*
 * Compensation value for key k: the key's comp, else the comp of the
 * closest key with the same transitions when static-ness is ignored (the
 * most type positions equal, then the lowest index), else the smallest
 * comp of the table. Returns how it was found; *comp is 0 for
 * CALIB_NO_TABLE (also when the cache cannot be built).
 */
enum calib_match calib_table_lookup(struct calib_table *t, const struct seqkey *k, uint64_t *comp);

/*
 * Estimators of a key's overhead (docs/calibration-format.md): the per-key minimum, or a
 * statistic of the same samples. comp = max(0, statistic - env).
 */
enum calib_estimator {
	CALIB_EST_MIN = 0, /* the per-key minimum; what the table's comp column holds */
	CALIB_EST_P10,
	CALIB_EST_MEDIAN,
	CALIB_EST_MEAN,
	/* per delta: the mean of the key's overheads (q[j] - env) that are not
	 * above the delta itself (calib_entry_cond); keys without q: mean */
	CALIB_EST_COND,
	/* per delta: the step's own work (raw - a) / (1 + b) of the key's fit
	 * (calib_fit_comp); keys without a fit: cond */
	CALIB_EST_FIT,
	/* per delta: cond while the delta lies within the key's empty-body
	 * deltas (<= q[15]), past them the fit, held between cond's mean
	 * overhead o and o plus the delta's excess over q[15], so that the two
	 * meet at q[15] (calib_cfit_comp); keys without a fit or q: cond */
	CALIB_EST_CFIT,
};

/* The estimator applied by default, by jcal-post and by the agent's
 * in-memory trees: chosen by bench/accuracy.sh (docs/accuracy.md). */
#define CALIB_EST_DEFAULT CALIB_EST_COND

/* "min", "p10", "median", "mean", "cond", "fit", "cfit" -> estimator; 0 or -1 for an
 * unknown name. */
int calib_estimator_parse(const char *name, enum calib_estimator *out);
const char *calib_estimator_name(enum calib_estimator e);

/* Recomputes every key's comp with estimator e (keys without statistics
 * keep min) and invalidates the lookup cache. For applying a table only:
 * a table written afterwards would hold comps that are not min - env. */
void calib_table_use_estimator(struct calib_table *t, enum calib_estimator e);

/*
 * The cond estimator for one delta of key entry e: the overheads
 * o_j = max(0, q[j] - env) of the calibration samples are a model of what
 * the agent adds to a step; a step that took delta cannot have had more
 * overhead than delta, so its expected overhead is the mean of the o_j
 * <= delta (E[overhead | overhead <= delta]). Steps that do real work get
 * the mean overhead; steps as short as the fastest calibration samples get
 * only the lower ones. When no o_j is <= delta, o_0 (> delta: the caller
 * clamps). e without q: its comp.
 */
uint64_t calib_entry_cond(const struct calib_entry *e, uint64_t delta);

/* What to subtract from one delta of key k under the table's estimator
 * (calib_table_use_estimator): the comp of the key or its fallback
 * (calib_table_lookup), or for cond calib_entry_cond of that entry, or for
 * fit calib_fit_comp of that entry's fit (cond when it has none), or for
 * cfit cond up to the entry's q[15] and calib_cfit_comp above it (cond
 * when it has no fit or no q). */
enum calib_match calib_table_comp_for(struct calib_table *t, const struct seqkey *k, uint64_t delta,
				      uint64_t *comp);

/* calib_table_comp_for() for n deltas at once: comp[k] for the key of
 * seqkey_index key[k] (< SEQKEY_COUNT) and delta[k]. Returns 0, or -1 when
 * the table cannot be prepared (out of memory; comp[] then unset). */
int calib_table_comp_batch(struct calib_table *t, const uint16_t *key, const uint64_t *delta,
			   uint64_t *comp, size_t n);

/*
 * What to subtract from a delta of the key of seqkey_index i, the table
 * prepared: the count of its overheads o[j] <= delta, by four vector
 * compares (no branch and no load that waits on another: the deltas of a
 * trace are too random for either), then its sel. A delta past INT32_MAX
 * counts as INT32_MAX, which passes every o of a key that is not wide.
 * Under fit, a key with a fit takes calib_fit_comp() instead; under cfit,
 * a key with a fit and q takes calib_cfit_comp() for a delta above its
 * empty-body range (fit_h), and the count below for the others.
 */
/* How many of step c's 16 overheads are at or below d, o being
 * non-decreasing (calib_table_prepare builds it from quantiles): with
 * SSE2, the index of the first lane above d, from one mask of the four
 * compares; elsewhere the lanes' compares added up. */
static inline unsigned calib_step_count(const struct calib_step *c, int32_t d1)
{
	const calib_v4 d = {d1, d1, d1, d1};

	_Static_assert(CALIB_NQ == 16, "the count below is for 16 overheads");
#ifdef __SSE2__
	/* each lane of a compare is -1 where o > d, else 0 */
	const __m128i gt =
	    _mm_packs_epi16(_mm_packs_epi32((__m128i)(c->o[0] > d), (__m128i)(c->o[1] > d)),
			    _mm_packs_epi32((__m128i)(c->o[2] > d), (__m128i)(c->o[3] > d)));

	return (unsigned)__builtin_ctz((unsigned)_mm_movemask_epi8(gt) | 0x10000u);
#else
	/* each lane of a compare is -1 where o <= d, else 0 */
	const calib_v4 le = (c->o[0] <= d) + (c->o[1] <= d) + (c->o[2] <= d) + (c->o[3] <= d);

	return (unsigned)-(le[0] + le[1] + le[2] + le[3]);
#endif
}

static inline uint64_t calib_table_comp_prepared(const struct calib_table *t, unsigned i,
						 uint64_t delta)
{
	const struct calib_step *c = &t->step[i];
	const int32_t d1 = delta < (uint64_t)INT32_MAX ? (int32_t)delta : INT32_MAX;

	if (__builtin_expect(c->rare, 0)) {
		if (c->fit == 1)
			return calib_fit_comp(c->fit_a, c->fit_b, delta);
		if (c->fit == 2 && delta > c->fit_h)
			return calib_cfit_comp(c->fit_a, c->fit_b, c->fit_h, c->sel[CALIB_NQ],
					       delta);
		if (c->wide)
			return calib_entry_cond(&t->e[t->resolved[i]], delta);
	}
	return c->sel[calib_step_count(c, d1)];
}

/* Text form (docs/calibration-format.md). Returns 0, or -1 when the stream
 * reports an error. */
int calib_table_write(const struct calib_table *t, FILE *f);

/*
 * Writes path. A regular file, or a path that does not exist, is replaced
 * through a new file "<path>.tmp.<random>" in the same directory (created
 * with O_EXCL, never through a symlink, mode 0644 less the umask) renamed
 * into place. Anything else - a symlink, a FIFO, a device such as
 * /dev/null - is opened and written where it leads, never replaced.
 * Returns 0 or -1 with err = "path: reason".
 */
int calib_table_write_file(const struct calib_table *t, const char *path, char *err, size_t errlen);

/*
 * Parses a table strictly; name is used in messages. On error returns -1
 * with err = "name:LINE: what is wrong" (t is left empty but valid: free
 * it). t must be initialised.
 */
int calib_table_parse(struct calib_table *t, FILE *f, const char *name, char *err, size_t errlen);

/* Opens and parses path, which must be a regular file: a FIFO, a device
 * (/dev/zero) or a directory is refused at once, without blocking. Returns
 * 0, or -1 with err set. */
int calib_table_read_file(struct calib_table *t, const char *path, char *err, size_t errlen);

/* "a FIFO", "a directory", "a character device"... for messages. */
const char *calib_file_kind(mode_t mode);

/*
 * Consistency problems a parsed table may still have: a key the table's
 * mode cannot produce, median or p10 below min, mean below min, an empty
 * fingerprint field, an unknown mode. Writes one problem per line into
 * report (cut to len) and returns their number (0 = clean).
 */
unsigned calib_table_check(const struct calib_table *t, char *report, size_t len);

/*
 * Merges src into dst: per key the smaller min, samples added, the smaller
 * non-zero env, comp recomputed, mean weighted by samples, median and p10
 * weighted averages (approximations). Returns 0; or -1 with err listing the
 * differing fingerprint fields (or units) when they differ and !force.
 */
int calib_table_merge(struct calib_table *dst, const struct calib_table *src, int force, char *err,
		      size_t errlen);

/* Copies src into dst (dst initialised). Returns 0 or -1 (out of memory). */
int calib_table_copy(struct calib_table *dst, const struct calib_table *src);

/*
 * Writes a key-by-key comparison of a and b to f (fingerprint differences,
 * then keys only in one table, then keys whose min, env or comp differ:
 * "KEY  min A -> B (+x%)  comp A -> B"). Returns the number of differing
 * keys, fingerprint fields and units.
 */
unsigned calib_table_diff(const struct calib_table *a, const struct calib_table *b, FILE *f);

/*
 * A digest (FNV-1a 64) of what a table says about each key (min, samples,
 * env, statistics, quantiles) and its fingerprint, independent of the
 * estimator in use: whether two tables would compensate alike. A tree
 * snapshot names the table its figures were compensated with by it.
 */
uint64_t calib_table_digest(const struct calib_table *t);

#endif
