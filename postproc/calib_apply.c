/*
 * calib_apply.c - chooses the calibration table for a trace and applies it
 * per delta through the tree builder's hook (see calib_apply.h).
 */
#include "postproc/calib_apply.h"

#include "common/calib_comp.h"
#include "common/calib_dir.h"
#include "common/calib_derive.h"
#include "common/lib_locate.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int calib_apply_init(struct calib_apply *a)
{
	memset(a, 0, sizeof(*a));
	return calib_table_init(&a->table);
}

void calib_apply_free(struct calib_apply *a)
{
	calib_table_free(&a->table);
	memset(a, 0, sizeof(*a));
}

/* The counts are kept with atomic adds: trees of several threads may be
 * built at once (tree_workers.h). */
#define COUNT(field, v) __atomic_fetch_add(&(field), (v), __ATOMIC_RELAXED)

/* The first delta of key i: the key counts as seen (and found or not). */
static void key_seen(struct calib_apply *a, unsigned i)
{
	struct seqkey sk;

	if (__atomic_load_n(&a->seen[i], __ATOMIC_RELAXED) ||
	    __atomic_exchange_n(&a->seen[i], 1, __ATOMIC_RELAXED))
		return;
	seqkey_from_index(i, &sk);
	COUNT(a->keys_seen, 1);
	COUNT(a->keys_found, calib_table_get(&a->table, &sk) != NULL);
}

int64_t calib_apply_comp(void *ctx, const struct seqkey *key, unsigned metric, uint64_t raw_delta)
{
	struct calib_apply *a = ctx;
	struct calib_comp_result r;
	int64_t v = calib_comp_delta(&a->table, key, metric, raw_delta, &r);

	if (!r.compensated)
		return v;
	if (r.match == CALIB_SIMILAR)
		COUNT(a->fallback_similar, 1);
	else if (r.match == CALIB_GLOBAL)
		COUNT(a->fallback_global, 1);
	key_seen(a, seqkey_index(key));
	COUNT(a->deltas, 1);
	COUNT(a->clamped, (uint64_t)r.clamped);
	return v;
}

void calib_apply_counts_reset(struct calib_apply *a)
{
	a->deltas = a->clamped = a->fallback_similar = a->fallback_global = 0;
}

void calib_apply_comp_batch(void *ctx, const uint16_t *key, const uint64_t *delta, int64_t *out,
			    size_t n)
{
	struct calib_apply *a = ctx;
	struct calib_comp_counts c = {0, 0, 0};

	if (calib_comp_batch(&a->table, key, delta, out, n, &c))
		return; /* no table to apply (out of memory): raw, not counted */
	for (size_t k = 0; k < n; k++)
		if (__builtin_expect(!__atomic_load_n(&a->seen[key[k]], __ATOMIC_RELAXED), 0))
			key_seen(a, key[k]);
	COUNT(a->fallback_similar, c.similar);
	COUNT(a->fallback_global, c.global);
	COUNT(a->clamped, c.clamped);
	COUNT(a->deltas, n);
}

void calib_apply_counted(void *ctx, const uint64_t *deltas_by_key, uint64_t clamped)
{
	struct calib_apply *a = ctx;
	uint64_t n = 0, similar = 0, global = 0;

	if (!a->table.prepared)
		return; /* the builder takes a table only once it is prepared */
	/* each ended thread hands its counts over: most keys are 0, skipped
	 * eight at a time */
	for (unsigned i0 = 0; i0 < SEQKEY_COUNT; i0 += 8) {
		const unsigned i1 = i0 + 8 < SEQKEY_COUNT ? i0 + 8 : SEQKEY_COUNT;
		uint64_t any = 0;

		for (unsigned i = i0; i < i1; i++)
			any |= deltas_by_key[i];
		for (unsigned i = i0; any && i < i1; i++) {
			const uint64_t k = deltas_by_key[i];

			if (!k)
				continue;
			n += k;
			similar += k * a->table.step[i].similar;
			global += k * a->table.step[i].global;
			key_seen(a, i);
		}
	}
	COUNT(a->fallback_similar, similar);
	COUNT(a->fallback_global, global);
	COUNT(a->clamped, clamped);
	COUNT(a->deltas, n);
}

/* Where libjcal.so is, for the hint: the library the jcal launcher beside
 * this jcal-post would load (lib_locate: beside it in the build tree, or
 * ../lib/jcal/ in an installed copy, docs/install.md). */
static void agent_path(char *buf, size_t len)
{
	char exe[PATH_MAX], err[PATH_MAX + 128], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	if (!slash || lib_locate(NULL, NULL, exe, buf, len, err, sizeof(err)))
		snprintf(buf, len, ".../libjcal.so");
}

void calib_apply_hint(const struct calib_hint *h, char *buf, size_t len)
{
	char agent[PATH_MAX], java[PATH_MAX + 16] = "java", opts[256] = "";

	agent_path(agent, sizeof(agent));
	if (h->java_home && *h->java_home)
		snprintf(java, sizeof(java), "%s/bin/java", h->java_home);
	if (h->mode && *h->mode && strcmp(h->mode, "events"))
		snprintf(opts, sizeof(opts), ",mode=%s", h->mode);
	/* metric=auto chooses the same metric again on the same host; a metric
	 * the trace asked for must be asked for again. */
	if (h->metrics && *h->metrics && h->metric_why && strncmp(h->metric_why, "auto", 4)) {
		size_t n = strlen(opts);
		snprintf(opts + n, sizeof(opts) - n, ",metric=%s", h->metrics);
	}
	/* the agent's default clock is agentfree */
	if (!h->clock || strcmp(h->clock, "agentfree")) {
		size_t n = strlen(opts);
		snprintf(opts + n, sizeof(opts) - n, ",clock=raw");
	}
	snprintf(buf, len, "%s%s -agentpath:%s=calibrate%s", java,
		 h->exec && !strcmp(h->exec, "interpreted mode") ? " -Xint" : "", agent, opts);
}

static enum calib_select none(char *msg, size_t len, const char *why)
{
	snprintf(msg, len, "%s; figures are raw", why);
	return CALIB_SEL_NONE;
}

static enum calib_select load(struct calib_apply *a, const char *path, char *msg, size_t len)
{
	if (calib_table_read_file(&a->table, path, msg, len))
		return CALIB_SEL_ERROR;
	if (calib_table_prepare(&a->table)) {
		snprintf(msg, len, "%s: out of memory", path);
		return CALIB_SEL_ERROR;
	}
	snprintf(a->path, sizeof(a->path), "%s", path);
	a->active = 1;
	return CALIB_SEL_APPLIED;
}

enum calib_select calib_apply_inrun(struct calib_apply *a, const char *trace_path, char *msg,
				    size_t len)
{
	struct calib_derive_info info;

	calib_table_free(&a->table);
	if (calib_derive_file(trace_path, &a->table, &info, msg, len))
		return CALIB_SEL_ERROR;
	if (!info.calib_thread[0]) {
		snprintf(msg, len,
			 "--calib inrun: %s has no in-run calibration (trace with "
			 "recalibrate=start, end, both or a period; a burst cut short by "
			 "the end of the run leaves none)",
			 trace_path);
		return CALIB_SEL_ERROR;
	}
	if (calib_table_prepare(&a->table)) {
		snprintf(msg, len, "%s: out of memory", trace_path);
		return CALIB_SEL_ERROR;
	}
	snprintf(a->path, sizeof(a->path), "in-run calibration of %s (%u keys, %llu samples)",
		 trace_path, a->table.nkeys, (unsigned long long)info.deltas);
	a->fp_known = 1;
	a->fp_match = 1;
	a->active = 1;
	return CALIB_SEL_APPLIED;
}

int calib_apply_clock_differs(const struct calib_table *t, const char *table_path,
			      const struct calib_fingerprint *trace_fp, char *msg, size_t len)
{
	const char *tc = t->fp.field[CALIB_FP_CLOCK], *rc = trace_fp->field[CALIB_FP_CLOCK];

	if (!strcmp(tc, rc))
		return 0;
	snprintf(msg, len,
		 "calibration table %s was measured with clock=%s, the trace with clock=%s: "
		 "not applied (a table holds the overhead its own clock leaves in the figures)",
		 table_path, tc, rc);
	return 1;
}

/* No table of trace_fp in dir: the note, naming a table that differs from
 * it only in the clock when there is one. */
static enum calib_select none_in_dir(const char *dir, const struct calib_fingerprint *trace_fp,
				     char *msg, size_t len)
{
	struct calib_fingerprint other = *trace_fp;
	char path[PATH_MAX], err[256], why[2 * PATH_MAX + 1024];
	const char *clock = trace_fp->field[CALIB_FP_CLOCK];

	snprintf(other.field[CALIB_FP_CLOCK], sizeof(other.field[CALIB_FP_CLOCK]), "%s",
		 strcmp(clock, "raw") ? "raw" : "agentfree");
	if (calib_dir_find(dir, &other, path, sizeof(path), NULL, 0, err, sizeof(err)) > 0)
		snprintf(why, sizeof(why),
			 "no calibration table for this host/JVM/metric and clock=%s in %s (%s "
			 "was measured with clock=%s: not applied)",
			 clock, dir, path, other.field[CALIB_FP_CLOCK]);
	else
		snprintf(why, sizeof(why), "no calibration table for this host/JVM/metric in %s",
			 dir);
	return none(msg, len, why);
}

/* What jcal-post tells whoever cannot read a table. */
#define CALIB_APPLY_FIX                                                                            \
	"give that user read access, name a table it can read with --calib FILE, or --raw"

enum calib_select calib_apply_select(struct calib_apply *a, const char *calib,
				     const struct calib_fingerprint *trace_fp, char *msg,
				     size_t len)
{
	char dir[PATH_MAX], path[PATH_MAX], why[PATH_MAX + 128];
	struct stat sb;
	int r;

	if (calib && !stat(calib, &sb) && !S_ISDIR(sb.st_mode))
		return load(a, calib, msg, len);
	if (calib)
		snprintf(dir, sizeof(dir), "%s", calib);
	else if (calib_dir_default(dir, sizeof(dir)))
		return none(msg, len,
			    "no calibration directory ($JCAL_CALIB_DIR and $HOME are unset)");
	if (!trace_fp) {
		snprintf(why, sizeof(why),
			 "the trace comes from stdin, so the calibration directory %s cannot be "
			 "searched for its table (name one with --calib FILE)",
			 dir);
		return none(msg, len, why);
	}
	if (stat(dir, &sb)) {
		if (calib) {
			snprintf(msg, len, "--calib %s: %s", calib, strerror(errno));
			return CALIB_SEL_ERROR;
		}
		/* there but out of reach (EACCES on the way): the real cause */
		if (calib_dir_exists(dir, msg, len) < 0) {
			calib_dir_explain(msg, len, errno, "jcal-post", CALIB_APPLY_FIX);
			return CALIB_SEL_ERROR;
		}
		snprintf(why, sizeof(why), "no calibration table for this host/JVM/metric in %s",
			 dir);
		return none(msg, len, why);
	}
	/* the estimator is chosen by the caller (calib_table_use_estimator) */
	r = calib_dir_load(dir, trace_fp, CALIB_EST_MIN, &a->table, path, sizeof(path), a->skipped,
			   sizeof(a->skipped), msg, len);
	if (r < 0) {
		calib_dir_explain(msg, len, errno, "jcal-post", CALIB_APPLY_FIX);
		return CALIB_SEL_ERROR;
	}
	if (r == 0)
		return none_in_dir(dir, trace_fp, msg, len);
	snprintf(a->path, sizeof(a->path), "%s", path);
	a->active = 1;
	calib_apply_check_fingerprint(a, trace_fp, msg, len);
	return CALIB_SEL_APPLIED;
}

int calib_apply_check_fingerprint(struct calib_apply *a, const struct calib_fingerprint *trace_fp,
				  char *msg, size_t len)
{
	uint32_t mask = calib_fingerprint_diff(&a->table.fp, trace_fp);

	a->fp_known = 1;
	a->fp_match = !mask;
	a->fp_diff[0] = '\0';
	if (!mask)
		return 0;
	calib_fingerprint_diff_text(&a->table.fp, trace_fp, mask, a->fp_diff, sizeof(a->fp_diff));
	snprintf(msg, len,
		 "calibration table %s is for another host/JVM/metric; applied as asked "
		 "(table vs trace: %s)",
		 a->path, a->fp_diff);
	return 1;
}

void calib_apply_describe(const struct calib_apply *a, char *buf, size_t len)
{
	if (!a->active)
		snprintf(buf, len, "none (raw figures)");
	else if (!a->fp_known)
		snprintf(buf, len, "%s", a->path);
	else if (a->fp_match)
		snprintf(buf, len, "%s (fingerprint matches)", a->path);
	else
		snprintf(buf, len, "%s (fingerprint differs: %s)", a->path, a->fp_diff);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

int calib_apply_compare(struct calib_apply *a, const char *path, enum calib_estimator est)
{
	struct calib_table ref;
	char err[512];
	double *shift;
	unsigned n = 0;

	if (calib_table_init(&ref) || calib_table_read_file(&ref, path, err, sizeof(err))) {
		calib_table_free(&ref);
		return -1;
	}
	calib_table_use_estimator(&ref, est);
	shift = malloc(SEQKEY_COUNT * sizeof(*shift));
	if (!shift) {
		calib_table_free(&ref);
		return -1;
	}
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		struct seqkey k;
		const struct calib_entry *mine, *theirs;

		seqkey_from_index(i, &k);
		mine = calib_table_get(&a->table, &k);
		theirs = calib_table_get(&ref, &k);
		if (mine && theirs && theirs->comp > 0)
			shift[n++] =
			    ((double)mine->comp - (double)theirs->comp) / (double)theirs->comp;
	}
	if (n) {
		qsort(shift, n, sizeof(*shift), cmp_double);
		a->has_ref = 1;
		snprintf(a->ref_path, sizeof(a->ref_path), "%s", path);
		a->shift_keys = n;
		a->shift_median = n % 2 ? shift[n / 2] : (shift[n / 2 - 1] + shift[n / 2]) / 2;
		a->shift_low = shift[0];
		a->shift_high = shift[n - 1];
	}
	free(shift);
	calib_table_free(&ref);
	return 0;
}
