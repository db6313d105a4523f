/*
 * export_pprof.c - pprof's profile.proto
 * (github.com/google/pprof/blob/main/proto/profile.proto), encoded by hand
 * with pb_writer.c and gzip-compressed with zlib, as `go tool pprof` reads
 * it.
 *
 * Sample types: "calls" (count), then every metric of the trace (its name;
 * unit "nanoseconds" for time metrics, "count" otherwise); the default is
 * the shown metric. One sample per calling context of each selected thread
 * (leaf first), values calls and base (calibrated unless --raw), with the
 * labels a continuous-profiling store slices by: "thread", and from the
 * recording the thread comes from "host", "pid", "jvm" and the agent's
 * label=KEY:VALUE options (docs/jcal-post.md, Exports); time in the thread
 * root with no frame open (outside any traced method) is a sample of the
 * function "[thread root]" (pprof_name).
 * One function and one location per method. Memory: the encoded profile,
 * i.e. the calling contexts.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "postproc/output.h"
#include "postproc/pb_writer.h"
#include "postproc/report.h"
#include "postproc/report_util.h"
#include "common/satsum.h"
#include "common/u64map.h"

/* profile.proto field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1,
	VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	SAMPLE_LABEL = 3,
	LABEL_KEY = 1,
	LABEL_STR = 2,
	LOCATION_ID = 1,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
};

struct strtab {
	struct pb pb; /* the string_table fields, in order */
	int64_t n;
};

/* A string of the table, escaped as the text reports show it (output.h):
 * pprof prints them to a terminal. */
static int64_t str_add(struct strtab *s, const char *str)
{
	char *esc = text_escaped(str);

	if (!esc)
		s->pb.oom = 1;
	pb_string(&s->pb, PROFILE_STRING_TABLE, esc ? esc : "");
	free(esc);
	return s->n++;
}

struct funcs {
	struct u64map idx; /* method -> function id */
	uint32_t n;
};

/* The labels of one recording's samples, their strings once in the table:
 * host, pid, jvm, then its own (label.KEY meta records). */
struct rec_labels {
	struct pb pb; /* SAMPLE_LABEL fields, in order */
	int done;
};

/* The label key=value as a SAMPLE_LABEL field of out; nothing for "". */
static void label_add(struct pb *out, struct strtab *st, const char *key, const char *value)
{
	struct pb l = {0};

	if (!value || !*value)
		return;
	pb_int(&l, LABEL_KEY, str_add(st, key));
	pb_int(&l, LABEL_STR, str_add(st, value));
	pb_message(out, SAMPLE_LABEL, &l);
	pb_free(&l);
}

/* A recording's labels: from a merged profile's input, or from the meta
 * records of the one recording m is. */
static void rec_labels_make(struct rec_labels *r, struct strtab *st, const struct model *m,
			    uint32_t input)
{
	char jvm[512];

	r->done = 1;
	if (m->ninputs) {
		const struct model_input *in = &m->inputs[input];

		label_add(&r->pb, st, "host", in->host);
		label_add(&r->pb, st, "pid", in->pid);
		label_add(&r->pb, st, "jvm", in->jvm);
		for (size_t k = 0; k < in->nlabels; k++)
			label_add(&r->pb, st, in->labels[k].key, in->labels[k].value);
		return;
	}
	const char *jn = model_meta(m, "jvm.name"), *jv = model_meta(m, "jvm.version");

	snprintf(jvm, sizeof(jvm), "%s%s%s", jn ? jn : "", jn && jv ? " " : "", jv ? jv : "");
	label_add(&r->pb, st, "host", model_meta(m, "host.name"));
	label_add(&r->pb, st, "pid", model_meta(m, "pid"));
	label_add(&r->pb, st, "jvm", jvm);
	for (size_t k = 0; k < m->nmeta; k++)
		if (!strncmp(m->meta[k].key, "label.", 6) && m->meta[k].key[6])
			label_add(&r->pb, st, m->meta[k].key + 6, m->meta[k].value);
}

/* The labels of thread t's samples into out: "thread" (a merged profile's
 * thread by its own name and serial: host and pid tell the recordings
 * apart), then its recording's, made once per recording in recs (one per
 * input, or one). A thread made of several recordings' has only "thread". */
static void thread_labels(struct pb *out, struct strtab *st, const struct model *m,
			  const struct model_thread *t, int64_t thread_key, struct rec_labels *recs)
{
	struct pb l = {0};
	char label[300];
	uint32_t in = m->ninputs ? t->input : 0;

	if (t->plain)
		snprintf(label, sizeof(label), "%s#%" PRIu32, t->plain, t->own_serial);
	else
		report_thread_label(t, label, sizeof(label));
	pb_clear(out);
	pb_int(&l, LABEL_KEY, thread_key);
	pb_int(&l, LABEL_STR, str_add(st, label));
	pb_message(out, SAMPLE_LABEL, &l);
	pb_free(&l);
	if (in == MODEL_INPUT_MANY || (m->ninputs && in >= m->ninputs))
		return;
	if (!recs[in].done)
		rec_labels_make(&recs[in], st, m, in);
	pb_raw(out, recs[in].pb.buf, recs[in].pb.len);
	if (recs[in].pb.oom)
		out->oom = 1;
}

/* A sample value: pprof's are signed (int64), so larger ones saturate at
 * INT64_MAX rather than read back negative. */
static uint64_t int64_value(uint64_t v)
{
	if (v > INT64_MAX) {
		satsum_note(SATSUM_INT64);
		return INT64_MAX;
	}
	return v;
}

/* A method's name as pprof shows it: the names jcal-post writes in angle
 * brackets for what is no method ("<thread root>", "<deeper frames
 * folded>", "<unknown method #7>") in square brackets, since pprof drops
 * text between angle brackets as C++ template arguments and would show
 * them as "<unknown>". A Java method's "<init>" stays as it is. */
static const char *pprof_name(const struct model *m, uint32_t method, char *buf, size_t len)
{
	const char *name = model_method_name(m, method);
	size_t n = strlen(name);

	if (n < 2 || n >= len || name[0] != '<' || name[n - 1] != '>')
		return name;
	memcpy(buf, name, n + 1);
	buf[0] = '[';
	buf[n - 1] = ']';
	return buf;
}

static uint64_t func_id(struct funcs *f, struct pb *out, struct strtab *st, const struct model *m,
			uint32_t method)
{
	uint32_t *v = u64map_find(&f->idx, method);
	struct pb fn = {0}, loc = {0}, line = {0};
	char buf[128];
	int64_t name;

	if (v)
		return *v;
	if (u64map_put(&f->idx, method, f->n + 1)) {
		out->oom = 1;
		return 0;
	}
	f->n++;
	name = str_add(st, pprof_name(m, method, buf, sizeof(buf)));
	pb_uint(&fn, FUNCTION_ID, f->n);
	pb_int(&fn, FUNCTION_NAME, name);
	pb_int(&fn, FUNCTION_SYSTEM_NAME, name);
	pb_message(out, PROFILE_FUNCTION, &fn);
	pb_uint(&line, LINE_FUNCTION_ID, f->n);
	pb_uint(&loc, LOCATION_ID, f->n);
	pb_message(&loc, LOCATION_LINE, &line);
	pb_message(out, PROFILE_LOCATION, &loc);
	pb_free(&fn);
	pb_free(&loc);
	pb_free(&line);
	return f->n;
}

static int write_gzip(FILE *f, const struct pb *b, char *err)
{
	z_stream z;
	unsigned char buf[65536];
	int r;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK) {
		snprintf(err, REPORT_ERR_LEN, "zlib: cannot start compression");
		return -1;
	}
	z.next_in = b->buf;
	z.avail_in = (uInt)b->len;
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		r = deflate(&z, Z_FINISH);
		if (r == Z_STREAM_ERROR) {
			deflateEnd(&z);
			snprintf(err, REPORT_ERR_LEN, "zlib: compression failed");
			return -1;
		}
		fwrite(buf, 1, sizeof(buf) - z.avail_out, f);
	} while (r != Z_STREAM_END);
	deflateEnd(&z);
	return 0;
}

/* What the samples of every thread share while they are written. */
struct samples {
	const struct model *m;
	struct pb *prof;
	struct strtab *st;
	struct funcs *fn;
	uint64_t *locs;
	int64_t thread_key;
	struct rec_labels *recs;
	struct pb sample, labels;
};

/* One sample per context of thread th's view t with a call or a figure. */
static void thread_samples(struct samples *sm, const struct model_thread *th,
			   const struct calltree *t)
{
	const struct model *m = sm->m;
	uint64_t vals[1 + JCAL_MAX_METRICS];

	thread_labels(&sm->labels, sm->st, m, th, sm->thread_key, sm->recs);
	for (uint32_t k = 0; k < t->nnodes; k++) {
		const struct calltree_node *nd = &t->nodes[t->order[k]];
		const struct calltree_fig *ndf = calltree_fig(t, t->order[k], 0);
		uint32_t d = 0;
		int any = nd->calls && t->order[k] != CALLTREE_ROOT;

		for (unsigned mi = 0; mi < m->nmetrics; mi++)
			any |= ndf[mi].base != 0;
		if (!any)
			continue;
		for (uint32_t x = t->order[k]; x != CALLTREE_ROOT; x = t->nodes[x].parent)
			sm->locs[d++] = func_id(sm->fn, sm->prof, sm->st, m, t->nodes[x].method);
		if (!d)
			sm->locs[d++] = func_id(sm->fn, sm->prof, sm->st, m, CALLTREE_ROOT_METHOD);
		vals[0] = int64_value(t->order[k] == CALLTREE_ROOT ? 0 : nd->calls);
		for (unsigned mi = 0; mi < m->nmetrics; mi++)
			vals[1 + mi] = int64_value(model_value(m, mi, ndf[mi].base));
		pb_clear(&sm->sample);
		pb_packed(&sm->sample, SAMPLE_LOCATION_ID, sm->locs, d);
		pb_packed(&sm->sample, SAMPLE_VALUE, vals, 1 + m->nmetrics);
		pb_raw(&sm->sample, sm->labels.buf, sm->labels.len);
		pb_message(sm->prof, PROFILE_SAMPLE, &sm->sample);
	}
}

/* The sample types: calls, then every metric; their type strings. */
static void sample_types(const struct model *m, struct pb *prof, struct strtab *st,
			 int64_t *type_str)
{
	struct pb vt = {0};

	pb_int(&vt, VALUE_TYPE_TYPE, str_add(st, "calls"));
	pb_int(&vt, VALUE_TYPE_UNIT, str_add(st, "count"));
	pb_message(prof, PROFILE_SAMPLE_TYPE, &vt);
	for (unsigned i = 0; i < m->nmetrics; i++) {
		pb_clear(&vt);
		type_str[i] = str_add(st, m->metric[i].name);
		pb_int(&vt, VALUE_TYPE_TYPE, type_str[i]);
		pb_int(&vt, VALUE_TYPE_UNIT,
		       str_add(st, report_metric_is_time(m, i) ? "nanoseconds" : "count"));
		pb_message(prof, PROFILE_SAMPLE_TYPE, &vt);
	}
	pb_free(&vt);
}

int export_pprof(const struct model *m, const struct report_opts *o)
{
	const struct model_thread **list;
	struct pb prof = {0};
	struct strtab st = {{0}, 0};
	struct funcs fn = {{0}, 0};
	struct samples sm = {m, &prof, &st, &fn, NULL, 0, NULL, {0}, {0}};
	uint32_t maxlev = 0;
	int64_t type_str[JCAL_MAX_METRICS] = {0};
	size_t n, nrecs = m->ninputs ? m->ninputs : 1;
	int err = -1;

	/* gzip data on a terminal is noise, and may hold bytes of a name as they
	 * are (a stored block): refused, as gzip does */
	if (isatty(fileno(o->out))) {
		if (o->err)
			snprintf(o->err, REPORT_ERR_LEN,
				 "--report pprof writes gzip data: not to a terminal (-o FILE, or "
				 "a pipe)");
		return -1;
	}
	if (report_threads(m, o, &list, &n))
		return -1;
	if (u64map_init(&fn.idx, 256) || !(sm.recs = calloc(nrecs, sizeof(*sm.recs))))
		goto out;
	for (size_t i = 0; i < n; i++)
		if (list[i]->tree.max_level > maxlev)
			maxlev = list[i]->tree.max_level;
	sm.locs = malloc(((size_t)maxlev + 1) * sizeof(*sm.locs));
	if (!sm.locs)
		goto out;
	str_add(&st, "");
	sample_types(m, &prof, &st, type_str);
	sm.thread_key = str_add(&st, "thread");
	for (size_t i = 0; i < n; i++) {
		struct report_view view;

		if (report_view_get(&view, list[i], o))
			goto out;
		thread_samples(&sm, list[i], view.t);
		report_view_free(&view);
	}
	pb_int(
	    &prof, PROFILE_COMMENT,
	    str_add(&st, o->calibrated ? "jcal-post: calibrated values" : "jcal-post: raw values"));
	pb_int(&prof, PROFILE_DEFAULT_SAMPLE_TYPE, type_str[o->metric]);
	pb_raw(&prof, st.pb.buf, st.pb.len);
	if (prof.oom || st.pb.oom || sm.sample.oom || sm.labels.oom)
		goto out;
	err = write_gzip(o->out, &prof, o->err);
out:
	pb_free(&prof);
	pb_free(&sm.sample);
	pb_free(&sm.labels);
	pb_free(&st.pb);
	for (size_t i = 0; sm.recs && i < nrecs; i++)
		pb_free(&sm.recs[i].pb);
	free(sm.recs);
	u64map_free(&fn.idx);
	free(sm.locs);
	free(list);
	return err;
}
