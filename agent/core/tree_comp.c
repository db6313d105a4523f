/*
 * tree_comp.c - output=tree|both: the trees' compensation. The calibration
 * table jcal-post would pick for the trace, chosen at load
 * (common/calib_dir.c), the tree builder's hook that applies it
 * (common/calib_comp.h) one delta at a time or in batches, the counts of
 * what it did, and what the snapshot says of it (tree_recorder_internal.h).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "agent/core/tree_recorder_internal.h"
#include "agent/base/log.h"
#include "agent/core/trace_file.h"
#include "common/calib_comp.h"
#include "common/calib_dir.h"
#include "common/trace_reader.h"

/* The table, chosen when a recording with trees starts (before its trees
 * are made again); read-only once table_state is 1, until the next start,
 * when no event runs. */
static struct calib_table table;
static atomic_int table_state; /* 0 not chosen yet, 1 applied, 2 none */
static char table_path[1024], table_note[1600];
static uint64_t table_digest;
static atomic_uchar key_seen[SEQKEY_COUNT];

static int fp_meta(void *ctx, const char *key, const char *value)
{
	calib_fingerprint_set_meta(ctx, key, value);
	return 0;
}

/* The fingerprint from the meta records written so far. */
static int fingerprint_of(void *ctx, const uint8_t *chunks, size_t len)
{
	struct trace_visitor v;
	struct trace_result res;
	size_t at = 0;

	memset(&v, 0, sizeof(v));
	v.ctx = ctx;
	v.meta = fp_meta;
	while (at + TRACE_CHUNK_HEADER_LEN <= len) {
		const uint8_t *h = chunks + at;
		size_t n =
		    (size_t)h[8] | (size_t)h[9] << 8 | (size_t)h[10] << 16 | (size_t)h[11] << 24;

		if (at + TRACE_CHUNK_HEADER_LEN + n > len)
			return -1;
		memset(&res, 0, sizeof(res));
		trace_decode_chunk(h[4], h + TRACE_CHUNK_HEADER_LEN, n, &v, &res);
		at += TRACE_CHUNK_HEADER_LEN + n;
	}
	return 0;
}

/* What the agent tells whoever cannot read a table: how to fix it. */
#define TREE_COMP_FIX                                                                              \
	"give that user read access, set JCAL_CALIB_DIR for the JVM, or name a table it can "      \
	"read with calib=FILE; jcal start hands its caller's tables over (docs/live-profiling.md)"

/* No table: the trees keep raw figures, and the snapshot says why. */
static void none(const char *why)
{
	snprintf(table_note, sizeof(table_note), "%s", why);
	table_path[0] = '\0';
	jcal_info("trees are not compensated: %s", table_note);
	atomic_store(&table_state, 2);
}

static void applied(void)
{
	table_digest = calib_table_digest(&table);
	jcal_debug("trees compensated with %s (estimator %s)", table_path,
		   calib_estimator_name(CALIB_EST_DEFAULT));
	atomic_store_explicit(&table_state, 1, memory_order_release);
}

/* calib=FILE: that table, applied as asked (as jcal-post's --calib FILE),
 * with a warning when its fingerprint is another's. 0, or -1 + err. */
static int choose_file(const char *file, const struct calib_fingerprint *fp, char *err,
		       size_t errlen)
{
	uint32_t mask;
	char diff[512];

	if (calib_table_read_file(&table, file, err, errlen)) {
		int e = errno;
		calib_dir_explain(err, errlen, e, "the JVM", TREE_COMP_FIX);
		return -1;
	}
	calib_table_use_estimator(&table, CALIB_EST_DEFAULT);
	if (calib_table_prepare(&table)) {
		snprintf(err, errlen, "calib=%s: out of memory", file);
		return -1;
	}
	snprintf(table_path, sizeof(table_path), "%s", file);
	mask = calib_fingerprint_diff(&table.fp, fp);
	if (mask) {
		calib_fingerprint_diff_text(&table.fp, fp, mask, diff, sizeof(diff));
		jcal_warn("calibration table %s is for another host/JVM/metric; applied as asked "
			  "(table vs trace: %s)",
			  file, diff);
	}
	applied();
	return 0;
}

/* A directory searched by fingerprint: given (calib=DIR, must be there) or
 * the default one. 0 (a table or none, said), or -1 + err. */
static int choose_in(const char *dir, int given, const struct calib_fingerprint *fp, char *err,
		     size_t errlen)
{
	char why[1400];
	int r = calib_dir_exists(dir, why, sizeof(why));

	if (r == 0 && given) {
		snprintf(err, errlen, "calib=%s: no such file or directory", dir);
		return -1;
	}
	if (r > 0)
		r = calib_dir_load(dir, fp, CALIB_EST_DEFAULT, &table, table_path,
				   sizeof(table_path), NULL, 0, why, sizeof(why));
	if (r == 1) {
		applied();
		return 0;
	}
	if (r < 0) {
		calib_dir_explain(why, sizeof(why), errno, "the JVM", TREE_COMP_FIX);
		if (given) {
			snprintf(err, errlen, "calib=%s: %s", dir, why);
			return -1;
		}
		none(why);
		return 0;
	}
	snprintf(why, sizeof(why), "no calibration table for this host/JVM/metric in %.1100s", dir);
	none(why);
	return 0;
}

int tree_comp_choose_table(char *err, size_t errlen)
{
	static int table_made;
	struct calib_fingerprint fp;
	char dir[900];
	struct stat sb;

	if (!tree_recorder_on())
		return 0;
	/* at each recording's start: a table calibrated since the JVM started
	 * counts; the trees are emptied after this (tree_registry_reset) */
	atomic_store(&table_state, 0);
	if (table_made)
		calib_table_free(&table);
	table_made = 0;
	table_digest = 0;
	table_path[0] = table_note[0] = '\0';
	calib_fingerprint_clear(&fp);
	trace_file_definitions(fingerprint_of, &fp);
	if (calib_table_init(&table)) {
		none("out of memory for the table");
		return 0;
	}
	table_made = 1;
	if (jcal.opts.calib[0]) {
		if (!stat(jcal.opts.calib, &sb) && !S_ISDIR(sb.st_mode))
			return choose_file(jcal.opts.calib, &fp, err, errlen);
		return choose_in(jcal.opts.calib, 1, &fp, err, errlen);
	}
	if (calib_dir_default(dir, sizeof(dir))) {
		none("no calibration directory ($JCAL_CALIB_DIR and $HOME are unset)");
		return 0;
	}
	return choose_in(dir, 0, &fp, err, errlen);
}

/* The tree builder's compensation hook (ctx: the thread's tree). */
static int64_t compensate(void *ctx, const struct seqkey *key, unsigned metric, uint64_t raw)
{
	struct tree_thread *tt = ctx;
	struct calib_comp_result r;
	int64_t v;
	unsigned i;

	if (atomic_load_explicit(&table_state, memory_order_acquire) != 1) {
		tt->uncompensated += metric == 0 && !atomic_load(&table_state);
		return raw > INT64_MAX ? INT64_MAX : (int64_t)raw;
	}
	v = calib_comp_delta(&table, key, metric, raw, &r);
	if (!r.compensated)
		return v;
	if (r.match == CALIB_SIMILAR)
		tt->fallback_similar++;
	else if (r.match == CALIB_GLOBAL)
		tt->fallback_global++;
	tt->deltas++;
	tt->clamped += (uint64_t)r.clamped;
	i = seqkey_index(key);
	if (!atomic_load_explicit(&key_seen[i], memory_order_relaxed))
		atomic_store_explicit(&key_seen[i], 1, memory_order_relaxed);
	return v;
}

/* The hook's batch form: the deltas the builder gathered from its common
 * steps (the table applied). */
static void compensate_batch(void *ctx, const uint16_t *key, const uint64_t *delta, int64_t *out,
			     size_t n)
{
	struct tree_thread *tt = ctx;
	struct calib_comp_counts c = {0, 0, 0};

	if (calib_comp_batch(&table, key, delta, out, n, &c))
		return; /* the table could not be prepared: raw, not counted */
	for (size_t k = 0; k < n; k++)
		if (!atomic_load_explicit(&key_seen[key[k]], memory_order_relaxed))
			atomic_store_explicit(&key_seen[key[k]], 1, memory_order_relaxed);
	tt->deltas += n;
	tt->clamped += c.clamped;
	tt->fallback_similar += c.similar;
	tt->fallback_global += c.global;
}

/* The counts of the deltas the tree builder compensated itself through
 * the table (calltree_comp's table), handed over when the tree is flushed
 * (a snapshot, a fold, the thread's end). */
static void compensate_counted(void *ctx, const uint64_t *by_key, uint64_t clamped)
{
	struct tree_thread *tt = ctx;

	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		const uint64_t k = by_key[i];

		if (!k)
			continue;
		tt->deltas += k;
		tt->fallback_similar += k * table.step[i].similar;
		tt->fallback_global += k * table.step[i].global;
		if (!atomic_load_explicit(&key_seen[i], memory_order_relaxed))
			atomic_store_explicit(&key_seen[i], 1, memory_order_relaxed);
	}
	tt->clamped += clamped;
}

const struct calltree_comp *tree_comp_hook(struct tree_thread *tt, struct calltree_comp *comp)
{
	const int state = atomic_load_explicit(&table_state, memory_order_acquire);

	*comp = (struct calltree_comp){.fn = compensate, .ctx = tt, .batch = NULL};
	if (state == 1) {
		comp->batch = compensate_batch;
		/* applied inside the builder, as each delta comes: the trees'
		 * histograms then stay on its inline path (common/calltree.h) */
		if (table.prepared) {
			comp->table = &table;
			comp->counted = compensate_counted;
		}
	}
	return state == 2 ? NULL : comp;
}

int tree_comp_applied(void)
{
	return atomic_load(&table_state) == 1;
}

void tree_comp_info(struct tree_comp_info *info)
{
	memset(info, 0, sizeof(*info));
	info->state = atomic_load(&table_state);
	info->path = table_path;
	info->note = table_note;
	if (info->state != 1)
		return;
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		struct seqkey k;

		if (!atomic_load_explicit(&key_seen[i], memory_order_relaxed))
			continue;
		info->keys_seen++;
		seqkey_from_index(i, &k);
		info->keys_found += calib_table_get(&table, &k) != NULL;
	}
	info->digest = table_digest;
	info->keys_in_table = table.nkeys;
}

void tree_comp_reset(void)
{
	for (unsigned i = 0; i < SEQKEY_COUNT; i++)
		atomic_store_explicit(&key_seen[i], 0, memory_order_relaxed);
}
