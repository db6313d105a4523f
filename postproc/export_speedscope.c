/*
 * export_speedscope.c - speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json): shared frames (one
 * per method, and the thread root), one profile per thread.
 *
 * By default each profile is "sampled": one sample per calling context
 * with a non-zero base, its stack the context's path and its weight the
 * base (calibrated unless --raw): an aggregated tree, not a timeline. With
 * --speedscope-evented each profile is "evented": the trace is read again
 * (replay.c) and every frame opens and closes at the raw metric values of
 * its entry and exit, balanced and in order. Each thread's events go to a
 * temporary file during the read (at most BATCH threads per read), so
 * memory does not grow with the events. Unit: "nanoseconds" for a time
 * metric, "none" for counts.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "postproc/output.h"
#include "postproc/replay.h"
#include "postproc/report.h"
#include "postproc/report_util.h"
#include "common/u64map.h"

#define BATCH 64
#define JCAL_POST_EXPORTER "jcal-post"

struct frames {
	uint32_t *ids; /* method ids by frame index; the root frame last */
	size_t n;
	struct u64map idx;
};

static int u32cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int frames_init(struct frames *f, const struct model *m, int with_folded)
{
	struct model_method *mm, *tmp;
	size_t k = 0;

	memset(f, 0, sizeof(*f));
	f->ids = malloc((HASH_COUNT(m->methods) + 2) * sizeof(*f->ids));
	if (!f->ids || u64map_init(&f->idx, HASH_COUNT(m->methods) + 1)) {
		free(f->ids);
		return -1;
	}
	HASH_ITER (hh, m->methods, mm, tmp)
		f->ids[k++] = mm->id;
	qsort(f->ids, k, sizeof(*f->ids), u32cmp);
	f->ids[k++] = CALLTREE_ROOT_METHOD;
	/* the root frame stays last (frame_of's fallback); the pseudo-frame of
	 * --max-depth comes only when some tree has it */
	if (with_folded) {
		f->ids[k - 1] = CALLTREE_FOLDED_METHOD;
		f->ids[k++] = CALLTREE_ROOT_METHOD;
	}
	f->n = k;
	for (size_t i = 0; i < k; i++)
		if (u64map_put(&f->idx, f->ids[i], (uint32_t)i))
			return -1;
	return 0;
}

static void frames_free(struct frames *f)
{
	free(f->ids);
	u64map_free(&f->idx);
}

static uint32_t frame_of(const struct frames *f, uint32_t method)
{
	uint32_t *v = u64map_find(&f->idx, method);

	return v ? *v : (uint32_t)(f->n - 1);
}

static const char *unit_of(const struct model *m, unsigned mi)
{
	return report_metric_is_time(m, mi) ? "nanoseconds" : "none";
}

static void profile_name(FILE *f, const struct model_thread *t)
{
	char buf[300];

	report_thread_label(t, buf, sizeof(buf));
	json_string(f, buf);
}

static int sampled(const struct model *m, const struct report_opts *o, const struct frames *fr,
		   const struct model_thread *th, int first)
{
	struct report_view view;
	const struct calltree *t;
	unsigned mi = o->metric;
	uint32_t *buf;
	int any = 0;

	if (report_view_get(&view, th, o))
		return -1;
	t = view.t;
	buf = malloc(((size_t)t->max_level + 1) * sizeof(*buf));
	if (!buf) {
		report_view_free(&view);
		return -1;
	}
	fputs(first ? "\n{" : ",\n{", o->out);
	fputs("\"type\":\"sampled\",\"name\":", o->out);
	profile_name(o->out, th);
	fprintf(o->out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\"samples\":[",
		unit_of(m, mi), model_value(m, mi, calltree_fig(t, CALLTREE_ROOT, mi)->cum));
	for (uint32_t k = 0; k < t->nnodes; k++) {
		uint32_t node = t->order[k], d = 0;

		if (!calltree_fig(t, node, mi)->base)
			continue;
		for (uint32_t n = node; n != CALLTREE_ROOT; n = t->nodes[n].parent)
			buf[d++] = n;
		fputs(any ? ",[" : "[", o->out);
		if (!d)
			fprintf(o->out, "%" PRIu32, frame_of(fr, CALLTREE_ROOT_METHOD));
		for (uint32_t i = d; i-- > 0;)
			fprintf(o->out, "%s%" PRIu32, i + 1 < d ? "," : "",
				frame_of(fr, t->nodes[buf[i]].method));
		fputc(']', o->out);
		any = 1;
	}
	fputs("],\"weights\":[", o->out);
	any = 0;
	for (uint32_t k = 0; k < t->nnodes; k++) {
		uint64_t b = calltree_fig(t, t->order[k], mi)->base;

		if (!b)
			continue;
		fprintf(o->out, "%s%" PRIu64, any ? "," : "", model_value(m, mi, b));
		any = 1;
	}
	fputs("]}", o->out);
	free(buf);
	report_view_free(&view);
	return 0;
}

/* Evented: per thread of the batch, a temporary file of events. */
struct ev_thread {
	const struct model_thread *t;
	FILE *tmp;
	uint64_t first, last;
	int any;
};

struct evented {
	const struct frames *fr;
	struct ev_thread *th;
	size_t n;
	struct u64map idx; /* serial -> th */
	char *err;
};

static struct ev_thread *ev_get(struct evented *e, const struct model_thread *t)
{
	uint32_t *v = u64map_find(&e->idx, t->serial);

	return v ? &e->th[*v] : NULL;
}

static int ev_begin(void *ctx, const struct model_thread *t, uint64_t at)
{
	struct evented *e = ctx;
	struct ev_thread *x;

	if (u64map_put(&e->idx, t->serial, (uint32_t)e->n)) {
		snprintf(e->err, REPORT_ERR_LEN, "out of memory");
		return -1;
	}
	x = &e->th[e->n++];
	memset(x, 0, sizeof(*x));
	x->t = t;
	x->first = x->last = at;
	x->tmp = tmpfile();
	if (!x->tmp) {
		snprintf(e->err, REPORT_ERR_LEN, "cannot create a temporary file for thread #%u",
			 t->serial);
		return -1;
	}
	return 0;
}

static int ev_write(struct evented *e, const struct model_thread *t, char type, uint32_t method,
		    uint64_t at)
{
	struct ev_thread *x = ev_get(e, t);

	if (!x)
		return 0;
	if (fprintf(x->tmp, "%s{\"type\":\"%c\",\"frame\":%" PRIu32 ",\"at\":%" PRIu64 "}",
		    x->any ? "," : "", type, frame_of(e->fr, method), at) < 0) {
		snprintf(e->err, REPORT_ERR_LEN, "write error on a temporary file");
		return -1;
	}
	x->any = 1;
	x->last = at;
	return 0;
}

static int ev_open(void *ctx, const struct model_thread *t, uint32_t method, uint64_t at)
{
	return ev_write(ctx, t, 'O', method, at);
}

static int ev_close(void *ctx, const struct model_thread *t, uint32_t method, uint64_t opened,
		    uint64_t at, uint32_t depth)
{
	(void)opened;
	(void)depth;
	return ev_write(ctx, t, 'C', method, at);
}

static int ev_end(void *ctx, const struct model_thread *t, uint64_t last)
{
	struct ev_thread *x = ev_get(ctx, t);

	if (x)
		x->last = last;
	return 0;
}

static int copy_file(FILE *from, FILE *to)
{
	char buf[65536];
	size_t n;

	rewind(from);
	while ((n = fread(buf, 1, sizeof(buf), from)) > 0)
		if (fwrite(buf, 1, n, to) != n)
			return -1;
	return ferror(from) ? -1 : 0;
}

static int evented_profiles(const struct model *m, const struct report_opts *o,
			    const struct frames *fr)
{
	const struct threadsel *sel = o->shaping ? o->shaping->sel : o->sel;
	size_t nsel = replay_threads(m, sel), written = 0;
	struct replay_opts ro = {0};
	struct replay_cb cb = {0};
	struct evented e = {0};
	const char *unit = unit_of(m, o->metric);
	int err = 0;

	ro.path = o->trace_path;
	ro.metric = o->metric;
	ro.sel = sel;
	ro.prescan = 1;
	ro.progress = o->progress;
	ro.batch = BATCH;
	if (o->shaping) {
		ro.exclude = o->shaping->exclude;
		ro.nexclude = o->shaping->nexclude;
	}
	cb.ctx = &e;
	cb.begin = ev_begin;
	cb.open = ev_open;
	cb.close = ev_close;
	cb.end = ev_end;
	e.fr = fr;
	e.err = o->err;
	e.th = calloc(BATCH, sizeof(*e.th));
	if (!e.th)
		return -1;
	for (ro.batch_no = 0; !err && ro.batch_no * BATCH < (nsel ? nsel : 1); ro.batch_no++) {
		e.n = 0;
		if (u64map_init(&e.idx, BATCH * 2)) {
			err = -1;
			break;
		}
		err = replay_run(m, &ro, &cb, o->err, REPORT_ERR_LEN);
		for (size_t i = 0; i < e.n; i++) {
			struct ev_thread *x = &e.th[i];

			if (!err) {
				fputs(written++ ? ",\n{" : "\n{", o->out);
				fputs("\"type\":\"evented\",\"name\":", o->out);
				profile_name(o->out, x->t);
				fprintf(o->out,
					",\"unit\":\"%s\",\"startValue\":%" PRIu64
					",\"endValue\":%" PRIu64 ",\"events\":[",
					unit, x->first, x->last);
				if (copy_file(x->tmp, o->out)) {
					snprintf(o->err, REPORT_ERR_LEN,
						 "cannot read back a temporary file");
					err = -1;
				}
				fputs("]}", o->out);
			}
			fclose(x->tmp);
		}
		u64map_free(&e.idx);
	}
	free(e.th);
	return err;
}

int export_speedscope(const struct model *m, const struct report_opts *o)
{
	const struct model_thread **list;
	struct frames fr;
	const char *base;
	size_t n;
	int err = 0, folded = 0;

	if (report_threads(m, o, &list, &n))
		return -1;
	for (size_t i = 0; i < n && !o->evented; i++)
		folded |= list[i]->tree.max_level > report_max_depth(o);
	if (frames_init(&fr, m, folded)) {
		free(list);
		return -1;
	}
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
	      "\"shared\":{\"frames\":[",
	      o->out);
	for (size_t i = 0; i < fr.n; i++) {
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", o->out);
		json_string(o->out, model_method_name(m, fr.ids[i]));
		fputc('}', o->out);
	}
	fputs("]},\n\"profiles\":[", o->out);
	if (o->evented) {
		err = evented_profiles(m, o, &fr);
	} else {
		for (size_t i = 0; i < n && !err; i++)
			err = sampled(m, o, &fr, list[i], i == 0);
	}
	base = o->trace_path ? strrchr(o->trace_path, '/') : NULL;
	fputs("],\n\"name\":", o->out);
	json_string(o->out, base ? base + 1 : o->trace_path ? o->trace_path : "jcal");
	fputs(",\"activeProfileIndex\":0,\"exporter\":\"" JCAL_POST_EXPORTER "\"}\n", o->out);
	frames_free(&fr);
	free(list);
	return err;
}
