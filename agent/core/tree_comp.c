/*
 * tree_comp.c - output=tree|both: the trees' compensation. The calibration
 * table jcal-post would pick for the trace, chosen at load
 * (common/calib_dir.c), the tree builder's hook that applies it
 * (common/calib_comp.h) one delta at a time or in batches, the counts of
 * what it did, and what the snapshot says of it (tree_recorder_internal.h).
 */
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

/* The table, chosen when the agent loads (before any tree); read-only once
 * table_state is 1. */
static struct calib_table table;
static atomic_int table_state; /* 0 not chosen yet, 1 applied, 2 none */
static char table_path[1024], table_note[1200];
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

void tree_comp_choose_table(void)
{
	struct calib_fingerprint fp;
	char dir[900], err[1024];
	struct stat sb;
	int r;

	if (!tree_recorder_on() || atomic_load(&table_state))
		return;
	calib_fingerprint_clear(&fp);
	trace_file_definitions(fingerprint_of, &fp);
	if (calib_table_init(&table)) {
		snprintf(table_note, sizeof(table_note), "out of memory for the table");
		atomic_store(&table_state, 2);
		return;
	}
	if (calib_dir_default(dir, sizeof(dir))) {
		snprintf(table_note, sizeof(table_note),
			 "no calibration directory ($JCAL_CALIB_DIR and $HOME are unset)");
		atomic_store(&table_state, 2);
		return;
	}
	/* as jcal-post: a directory that does not exist holds no table */
	r = stat(dir, &sb) ? 0
			   : calib_dir_load(dir, &fp, CALIB_EST_DEFAULT, &table, table_path,
					    sizeof(table_path), NULL, 0, err, sizeof(err));
	if (r == 1) {
		table_digest = calib_table_digest(&table);
		jcal_debug("trees compensated with %s (estimator %s)", table_path,
			   calib_estimator_name(CALIB_EST_DEFAULT));
		atomic_store_explicit(&table_state, 1, memory_order_release);
		return;
	}
	if (r < 0)
		snprintf(table_note, sizeof(table_note), "%.1100s", err);
	else
		snprintf(table_note, sizeof(table_note),
			 "no calibration table for this host/JVM/metric in %.1100s", dir);
	table_path[0] = '\0';
	jcal_info("trees are not compensated: %s", table_note);
	atomic_store(&table_state, 2);
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

const struct calltree_comp *tree_comp_hook(struct tree_thread *tt, struct calltree_comp *comp)
{
	const int state = atomic_load_explicit(&table_state, memory_order_acquire);

	*comp = (struct calltree_comp){.fn = compensate, .ctx = tt, .batch = NULL};
	if (state == 1)
		comp->batch = compensate_batch;
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
