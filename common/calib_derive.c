/*
 * calib_derive.c - derives a calibration table from a calibration trace
 * (see calib_derive.h). Two passes over the file: the first collects meta
 * records and thread names (calib.thread may come after a thread's first
 * events), the second feeds each counted thread's events through a key
 * stepper and accumulates per key: min, samples, sum and a log-linear
 * histogram (exact below 128, 1/64 relative width above) for the median
 * and p10.
 */
#include "common/errmsg.h"
#include "common/calib_derive.h"
#include "common/calib_fit.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uthash.h>

#include "common/grow.h"

#define HIST_EXACT 128u
#define HIST_SUB 64u /* buckets per power of two above HIST_EXACT */
#define HIST_BUCKETS (HIST_EXACT + (64u - 7u) * HIST_SUB)

struct key_acc {
	uint64_t min, samples;
	long double sum;
	uint32_t *hist; /* HIST_BUCKETS counts, saturating; NULL until a sample */
};

struct thread_acc {
	uint32_t serial;
	int counted; /* its name matches calib.thread (or no calib.thread) */
	int level;   /* work loop length index of its steps; -1 = unknown mark */
	int have_last;
	uint64_t last;
	struct seqkey_stepper keys;
	UT_hash_handle hh;
};

struct name_rec {
	uint32_t serial;
	char *name;
};

struct derive {
	struct calib_table *t;
	struct calib_derive_info *info;
	char *err;
	size_t errlen;
	/* pass 1 */
	struct name_rec *names;
	size_t nnames, names_cap;
	uint64_t env[SEQKEY_COUNT];
	uint8_t has_env[SEQKEY_COUNT];
	uint64_t start_ns;
	/* work loop lengths: level_iters[0] = 0, the others as marked or given
	 * by meta records; work_ns by method type and level */
	int level_iters[CALIB_WORK_LEVELS];
	unsigned nlevels;
	uint64_t work_ns[JCAL_MT_COUNT][CALIB_WORK_LEVELS];
	uint8_t has_work[JCAL_MT_COUNT][CALIB_WORK_LEVELS];
	int *label_level; /* by label id: level index, -1 another label, -2 a length too many */
	size_t nlabels, labels_cap;
	/* pass 2 */
	struct thread_acc *threads, *last_thread;
	struct key_acc *acc;  /* SEQKEY_COUNT: empty bodies */
	struct key_acc *lacc; /* SEQKEY_COUNT * CALIB_WORK_LEVELS: the others */
	int failed;
};

static unsigned bucket_of(uint64_t v)
{
	unsigned e;

	if (v < HIST_EXACT)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v); /* >= 7 */
	return HIST_EXACT + (e - 7u) * HIST_SUB + (unsigned)((v >> (e - 6u)) - HIST_SUB);
}

/* Midpoint of bucket b. */
static uint64_t bucket_value(unsigned b)
{
	unsigned e, m;
	uint64_t lo, hi;

	if (b < HIST_EXACT)
		return b;
	e = 7u + (b - HIST_EXACT) / HIST_SUB;
	m = HIST_SUB + (b - HIST_EXACT) % HIST_SUB;
	lo = (uint64_t)m << (e - 6u);
	hi = lo + ((uint64_t)1 << (e - 6u)) - 1;
	return lo + (hi - lo) / 2;
}

/* Nearest-rank quantile q of the histogram, clamped to >= min. */
static uint64_t quantile(const struct key_acc *a, double q)
{
	uint64_t total = 0, rank, seen = 0;

	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		total += a->hist[b];
	rank = (uint64_t)((double)total * q + 0.999999);
	if (rank < 1)
		rank = 1;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		seen += a->hist[b];
		if (seen >= rank) {
			uint64_t v = bucket_value(b);

			return v < a->min ? a->min : v;
		}
	}
	return a->min;
}

/* The mean of the CALIB_NQ quantiles of a's samples (as quantile(), in one
 * pass): the typical raw delta of a body length, its slowest 3% (another
 * process, an interrupt) left out as the cond estimator leaves them. */
static double quantile_mean(const struct key_acc *a)
{
	uint64_t total = 0, seen = 0, rank[CALIB_NQ];
	double sum = 0;
	unsigned j = 0;

	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		total += a->hist[b];
	for (unsigned q = 0; q < CALIB_NQ; q++) {
		rank[q] = (uint64_t)((double)total * ((q + 0.5) / CALIB_NQ) + 0.999999);
		if (rank[q] < 1)
			rank[q] = 1;
	}
	for (unsigned b = 0; b < HIST_BUCKETS && j < CALIB_NQ; b++) {
		uint64_t v = bucket_value(b);

		seen += a->hist[b];
		for (; j < CALIB_NQ && seen >= rank[j]; j++)
			sum += (double)(v < a->min ? a->min : v);
	}
	return sum / CALIB_NQ;
}

/* ---- pass 1: meta records and thread names ---- */

static int oom(struct derive *d)
{
	errmsg_set(d->err, d->errlen, "out of memory");
	d->failed = 1;
	return -1;
}

/* Index of the work loop length iters, added when new; -1 when there are
 * more than CALIB_WORK_LEVELS. */
static int level_of(struct derive *d, int iters)
{
	if (!d->nlevels)
		d->nlevels = 1; /* level 0: empty bodies */
	for (unsigned l = 0; l < d->nlevels; l++)
		if (d->level_iters[l] == iters)
			return (int)l;
	if (d->nlevels == CALIB_WORK_LEVELS)
		return -1;
	d->level_iters[d->nlevels] = iters;
	return (int)d->nlevels++;
}

/* A decimal in [0, max] that is all of s. */
static int parse_uint(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9')
		return -1;
	*v = strtoull(s, &end, 10);
	return *end || errno || *v > max ? -1 : 0;
}

/* calib.work.<T>.<K> = NS */
static int on_work_meta(struct derive *d, const char *key, const char *value)
{
	const char *t = key + strlen(CALIB_WORK_META);
	const char *types = "IiJjNn", *tp = *t ? strchr(types, *t) : NULL;
	uint64_t iters, ns;
	int l;

	if (!tp || t[1] != '.' || parse_uint(t + 2, 1u << 30, &iters) || !iters ||
	    parse_uint(value, CALIB_NUM_MAX, &ns)) {
		errmsg_set(d->err, d->errlen,
			   "meta record %s = '%s': expected " CALIB_WORK_META
			   "<type>.<iterations> = <cost in metric 0's raw unit>",
			   key, value);
		d->failed = 1;
		return -1;
	}
	l = level_of(d, (int)iters);
	if (l < 0)
		return 0; /* more lengths than a table tells apart: this one unused */
	d->work_ns[tp - types][l] = ns;
	d->has_work[tp - types][l] = 1;
	return 0;
}

/* LABEL records: which labels mark a work loop length. */
static int on_label(void *ctx, uint32_t id, const char *text)
{
	struct derive *d = ctx;
	size_t need = (size_t)id + 1, old = d->nlabels;
	uint64_t iters;
	int l;

	if (strncmp(text, CALIB_WORK_MARK, strlen(CALIB_WORK_MARK)) ||
	    parse_uint(text + strlen(CALIB_WORK_MARK), 1u << 30, &iters))
		return 0;
	if (need > d->nlabels) {
		if (need > 1u << 20 || grow(&d->label_level, &d->labels_cap, need))
			return oom(d);
		for (size_t i = old; i < need; i++)
			d->label_level[i] = -1;
		d->nlabels = need;
	}
	l = level_of(d, (int)iters);
	d->label_level[id] = l < 0 ? -2 : l; /* -2: a length too many, its steps left out */
	return 0;
}

static int on_meta(void *ctx, const char *key, const char *value)
{
	struct derive *d = ctx;
	struct seqkey k;

	if (calib_fingerprint_set_meta(&d->t->fp, key, value))
		return 0;
	if (!strcmp(key, "env.method")) {
		snprintf(d->t->env_method, sizeof(d->t->env_method), "%s", value);
	} else if (!strncmp(key, "env.", 4) && !seqkey_parse(key + 4, &k)) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(value, &end, 10);
		if (!*value || *end || errno || value[0] == '-' || value[0] == ' ' ||
		    v > CALIB_NUM_MAX) {
			errmsg_set(d->err, d->errlen,
				   "meta record %s: '%s' is not an unsigned integer of at "
				   "most " CALIB_NUM_MAX_TEXT
				   " (the environment cost in metric 0's raw unit)",
				   key, value);
			d->failed = 1;
			return -1;
		}
		d->env[seqkey_index(&k)] = v;
		if (!d->has_env[seqkey_index(&k)] && d->info)
			d->info->env_records++;
		d->has_env[seqkey_index(&k)] = 1;
	} else if (!strncmp(key, CALIB_WORK_META, strlen(CALIB_WORK_META))) {
		return on_work_meta(d, key, value);
	} else if (!strcmp(key, "calib.thread")) {
		snprintf(d->info->calib_thread, sizeof(d->info->calib_thread), "%s", value);
	} else if (!strcmp(key, "metric.0.unit")) {
		snprintf(d->t->unit, sizeof(d->t->unit), "%s", value);
	} else if (!strcmp(key, "start.time_ns")) {
		d->start_ns = strtoull(value, NULL, 10);
	}
	return 0;
}

static int on_name(void *ctx, const struct trace_thread *tt)
{
	struct derive *d = ctx;

	if (!tt->name)
		return 0;
	if (grow(&d->names, &d->names_cap, d->nnames + 1))
		return oom(d);
	d->names[d->nnames].serial = tt->serial;
	d->names[d->nnames].name = strdup(tt->name);
	if (!d->names[d->nnames].name)
		return oom(d);
	d->nnames++;
	return 0;
}

/* After pass 1: keeps the names of the calibration thread only (all of
 * them without calib.thread), so that counted() looks through a few, not
 * through every thread of the trace at each thread's first event. */
static void keep_calib_names(struct derive *d)
{
	size_t k = 0;

	if (!d->info->calib_thread[0])
		return;
	for (size_t i = 0; i < d->nnames; i++) {
		if (!strcmp(d->names[i].name, d->info->calib_thread))
			d->names[k++] = d->names[i];
		else
			free(d->names[i].name);
	}
	d->nnames = k;
}

/* ---- pass 2: events ---- */

static int counted(const struct derive *d, uint32_t serial)
{
	if (!d->info->calib_thread[0])
		return 1;
	for (size_t i = 0; i < d->nnames; i++)
		if (d->names[i].serial == serial &&
		    !strcmp(d->names[i].name, d->info->calib_thread))
			return 1;
	return 0;
}

static struct thread_acc *thread_get(struct derive *d, uint32_t serial)
{
	struct thread_acc *th = d->last_thread;

	if (th && th->serial == serial)
		return th;
	HASH_FIND(hh, d->threads, &serial, sizeof(serial), th);
	if (!th) {
		th = calloc(1, sizeof(*th));
		if (!th)
			return NULL;
		th->serial = serial;
		th->counted = counted(d, serial);
		seqkey_stepper_init(&th->keys);
		HASH_ADD(hh, d->threads, serial, sizeof(th->serial), th);
		d->info->threads++;
		d->info->threads_used += (unsigned)th->counted;
	}
	d->last_thread = th;
	return th;
}

static int add_sample(struct derive *d, const struct seqkey *k, int level, uint64_t v)
{
	struct key_acc *a = level ? &d->lacc[seqkey_index(k) * CALIB_WORK_LEVELS + (unsigned)level]
				  : &d->acc[seqkey_index(k)];
	unsigned b = bucket_of(v);

	if (!a->hist) {
		a->hist = calloc(HIST_BUCKETS, sizeof(*a->hist));
		if (!a->hist)
			return oom(d);
		a->min = v;
	}
	if (v < a->min)
		a->min = v;
	a->samples++;
	a->sum += (long double)v;
	if (a->hist[b] != UINT32_MAX)
		a->hist[b]++;
	d->info->deltas++;
	d->info->work_deltas += level != 0;
	return 0;
}

static int on_event(void *ctx, const struct trace_event *e)
{
	struct derive *d = ctx;
	struct thread_acc *th = thread_get(d, e->thread);
	struct seqkey_step st;
	uint64_t v = e->nmetrics ? e->metric[0] : 0;

	if (!th)
		return oom(d);
	d->info->events++;
	if (!th->counted)
		return 0;
	if (e->transition == JCAL_TR_CONTROL) {
		/* a region boundary or a mark: no delta spans it */
		th->have_last = 0;
		if (e->type == JCAL_CTL_MARK && e->method < d->nlabels &&
		    d->label_level[e->method] != -1)
			th->level =
			    d->label_level[e->method] == -2 ? -1 : d->label_level[e->method];
		return 0;
	}
	if (seqkey_step(&th->keys, e->method, e->transition, e->type, &st))
		return oom(d);
	if (st.has_key && th->have_last && th->level >= 0) {
		if (v < th->last)
			d->info->backwards++;
		else if (v - th->last > CALIB_NUM_MAX)
			d->info->too_large++;
		else if (add_sample(d, &st.key, th->level, v - th->last))
			return -1;
	}
	th->last = v;
	th->have_last = 1;
	return 0;
}

/* Reads the file through v; a truncated tail is noted, worse is an error. */
static int read_pass(struct derive *d, const char *path, const struct trace_visitor *v)
{
	struct trace_result res;
	enum trace_status st = trace_read_file(path, v, &res);

	if (d->failed)
		return -1;
	switch (st) {
	case TRACE_OK:
		return 0;
	case TRACE_TRUNCATED:
		d->info->truncated = 1;
		snprintf(d->info->trace_msg, sizeof(d->info->trace_msg), "%s", res.msg);
		return 0;
	default:
		errmsg_set(d->err, d->errlen, "%s", res.msg[0] ? res.msg : trace_status_str(st));
		return -1;
	}
}

static void format_created(uint64_t ns, char *buf, size_t len)
{
	time_t sec = ns ? (time_t)(ns / 1000000000ull) : time(NULL);
	struct tm tm;

	if (!gmtime_r(&sec, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "unknown");
}

/* The fit of key i (entry e, env set) over its body lengths: the point of
 * a length is (env + the work loop of the method the step ran in, the
 * quantile mean of its raw deltas). A step that ran in no method's body
 * (one that an exception passed through, t1 = T; the thread root, O) has
 * the env cost alone at every length. */
static void fit_key(struct derive *d, unsigned i, struct calib_entry *e)
{
	struct calib_fit_point p[CALIB_WORK_LEVELS];
	struct seqkey k;
	size_t n = 0;
	int in_body;

	seqkey_from_index(i, &k);
	in_body = k.t1 != JCAL_TR_THROW && k.m2 < JCAL_MT_OTHER;
	for (unsigned l = 0; l < (d->nlevels ? d->nlevels : 1); l++) {
		const struct key_acc *a = l ? &d->lacc[i * CALIB_WORK_LEVELS + l] : &d->acc[i];
		double w = (double)e->env;

		if (!a->samples)
			continue;
		if (l && in_body) {
			if (!d->has_work[k.m2][l])
				continue; /* a length whose cost is unknown */
			w += (double)d->work_ns[k.m2][l];
		}
		p[n].w = w;
		p[n].raw = quantile_mean(a);
		p[n].weight = (double)a->samples;
		n++;
	}
	switch (calib_fit_solve(p, n, CALIB_FIT_MIN_SAMPLES, &e->fit_a, &e->fit_b)) {
	case CALIB_FIT_OK:
		e->has_fit = 1;
		d->info->fit_keys++;
		break;
	case CALIB_FIT_ONE_WORK:
		d->info->fit_one_work++;
		break;
	case CALIB_FIT_TOO_FEW:
		d->info->fit_too_few++;
		break;
	}
}

/* Moves the accumulated keys into the table. */
static void fill_table(struct derive *d)
{
	struct seqkey k;

	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		struct key_acc *a = &d->acc[i];
		struct calib_entry e = {0};

		if (!a->samples) {
			if (d->has_env[i])
				d->info->env_unused++;
			continue;
		}
		e.min = a->min;
		e.samples = a->samples;
		e.env = d->env[i];
		e.mean = (double)(a->sum / (long double)a->samples);
		e.median = quantile(a, 0.5);
		e.p10 = quantile(a, 0.1);
		if (e.p10 > e.median)
			e.p10 = e.median;
		for (unsigned j = 0; j < CALIB_NQ; j++)
			e.q[j] = quantile(a, (j + 0.5) / CALIB_NQ);
		e.has_q = 1;
		if (e.mean < (double)e.min)
			e.mean = (double)e.min;
		e.has_stats = 1;
		if (d->nlevels > 1)
			fit_key(d, i, &e);
		seqkey_from_index(i, &k);
		calib_table_set(d->t, &k, &e);
		if (!d->has_env[i])
			d->info->env_missing++;
	}
}

int calib_derive_file(const char *trace_path, struct calib_table *t, struct calib_derive_info *info,
		      char *err, size_t errlen)
{
	struct calib_derive_info scratch;
	struct derive *d;
	struct trace_visitor v;
	struct thread_acc *th, *tmp;
	int r = -1;

	if (!info)
		info = &scratch;
	memset(info, 0, sizeof(*info));
	if (calib_table_init(t)) {
		errmsg_set(err, errlen, "out of memory");
		return -1;
	}
	d = calloc(1, sizeof(*d));
	if (!d || !(d->acc = calloc(SEQKEY_COUNT, sizeof(*d->acc))) ||
	    !(d->lacc = calloc((size_t)SEQKEY_COUNT * CALIB_WORK_LEVELS, sizeof(*d->lacc)))) {
		if (d)
			free(d->acc);
		free(d);
		errmsg_set(err, errlen, "out of memory");
		return -1;
	}
	d->t = t;
	d->info = info;
	d->err = err;
	d->errlen = errlen;

	memset(&v, 0, sizeof(v));
	v.ctx = d;
	v.meta = on_meta;
	v.thread_start = on_name;
	v.thread_name = on_name;
	v.label = on_label;
	if (read_pass(d, trace_path, &v))
		goto out;
	keep_calib_names(d);
	memset(&v, 0, sizeof(v));
	v.ctx = d;
	v.event = on_event;
	if (read_pass(d, trace_path, &v))
		goto out;
	if (info->calib_thread[0] && !info->threads_used) {
		errmsg_set(
		    err, errlen,
		    "%s: meta calib.thread names '%s', but no thread of that name has events",
		    trace_path, info->calib_thread);
		goto out;
	}
	if (!info->deltas) {
		errmsg_set(err, errlen,
			   "%s: no delta between two events of a%s thread: nothing to "
			   "calibrate from",
			   trace_path, info->calib_thread[0] ? " calibration" : "");
		goto out;
	}
	info->work_levels = d->nlevels;
	fill_table(d);
	format_created(d->start_ns, t->created, sizeof(t->created));
	if (!t->env_method[0])
		snprintf(t->env_method, sizeof(t->env_method),
			 "none (no environment costs in "
			 "the trace: env = 0)");
	r = 0;
out:
	if (r) {
		/* leave an empty table: the caller frees it either way */
		calib_table_free(t);
		calib_table_init(t);
	}
	HASH_ITER (hh, d->threads, th, tmp) {
		HASH_DEL(d->threads, th);
		seqkey_stepper_free(&th->keys);
		free(th);
	}
	for (unsigned i = 0; i < SEQKEY_COUNT; i++)
		free(d->acc[i].hist);
	for (size_t i = 0; i < (size_t)SEQKEY_COUNT * CALIB_WORK_LEVELS; i++)
		free(d->lacc[i].hist);
	free(d->lacc);
	free(d->label_level);
	for (size_t i = 0; i < d->nnames; i++)
		free(d->names[i].name);
	free(d->names);
	free(d->acc);
	free(d);
	return r;
}

/* ---- fingerprint of a trace ---- */

struct fp_scan {
	struct calib_fingerprint *fp;
	uint32_t seen;
	int recalibrated;
};

int calib_options_recalibrate(const char *options)
{
	for (const char *p = options; p && *p;) {
		if (!strncmp(p, "recalibrate=", 12))
			return 1;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return 0;
}

static int fp_complete(uint32_t seen)
{
	uint32_t need = ((1u << CALIB_FP_COUNT) - 1) & ~(1u << CALIB_FP_CLOCK);

	return (seen & need) == need;
}

static int fp_meta(void *ctx, const char *key, const char *value)
{
	struct fp_scan *s = ctx;

	if (!strcmp(key, "options"))
		s->recalibrated = calib_options_recalibrate(value);
	for (unsigned i = 0; i < CALIB_FP_COUNT; i++)
		if (!strcmp(key, calib_fp_meta_key(i))) {
			calib_fingerprint_set_meta(s->fp, key, value);
			s->seen |= 1u << i;
		}
	/* every field known: stop reading. The agent writes the clock beside
	 * the mode, before the JVM's fields: a trace without it by then is of
	 * the raw clock (calib_fingerprint_clear). */
	return fp_complete(s->seen);
}

enum trace_status calib_trace_fingerprint(const char *trace_path, struct calib_fingerprint *fp,
					  int *recalibrated, struct trace_result *res)
{
	struct fp_scan s = {fp, 0, 0};
	struct trace_visitor v;
	enum trace_status st;

	calib_fingerprint_clear(fp);
	memset(&v, 0, sizeof(v));
	v.ctx = &s;
	v.meta = fp_meta;
	st = trace_read_file(trace_path, &v, res);
	if (recalibrated)
		*recalibrated = s.recalibrated;
	if (st == TRACE_ABORTED && fp_complete(s.seen)) {
		res->status = TRACE_OK;
		return TRACE_OK;
	}
	return st;
}
