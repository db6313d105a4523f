/*
 * tree_recorder.c - output=tree|both: the Java threads' calling-context
 * trees kept in the agent, their compensation, folding and snapshots (see
 * tree_recorder.h).
 */
#include "agent/core/tree_recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent/core/agent_state.h"
#include "common/calib_comp.h"
#include "common/calib_dir.h"
#include "common/calltree.h"
#include "common/calltree_fold.h"
#include "agent/base/log.h"
#include "agent/core/method_table.h"
#include "common/safe_open.h"
#include "agent/core/trace_file.h"
#include "common/trace_reader.h"
#include "common/tree_snapshot.h"

struct tree_thread {
	pthread_mutex_t lock; /* the tree (see trees_want); the thread's definition */
	/* the owning thread's events without the lock: one runs (busy);
	 * another thread needs the tree (want; see trees_want) */
	atomic_int busy, want;
	uint32_t serial;
	int ended;
	int idle;	 /* no event since a new recording began: not in its snapshots */
	int failed;	 /* out of memory: the tree takes no more events */
	uint64_t lost;	 /* events it could not take */
	int64_t counted; /* its contexts as counted in contexts_total */
	struct calltree tree;
	/* compensation counts (calib_comp.h) */
	uint64_t deltas, clamped, fallback_similar, fallback_global, uncompensated;
	/* output=tree: the thread's definition, written with the tree */
	int defined, end_known;
	uint64_t java_tid, start_ns, end_ns, end_events;
	uint32_t os_tid, tflags;
	char *name;
	uint64_t start_metric[JCAL_MAX_METRICS], end_metric[JCAL_MAX_METRICS];
	struct tree_thread *next;	/* registry */
	struct tree_thread *ended_next; /* ended trees kept, in end order */
};

/* Ended threads whose trees stay their own: the most recently ended ones;
 * past them, the tree of the longest ended is merged into one "<ended
 * threads>" tree, so that memory follows calling contexts, not threads
 * started, and the threads that end last (main) keep theirs
 * (docs/agent-internals.md, "output=tree"). */
#define ENDED_KEPT_MAX 256
#define ENDED_ALL_NAME "<ended threads>"

static int trees_on;
static pthread_mutex_t registry_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t fold_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct tree_thread *registry;

/* Contexts of all trees (roots not counted), and the count at which the
 * next fold starts (maxcontexts=, with hysteresis). */
static atomic_int_fast64_t contexts_total;
static atomic_int_fast64_t fold_at;
static atomic_uint_fast64_t folds;
/* Under registry_mutex: the ended threads kept as their own, longest
 * ended first, the merged tree of the others (in the registry too) and
 * how many it holds. */
static unsigned ended_kept;
static struct tree_thread *ended_head, *ended_tail;
static struct tree_thread *ended_all;
static uint64_t ended_merged;

/* The table, chosen when the agent loads (before any tree); read-only once
 * table_state is 1. */
static struct calib_table table;
static atomic_int table_state; /* 0 not chosen yet, 1 applied, 2 none */
static char table_path[1024], table_note[1200];
static uint64_t table_digest;
static atomic_uchar key_seen[SEQKEY_COUNT];

static char snapshot_path[JCAL_OPT_PATH_MAX + 8];

int tree_recorder_init(const char *path, char *err, size_t errlen)
{
	char tmp[sizeof(snapshot_path) + 64], why[1200];
	struct stat st;
	int fd;

	if ((size_t)snprintf(snapshot_path, sizeof(snapshot_path), "%s", path) >=
	    sizeof(snapshot_path)) {
		snprintf(err, errlen, "snapshot file name too long: %s", path);
		return -1;
	}
	/* another user's file at the name would not be replaced at the end
	 * (safe_open.h): said now rather than after the run */
	if (safe_open_check(path, &st, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "cannot write the tree snapshot to %s: %s", path, why);
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld.check", path, (long)getpid());
	fd = safe_open_new(tmp, O_WRONLY, 0600, why, sizeof(why));
	if (fd < 0) {
		snprintf(err, errlen, "cannot write the tree snapshot to %s: %s", path, why);
		return -1;
	}
	close(fd);
	unlink(tmp);
	trees_on = 1;
	atomic_store(&fold_at, (int_fast64_t)jcal.opts.maxcontexts);
	return 0;
}

int tree_recorder_on(void)
{
	return trees_on;
}

/* ---- the table ---- */

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

void tree_recorder_choose_table(void)
{
	struct calib_fingerprint fp;
	char dir[900], err[1024];
	struct stat sb;
	int r;

	if (!trees_on || atomic_load(&table_state))
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

/* How tt's tree is compensated: through the hook, and, with a table, the
 * builder's common steps in batches (compensate_batch; calltree_flush
 * charges what waits before the tree is read). NULL (raw figures, no hook)
 * when there is no table: chosen at load, before any tree. */
static const struct calltree_comp *tree_comp(struct tree_thread *tt, struct calltree_comp *comp)
{
	const int state = atomic_load_explicit(&table_state, memory_order_acquire);

	*comp = (struct calltree_comp){.fn = compensate, .ctx = tt, .batch = NULL};
	if (state == 1)
		comp->batch = compensate_batch;
	return state == 2 ? NULL : comp;
}

/* ---- threads and events ---- */

/*
 * Who touches a thread's tree. Its own thread's events do, one at a time;
 * dumps, folds, status and the thread's end do from other threads, under
 * tt->lock. Where membarrier(2) is registered (jcal.membarrier) an event
 * takes no lock: it sets busy (a plain store and a compiler barrier), then
 * goes on alone unless want is raised, in which case it clears busy and
 * takes the lock. Another thread raises want, has every running thread of
 * the process execute a full memory barrier (MEMBARRIER_CMD_PRIVATE_EXPEDITED),
 * takes the lock and waits until busy is clear: either the event saw want,
 * or the other thread sees it busy (the asymmetric fence of the event
 * path's shutdown handshake, event_recorder.c). A pass over every tree
 * (a dump, a fold) raises want on all of them and pays one membarrier
 * (microseconds, more in a VM); the lock it saves costs every event tens
 * of nanoseconds. Without membarrier every event takes the lock. An ended
 * thread's tree takes no more events: the lock alone.
 */

/* After raising want: every running thread executes a full barrier, so
 * that an event either saw want or left busy visible. */
static void fence_events(void)
{
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
		jcal_warn("membarrier failed: %s", strerror(errno));
}

/* Under registry_mutex: raises (up > 0) or lowers want on every tree that
 * takes events; after raising, the barrier, so that tree_take() may follow. */
static void trees_want(int up)
{
	if (!jcal.membarrier)
		return;
	for (struct tree_thread *tt = registry; tt; tt = tt->next)
		if (!tt->ended)
			atomic_fetch_add(&tt->want, up > 0 ? 1 : -1);
	if (up > 0)
		fence_events();
}

/* tt for this thread alone, want raised (trees_want, or tree_lock), its
 * deferred charges made. */
static void tree_take(struct tree_thread *tt)
{
	pthread_mutex_lock(&tt->lock);
	if (jcal.membarrier && !tt->ended)
		for (unsigned i = 0; atomic_load_explicit(&tt->busy, memory_order_acquire); i++)
			if (i >= 64)
				sched_yield();
	calltree_flush(&tt->tree);
}

static void tree_give(struct tree_thread *tt)
{
	pthread_mutex_unlock(&tt->lock);
}

/* One tree, outside a pass (registry_mutex held: tt->ended stays). */
static void tree_lock(struct tree_thread *tt)
{
	if (jcal.membarrier && !tt->ended) {
		atomic_fetch_add(&tt->want, 1);
		fence_events();
	}
	tree_take(tt);
}

static void tree_unlock(struct tree_thread *tt, int was_ended)
{
	if (jcal.membarrier && !was_ended)
		atomic_fetch_sub(&tt->want, 1);
	tree_give(tt);
}

/* An event of tt's own thread begins: returns 1 when it took tt->lock
 * (event_done() gives it back), 0 when it runs alone under busy; *waited
 * is set when it found the tree held by another thread. */
static int event_begin(struct tree_thread *tt, int *waited)
{
	if (jcal.membarrier) {
		atomic_store_explicit(&tt->busy, 1, memory_order_relaxed);
		atomic_signal_fence(memory_order_seq_cst);
		if (!atomic_load_explicit(&tt->want, memory_order_relaxed))
			return 0;
		atomic_store_explicit(&tt->busy, 0, memory_order_release);
		*waited = 1;
	}
	if (pthread_mutex_trylock(&tt->lock)) {
		*waited = 1;
		pthread_mutex_lock(&tt->lock);
	}
	return 1;
}

static void event_done(struct tree_thread *tt, int locked)
{
	if (locked)
		pthread_mutex_unlock(&tt->lock);
	else
		atomic_store_explicit(&tt->busy, 0, memory_order_release);
}

/* A tree for thread serial, not in the registry yet; compensated by the
 * table (a thread's) or not (the merged tree, which takes no events). */
static struct tree_thread *thread_alloc(uint32_t serial, unsigned nmetrics, int compensated)
{
	struct tree_thread *tt = calloc(1, sizeof(*tt));
	struct calltree_comp comp;

	if (!tt)
		return NULL;
	tt->serial = serial;
	if (calltree_init(&tt->tree, nmetrics ? nmetrics : 1,
			  compensated ? tree_comp(tt, &comp) : NULL) ||
	    pthread_mutex_init(&tt->lock, NULL)) {
		calltree_free(&tt->tree);
		free(tt);
		return NULL;
	}
	return tt;
}

struct tree_thread *tree_recorder_thread_new(uint32_t serial, unsigned nmetrics)
{
	struct tree_thread *tt = thread_alloc(serial, nmetrics, 1);

	if (!tt)
		return NULL;
	pthread_mutex_lock(&registry_mutex);
	tt->next = registry;
	registry = tt;
	pthread_mutex_unlock(&registry_mutex);
	return tt;
}

static int64_t recount_locked(struct tree_thread *tt);

/* Under registry_mutex: the "<ended threads>" tree, created with its
 * thread definition on first use. NULL when memory runs out. */
static struct tree_thread *ended_tree(unsigned nmetrics)
{
	struct tree_thread *tt;
	uint64_t zero[JCAL_MAX_METRICS] = {0};
	struct timespec now;

	if (ended_all)
		return ended_all;
	tt = thread_alloc(atomic_fetch_add(&jcal.next_serial, 1), nmetrics, 0);
	if (!tt)
		return NULL;
	tt->ended = 1;
	clock_gettime(CLOCK_REALTIME, &now);
	/* defined in the snapshots only, never in a trace file */
	tree_recorder_thread_start(tt, 0, 0, 0,
				   (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec,
				   ENDED_ALL_NAME, zero);
	tt->next = registry;
	registry = tt;
	ended_all = tt;
	return tt;
}

static void free_thread(struct tree_thread *tt)
{
	calltree_free(&tt->tree);
	pthread_mutex_destroy(&tt->lock);
	free(tt->name);
	free(tt);
}

void tree_recorder_thread_start(struct tree_thread *tt, uint64_t java_tid, uint32_t os_tid,
				uint32_t flags, uint64_t time_ns, const char *name,
				const uint64_t *metric)
{
	char *copy = strdup(name ? name : "");

	if (!tt) {
		free(copy);
		return;
	}
	pthread_mutex_lock(&tt->lock);
	if (!tt->defined) {
		tt->os_tid = os_tid;
		tt->tflags = flags;
		tt->start_ns = time_ns;
		if (metric)
			memcpy(tt->start_metric, metric, sizeof(tt->start_metric));
	}
	if (java_tid)
		tt->java_tid = java_tid;
	if (copy) {
		free(tt->name);
		tt->name = copy;
	}
	tt->defined = 1;
	pthread_mutex_unlock(&tt->lock);
}

void tree_recorder_thread_end(struct tree_thread *tt, uint64_t time_ns, uint64_t events,
			      const uint64_t *metric)
{
	if (!tt)
		return;
	pthread_mutex_lock(&tt->lock);
	tt->end_known = 1;
	tt->end_ns = time_ns;
	tt->end_events = events;
	memcpy(tt->end_metric, metric, sizeof(tt->end_metric));
	pthread_mutex_unlock(&tt->lock);
}

/* The thread's definition before its tree in a snapshot (tt locked). */
static void write_definition(struct trace_recbuf *rb, const struct tree_thread *tt)
{
	if (!tt->defined)
		return;
	trace_rec_thread_start(rb, tt->serial, tt->java_tid, tt->os_tid, tt->tflags, tt->start_ns,
			       tt->name ? tt->name : "", tt->tree.nmetrics, tt->start_metric);
	if (tt->end_known)
		trace_rec_thread_end(rb, tt->serial, tt->end_ns, tt->end_events, tt->tree.nmetrics,
				     tt->end_metric);
}

/* Under registry_mutex, tt ended and locked: merges its tree and counts
 * into the "<ended threads>" tree. Returns 0, or -1 (tt stays as it is). */
static int merge_ended(struct tree_thread *tt)
{
	struct tree_thread *all = ended_tree(tt->tree.nmetrics);

	if (!all)
		return -1;
	tree_take(all); /* ended: takes no events */
	if (calltree_merge(&all->tree, &tt->tree)) {
		tree_give(all);
		return -1;
	}
	all->lost += tt->lost;
	all->deltas += tt->deltas;
	all->clamped += tt->clamped;
	all->fallback_similar += tt->fallback_similar;
	all->fallback_global += tt->fallback_global;
	all->uncompensated += tt->uncompensated;
	atomic_fetch_add(&contexts_total, recount_locked(all) - tt->counted);
	tree_give(all);
	ended_merged++;
	return 0;
}

/* Under registry_mutex: takes tt out of the registry and frees it. */
static void drop_thread(struct tree_thread *tt)
{
	struct tree_thread **pp;

	for (pp = &registry; *pp && *pp != tt; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = tt->next;
	free_thread(tt);
}

void tree_recorder_thread_ended(struct tree_thread *tt)
{
	int was_ended;

	if (!tt)
		return;
	pthread_mutex_lock(&registry_mutex);
	was_ended = tt->ended;
	tree_lock(tt);
	tt->ended = 1;
	/* A tree with no event in this recording holds nothing: it goes. */
	if (tt->idle) {
		atomic_fetch_sub(&contexts_total, tt->counted);
		tree_unlock(tt, was_ended);
		drop_thread(tt);
		pthread_mutex_unlock(&registry_mutex);
		return;
	}
	tree_unlock(tt, was_ended);
	tt->ended_next = NULL;
	if (ended_tail)
		ended_tail->ended_next = tt;
	else
		ended_head = tt;
	ended_tail = tt;
	ended_kept++;
	while (ended_kept > ENDED_KEPT_MAX) {
		struct tree_thread *old = ended_head;
		int rc;

		tree_take(old);
		rc = merge_ended(old);
		tree_give(old);
		if (rc)
			break; /* out of memory: kept as it is */
		ended_head = old->ended_next;
		if (!ended_head)
			ended_tail = NULL;
		ended_kept--;
		drop_thread(old);
	}
	pthread_mutex_unlock(&registry_mutex);
}

/* Brings contexts_total up to date with tt's tree (tt locked). */
static int64_t recount_locked(struct tree_thread *tt)
{
	int64_t now = (int64_t)tt->tree.nnodes - 1, d = now - tt->counted;

	tt->counted = now;
	return d;
}

static void fold_all(void);

int tree_recorder_event(struct tree_thread *tt, uint32_t method, unsigned transition, unsigned type,
			const uint64_t *metric)
{
	int64_t added = 0;
	int rare = 0, locked;

	if (!tt)
		return 0;
	locked = event_begin(tt, &rare); /* rare: a snapshot or a fold held it */
	tt->idle = 0;
	if (tt->failed) {
		tt->lost++;
	} else if (calltree_event(&tt->tree, method, transition, type, metric)) {
		/* out of memory: the tree stays as it was before this event */
		tt->failed = 1;
		tt->lost++;
	}
	if (tt->tree.nnodes - 1 != (uint32_t)tt->counted) {
		added = recount_locked(tt);
		rare = 1;
	}
	event_done(tt, locked);
	if (added && (atomic_fetch_add(&contexts_total, added) + added) > atomic_load(&fold_at) &&
	    jcal.opts.maxcontexts)
		fold_all();
	return rare;
}

/* ---- maxcontexts= ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The heat below which contexts fold so that about `remove` of them go:
 * the heats of every foldable context of every tree, the remove-th
 * smallest + 1. 0 when nothing can fold or memory is short. Registry
 * mutex held. */
static uint64_t fold_cutoff(int64_t remove)
{
	uint64_t *all = NULL, cutoff = 0;
	size_t n = 0, cap = 0;

	for (struct tree_thread *tt = registry; tt; tt = tt->next) {
		uint64_t *heat;

		tree_take(tt);
		heat = malloc((size_t)tt->tree.nnodes * sizeof(*heat));
		if (heat && !calltree_fold_heat(&tt->tree, heat)) {
			for (uint32_t i = 0; i < tt->tree.nnodes; i++) {
				if (heat[i] == CALLTREE_FOLD_HOT)
					continue;
				if (n == cap) {
					size_t nc = cap ? 2 * cap : 4096;
					uint64_t *g = realloc(all, nc * sizeof(*all));

					if (!g)
						break;
					all = g;
					cap = nc;
				}
				all[n++] = heat[i];
			}
		}
		tree_give(tt);
		free(heat);
	}
	if (n) {
		qsort(all, n, sizeof(*all), cmp_u64);
		cutoff = all[(size_t)remove < n ? (size_t)remove - 1 : n - 1] + 1;
	}
	free(all);
	return cutoff;
}

/* Folds the coldest contexts of all trees down to half of maxcontexts=;
 * the next fold starts at maxcontexts=, or a quarter of it above what is
 * left if folding cannot go that low (open frames, pseudo-frames), so
 * that folds never come at every new context. One at a time: a thread
 * that finds a fold under way goes on with its events. */
static void fold_all(void)
{
	int64_t max = (int64_t)jcal.opts.maxcontexts, total, cutoff, left;

	if (pthread_mutex_trylock(&fold_mutex))
		return;
	total = atomic_load(&contexts_total);
	if (total <= atomic_load(&fold_at)) {
		pthread_mutex_unlock(&fold_mutex);
		return;
	}
	pthread_mutex_lock(&registry_mutex);
	trees_want(1);
	cutoff = (int64_t)fold_cutoff(total - max / 2);
	for (struct tree_thread *tt = registry; cutoff > 0 && tt; tt = tt->next) {
		uint64_t *heat;
		int64_t d;

		tree_take(tt);
		heat = malloc((size_t)tt->tree.nnodes * sizeof(*heat));
		if (heat && !calltree_fold_heat(&tt->tree, heat))
			calltree_fold(&tt->tree, heat, (uint64_t)cutoff);
		d = recount_locked(tt);
		tree_give(tt);
		free(heat);
		atomic_fetch_add(&contexts_total, d);
	}
	trees_want(-1);
	pthread_mutex_unlock(&registry_mutex);
	left = atomic_load(&contexts_total);
	atomic_store(&fold_at, left + max / 4 > max ? left + max / 4 : max);
	atomic_fetch_add(&folds, 1);
	jcal_debug("maxcontexts=%" PRId64 ": folded %" PRId64 " contexts into <cold contexts>, "
		   "%" PRId64 " left",
		   max, total - left, left);
	pthread_mutex_unlock(&fold_mutex);
}

/* What every tree holds, summed: for status, the end's line and the
 * snapshot's meta. */
struct tree_totals {
	uint64_t events, lost, folded_contexts, folded_calls;
	uint64_t deltas, clamped, similar, global, uncompensated; /* compensation counts */
};

/* Under registry_mutex, want raised (trees_want). Each tree's deferred
 * deltas are compensated and counted first (tree_take). */
static void trees_total(struct tree_totals *s)
{
	memset(s, 0, sizeof(*s));
	for (struct tree_thread *tt = registry; tt; tt = tt->next) {
		tree_take(tt);
		s->events += tt->tree.stats.events;
		s->lost += tt->lost;
		s->folded_contexts += tt->tree.stats.folded_contexts;
		s->folded_calls += tt->tree.stats.folded_calls;
		s->deltas += tt->deltas;
		s->clamped += tt->clamped;
		s->similar += tt->fallback_similar;
		s->global += tt->fallback_global;
		s->uncompensated += tt->uncompensated;
		tree_give(tt);
	}
}

/* trees_total() in a pass of its own. */
static void trees_total_now(struct tree_totals *s)
{
	pthread_mutex_lock(&registry_mutex);
	trees_want(1);
	trees_total(s);
	trees_want(-1);
	pthread_mutex_unlock(&registry_mutex);
}

void tree_recorder_counts(uint64_t *contexts, uint64_t *folded_contexts, uint64_t *folded_calls)
{
	struct tree_totals s;

	trees_total_now(&s);
	if (contexts) {
		int64_t n = atomic_load(&contexts_total);
		*contexts = n > 0 ? (uint64_t)n : 0;
	}
	if (folded_contexts)
		*folded_contexts = s.folded_contexts;
	if (folded_calls)
		*folded_calls = s.folded_calls;
}

void tree_recorder_reset(void)
{
	struct tree_thread **pp;

	pthread_mutex_lock(&fold_mutex);
	pthread_mutex_lock(&registry_mutex);
	trees_want(1);
	for (pp = &registry; *pp;) {
		struct tree_thread *tt = *pp;
		struct calltree_comp comp;

		tree_take(tt);
		if (tt->ended) {
			*pp = tt->next;
			tree_give(tt);
			free_thread(tt);
			continue;
		}
		unsigned nm = tt->tree.nmetrics;
		calltree_free(&tt->tree);
		tt->failed = calltree_init(&tt->tree, nm, tree_comp(tt, &comp)) != 0;
		tt->lost = tt->deltas = tt->clamped = tt->uncompensated = 0;
		tt->fallback_similar = tt->fallback_global = 0;
		tt->counted = 0;
		tt->idle = 1;
		tt->defined = tt->end_known = 0; /* defined again in the new recording */
		tree_give(tt);
		pp = &tt->next;
	}
	ended_all = NULL;
	ended_head = ended_tail = NULL;
	ended_kept = 0;
	ended_merged = 0;
	atomic_store(&contexts_total, 0);
	atomic_store(&fold_at, (int_fast64_t)jcal.opts.maxcontexts);
	atomic_store(&folds, 0);
	for (unsigned i = 0; i < SEQKEY_COUNT; i++)
		atomic_store_explicit(&key_seen[i], 0, memory_order_relaxed);
	trees_want(-1);
	pthread_mutex_unlock(&registry_mutex);
	pthread_mutex_unlock(&fold_mutex);
}

/* ---- snapshots ---- */

struct out {
	int fd;
	uint64_t bytes;
	int err; /* errno of the first failed write */
};

static int write_out(struct out *o, const uint8_t *p, size_t n)
{
	while (n > 0 && !o->err) {
		ssize_t w = write(o->fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			o->err = w < 0 ? errno : ENOSPC;
			break;
		}
		p += w;
		n -= (size_t)w;
		o->bytes += (uint64_t)w;
	}
	return o->err ? -EIO : 0;
}

static int flush_rb(void *ctx, struct trace_recbuf *rb)
{
	size_t n = trace_recbuf_finish(rb);
	int rc = n ? write_out(ctx, rb->buf, n) : 0;

	trace_recbuf_clear(rb);
	return rc;
}

static int write_defs(void *ctx, const uint8_t *chunks, size_t len)
{
	return write_out(ctx, chunks, len);
}

static void meta_u64(struct trace_recbuf *rb, const char *key, uint64_t v)
{
	char s[32];

	snprintf(s, sizeof(s), "%" PRIu64, v);
	trace_rec_meta(rb, key, s);
}

/* The snapshot's own meta records: what it is and how it was compensated. */
static void write_meta(struct trace_recbuf *rb, int at_end)
{
	uint64_t seen = 0, found = 0;
	struct tree_totals s;
	struct timespec now;
	char hex[24];
	int state = atomic_load(&table_state);

	trees_total(&s); /* dump() raised want */
	clock_gettime(CLOCK_REALTIME, &now);
	trace_rec_meta(rb, "snapshot", "tree");
	meta_u64(rb, "snapshot.time_ns",
		 (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec);
	trace_rec_meta(rb, "snapshot.when", at_end ? "end" : "dump");
	meta_u64(rb, "snapshot.maxcontexts", jcal.opts.maxcontexts);
	meta_u64(rb, "snapshot.folds", atomic_load(&folds));
	/* threads defined in the snapshot without a tree of their own: in
	 * "<ended threads>" */
	meta_u64(rb, "snapshot.ended_merged", ended_merged);
	meta_u64(rb, "snapshot.lost_events", s.lost);
	if (state == 1) {
		for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
			struct seqkey k;

			if (!atomic_load_explicit(&key_seen[i], memory_order_relaxed))
				continue;
			seen++;
			seqkey_from_index(i, &k);
			found += calib_table_get(&table, &k) != NULL;
		}
		trace_rec_meta(rb, "snapshot.calib.table", table_path);
		trace_rec_meta(rb, "snapshot.calib.estimator",
			       calib_estimator_name(CALIB_EST_DEFAULT));
		snprintf(hex, sizeof(hex), "%016" PRIx64, table_digest);
		trace_rec_meta(rb, "snapshot.calib.digest", hex);
		meta_u64(rb, "snapshot.calib.keys_in_table", table.nkeys);
		meta_u64(rb, "snapshot.calib.keys_seen", seen);
		meta_u64(rb, "snapshot.calib.keys_found", found);
		meta_u64(rb, "snapshot.calib.deltas", s.deltas);
		meta_u64(rb, "snapshot.calib.clamped", s.clamped);
		meta_u64(rb, "snapshot.calib.fallback_static", s.similar);
		meta_u64(rb, "snapshot.calib.fallback_global", s.global);
	} else {
		trace_rec_meta(rb, "snapshot.calib.note",
			       state ? table_note : "the JVM was not up yet: no table chosen");
	}
	meta_u64(rb, "snapshot.calib.uncompensated", s.uncompensated);
	if (!at_end && jcal.metrics.tsc_hz)
		meta_u64(rb, "tsc.hz", metric_set_tsc_hz_final(&jcal.metrics));
}

/* A copy of the parts of a tree tree_snapshot_write reads (tt locked):
 * serialising it then takes no lock. */
static int copy_tree(const struct calltree *t, struct calltree *c)
{
	const size_t nfigs = (size_t)t->nnodes * t->nmetrics;

	*c = *t;
	c->nodes = malloc((size_t)t->nnodes * sizeof(*c->nodes));
	c->figs = malloc(nfigs * sizeof(*c->figs));
	if (!c->nodes || !c->figs) {
		free(c->nodes);
		free(c->figs);
		return -1;
	}
	memcpy(c->nodes, t->nodes, (size_t)t->nnodes * sizeof(*c->nodes));
	memcpy(c->figs, t->figs, nfigs * sizeof(*c->figs));
	c->finished = 0;
	return 0;
}

/* Every tree, one after the other: copied under its lock, written after. */
static int write_trees(struct out *o, struct trace_recbuf *rb, uint64_t *threads, uint64_t *nodes)
{
	struct tree_snapshot_sink sink = {flush_rb, o};
	int rc = 0;

	for (struct tree_thread *tt = registry; tt && !rc; tt = tt->next) {
		struct calltree c;
		uint32_t flags;

		tree_take(tt);
		if (tt->idle) {
			tree_give(tt);
			continue;
		}
		rc = copy_tree(&tt->tree, &c) ? -ENOMEM : 0;
		flags = (atomic_load(&table_state) == 1 ? TRACE_TREE_COMPENSATED : 0) |
			(tt->ended ? TRACE_TREE_ENDED : 0);
		if (!rc)
			write_definition(rb, tt);
		tree_give(tt);
		if (rc)
			break;
		rc = tree_snapshot_write(rb, tt->serial, &c, flags, &sink);
		free(c.nodes);
		free(c.figs);
		(*threads)++;
		*nodes += c.nnodes - 1;
	}
	return rc;
}

/* Writes the snapshot to fd. Registry mutex held. */
static int write_snapshot(struct out *o, int at_end, uint64_t *threads, uint64_t *nodes)
{
	uint8_t h[TRACE_FILE_HEADER_LEN];
	struct trace_recbuf rb;
	int rc;

	trace_snapshot_header(h);
	if (write_out(o, h, sizeof(h)) || trace_file_definitions(write_defs, o))
		return -EIO;
	trace_recbuf_init(&rb);
	write_meta(&rb, at_end);
	rc = flush_rb(o, &rb);
	if (!rc)
		rc = write_trees(o, &rb, threads, nodes);
	if (!rc) {
		trace_rec_end(&rb, 0, *threads, atomic_load(&jcal.lost_events));
		rc = rb.oom ? -ENOMEM : flush_rb(o, &rb);
	}
	trace_recbuf_free(&rb);
	return rc;
}

/* A snapshot written: its figures, and where it is. */
struct dumped {
	uint64_t threads, nodes, bytes;
	char tmp[JCAL_OPT_PATH_MAX + 64];
};

/* A new file beside path, for the snapshot (o->fd, d->tmp). A dump to a
 * name that is another user's in a shared directory is refused first; the
 * end's snapshot is written anyway (it is kept beside, dump says where).
 * 0, or -1 + message. */
static int open_beside(const char *path, int at_end, struct out *o, struct dumped *d, char *err,
		       size_t errlen)
{
	char why[1200];
	struct stat st;

	if (!at_end && safe_open_check(path, &st, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "cannot write the snapshot %s: %s", path, why);
		return -1;
	}
	for (int tries = 0; o->fd < 0 && tries < 16; tries++) {
		snprintf(d->tmp, sizeof(d->tmp), "%s.tmp.%ld.%08lx", path, (long)getpid(),
			 (unsigned long)random());
		o->fd = safe_open_new(d->tmp, O_WRONLY, 0644, why, sizeof(why));
		if (o->fd < 0 && errno != EEXIST)
			break;
	}
	if (o->fd < 0) {
		snprintf(err, errlen, "cannot create the snapshot beside %s: %s", path, why);
		return -1;
	}
	return 0;
}

/* Writes the snapshot to a new file beside path and renames it to path.
 * Returns 0; 1 when only the rename failed (the snapshot stays at d->tmp,
 * err says why); -1 + message, nothing left behind. */
static int dump(const char *path, int at_end, struct dumped *d, char *err, size_t errlen)
{
	struct out o = {-1, 0, 0};
	int rc;

	d->threads = d->nodes = d->bytes = 0;
	if (!trees_on) {
		snprintf(err, errlen, "no trees are kept (output=tree or output=both)");
		return -1;
	}
	if (open_beside(path, at_end, &o, d, err, errlen))
		return -1;
	pthread_mutex_lock(&registry_mutex);
	trees_want(1);
	rc = write_snapshot(&o, at_end, &d->threads, &d->nodes);
	trees_want(-1);
	pthread_mutex_unlock(&registry_mutex);
	if (close(o.fd) && !rc) {
		o.err = errno;
		rc = -EIO;
	}
	if (rc) {
		unlink(d->tmp);
		snprintf(err, errlen, "cannot write the snapshot %s: %s", path,
			 rc == -ENOMEM ? "out of memory" : strerror(o.err ? o.err : EIO));
		return -1;
	}
	d->bytes = o.bytes;
	/* complete: a name that cannot be replaced (another user's file in a
	 * shared directory) keeps it where it is, and says so */
	if (rename(d->tmp, path)) {
		snprintf(err, errlen, "cannot rename the snapshot %s to %s: %s; it stays at %s",
			 d->tmp, path, strerror(errno), d->tmp);
		return 1;
	}
	return 0;
}

int tree_recorder_dump(const char *path, char *err, size_t errlen)
{
	struct dumped d;

	return dump(path, 0, &d, err, errlen) ? -1 : 0;
}

int tree_recorder_finish(char *line, size_t len)
{
	const char *path = snapshot_path;
	struct dumped d;
	struct tree_totals s;
	char err[1200], buf[1400];
	int rc = dump(path, 1, &d, err, sizeof(err));

	if (rc < 0) {
		jcal_error("%s", err);
		return -1;
	}
	if (rc) {
		jcal_error("%s", err);
		path = d.tmp;
	}
	trees_total_now(&s);
	snprintf(buf, sizeof(buf),
		 "%s: tree snapshot of %" PRIu64 " threads, %" PRIu64 " events, %" PRIu64
		 " contexts (%" PRIu64 " folded, %" PRIu64 " calls), %s, %" PRIu64 " bytes%s",
		 path, d.threads, s.events, d.nodes, s.folded_contexts, s.folded_calls,
		 atomic_load(&table_state) == 1 ? "compensated" : "raw figures only", d.bytes,
		 s.lost ? " - INCOMPLETE: trees ran out of memory" : "");
	jcal_info("wrote %s", buf);
	if (line && len)
		snprintf(line, len, "%s", buf);
	return rc ? -1 : 0;
}
