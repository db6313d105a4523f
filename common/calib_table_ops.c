/*
 * calib_table_ops.c - operations on whole calibration tables: check,
 * merge and diff (jcal-post calib, docs/calibration-format.md), and a
 * table's digest.
 */
#include "common/errmsg.h"
#include "common/calib_table.h"
#include "common/calib_table_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void add_problem(char *report, size_t len, size_t *pos, unsigned *n, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void add_problem(char *report, size_t len, size_t *pos, unsigned *n, const char *fmt, ...)
{
	va_list ap;
	int w;

	(*n)++;
	if (!report || *pos >= len)
		return;
	va_start(ap, fmt);
	w = vsnprintf(report + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (w < 0)
		return;
	*pos += (size_t)w;
	if (*pos < len - 1) {
		report[(*pos)++] = '\n';
		report[*pos] = '\0';
	}
}

unsigned calib_table_check(const struct calib_table *t, char *report, size_t len)
{
	enum seqkey_mode mode = SEQKEY_MODE_EVENTS;
	int known_mode = !seqkey_mode_parse(t->fp.field[CALIB_FP_MODE], &mode);
	char key[SEQKEY_TEXT_LEN];
	struct seqkey k;
	size_t pos = 0;
	unsigned n = 0;

	if (report && len)
		report[0] = '\0';
	for (unsigned i = 0; i < CALIB_FP_COUNT; i++)
		if (!t->fp.field[i][0])
			add_problem(report, len, &pos, &n, "header '%s' is empty",
				    calib_fp_name(i));
	if (!known_mode)
		add_problem(report, len, &pos, &n, "mode '%s' is not events or bci",
			    t->fp.field[CALIB_FP_MODE]);
	if (strcmp(t->fp.field[CALIB_FP_CLOCK], "raw") &&
	    strcmp(t->fp.field[CALIB_FP_CLOCK], "agentfree"))
		add_problem(report, len, &pos, &n, "clock '%s' is not agentfree or raw",
			    t->fp.field[CALIB_FP_CLOCK]);
	if (!t->nkeys)
		add_problem(report, len, &pos, &n, "the table has no key");
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		const struct calib_entry *e = &t->e[i];

		if (!e->present)
			continue;
		seqkey_from_index(i, &k);
		seqkey_format(&k, key);
		if (known_mode && !seqkey_reachable(mode, &k))
			add_problem(report, len, &pos, &n,
				    "key %s cannot occur in mode %s (balanced traces)", key,
				    t->fp.field[CALIB_FP_MODE]);
		if (e->has_stats && (e->median < e->min || e->p10 < e->min ||
				     e->mean < (double)e->min || e->p10 > e->median))
			add_problem(report, len, &pos, &n,
				    "key %s: statistics inconsistent (need min <= p10 <= median, "
				    "min <= mean)",
				    key);
		if (e->has_q && e->q[0] < e->min)
			add_problem(report, len, &pos, &n,
				    "key %s: quantiles inconsistent (need min <= q)", key);
	}
	return n;
}

int calib_table_merge(struct calib_table *dst, const struct calib_table *src, int force, char *err,
		      size_t errlen)
{
	uint32_t mask = calib_fingerprint_diff(&dst->fp, &src->fp);
	int unit_differs = strcmp(dst->unit, src->unit) != 0;

	if ((mask || unit_differs) && !force) {
		char text[1024], unit[128] = "";

		calib_fingerprint_diff_text(&dst->fp, &src->fp, mask, text, sizeof(text));
		if (unit_differs)
			snprintf(unit, sizeof(unit), "%sunit '%s' vs '%s'", mask ? ", " : "",
				 dst->unit, src->unit);
		errmsg_set(err, errlen, "fingerprints differ: %s%s", text, unit);
		return -1;
	}
	if (strcmp(dst->env_method, src->env_method) && src->env_method[0]) {
		char both[2 * CALIB_VALUE_MAX + 8];

		snprintf(both, sizeof(both), "%s | %s", dst->env_method, src->env_method);
		calib_clean_copy(dst->env_method, sizeof(dst->env_method), both);
	}
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		const struct calib_entry *s = &src->e[i];
		struct calib_entry *d = &dst->e[i];
		double wd, ws;

		if (!s->present)
			continue;
		if (!d->present) {
			*d = *s;
			dst->nkeys++;
			continue;
		}
		wd = (double)d->samples;
		ws = (double)s->samples;
		if (d->has_stats && s->has_stats) {
			d->mean = (d->mean * wd + s->mean * ws) / (wd + ws);
			d->median = (uint64_t)llround(
			    ((double)d->median * wd + (double)s->median * ws) / (wd + ws));
			d->p10 = (uint64_t)llround(((double)d->p10 * wd + (double)s->p10 * ws) /
						   (wd + ws));
		} else if (s->has_stats) {
			d->mean = s->mean;
			d->median = s->median;
			d->p10 = s->p10;
			d->has_stats = 1;
		}
		/* weighted averages of two non-decreasing vectors stay so */
		if (d->has_q && s->has_q)
			for (unsigned j = 0; j < CALIB_NQ; j++)
				d->q[j] = (uint64_t)llround(
				    ((double)d->q[j] * wd + (double)s->q[j] * ws) / (wd + ws));
		else if (s->has_q) {
			memcpy(d->q, s->q, sizeof(d->q));
			d->has_q = 1;
		}
		/* the fits likewise (calib_entry_limit rounds them) */
		if (d->has_fit && s->has_fit) {
			d->fit_a = (d->fit_a * wd + s->fit_a * ws) / (wd + ws);
			d->fit_b = (d->fit_b * wd + s->fit_b * ws) / (wd + ws);
		} else if (s->has_fit) {
			d->fit_a = s->fit_a;
			d->fit_b = s->fit_b;
			d->has_fit = 1;
		}
		if (s->min < d->min)
			d->min = s->min;
		/* calib_entry_limit() below caps the sum at CALIB_NUM_MAX */
		d->samples =
		    d->samples + s->samples < d->samples ? UINT64_MAX : d->samples + s->samples;
		if (s->env && (!d->env || s->env < d->env))
			d->env = s->env;
		d->comp = calib_table_comp_of(d->min, d->env);
		if (d->has_stats) {
			if (d->p10 < d->min)
				d->p10 = d->min;
			if (d->median < d->p10)
				d->median = d->p10;
			if (d->mean < (double)d->min)
				d->mean = (double)d->min;
		}
		calib_entry_limit(d);
	}
	dst->prepared = 0;
	return 0;
}

static int fit_differs(const struct calib_entry *x, const struct calib_entry *y)
{
	return x->has_fit != y->has_fit ||
	       (x->has_fit && (x->fit_a != y->fit_a || x->fit_b != y->fit_b));
}

/* "a=12.5 b=0.1250", or "none". */
static void fit_text(FILE *f, const struct calib_entry *e)
{
	if (e->has_fit)
		fprintf(f, "a=%.1f b=%.4f", e->fit_a, e->fit_b);
	else
		fputs("none", f);
}

unsigned calib_table_diff(const struct calib_table *a, const struct calib_table *b, FILE *f)
{
	uint32_t mask = calib_fingerprint_diff(&a->fp, &b->fp);
	char key[SEQKEY_TEXT_LEN], text[2048];
	struct seqkey k;
	unsigned n = 0;

	if (mask) {
		calib_fingerprint_diff_text(&a->fp, &b->fp, mask, text, sizeof(text));
		fprintf(f, "fingerprint: %s\n", text);
		for (unsigned i = 0; i < CALIB_FP_COUNT; i++)
			n += (mask >> i) & 1u;
	}
	if (strcmp(a->unit, b->unit)) {
		fprintf(f, "unit: '%s' vs '%s'\n", a->unit, b->unit);
		n++;
	}
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		const struct calib_entry *x = &a->e[i], *y = &b->e[i];

		if (!x->present && !y->present)
			continue;
		seqkey_from_index(i, &k);
		seqkey_format(&k, key);
		if (!y->present) {
			fprintf(f,
				"%s  only in A: min %" PRIu64 " env %" PRIu64 " comp %" PRIu64 "\n",
				key, x->min, x->env, x->comp);
			n++;
		} else if (!x->present) {
			fprintf(f,
				"%s  only in B: min %" PRIu64 " env %" PRIu64 " comp %" PRIu64 "\n",
				key, y->min, y->env, y->comp);
			n++;
		} else if (x->min != y->min || x->env != y->env || x->comp != y->comp ||
			   fit_differs(x, y)) {
			fprintf(f,
				"%s  min %" PRIu64 " -> %" PRIu64 " (%+.1f%%)  env %" PRIu64
				" -> %" PRIu64 "  comp %" PRIu64 " -> %" PRIu64,
				key, x->min, y->min,
				x->min ? 100.0 * ((double)y->min - (double)x->min) / (double)x->min
				       : 0.0,
				x->env, y->env, x->comp, y->comp);
			if (fit_differs(x, y)) {
				fputs("  fit ", f);
				fit_text(f, x);
				fputs(" -> ", f);
				fit_text(f, y);
			}
			fputc('\n', f);
			n++;
		}
	}
	return n;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	return fnv(h, b, sizeof(b));
}

uint64_t calib_table_digest(const struct calib_table *t)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = fnv_u64(h, calib_fingerprint_hash(&t->fp));
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		const struct calib_entry *e = &t->e[i];
		uint64_t mean;

		if (!e->present)
			continue;
		memcpy(&mean, &e->mean, sizeof(mean));
		h = fnv_u64(h, i);
		h = fnv_u64(h, (uint64_t)e->has_stats << 1 | e->has_q);
		h = fnv_u64(h, e->min);
		h = fnv_u64(h, e->samples);
		h = fnv_u64(h, e->env);
		h = fnv_u64(h, e->has_stats ? mean : 0);
		h = fnv_u64(h, e->median);
		h = fnv_u64(h, e->p10);
		for (unsigned j = 0; e->has_q && j < CALIB_NQ; j++)
			h = fnv_u64(h, e->q[j]);
		if (e->has_fit) {
			/* only tables with a fit hash it: the others keep their digest */
			uint64_t a, b;

			memcpy(&a, &e->fit_a, sizeof(a));
			memcpy(&b, &e->fit_b, sizeof(b));
			h = fnv_u64(h, a);
			h = fnv_u64(h, b);
		}
	}
	return h;
}
