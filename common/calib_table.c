/*
 * calib_table.c - calibration tables: fingerprint, text format (write and
 * strict parse), merge, diff, check, compensation lookup with fallback and
 * the calibration directory (see calib_table.h and
 * docs/calibration-format.md).
 */
#include "errmsg.h"
#include "calib_table.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define VERSION_LINE "jcal-calibration 2" /* written; 1 (no q) is read too */
#define VERSION_LINE_1 "jcal-calibration 1"
#define VERSION_PREFIX "jcal-calibration "

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
};


static int is_blank_or_control(char c)
{
	return c == ' ' || (unsigned char)c < 0x20 || c == 0x7f;
}

/* Copies src into dst (len bytes), control characters as blanks, blanks
 * at both ends removed (a leading control character counts as a blank, so
 * that a cleaned value cleans to itself: tables write back what they read). */
static void clean_copy(char *dst, size_t len, const char *src)
{
	size_t n = 0;

	while (*src && is_blank_or_control(*src))
		src++;
	for (; *src && n + 1 < len; src++)
		dst[n++] = is_blank_or_control(*src) ? ' ' : *src;
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
}

int calib_fingerprint_set_meta(struct calib_fingerprint *fp, const char *key, const char *value)
{
	for (unsigned i = 0; i < CALIB_FP_COUNT; i++)
		if (!strcmp(key, fp_fields[i].meta)) {
			clean_copy(fp->field[i], sizeof(fp->field[i]), value ? value : "");
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
	free(t->cond);
	free(t->e);
	free(t->resolved);
	free(t->match);
	memset(t, 0, sizeof(*t));
}

static uint64_t comp_of(uint64_t min, uint64_t env)
{
	return min > env ? min - env : 0;
}

static uint64_t limit(uint64_t v)
{
	return v > CALIB_NUM_MAX ? CALIB_NUM_MAX : v;
}

/* Brings every number of e into the range the text format holds
 * (CALIB_NUM_MAX), so that what is written parses again. */
static void entry_limit(struct calib_entry *e)
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
	e->comp = comp_of(e->min, e->env);
}

void calib_table_set(struct calib_table *t, const struct seqkey *k, const struct calib_entry *e)
{
	struct calib_entry *d = &t->e[seqkey_index(k)];

	if (!d->present)
		t->nkeys++;
	*d = *e;
	entry_limit(d);
	d->present = 1;
	d->comp = comp_of(d->min, d->env);
	t->prepared = 0;
	free(t->cond);
	t->cond = NULL;
}

/* The cond cache (struct calib_cond) for every key with q; left NULL when
 * memory runs out (calib_entry_cond then serves each delta). */
static void cond_build(struct calib_table *t)
{
	if (!t->cond)
		t->cond = malloc(SEQKEY_COUNT * sizeof(*t->cond));
	if (!t->cond)
		return;
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		const struct calib_entry *d = &t->e[i];
		struct calib_cond *c = &t->cond[i];
		uint64_t sum = 0;

		if (!d->present || !d->has_q)
			continue;
		for (unsigned j = 0; j < CALIB_NQ; j++) {
			c->o[j] = comp_of(d->q[j], d->env);
			sum += c->o[j];
			c->mean[j] = (sum + (j + 1) / 2) / (j + 1);
		}
	}
}

static const char *const estimator_names[] = { "min", "p10", "median", "mean", "cond" };

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
		else if (d->has_stats && (e == CALIB_EST_MEAN || e == CALIB_EST_COND))
			stat = d->mean >= 0 && d->mean < (double)CALIB_NUM_MAX
				   ? (uint64_t)(d->mean + 0.5)
				   : d->mean > 0 ? CALIB_NUM_MAX : 0;
		d->comp = comp_of(stat, d->env);
	}
	t->estimator = (int)e;
	t->prepared = 0;
	if (e == CALIB_EST_COND)
		cond_build(t);
}

uint64_t calib_entry_cond(const struct calib_entry *e, uint64_t delta)
{
	uint64_t sum = 0;
	unsigned n = 0;

	if (!e->has_q)
		return e->comp;
	for (; n < CALIB_NQ; n++) {
		uint64_t o = comp_of(e->q[n], e->env);

		if (o > delta)
			break;
		sum += o;
	}
	return n ? (sum + n / 2) / n : comp_of(e->q[0], e->env);
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

int calib_table_prepare(struct calib_table *t)
{
	unsigned global = SEQKEY_COUNT;

	if (t->prepared)
		return 0;
	if (!t->resolved)
		t->resolved = malloc(SEQKEY_COUNT * sizeof(*t->resolved));
	if (!t->match)
		t->match = malloc(SEQKEY_COUNT * sizeof(*t->match));
	if (!t->resolved || !t->match)
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
	t->prepared = 1;
	return 0;
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
	enum calib_match m = calib_table_lookup(t, k, comp);
	const struct calib_cond *c;
	unsigned r, n = 0;

	if (t->estimator != CALIB_EST_COND || m == CALIB_NO_TABLE)
		return m;
	r = t->resolved[seqkey_index(k)];
	if (!t->cond || !t->e[r].has_q) {
		*comp = calib_entry_cond(&t->e[r], delta);
		return m;
	}
	/* how many o[j] <= delta: counted without branches, which a search
	 * would mispredict on every other delta */
	c = &t->cond[r];
	for (unsigned j = 0; j < CALIB_NQ; j++)
		n += c->o[j] <= delta;
	*comp = n ? c->mean[n - 1] : c->o[0];
	return m;
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
	free(dst->cond);
	dst->cond = NULL;
	if (dst->estimator == CALIB_EST_COND)
		cond_build(dst);
	dst->resolved = NULL;
	dst->match = NULL;
	return 0;
}

/* ---- writing ---- */

/* "name value", or "name" alone for an empty value. */
static void header(FILE *f, const char *name, const char *value)
{
	if (value && *value)
		fprintf(f, "%s %s\n", name, value);
	else
		fprintf(f, "%s\n", name);
}

int calib_table_write(const struct calib_table *t, FILE *f)
{
	char key[SEQKEY_TEXT_LEN], clean[CALIB_VALUE_MAX];
	struct seqkey k;

	fputs(VERSION_LINE "\n", f);
	fputs("# jcal calibration table (docs/calibration-format.md): per sequence key\n"
	      "# m1:t1:m2:t2:m3 the minimum delta of metric 0 in raw units, then samples,\n"
	      "# environment cost, compensation = max(0, min - env), and statistics of the\n"
	      "# samples. jcal-post subtracts comp from each delta with that key.\n",
	      f);
	for (unsigned i = 0; i < CALIB_FP_COUNT; i++)
		header(f, fp_fields[i].name, t->fp.field[i]);
	clean_copy(clean, sizeof(clean), t->created);
	header(f, "created", clean);
	clean_copy(clean, sizeof(clean), t->unit);
	header(f, "unit", clean);
	clean_copy(clean, sizeof(clean), t->env_method);
	header(f, "env.method", clean);
	fprintf(f, "env.missing %u\n", calib_table_env_missing(t));
	fprintf(f, "keys %u\n", t->nkeys);
	fputs("# KEY MIN samples= env= comp= [mean= median= p10= [q=Q1,...,Q16]]\n", f);
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		const struct calib_entry *e = &t->e[i];

		if (!e->present)
			continue;
		seqkey_from_index(i, &k);
		fprintf(f, "%s %" PRIu64 " samples=%" PRIu64 " env=%" PRIu64 " comp=%" PRIu64,
			seqkey_format(&k, key), e->min, e->samples, e->env, e->comp);
		if (e->has_stats)
			fprintf(f, " mean=%.1f median=%" PRIu64 " p10=%" PRIu64, e->mean, e->median,
				e->p10);
		for (unsigned j = 0; e->has_stats && e->has_q && j < CALIB_NQ; j++)
			fprintf(f, "%s%" PRIu64, j ? "," : " q=", e->q[j]);
		fputc('\n', f);
	}
	return ferror(f) ? -1 : 0;
}

/* Writes t to fd (closed here) named name in messages. Returns 0 or -1. */
static int write_fd(const struct calib_table *t, int fd, const char *name, int sync, char *err,
		    size_t errlen)
{
	FILE *f = fdopen(fd, "w");
	int bad;

	if (!f) {
		errmsg_set(err, errlen, "%s: %s", name, strerror(errno));
		close(fd);
		return -1;
	}
	bad = calib_table_write(t, f);
	if (fflush(f) || ferror(f) || (sync && fsync(fileno(f))))
		bad = -1;
	if (bad)
		errmsg_set(err, errlen, "%s: write error: %s", name, strerror(errno));
	if (fclose(f) && !bad) {
		errmsg_set(err, errlen, "%s: %s", name, strerror(errno));
		bad = -1;
	}
	return bad;
}

/* Opens a new file "<path>.tmp.<16 random hex>" (O_EXCL, no symlink
 * followed, mode 0644 less the umask) into *tmp (malloc'ed). Returns the
 * descriptor or -1 with errno set. */
static int open_temp(const char *path, char **tmp)
{
	static unsigned counter;

	for (unsigned attempt = 0; attempt < 64; attempt++) {
		uint64_t r = 0;
		int fd;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
			r = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull ^
			    (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)tmp ^
			    (uint64_t)__atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) * 0x2545f491ull;
		if (asprintf(tmp, "%s.tmp.%016" PRIx64, path, r) < 0) {
			*tmp = NULL;
			errno = ENOMEM;
			return -1;
		}
		fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd;
		free(*tmp);
		*tmp = NULL;
	}
	errno = EEXIST;
	return -1;
}

int calib_table_write_file(const struct calib_table *t, const char *path, char *err, size_t errlen)
{
	struct stat sb;
	char *tmp = NULL;
	int fd, bad;

	if (!lstat(path, &sb) && !S_ISREG(sb.st_mode)) {
		/* a device (/dev/null, /dev/stdout), a FIFO or a symlink: written
		 * where it leads, never replaced */
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC, 0644);
		if (fd < 0) {
			errmsg_set(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
		return write_fd(t, fd, path, 0, err, errlen);
	}
	/* a regular file or nothing yet: a new file renamed over it, so that
	 * readers see the old table or the new one, never a part */
	fd = open_temp(path, &tmp);
	if (fd < 0) {
		errmsg_set(err, errlen, "%s: cannot create a temporary file beside it: %s", path,
			   strerror(errno));
		free(tmp);
		return -1;
	}
	bad = write_fd(t, fd, tmp, 1, err, errlen);
	if (!bad && rename(tmp, path)) {
		errmsg_set(err, errlen, "%s: cannot rename %s: %s", path, tmp, strerror(errno));
		bad = -1;
	}
	if (bad)
		unlink(tmp);
	free(tmp);
	return bad;
}

/* ---- parsing ---- */

enum {
	H_CREATED = CALIB_FP_COUNT,
	H_UNIT,
	H_ENV_METHOD,
	H_ENV_MISSING,
	H_KEYS,
	H_COUNT,
};

static const char *const other_headers[] = {"created", "unit", "env.method", "env.missing", "keys"};

static int header_id(const char *name, size_t len)
{
	for (unsigned i = 0; i < CALIB_FP_COUNT; i++)
		if (strlen(fp_fields[i].name) == len && !strncmp(name, fp_fields[i].name, len))
			return (int)i;
	for (unsigned i = 0; i < H_COUNT - CALIB_FP_COUNT; i++)
		if (strlen(other_headers[i]) == len && !strncmp(name, other_headers[i], len))
			return (int)(CALIB_FP_COUNT + i);
	return -1;
}

static const char *header_name(int id)
{
	return id < CALIB_FP_COUNT ? fp_fields[id].name : other_headers[id - CALIB_FP_COUNT];
}

/* Strict unsigned decimal: digits only, no sign. Returns 0, -1 when it is
 * not one, -2 when it is above max. */
static int parse_num(const char *s, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	int over = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		unsigned d;

		if (*s < '0' || *s > '9')
			return -1;
		d = (unsigned)(*s - '0');
		if (x > (max - d) / 10)
			over = 1;
		else
			x = x * 10 + d;
	}
	if (over)
		return -2;
	*v = x;
	return 0;
}

static int parse_u64(const char *s, uint64_t *v)
{
	return parse_num(s, UINT64_MAX, v) ? -1 : 0;
}

/* Decimal only: DIGITS[.DIGITS] or .DIGITS (no sign, exponent, hex, inf
 * or nan). Returns 0, -1 when it is not one, -2 above CALIB_NUM_MAX. */
static int parse_mean(const char *s, double *v)
{
	size_t digits = strspn(s, "0123456789"), frac = 0;
	char *end;

	if (s[digits] == '.')
		frac = strspn(s + digits + 1, "0123456789");
	if (!digits && !frac)
		return -1;
	if (s[digits + (s[digits] == '.' ? 1 + frac : 0)])
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	if (*end || !isfinite(*v))
		return -1;
	return *v > (double)CALIB_NUM_MAX ? -2 : 0;
}

struct parser {
	struct calib_table *t;
	const char *name;
	char *err;
	size_t errlen;
	unsigned line;
	int seen[H_COUNT];
	uint64_t env_missing, keys;
	int in_keys;
	int version; /* of the table: 1 or CALIB_FORMAT_VERSION */
};

static int perr(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int perr(struct parser *p, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	errmsg_set(p->err, p->errlen, "%s:%u: %s", p->name, p->line, what);
	return -1;
}

static int parse_header(struct parser *p, char *s)
{
	size_t nlen = strcspn(s, " \t");
	char *value = s + nlen;
	int id = header_id(s, nlen);

	while (*value == ' ' || *value == '\t')
		value++;
	if (id < 0)
		return perr(p,
			    "unknown header '%.*s' (expected a key line 'M:T:M:T:M MIN ...' or "
			    "one of the header names of docs/calibration-format.md)",
			    (int)nlen, s);
	if (p->in_keys)
		return perr(p, "header '%s' after the first key line", header_name(id));
	if (p->seen[id])
		return perr(p, "header '%s' given twice (first on line %d)", header_name(id),
			    p->seen[id]);
	p->seen[id] = (int)p->line;
	if (strlen(value) >= CALIB_VALUE_MAX)
		return perr(p, "header '%s': value longer than %d bytes", header_name(id),
			    CALIB_VALUE_MAX - 1);
	switch (id) {
	case H_CREATED:
		clean_copy(p->t->created, sizeof(p->t->created), value);
		break;
	case H_UNIT:
		clean_copy(p->t->unit, sizeof(p->t->unit), value);
		break;
	case H_ENV_METHOD:
		clean_copy(p->t->env_method, sizeof(p->t->env_method), value);
		break;
	case H_ENV_MISSING:
	case H_KEYS:
		if (parse_u64(value, id == H_KEYS ? &p->keys : &p->env_missing))
			return perr(p, "header '%s': '%s' is not a count", header_name(id), value);
		break;
	default:
		clean_copy(p->t->fp.field[id], sizeof(p->t->fp.field[id]), value);
	}
	return 0;
}

enum { F_SAMPLES, F_ENV, F_COMP, F_MEAN, F_MEDIAN, F_P10, F_Q, F_COUNT };
static const char *const field_names[F_COUNT] = {"samples", "env",    "comp", "mean",
						 "median",  "p10",    "q"};

/* "Q1,...,Q16": CALIB_NQ unsigned integers, non-decreasing. Returns 0, or
 * -1 with what is wrong in why. */
static int parse_q(const char *s, uint64_t *q, const char **why)
{
	char num[24];
	unsigned n = 0;

	*why = "16 comma-separated unsigned integers";
	for (;;) {
		size_t len = strcspn(s, ",");

		if (n == CALIB_NQ || len >= sizeof(num))
			return -1;
		memcpy(num, s, len);
		num[len] = '\0';
		switch (parse_num(num, CALIB_NUM_MAX, &q[n])) {
		case 0:
			break;
		case -2:
			*why = "16 integers of at most " CALIB_NUM_MAX_TEXT;
			return -1;
		default:
			return -1;
		}
		if (n && q[n] < q[n - 1]) {
			*why = "non-decreasing";
			return -1;
		}
		n++;
		if (!s[len])
			break;
		s += len + 1;
	}
	return n == CALIB_NQ ? 0 : -1;
}

static int parse_key_line(struct parser *p, char *s)
{
	char *tok, *save = NULL, keytext[SEQKEY_TEXT_LEN];
	struct calib_entry e = {0};
	uint64_t comp = 0;
	struct seqkey k;
	int have[F_COUNT] = {0}, r;

	tok = strtok_r(s, " \t", &save);
	if (seqkey_parse(tok, &k))
		return perr(p,
			    "bad key '%s': expected M:T:M:T:M with types I i J j N n O and "
			    "transitions E X T",
			    tok);
	seqkey_format(&k, keytext);
	if (p->t->e[seqkey_index(&k)].present)
		return perr(p, "key %s given twice", keytext);
	tok = strtok_r(NULL, " \t", &save);
	if (!tok)
		return perr(p, "key %s: no MIN value", keytext);
	switch (parse_num(tok, CALIB_NUM_MAX, &e.min)) {
	case 0:
		break;
	case -2:
		return perr(p, "key %s: MIN '%s' is above " CALIB_NUM_MAX_TEXT
			    " (the largest number a table holds)", keytext, tok);
	default:
		return perr(p, "key %s: MIN '%s' is not an unsigned integer", keytext, tok);
	}
	while ((tok = strtok_r(NULL, " \t", &save))) {
		char *eq = strchr(tok, '=');
		unsigned f;

		if (!eq)
			return perr(p, "key %s: '%s' is not a name=value field", keytext, tok);
		*eq = '\0';
		for (f = 0; f < F_COUNT && strcmp(tok, field_names[f]); f++)
			;
		if (f == F_COUNT)
			return perr(p,
				    "key %s: unknown field '%s' (expected samples, env, comp, "
				    "mean, median, p10, q)",
				    keytext, tok);
		if (have[f])
			return perr(p, "key %s: field '%s' given twice", keytext, tok);
		have[f] = 1;
		if (f == F_Q) {
			const char *why;

			if (p->version < 2)
				return perr(p, "key %s: field 'q' needs table version 2", keytext);
			if (parse_q(eq + 1, e.q, &why))
				return perr(p, "key %s: q='%s' is not %s", keytext, eq + 1, why);
			continue;
		}
		r = f == F_MEAN ? parse_mean(eq + 1, &e.mean)
				: parse_num(eq + 1, CALIB_NUM_MAX,
					    f == F_SAMPLES  ? &e.samples
					    : f == F_ENV    ? &e.env
					    : f == F_COMP   ? &comp
					    : f == F_MEDIAN ? &e.median
							    : &e.p10);
		if (r == -2)
			return perr(p, "key %s: %s='%s' is above " CALIB_NUM_MAX_TEXT
				    " (the largest number a table holds)", keytext, tok, eq + 1);
		if (r)
			return perr(p, "key %s: %s='%s' is not %s", keytext, tok, eq + 1,
				    f == F_MEAN ? "a non-negative number (decimal digits, "
						  "an optional fraction)"
						: "an unsigned integer");
	}
	for (unsigned f = 0; f < F_MEAN; f++)
		if (!have[f])
			return perr(p, "key %s: field '%s' missing", keytext, field_names[f]);
	if (have[F_MEAN] != have[F_MEDIAN] || have[F_MEAN] != have[F_P10])
		return perr(p, "key %s: mean, median and p10 come together or not at all", keytext);
	if (have[F_Q] && !have[F_MEAN])
		return perr(p, "key %s: q needs mean, median and p10", keytext);
	if (!e.samples)
		return perr(p, "key %s: samples=0 (a key in the table was observed at least once)",
			    keytext);
	if (comp != comp_of(e.min, e.env))
		return perr(p, "key %s: comp=%" PRIu64 " but max(0, min - env) = %" PRIu64, keytext,
			    comp, comp_of(e.min, e.env));
	e.has_stats = (uint8_t)have[F_MEAN];
	e.has_q = (uint8_t)have[F_Q];
	calib_table_set(p->t, &k, &e);
	p->in_keys = 1;
	return 0;
}

static void table_clear(struct calib_table *t)
{
	memset(t->e, 0, SEQKEY_COUNT * sizeof(*t->e));
	calib_fingerprint_clear(&t->fp);
	t->created[0] = t->unit[0] = t->env_method[0] = '\0';
	t->nkeys = 0;
	t->prepared = 0;
	free(t->cond);
	t->cond = NULL;
}

/* Reads one line into buf (CALIB_LINE_MAX + 1 bytes), newline dropped.
 * Returns its length, -1 at the end of the stream, -2 when the line is
 * longer than CALIB_LINE_MAX (so that no input makes the parser hold more
 * than that: a table never needs it). */
static ssize_t read_line(FILE *f, char *buf)
{
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF && c != '\n') {
		if (n == CALIB_LINE_MAX)
			return -2;
		buf[n++] = (char)c;
	}
	buf[n] = '\0';
	return c == EOF && !n ? -1 : (ssize_t)n;
}

int calib_table_parse(struct calib_table *t, FILE *f, const char *name, char *err, size_t errlen)
{
	struct parser p = {.t = t, .name = name, .err = err, .errlen = errlen};
	char *buf = malloc(CALIB_LINE_MAX + 1);
	ssize_t n;
	int r = 0;

	table_clear(t);
	if (!buf) {
		errmsg_set(err, errlen, "%s: out of memory", name);
		return -1;
	}
	while ((n = read_line(f, buf)) != -1) {
		char *s = buf;

		p.line++;
		if (n == -2) {
			r = perr(&p, "line longer than %d bytes (not a calibration table?)",
				 CALIB_LINE_MAX);
			break;
		}
		if (n > 0 && buf[n - 1] == '\r')
			buf[--n] = '\0';
		if (strlen(buf) != (size_t)n) {
			r = perr(&p, "NUL byte in the line");
			break;
		}
		if (p.line == 1) {
			p.version = !strcmp(buf, VERSION_LINE)	 ? CALIB_FORMAT_VERSION
				    : !strcmp(buf, VERSION_LINE_1) ? 1
								   : 0;
			if (p.version)
				continue;
			if (!strncmp(buf, VERSION_PREFIX, strlen(VERSION_PREFIX)))
				r = perr(&p, "unsupported table version '%s' (this build reads 1 and %d)",
					 buf + strlen(VERSION_PREFIX), CALIB_FORMAT_VERSION);
			else
				r = perr(&p,
					 "not a jcal calibration table (the first line must be "
					 "'%s')",
					 VERSION_LINE);
			break;
		}
		while (*s == ' ' || *s == '\t')
			s++;
		while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '\t'))
			buf[--n] = '\0';
		if (!*s || *s == '#')
			continue;
		r = strchr("IiJjNnO", *s) && s[1] == ':' ? parse_key_line(&p, s)
							 : parse_header(&p, s);
		if (r)
			break;
	}
	free(buf);
	if (!r && ferror(f))
		r = perr(&p, "read error: %s", strerror(errno));
	if (!r && p.line == 0) {
		p.line = 1;
		r = perr(&p, "empty file (expected '%s')", VERSION_LINE);
	}
	for (int id = 0; !r && id < H_COUNT; id++)
		if (!p.seen[id])
			r = perr(&p, "header '%s' missing (file cut off?)", header_name(id));
	if (!r && p.keys != t->nkeys)
		r = perr(&p, "header 'keys %" PRIu64 "' (line %d) but %u key lines (file cut off?)",
			 p.keys, p.seen[H_KEYS], t->nkeys);
	if (!r && p.env_missing != calib_table_env_missing(t))
		r = perr(&p, "header 'env.missing %" PRIu64 "' (line %d) but %u keys have env=0",
			 p.env_missing, p.seen[H_ENV_MISSING], calib_table_env_missing(t));
	if (r)
		table_clear(t);
	return r;
}

const char *calib_file_kind(mode_t mode)
{
	return S_ISREG(mode)    ? "a regular file"
	       : S_ISDIR(mode)  ? "a directory"
	       : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISCHR(mode)  ? "a character device"
	       : S_ISBLK(mode)  ? "a block device"
	       : S_ISSOCK(mode) ? "a socket"
			        : "not a regular file";
}

int calib_table_read_file(struct calib_table *t, const char *path, char *err, size_t errlen)
{
	/* O_NONBLOCK: a FIFO must not block the open; fstat then refuses it */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat sb;
	FILE *f;
	int r;

	if (fd < 0) {
		errmsg_set(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb)) {
		errmsg_set(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		errmsg_set(err, errlen, "%s: %s, not a regular file: a calibration table is a file",
			   path, calib_file_kind(sb.st_mode));
		close(fd);
		return -1;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) || !(f = fdopen(fd, "r"))) {
		errmsg_set(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	r = calib_table_parse(t, f, path, err, errlen);
	fclose(f);
	return r;
}

/* ---- check, merge, diff ---- */

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
				    fp_fields[i].name);
	if (!known_mode)
		add_problem(report, len, &pos, &n, "mode '%s' is not events or bci",
			    t->fp.field[CALIB_FP_MODE]);
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
		clean_copy(dst->env_method, sizeof(dst->env_method), both);
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
		if (s->min < d->min)
			d->min = s->min;
		/* entry_limit() below caps the sum at CALIB_NUM_MAX */
		d->samples =
		    d->samples + s->samples < d->samples ? UINT64_MAX : d->samples + s->samples;
		if (s->env && (!d->env || s->env < d->env))
			d->env = s->env;
		d->comp = comp_of(d->min, d->env);
		if (d->has_stats) {
			if (d->p10 < d->min)
				d->p10 = d->min;
			if (d->median < d->p10)
				d->median = d->p10;
			if (d->mean < (double)d->min)
				d->mean = (double)d->min;
		}
		entry_limit(d);
	}
	dst->prepared = 0;
	free(dst->cond);
	dst->cond = NULL;
	if (dst->estimator == CALIB_EST_COND)
		cond_build(dst);
	return 0;
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
		} else if (x->min != y->min || x->env != y->env || x->comp != y->comp) {
			fprintf(f,
				"%s  min %" PRIu64 " -> %" PRIu64 " (%+.1f%%)  env %" PRIu64
				" -> %" PRIu64 "  comp %" PRIu64 " -> %" PRIu64 "\n",
				key, x->min, y->min,
				x->min ? 100.0 * ((double)y->min - (double)x->min) / (double)x->min
				       : 0.0,
				x->env, y->env, x->comp, y->comp);
			n++;
		}
	}
	return n;
}

/* ---- the calibration directory ---- */

int calib_dir_default(char *buf, size_t len)
{
	const char *dir = getenv("JCAL_CALIB_DIR"), *home = getenv("HOME");
	int n;

	if (dir && *dir)
		n = snprintf(buf, len, "%s", dir);
	else if (home && *home)
		n = snprintf(buf, len, "%s/.local/share/jcal/calib", home);
	else
		return -1;
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int calib_dir_create(const char *dir, char *err, size_t errlen)
{
	char *p, *s = strdup(dir);
	struct stat sb;

	if (!s) {
		errmsg_set(err, errlen, "%s: out of memory", dir);
		return -1;
	}
	for (p = s + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(s, 0700) && errno != EEXIST) {
			errmsg_set(err, errlen, "cannot create %s: %s", s, strerror(errno));
			free(s);
			return -1;
		}
		*p = c;
		if (!c)
			break;
	}
	free(s);
	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode)) {
		errmsg_set(err, errlen, "%s: not a directory", dir);
		return -1;
	}
	return 0;
}

int calib_dir_path(const char *dir, const struct calib_fingerprint *fp, char *buf, size_t len)
{
	char name[64];
	int n;

	calib_fingerprint_filename(fp, name, sizeof(name));
	n = snprintf(buf, len, "%s/%s", dir, name);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Whether path holds a table whose fingerprint is fp. */
static int file_matches(const char *path, const struct calib_fingerprint *fp,
			struct calib_table *scratch)
{
	return !calib_table_read_file(scratch, path, NULL, 0) &&
	       !calib_fingerprint_diff(&scratch->fp, fp);
}

static int txt_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 4 && !strcmp(d->d_name + n - 4, ".txt");
}

/* Appends "name (a FIFO)" to the list of skipped entries. */
static void note_skipped(char *skipped, size_t len, const char *name, mode_t mode)
{
	size_t pos;

	if (!skipped || !len)
		return;
	pos = strlen(skipped);
	if (pos < len)
		snprintf(skipped + pos, len - pos, "%s%s (%s)", pos ? ", " : "", name,
			 calib_file_kind(mode));
}

/* Whether path is a regular file; a FIFO, device or directory there goes
 * to the skipped list (name is what the list shows). */
static int regular(const char *path, const char *name, char *skipped, size_t skippedlen)
{
	struct stat sb;

	if (stat(path, &sb))
		return 0;
	if (S_ISREG(sb.st_mode))
		return 1;
	note_skipped(skipped, skippedlen, name, sb.st_mode);
	return 0;
}

int calib_dir_find(const char *dir, const struct calib_fingerprint *fp, char *path, size_t len,
		   char *skipped, size_t skippedlen, char *err, size_t errlen)
{
	struct calib_table scratch;
	struct dirent **list = NULL;
	char stable[64];
	int n, found = 0;

	if (skipped && skippedlen)
		skipped[0] = '\0';
	if (calib_table_init(&scratch)) {
		errmsg_set(err, errlen, "%s: out of memory", dir);
		return -1;
	}
	calib_fingerprint_filename(fp, stable, sizeof(stable));
	if (!calib_dir_path(dir, fp, path, len) && regular(path, stable, skipped, skippedlen) &&
	    file_matches(path, fp, &scratch)) {
		calib_table_free(&scratch);
		return 1;
	}
	n = scandir(dir, &list, txt_file, alphasort);
	if (n < 0) {
		errmsg_set(err, errlen, "%s: %s", dir, strerror(errno));
		calib_table_free(&scratch);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		int w;

		w = snprintf(path, len, "%s/%s", dir, list[i]->d_name);
		if (!found && w > 0 && (size_t)w < len && strcmp(list[i]->d_name, stable) &&
		    regular(path, list[i]->d_name, skipped, skippedlen) &&
		    file_matches(path, fp, &scratch))
			found = 1;
		free(list[i]);
		if (found) {
			for (int k = i + 1; k < n; k++)
				free(list[k]);
			break;
		}
	}
	free(list);
	calib_table_free(&scratch);
	if (!found && len)
		path[0] = '\0';
	return found;
}
