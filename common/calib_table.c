/*
 * calib_table.c - calibration tables in memory: the host fingerprint, the
 * keys, the estimators and the compensation lookup with fallback (see
 * calib_table.h and docs/calibration-format.md). The text format is
 * written by calib_table_write.c and parsed by calib_table_parse.c; check,
 * merge and diff are in calib_table_ops.c, the directory in calib_dir.c.
 */
#include "common/calib_table.h"
#include "common/calib_fit.h"
#include "common/calib_table_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name, *meta;
} fp_fields[CALIB_FP_COUNT] = {
    [CALIB_FP_CPU_VENDOR] = {"cpu.vendor", "host.cpu.vendor"},
    [CALIB_FP_CPU_FAMILY] = {"cpu.family", "host.cpu.family"},
    [CALIB_FP_CPU_MODEL] = {"cpu.model", "host.cpu.model"},
    [CALIB_FP_CPU_STEPPING] = {"cpu.stepping", "host.cpu.stepping"},
    [CALIB_FP_CPU_MODEL_NAME] = {"cpu.model_name", "host.cpu.model_name"},
    [CALIB_FP_KERNEL] = {"kernel", "host.kernel"},
    [CALIB_FP_JVM_VENDOR] = {"jvm.vendor", "jvm.vendor"},
    [CALIB_FP_JVM_VERSION] = {"jvm.version", "jvm.version"},
    [CALIB_FP_JVM_EXEC] = {"jvm.exec", "jvm.exec"},
    [CALIB_FP_MODE] = {"mode", "mode"},
    [CALIB_FP_METRICS] = {"metrics", "metrics"},
    [CALIB_FP_AGENT_VERSION] = {"agent.version", "agent.version"},
    [CALIB_FP_CLOCK] = {"clock", "clock"},
};

static int is_blank_or_control(char c)
{
	return c == ' ' || (unsigned char)c < 0x20 || c == 0x7f;
}

/* Copies src into dst (len bytes), control characters as blanks, blanks
 * at both ends removed (a leading control character counts as a blank, so
 * that a cleaned value cleans to itself: tables write back what they read). */
void calib_clean_copy(char *dst, size_t len, const char *src)
{
	size_t n = 0;

	while (*src && is_blank_or_control(*src))
		src++;
	for (; *src && n + 1 < len; src++) {
		char c = *src;
		if (is_blank_or_control(c))
			c = ' ';
		dst[n++] = c;
	}
	while (n > 0 && dst[n - 1] == ' ')
		n--;
	dst[n] = '\0';
}

const char *calib_fp_name(unsigned field)
{
	return field < CALIB_FP_COUNT ? fp_fields[field].name : "?";
}

const char *calib_fp_meta_key(unsigned field)
{
	return field < CALIB_FP_COUNT ? fp_fields[field].meta : "?";
}

void calib_fingerprint_clear(struct calib_fingerprint *fp)
{
	memset(fp, 0, sizeof(*fp));
	snprintf(fp->field[CALIB_FP_CLOCK], sizeof(fp->field[CALIB_FP_CLOCK]), "%s",
		 CALIB_CLOCK_DEFAULT);
}

int calib_fingerprint_set_meta(struct calib_fingerprint *fp, const char *key, const char *value)
{
	for (unsigned i = 0; i < CALIB_FP_COUNT; i++)
		if (!strcmp(key, fp_fields[i].meta)) {
			calib_clean_copy(fp->field[i], sizeof(fp->field[i]), value ? value : "");
			if (i == CALIB_FP_CLOCK && !fp->field[i][0])
				snprintf(fp->field[i], sizeof(fp->field[i]), "%s",
					 CALIB_CLOCK_DEFAULT);
			return 1;
		}
	return 0;
}

uint32_t calib_fingerprint_diff(const struct calib_fingerprint *a,
				const struct calib_fingerprint *b)
{
	uint32_t mask = 0;

	for (unsigned i = 0; i < CALIB_FP_COUNT; i++)
		if (strcmp(a->field[i], b->field[i]))
			mask |= 1u << i;
	return mask;
}

void calib_fingerprint_diff_text(const struct calib_fingerprint *a,
				 const struct calib_fingerprint *b, uint32_t mask, char *buf,
				 size_t len)
{
	size_t pos = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (unsigned i = 0; i < CALIB_FP_COUNT && pos < len; i++) {
		int n;

		if (!(mask & (1u << i)))
			continue;
		n = snprintf(buf + pos, len - pos, "%s%s '%s' vs '%s'", pos ? ", " : "",
			     fp_fields[i].name, a->field[i], b->field[i]);
		if (n < 0)
			break;
		pos += (size_t)n;
	}
}

uint64_t calib_fingerprint_hash(const struct calib_fingerprint *fp)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (unsigned i = 0; i < CALIB_FP_COUNT; i++) {
		const char *parts[3] = {fp_fields[i].name, "=", fp->field[i]};

		if (i == CALIB_FP_CLOCK && !strcmp(fp->field[i], CALIB_CLOCK_DEFAULT))
			continue;
		for (unsigned k = 0; k < 3; k++)
			for (const char *p = parts[k]; *p; p++) {
				h ^= (unsigned char)*p;
				h *= 0x100000001b3ull;
			}
		h ^= '\n';
		h *= 0x100000001b3ull;
	}
	return h;
}

void calib_fingerprint_filename(const struct calib_fingerprint *fp, char *buf, size_t len)
{
	snprintf(buf, len, "calib-%016" PRIx64 ".txt", calib_fingerprint_hash(fp));
}

/* ---- the table ---- */

int calib_table_init(struct calib_table *t)
{
	memset(t, 0, sizeof(*t));
	t->e = calloc(SEQKEY_COUNT, sizeof(*t->e));
	return t->e ? 0 : -1;
}

void calib_table_free(struct calib_table *t)
{
	free(t->step);
	free(t->e);
	free(t->resolved);
	free(t->match);
	memset(t, 0, sizeof(*t));
}

uint64_t calib_table_comp_of(uint64_t min, uint64_t env)
{
	return min > env ? min - env : 0;
}

static uint64_t limit(uint64_t v)
{
	return v > CALIB_NUM_MAX ? CALIB_NUM_MAX : v;
}

/* Brings every number of e into the range the text format holds
 * (CALIB_NUM_MAX), so that what is written parses again. */
void calib_entry_limit(struct calib_entry *e)
{
	e->min = limit(e->min);
	e->samples = limit(e->samples);
	e->env = limit(e->env);
	e->median = limit(e->median);
	e->p10 = limit(e->p10);
	for (unsigned j = 0; j < CALIB_NQ; j++)
		e->q[j] = limit(e->q[j]);
	if (!(e->mean >= 0)) /* NaN too */
		e->mean = 0;
	else if (e->mean > (double)CALIB_NUM_MAX)
		e->mean = (double)CALIB_NUM_MAX;
	if (e->has_fit) {
		e->fit_a = calib_fit_round_a(e->fit_a, (double)CALIB_NUM_MAX);
		e->fit_b = calib_fit_round_b(e->fit_b, (double)CALIB_NUM_MAX);
	} else {
		e->fit_a = e->fit_b = 0;
	}
	e->comp = calib_table_comp_of(e->min, e->env);
}

void calib_table_set(struct calib_table *t, const struct seqkey *k, const struct calib_entry *e)
{
	struct calib_entry *d = &t->e[seqkey_index(k)];

	if (!d->present)
		t->nkeys++;
	*d = *e;
	calib_entry_limit(d);
	d->present = 1;
	d->comp = calib_table_comp_of(d->min, d->env);
	t->prepared = 0;
}

static const char *const estimator_names[] = {"min",  "p10", "median", "mean",
					      "cond", "fit", "cfit"};

int calib_estimator_parse(const char *name, enum calib_estimator *out)
{
	for (unsigned i = 0; i < sizeof(estimator_names) / sizeof(estimator_names[0]); i++)
		if (!strcmp(name, estimator_names[i])) {
			*out = (enum calib_estimator)i;
			return 0;
		}
	return -1;
}

const char *calib_estimator_name(enum calib_estimator e)
{
	return (unsigned)e < sizeof(estimator_names) / sizeof(estimator_names[0])
		   ? estimator_names[e]
		   : "?";
}

void calib_table_use_estimator(struct calib_table *t, enum calib_estimator e)
{
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		struct calib_entry *d = &t->e[i];
		uint64_t stat = d->min;

		if (!d->present)
			continue;
		if (d->has_stats && e == CALIB_EST_P10)
			stat = d->p10;
		else if (d->has_stats && e == CALIB_EST_MEDIAN)
			stat = d->median;
		else if (d->has_stats && (e == CALIB_EST_MEAN || e == CALIB_EST_COND ||
					  e == CALIB_EST_FIT || e == CALIB_EST_CFIT))
			stat = d->mean >= 0 && d->mean < (double)CALIB_NUM_MAX
				   ? (uint64_t)llround(d->mean)
			       : d->mean > 0 ? CALIB_NUM_MAX
					     : 0;
		d->comp = calib_table_comp_of(stat, d->env);
	}
	t->estimator = (int)e;
	t->prepared = 0;
}

uint64_t calib_entry_cond(const struct calib_entry *e, uint64_t delta)
{
	uint64_t sum = 0;
	unsigned n = 0;

	if (!e->has_q)
		return e->comp;
	for (; n < CALIB_NQ; n++) {
		uint64_t o = calib_table_comp_of(e->q[n], e->env);

		if (o > delta)
			break;
		sum += o;
	}
	return n ? (sum + n / 2) / n : calib_table_comp_of(e->q[0], e->env);
}

const struct calib_entry *calib_table_get(const struct calib_table *t, const struct seqkey *k)
{
	const struct calib_entry *e = &t->e[seqkey_index(k)];

	return e->present ? e : NULL;
}

unsigned calib_table_keys_with_q(const struct calib_table *t)
{
	unsigned n = 0;

	for (unsigned i = 0; i < SEQKEY_COUNT; i++)
		n += t->e[i].present && t->e[i].has_q;
	return n;
}

unsigned calib_table_keys_with_fit(const struct calib_table *t)
{
	unsigned n = 0;

	for (unsigned i = 0; i < SEQKEY_COUNT; i++)
		n += t->e[i].present && t->e[i].has_fit;
	return n;
}

unsigned calib_table_env_missing(const struct calib_table *t)
{
	unsigned n = 0;

	for (unsigned i = 0; i < SEQKEY_COUNT; i++)
		n += t->e[i].present && !t->e[i].env;
	return n;
}

void calib_table_coverage(const struct calib_table *t, enum seqkey_mode mode, unsigned *reachable,
			  unsigned *present)
{
	unsigned r = 0, p = 0;
	struct seqkey k;

	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		seqkey_from_index(i, &k);
		if (seqkey_reachable(mode, &k)) {
			r++;
			p += t->e[i].present;
		}
	}
	if (reachable)
		*reachable = r;
	if (present)
		*present = p;
}

/* Types equal when static-ness is ignored: I/i, J/j and N/n pair up. */
static unsigned other_static(unsigned type)
{
	return type < JCAL_MT_OTHER ? type ^ 1u : type;
}

/* t->step[i] for the key of seqkey_index i, resolved and matched. Under
 * cond, for an entry with q (calib_entry_cond): o[j] = max(0, q[j] - env),
 * sel[0] = o[0] (no overhead at or below the delta: the smallest, which the
 * caller clamps) and sel[n] the rounded mean of o[0..n-1]. Under fit, for an
 * entry with a fit, its a and b (calib_fit_comp); for one without, cond.
 * Under cfit, cond, and for an entry with a fit and q also its a and b,
 * fit_h = q[15], with sel[CALIB_NQ] as cond's mean (calib_cfit_comp past fit_h).
 * Otherwise the entry's comp whatever the delta (0 without a table). */
static void step_build(struct calib_table *t, unsigned i)
{
	const struct calib_entry *d = &t->e[t->resolved[i]];
	struct calib_step *c = &t->step[i];
	uint64_t sum = 0, o, comp = t->match[i] == CALIB_NO_TABLE ? 0 : d->comp;
	int cond = t->estimator == CALIB_EST_COND || t->estimator == CALIB_EST_FIT ||
		   t->estimator == CALIB_EST_CFIT;

	c->wide = 0;
	c->fit = 0;
	c->similar = t->match[i] == CALIB_SIMILAR;
	c->global = t->match[i] == CALIB_GLOBAL;
	c->fit_a = c->fit_b = 0;
	c->fit_h = 0;
	if (t->match[i] != CALIB_NO_TABLE && d->has_fit &&
	    (t->estimator == CALIB_EST_FIT || (t->estimator == CALIB_EST_CFIT && d->has_q))) {
		c->fit = t->estimator == CALIB_EST_FIT ? 1 : 2;
		c->fit_a = d->fit_a;
		c->fit_b = d->fit_b;
	}
	if (t->match[i] == CALIB_NO_TABLE || !cond || !d->has_q) {
		for (unsigned j = 0; j < CALIB_NQ; j++)
			c->o[j / 4][j % 4] = INT32_MAX;
		for (unsigned j = 0; j <= CALIB_NQ; j++)
			c->sel[j] = comp;
		c->rare = c->fit != 0;
		return;
	}
	for (unsigned j = 0; j < CALIB_NQ; j++) {
		o = calib_table_comp_of(d->q[j], d->env);
		c->wide |= o >= INT32_MAX;
		c->o[j / 4][j % 4] = o < INT32_MAX ? (int32_t)o : INT32_MAX;
		sum += o;
		c->sel[j + 1] = (sum + (j + 1) / 2) / (j + 1);
	}
	c->sel[0] = calib_table_comp_of(d->q[0], d->env);
	c->fit_h = d->q[CALIB_NQ - 1];
	c->rare = c->wide || c->fit;
}

int calib_table_prepare(struct calib_table *t)
{
	unsigned global = SEQKEY_COUNT;

	if (t->prepared)
		return 0;
	if (!t->resolved)
		t->resolved = malloc(SEQKEY_COUNT * sizeof(*t->resolved));
	if (!t->match)
		t->match = malloc(SEQKEY_COUNT * sizeof(*t->match));
	if (!t->step)
		t->step = malloc(SEQKEY_COUNT * sizeof(*t->step));
	if (!t->resolved || !t->match || !t->step)
		return -1;
	for (unsigned i = 0; i < SEQKEY_COUNT; i++)
		if (t->e[i].present && (global == SEQKEY_COUNT || t->e[i].comp < t->e[global].comp))
			global = i;
	t->global_comp = global < SEQKEY_COUNT ? t->e[global].comp : 0;
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		struct seqkey k, v;
		unsigned best = SEQKEY_COUNT, best_same = 0;

		if (t->e[i].present) {
			t->resolved[i] = (uint16_t)i;
			t->match[i] = CALIB_EXACT;
			continue;
		}
		seqkey_from_index(i, &k);
		/* the 8 variants of m1, m2, m3 with static-ness flipped */
		for (unsigned flip = 1; flip < 8; flip++) {
			unsigned idx, same;

			v = k;
			if (flip & 1)
				v.m1 = (uint8_t)other_static(k.m1);
			if (flip & 2)
				v.m2 = (uint8_t)other_static(k.m2);
			if (flip & 4)
				v.m3 = (uint8_t)other_static(k.m3);
			idx = seqkey_index(&v);
			if (idx == i || !t->e[idx].present)
				continue;
			same = (v.m1 == k.m1) + (v.m2 == k.m2) + (v.m3 == k.m3);
			if (best == SEQKEY_COUNT || same > best_same ||
			    (same == best_same && idx < best)) {
				best = idx;
				best_same = same;
			}
		}
		if (best < SEQKEY_COUNT) {
			t->resolved[i] = (uint16_t)best;
			t->match[i] = CALIB_SIMILAR;
		} else if (global < SEQKEY_COUNT) {
			t->resolved[i] = (uint16_t)global;
			t->match[i] = CALIB_GLOBAL;
		} else {
			t->resolved[i] = 0;
			t->match[i] = CALIB_NO_TABLE;
		}
	}
	for (unsigned i = 0; i < SEQKEY_COUNT; i++)
		step_build(t, i);
	t->prepared = 1;
	return 0;
}

/* calib_table_comp_for() of the key of seqkey_index i, the table prepared. */
static inline enum calib_match comp_at(const struct calib_table *t, unsigned i, uint64_t delta,
				       uint64_t *comp)
{
	*comp = calib_table_comp_prepared(t, i, delta);
	return (enum calib_match)t->match[i];
}

enum calib_match calib_table_lookup(struct calib_table *t, const struct seqkey *k, uint64_t *comp)
{
	unsigned i = seqkey_index(k);

	*comp = 0;
	if (!t->prepared && calib_table_prepare(t))
		return CALIB_NO_TABLE;
	if (t->match[i] != CALIB_NO_TABLE)
		*comp = t->e[t->resolved[i]].comp;
	return (enum calib_match)t->match[i];
}

enum calib_match calib_table_comp_for(struct calib_table *t, const struct seqkey *k, uint64_t delta,
				      uint64_t *comp)
{
	*comp = 0;
	if (!t->prepared && calib_table_prepare(t))
		return CALIB_NO_TABLE;
	return comp_at(t, seqkey_index(k), delta, comp);
}

int calib_table_comp_batch(struct calib_table *t, const uint16_t *key, const uint64_t *delta,
			   uint64_t *comp, size_t n)
{
	if (!t->prepared && calib_table_prepare(t))
		return -1;
	for (size_t k = 0; k < n; k++)
		comp_at(t, key[k], delta[k], &comp[k]);
	return 0;
}

int calib_table_copy(struct calib_table *dst, const struct calib_table *src)
{
	struct calib_entry *e = dst->e;

	if (!e)
		return -1;
	free(dst->resolved);
	free(dst->match);
	memcpy(e, src->e, SEQKEY_COUNT * sizeof(*e));
	memcpy(dst->fp.field, src->fp.field, sizeof(dst->fp.field));
	memcpy(dst->created, src->created, sizeof(dst->created));
	memcpy(dst->unit, src->unit, sizeof(dst->unit));
	memcpy(dst->env_method, src->env_method, sizeof(dst->env_method));
	dst->nkeys = src->nkeys;
	dst->estimator = src->estimator;
	dst->prepared = 0;
	free(dst->step);
	dst->step = NULL;
	dst->resolved = NULL;
	dst->match = NULL;
	return 0;
}

_Static_assert(sizeof(struct calib_step) == 256, "a key's step is 256 bytes (calib_table.h)");
