/*
 * tree_dump.c - output=tree|both: the snapshot file (docs/trace-format.md),
 * written on dump and at the end (stop, VM death): to a new file beside
 * its name, renamed once complete; the header, the kept definitions, the
 * snapshot's meta, each thread's definition and tree (copied under its
 * lock, written without it), END; and the end's summary line.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent/core/tree_recorder_internal.h"
#include "agent/base/log.h"
#include "agent/core/trace_file.h"
#include "common/calib_comp.h"
#include "common/safe_open.h"
#include "common/lathist.h"
#include "common/tree_snapshot.h"

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

/* The snapshot's own meta records: what it is and how it was compensated. */
static void write_meta(struct trace_recbuf *rb, int at_end)
{
	struct tree_comp_info c;
	struct tree_totals s;
	struct timespec now;
	char hex[24];

	tree_registry_totals(&s); /* dump() raised want */
	tree_comp_info(&c);
	clock_gettime(CLOCK_REALTIME, &now);
	trace_rec_meta(rb, "snapshot", "tree");
	trace_rec_meta_u64(rb, "snapshot.time_ns",
			   (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec);
	trace_rec_meta(rb, "snapshot.when", at_end ? "end" : "dump");
	trace_rec_meta_u64(rb, "snapshot.maxcontexts", jcal.opts.maxcontexts);
	trace_rec_meta_u64(rb, "snapshot.folds", atomic_load(&tree_fold_count));
	if (jcal.opts.hists_off) /* no TREE_HISTS records, and jcal-post says why */
		trace_rec_meta(rb, "snapshot.hists", "off");
	/* threads defined in the snapshot without a tree of their own: in
	 * "<ended threads>" */
	trace_rec_meta_u64(rb, "snapshot.ended_merged", tree_registry_ended_merged);
	trace_rec_meta_u64(rb, "snapshot.lost_events", s.lost);
	if (c.state == 1) {
		trace_rec_meta(rb, "snapshot.calib.table", c.path);
		trace_rec_meta(rb, "snapshot.calib.estimator",
			       calib_estimator_name(CALIB_EST_DEFAULT));
		snprintf(hex, sizeof(hex), "%016" PRIx64, c.digest);
		trace_rec_meta(rb, "snapshot.calib.digest", hex);
		trace_rec_meta_u64(rb, "snapshot.calib.keys_in_table", c.keys_in_table);
		trace_rec_meta_u64(rb, "snapshot.calib.keys_seen", c.keys_seen);
		trace_rec_meta_u64(rb, "snapshot.calib.keys_found", c.keys_found);
		trace_rec_meta_u64(rb, "snapshot.calib.deltas", s.deltas);
		trace_rec_meta_u64(rb, "snapshot.calib.clamped", s.clamped);
		trace_rec_meta_u64(rb, "snapshot.calib.fallback_static", s.similar);
		trace_rec_meta_u64(rb, "snapshot.calib.fallback_global", s.global);
	} else {
		trace_rec_meta(rb, "snapshot.calib.note",
			       c.state ? c.note : "the JVM was not up yet: no table chosen");
	}
	trace_rec_meta_u64(rb, "snapshot.calib.uncompensated", s.uncompensated);
	if (!at_end && jcal.metrics.tsc_hz)
		trace_rec_meta_u64(rb, "tsc.hz", metric_set_tsc_hz_final(&jcal.metrics));
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

/* A copy of the parts of a tree tree_snapshot_write reads (tt locked):
 * serialising it then takes no lock. */
static int copy_tree(const struct calltree *t, struct calltree *c)
{
	const size_t nfigs = (size_t)t->nnodes * t->nmetrics;

	*c = *t;
	c->nodes = malloc((size_t)t->nnodes * sizeof(*c->nodes));
	c->figs = malloc(nfigs * sizeof(*c->figs));
	c->hist = t->hist ? malloc((size_t)t->nnodes * sizeof(*c->hist)) : NULL;
	if (!c->nodes || !c->figs || (t->hist && (!c->hist || calltree_hists_copy(t, c->hist)))) {
		free(c->nodes);
		free(c->figs);
		free(c->hist);
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

	for (struct tree_thread *tt = tree_registry_head; tt && !rc; tt = tt->next) {
		struct calltree c;
		uint32_t flags;

		tree_handshake_take(tt);
		if (tt->idle) {
			tree_handshake_give(tt);
			continue;
		}
		rc = copy_tree(&tt->tree, &c) ? -ENOMEM : 0;
		flags = (tree_comp_applied() ? TRACE_TREE_COMPENSATED : 0) |
			(tt->ended ? TRACE_TREE_ENDED : 0);
		if (!rc)
			write_definition(rb, tt);
		tree_handshake_give(tt);
		if (rc)
			break;
		rc = tree_snapshot_write(rb, tt->serial, &c, flags, &sink);
		free(c.nodes);
		free(c.figs);
		for (uint32_t i = 0; c.hist && i < c.nnodes; i++)
			lathist_free(c.hist[i]);
		free(c.hist);
		(*threads)++;
		*nodes += c.nnodes - 1;
	}
	return rc;
}

/* Writes the snapshot to fd. Registry mutex held. */
static int write_snapshot(struct out *o, int at_end, uint64_t *threads, uint64_t *nodes)
{
	uint8_t h[TRACE_FILE_HEADER_LEN];
	struct tree_snapshot_sink sink = {flush_rb, o};
	struct trace_recbuf rb;
	int rc;

	trace_snapshot_header(h);
	if (write_out(o, h, sizeof(h)) || trace_file_definitions(write_defs, o))
		return -EIO;
	trace_recbuf_init(&rb);
	write_meta(&rb, at_end);
	rc = tree_slow_write(&rb, &sink); /* slow=: its meta and calls */
	if (!rc)
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
	if (!tree_recorder_on()) {
		snprintf(err, errlen, "no trees are kept (output=tree or output=both)");
		return -1;
	}
	if (open_beside(path, at_end, &o, d, err, errlen))
		return -1;
	pthread_mutex_lock(&tree_registry_mutex);
	tree_handshake_want_all(1);
	rc = write_snapshot(&o, at_end, &d->threads, &d->nodes);
	tree_handshake_want_all(-1);
	pthread_mutex_unlock(&tree_registry_mutex);
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

int tree_dump_write(const char *path, char *err, size_t errlen)
{
	struct dumped d;

	return dump(path, 0, &d, err, errlen) ? -1 : 0;
}

int tree_dump_finish(const char *path, char *line, size_t len)
{
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
	tree_registry_totals_now(&s);
	snprintf(buf, sizeof(buf),
		 "%s: tree snapshot of %" PRIu64 " threads, %" PRIu64 " events, %" PRIu64
		 " contexts (%" PRIu64 " folded, %" PRIu64 " calls), %s, %" PRIu64 " bytes%s",
		 path, d.threads, s.events, d.nodes, s.folded_contexts, s.folded_calls,
		 tree_comp_applied() ? "compensated" : "raw figures only", d.bytes,
		 s.lost ? " - INCOMPLETE: trees ran out of memory" : "");
	jcal_info("wrote %s", buf);
	if (line && len)
		snprintf(line, len, "%s", buf);
	return rc ? -1 : 0;
}
