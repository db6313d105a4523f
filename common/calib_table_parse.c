/*
 * calib_table_parse.c - the strict parser of the text format of
 * calibration tables, and reading a table from a regular file
 * (docs/calibration-format.md).
 */
#include "common/errmsg.h"
#include "common/calib_table.h"
#include "common/calib_table_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
		if (strlen(calib_fp_name(i)) == len && !strncmp(name, calib_fp_name(i), len))
			return (int)i;
	for (unsigned i = 0; i < H_COUNT - CALIB_FP_COUNT; i++)
		if (strlen(other_headers[i]) == len && !strncmp(name, other_headers[i], len))
			return (int)(CALIB_FP_COUNT + i);
	return -1;
}

static const char *header_name(int id)
{
	return id < CALIB_FP_COUNT ? calib_fp_name(id) : other_headers[id - CALIB_FP_COUNT];
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
	int version; /* of the table: 1 to CALIB_FORMAT_VERSION */
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
		calib_clean_copy(p->t->created, sizeof(p->t->created), value);
		break;
	case H_UNIT:
		calib_clean_copy(p->t->unit, sizeof(p->t->unit), value);
		break;
	case H_ENV_METHOD:
		calib_clean_copy(p->t->env_method, sizeof(p->t->env_method), value);
		break;
	case H_ENV_MISSING:
	case H_KEYS:
		if (parse_u64(value, id == H_KEYS ? &p->keys : &p->env_missing))
			return perr(p, "header '%s': '%s' is not a count", header_name(id), value);
		break;
	default:
		calib_clean_copy(p->t->fp.field[id], sizeof(p->t->fp.field[id]), value);
	}
	return 0;
}

enum { F_SAMPLES, F_ENV, F_COMP, F_MEAN, F_MEDIAN, F_P10, F_Q, F_A, F_B, F_COUNT };
static const char *const field_names[F_COUNT] = {"samples", "env", "comp", "mean", "median",
						 "p10",	    "q",   "a",	   "b"};

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
		return perr(p,
			    "key %s: MIN '%s' is above " CALIB_NUM_MAX_TEXT
			    " (the largest number a table holds)",
			    keytext, tok);
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
				    "mean, median, p10, q, a, b)",
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
		if ((f == F_A || f == F_B) && p->version < 3)
			return perr(p, "key %s: field '%s' needs table version 3", keytext, tok);
		r = f == F_MEAN ? parse_mean(eq + 1, &e.mean)
		    : f == F_A	? parse_mean(eq + 1, &e.fit_a)
		    : f == F_B	? parse_mean(eq + 1, &e.fit_b)
				: parse_num(eq + 1, CALIB_NUM_MAX,
					    f == F_SAMPLES  ? &e.samples
					    : f == F_ENV    ? &e.env
					    : f == F_COMP   ? &comp
					    : f == F_MEDIAN ? &e.median
							    : &e.p10);
		if (r == -2)
			return perr(p,
				    "key %s: %s='%s' is above " CALIB_NUM_MAX_TEXT
				    " (the largest number a table holds)",
				    keytext, tok, eq + 1);
		if (r)
			return perr(p, "key %s: %s='%s' is not %s", keytext, tok, eq + 1,
				    f == F_MEAN || f == F_A || f == F_B
					? "a non-negative number (decimal digits, "
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
	if (have[F_A] != have[F_B])
		return perr(p, "key %s: a and b come together or not at all", keytext);
	if (!e.samples)
		return perr(p, "key %s: samples=0 (a key in the table was observed at least once)",
			    keytext);
	if (comp != calib_table_comp_of(e.min, e.env))
		return perr(p, "key %s: comp=%" PRIu64 " but max(0, min - env) = %" PRIu64, keytext,
			    comp, calib_table_comp_of(e.min, e.env));
	e.has_stats = (uint8_t)have[F_MEAN];
	e.has_q = (uint8_t)have[F_Q];
	e.has_fit = (uint8_t)have[F_A];
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
			p.version = !strcmp(buf, VERSION_LINE)	   ? CALIB_FORMAT_VERSION
				    : !strcmp(buf, VERSION_LINE_2) ? 2
				    : !strcmp(buf, VERSION_LINE_1) ? 1
								   : 0;
			if (p.version)
				continue;
			if (!strncmp(buf, VERSION_PREFIX, strlen(VERSION_PREFIX)))
				r = perr(
				    &p, "unsupported table version '%s' (this build reads 1 to %d)",
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
	/* the clock may be left out: CALIB_CLOCK_DEFAULT (table_clear) */
	for (int id = 0; !r && id < H_COUNT; id++)
		if (!p.seen[id] && id != CALIB_FP_CLOCK)
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
	return S_ISREG(mode)	? "a regular file"
	       : S_ISDIR(mode)	? "a directory"
	       : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISCHR(mode)	? "a character device"
	       : S_ISBLK(mode)	? "a block device"
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
