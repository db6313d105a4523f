/*
 * options.c - parses and validates the agent option string (README.md,
 * "Agent options"), and prints its `help` table.
 *
 * One table, opt_rows, holds every option (key, value syntax, help text,
 * handler): the parser dispatches on it and `help` is generated from it.
 * Strict: every token must be a known key with a valid value; the first bad
 * one is reported by name and nothing else happens.
 */
#include "agent/base/options.h"

#include <stdio.h>
#include <string.h>

#define DEFAULT_OUT "jcal-%p.bin"

const char *jcal_mode_name(enum jcal_mode m)
{
	return m == JCAL_MODE_BCI ? "bci" : "events";
}

const char *jcal_output_name(enum jcal_output o)
{
	return o == JCAL_OUTPUT_TREE ? "tree" : o == JCAL_OUTPUT_BOTH ? "both" : "trace";
}

const char *jcal_clock_name(enum jcal_clock c)
{
	return c == JCAL_CLOCK_RAW ? "raw" : "agentfree";
}

static int one_line(char *err, size_t errlen);

static int fail(char *err, size_t errlen, const char *fmt, const char *tok)
{
	snprintf(err, errlen, fmt, tok);
	return -1;
}

_Static_assert(JCAL_RECALIBRATE_MIN_PERIOD_S == 10 && JCAL_RECALIBRATE_MAX_PERIOD_S == 86400,
	       "the recalibrate= error message names the bounds 10s and 24h");

/* recalibrate=PERIOD and duration=TIME: digits with a unit s, m or h
 * (bare digits: seconds), from min to max seconds. */
static int parse_time(const char *val, unsigned min, unsigned max, unsigned *seconds)
{
	unsigned long long n = 0, unit = 1;
	const char *p = val;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (unsigned)(*p - '0');
		if (n > max)
			return -1;
	}
	if (*p == 'm')
		unit = 60;
	else if (*p == 'h')
		unit = 3600;
	else if (*p != 's' && *p)
		return -1;
	if (*p && p[1])
		return -1;
	n *= unit;
	if (n < min || n > max)
		return -1;
	*seconds = (unsigned)n;
	return 0;
}

int jcal_command_is_live(enum jcal_command c)
{
	return c == JCAL_CMD_START || c == JCAL_CMD_STOP || c == JCAL_CMD_DUMP ||
	       c == JCAL_CMD_STATUS || c == JCAL_CMD_ROTATE;
}

/* maxsize=SIZE: digits with a unit K, M or G (powers of 1024; bare digits:
 * bytes). */
static int parse_size(const char *val, uint64_t *bytes)
{
	unsigned long long n = 0, unit = 1;
	const char *p = val;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (unsigned)(*p - '0');
		if (n > JCAL_MAXSIZE_MAX)
			return -1;
	}
	if (*p == 'K' || *p == 'k')
		unit = 1ull << 10;
	else if (*p == 'M' || *p == 'm')
		unit = 1ull << 20;
	else if (*p == 'G' || *p == 'g')
		unit = 1ull << 30;
	else if (*p)
		return -1;
	if (*p && p[1])
		return -1;
	if (n > JCAL_MAXSIZE_MAX / unit)
		return -1;
	n *= unit;
	if (n < JCAL_MAXSIZE_MIN)
		return -1;
	*bytes = n;
	return 0;
}

static int set_path(char *dst, const char *val, const char *tok, char *err, size_t errlen)
{
	if (!*val)
		return fail(err, errlen, "empty value in option '%s'", tok);
	if (strlen(val) >= JCAL_OPT_PATH_MAX)
		return fail(err, errlen, "path too long in option '%s'", tok);
	strcpy(dst, val);
	return 0;
}

static int valid_metric(const char *m)
{
	static const char *const names[] = {"auto", "instructions", "cycles", "cputime", "tsc"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(m, names[i]))
			return 1;
	return !strncmp(m, "pfm:", 4) && m[4] != '\0';
}

static int parse_metrics(struct jcal_options *o, const char *val, const char *tok, char *err,
			 size_t errlen)
{
	char buf[JCAL_MAX_METRICS * JCAL_OPT_METRIC_MAX + 8];
	char *save = NULL;
	unsigned n = 0;

	if (!*val)
		return fail(err, errlen, "empty value in option '%s'", tok);
	if (strlen(val) >= sizeof(buf))
		return fail(err, errlen, "value too long in option '%s'", tok);
	strcpy(buf, val);
	if (buf[strlen(buf) - 1] == '+' || buf[0] == '+' || strstr(buf, "++"))
		return fail(err, errlen, "empty metric name in option '%s'", tok);
	for (char *m = strtok_r(buf, "+", &save); m; m = strtok_r(NULL, "+", &save)) {
		if (!valid_metric(m)) {
			snprintf(err, errlen,
				 "unknown metric '%s' in option '%s' (expected auto, instructions, "
				 "cycles, cputime, tsc or pfm:EVENT)",
				 m, tok);
			return -1;
		}
		if (strlen(m) >= JCAL_OPT_METRIC_MAX)
			return fail(err, errlen, "metric name too long in option '%s'", tok);
		if (n == JCAL_MAX_METRICS) {
			snprintf(err, errlen, "too many metrics in option '%s' (at most %d)", tok,
				 JCAL_MAX_METRICS);
			return -1;
		}
		for (unsigned i = 0; i < n; i++)
			if (!strcmp(o->metric[i], m)) {
				snprintf(err, errlen, "metric '%s' given twice in option '%s'", m,
					 tok);
				return -1;
			}
		strcpy(o->metric[n++], m);
	}
	if (n > 1)
		for (unsigned i = 0; i < n; i++)
			if (!strcmp(o->metric[i], "auto"))
				return fail(
				    err, errlen,
				    "'auto' cannot be combined with other metrics in option '%s'",
				    tok);
	o->nmetrics = (n == 1 && !strcmp(o->metric[0], "auto")) ? 0 : n;
	return 0;
}

/* Appends the ';'-separated patterns of val to list, each checked. */
static int add_patterns(char *list, const char *val, const char *tok, char *err, size_t errlen)
{
	size_t n = strlen(list), vlen = strlen(val);

	if (!*val)
		return fail(err, errlen, "empty value in option '%s'", tok);
	for (const char *p = val;; p++) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == 0)
			return fail(err, errlen, "empty pattern in option '%s'", tok);
		for (size_t i = 0; i < len; i++) {
			unsigned char c = (unsigned char)p[i];
			if (c == '/')
				return fail(err, errlen,
					    "bad pattern in option '%s': use dots in class names "
					    "(pkg.Class), not '/'",
					    tok);
			if (!(c >= 0x80 || c == '_' || c == '$' || c == '.' || c == '*' ||
			      c == '?' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
			      (c >= 'A' && c <= 'Z'))) {
				snprintf(err, errlen,
					 "bad character '%c' in a pattern of option '%s' (globs on "
					 "pkg.Class names: letters, digits, _ $ . * ?)",
					 c, tok);
				return -1;
			}
		}
		if (!end)
			break;
		p = end;
	}
	if (n + (n ? 1 : 0) + vlen >= JCAL_OPT_PATH_MAX)
		return fail(err, errlen, "too many patterns in option '%s'", tok);
	if (n)
		list[n++] = ';';
	memcpy(list + n, val, vlen + 1);
	return 0;
}

static const char *command_name(enum jcal_command c)
{
	static const char *const names[] = {
	    [JCAL_CMD_NONE] = "",	  [JCAL_CMD_HELP] = "help",
	    [JCAL_CMD_TRACE] = "trace",	  [JCAL_CMD_CALIBRATE] = "calibrate",
	    [JCAL_CMD_START] = "start",	  [JCAL_CMD_STOP] = "stop",
	    [JCAL_CMD_DUMP] = "dump",	  [JCAL_CMD_STATUS] = "status",
	    [JCAL_CMD_ROTATE] = "rotate",
	};
	return names[c];
}

static int set_command(struct jcal_options *o, enum jcal_command c, const char *tok, char *err,
		       size_t errlen)
{
	if (o->command != JCAL_CMD_NONE && o->command != c) {
		snprintf(err, errlen,
			 "option '%s' is a command, and '%s' came before it (one command at a "
			 "time)",
			 tok, command_name(o->command));
		return -1;
	}
	o->command = c;
	return 0;
}

/* The handlers of the option table: val is NULL for a flag, tok the whole
 * token for messages. */
typedef int opt_handler(struct jcal_options *o, const char *val, const char *tok, char *err,
			size_t errlen);

static int opt_duration(struct jcal_options *o, const char *val, const char *tok, char *err,
			size_t errlen)
{
	if (parse_time(val, 1, JCAL_DURATION_MAX_S, &o->duration_s))
		return fail(err, errlen,
			    "bad value in option '%s' (expected a time from 1s to 30 days "
			    "such as 30s, 5m or 2h)",
			    tok);
	return 0;
}

static int opt_maxsize(struct jcal_options *o, const char *val, const char *tok, char *err,
		       size_t errlen)
{
	if (parse_size(val, &o->maxsize))
		return fail(err, errlen,
			    "bad value in option '%s' (expected a size of at least 1M such "
			    "as 500M or 2G)",
			    tok);
	return 0;
}

static int opt_reply(struct jcal_options *o, const char *val, const char *tok, char *err,
		     size_t errlen)
{
	return set_path(o->reply, val, tok, err, errlen);
}

static int opt_quiet(struct jcal_options *o, const char *val, const char *tok, char *err,
		     size_t errlen)
{
	(void)val, (void)tok, (void)err, (void)errlen;
	o->quiet = 1;
	o->loglevel = JCAL_LOG_ERROR;
	o->loglevel_given = 1;
	return 0;
}

static int opt_out(struct jcal_options *o, const char *val, const char *tok, char *err,
		   size_t errlen)
{
	o->out_given = 1;
	return set_path(o->out, val, tok, err, errlen);
}

static int opt_table(struct jcal_options *o, const char *val, const char *tok, char *err,
		     size_t errlen)
{
	return set_path(o->table, val, tok, err, errlen);
}

static int opt_calib(struct jcal_options *o, const char *val, const char *tok, char *err,
		     size_t errlen)
{
	return set_path(o->calib, val, tok, err, errlen);
}

static int opt_log(struct jcal_options *o, const char *val, const char *tok, char *err,
		   size_t errlen)
{
	return set_path(o->log, val, tok, err, errlen);
}

static int opt_include(struct jcal_options *o, const char *val, const char *tok, char *err,
		       size_t errlen)
{
	return add_patterns(o->bci_include, val, tok, err, errlen);
}

static int opt_exclude(struct jcal_options *o, const char *val, const char *tok, char *err,
		       size_t errlen)
{
	return add_patterns(o->bci_exclude, val, tok, err, errlen);
}

static int opt_recalibrate(struct jcal_options *o, const char *val, const char *tok, char *err,
			   size_t errlen)
{
	if (!strcmp(val, "start") || !strcmp(val, "both"))
		o->recalibrate_start = 1;
	if (!strcmp(val, "end") || !strcmp(val, "both"))
		o->recalibrate_end = 1;
	if (strcmp(val, "start") && strcmp(val, "end") && strcmp(val, "both") &&
	    parse_time(val, JCAL_RECALIBRATE_MIN_PERIOD_S, JCAL_RECALIBRATE_MAX_PERIOD_S,
		       &o->recalibrate_period_s))
		return fail(err, errlen,
			    "bad value in option '%s' (expected start, end, both or a "
			    "period from 10s to 24h such as 60s, 5m or 1h)",
			    tok);
	return 0;
}

/* The label keys jcal-post gives every sample itself (docs/jcal-post.md,
 * Exports). */
static const char *const reserved_labels[] = {"host", "pid", "thread", "jvm"};

int jcal_label_check(const char *kv, char *key, char *value, char *err, size_t errlen)
{
	const char *colon = strchr(kv, ':'), *v = colon ? colon + 1 : "";
	size_t klen = colon ? (size_t)(colon - kv) : 0, vlen = strlen(v);
	int ok = klen > 0 && klen < JCAL_LABEL_KEY_MAX && vlen > 0 && vlen < JCAL_LABEL_VALUE_MAX &&
		 !(kv[0] >= '0' && kv[0] <= '9') && strncmp(kv, "__", 2);

	for (size_t i = 0; ok && i < klen; i++)
		ok = (kv[i] >= 'a' && kv[i] <= 'z') || (kv[i] >= 'A' && kv[i] <= 'Z') ||
		     (kv[i] >= '0' && kv[i] <= '9') || kv[i] == '_';
	for (size_t i = 0; ok && i < vlen; i++)
		ok = (unsigned char)v[i] >= 0x20 && v[i] != 0x7f && v[i] != ',';
	if (!ok) {
		snprintf(err, errlen,
			 "expected KEY:VALUE, KEY of letters, digits and _ (not starting with a "
			 "digit or __, under %d bytes), VALUE of 1 to %d bytes without a comma",
			 JCAL_LABEL_KEY_MAX, JCAL_LABEL_VALUE_MAX - 1);
		return -1;
	}
	for (size_t i = 0; i < sizeof(reserved_labels) / sizeof(reserved_labels[0]); i++)
		if (strlen(reserved_labels[i]) == klen && !strncmp(kv, reserved_labels[i], klen)) {
			snprintf(err, errlen,
				 "jcal-post labels every sample with %s itself (host, pid, thread "
				 "and jvm are its own)",
				 reserved_labels[i]);
			return -1;
		}
	if (key)
		snprintf(key, JCAL_LABEL_KEY_MAX, "%.*s", (int)klen, kv);
	if (value)
		snprintf(value, JCAL_LABEL_VALUE_MAX, "%s", v);
	return 0;
}

static int opt_label(struct jcal_options *o, const char *val, const char *tok, char *err,
		     size_t errlen)
{
	char key[JCAL_LABEL_KEY_MAX], value[JCAL_LABEL_VALUE_MAX], why[256];

	if (jcal_label_check(val, key, value, why, sizeof(why))) {
		snprintf(err, errlen, "bad value in option '%s': %s", tok, why);
		return -1;
	}
	for (unsigned i = 0; i < o->nlabels; i++)
		if (!strcmp(o->label_key[i], key)) {
			snprintf(err, errlen, "option '%s': label %s was given already", tok, key);
			return -1;
		}
	if (o->nlabels == JCAL_MAX_LABELS) {
		snprintf(err, errlen, "option '%s': at most %d labels", tok, JCAL_MAX_LABELS);
		return -1;
	}
	memcpy(o->label_key[o->nlabels], key, sizeof(key));
	memcpy(o->label_value[o->nlabels], value, sizeof(value));
	o->nlabels++;
	return 0;
}

static int opt_start(struct jcal_options *o, const char *val, const char *tok, char *err,
		     size_t errlen)
{
	if (!strcmp(val, "auto"))
		o->start_manual = 0;
	else if (!strcmp(val, "manual"))
		o->start_manual = 1;
	else
		return fail(err, errlen, "bad value in option '%s' (expected auto or manual)", tok);
	return 0;
}

static int opt_mode(struct jcal_options *o, const char *val, const char *tok, char *err,
		    size_t errlen)
{
	if (!strcmp(val, "events"))
		o->mode = JCAL_MODE_EVENTS;
	else if (!strcmp(val, "bci"))
		o->mode = JCAL_MODE_BCI;
	else
		return fail(err, errlen, "bad value in option '%s' (expected events or bci)", tok);
	o->mode_given = 1;
	return 0;
}

static int opt_output(struct jcal_options *o, const char *val, const char *tok, char *err,
		      size_t errlen)
{
	if (!strcmp(val, "trace"))
		o->output = JCAL_OUTPUT_TRACE;
	else if (!strcmp(val, "tree"))
		o->output = JCAL_OUTPUT_TREE;
	else if (!strcmp(val, "both"))
		o->output = JCAL_OUTPUT_BOTH;
	else
		return fail(err, errlen, "bad value in option '%s' (expected trace, tree or both)",
			    tok);
	return 0;
}

static int opt_clock(struct jcal_options *o, const char *val, const char *tok, char *err,
		     size_t errlen)
{
	if (!strcmp(val, "agentfree"))
		o->clock = JCAL_CLOCK_AGENTFREE;
	else if (!strcmp(val, "raw"))
		o->clock = JCAL_CLOCK_RAW;
	else
		return fail(err, errlen, "bad value in option '%s' (expected agentfree or raw)",
			    tok);
	o->clock_given = 1;
	return 0;
}

_Static_assert(JCAL_MAXCONTEXTS_MIN == 1000 && JCAL_MAXCONTEXTS_MAX == 1000000000,
	       "the maxcontexts= error message names the bounds");

static int opt_maxcontexts(struct jcal_options *o, const char *val, const char *tok, char *err,
			   size_t errlen)
{
	unsigned long long n = 0;
	const char *p = val;

	for (; *p >= '0' && *p <= '9' && n <= JCAL_MAXCONTEXTS_MAX; p++)
		n = n * 10 + (unsigned)(*p - '0');
	if (p == val || *p || n < JCAL_MAXCONTEXTS_MIN || n > JCAL_MAXCONTEXTS_MAX)
		return fail(err, errlen,
			    "bad value in option '%s' (expected a number of contexts from 1000 "
			    "to 1000000000)",
			    tok);
	o->maxcontexts = n;
	return 0;
}

_Static_assert(JCAL_SLOW_MIN_NS == 1000 && JCAL_SLOW_MAX_NS == 3600000000000ull &&
		   JCAL_SLOW_KEEP_MAX == 10000,
	       "the slow= error message names the bounds");

/* A duration with a unit ns, us, ms or s into *ns (at most max). */
static int parse_ns(const char *val, const char **end, uint64_t max, uint64_t *ns)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
	unsigned long long n = 0;
	const char *p = val;

	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (unsigned)(*p - '0');
		if (n > max)
			return -1;
	}
	if (p == val)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t l = strlen(units[i].unit);

		if (!strncmp(p, units[i].unit, l) && (p[l] == '\0' || p[l] == ':')) {
			if (n > max / units[i].ns)
				return -1;
			*ns = n * units[i].ns;
			*end = p + l;
			return 0;
		}
	}
	return -1;
}

/* slow=DURATION[:MAX] */
static int opt_slow(struct jcal_options *o, const char *val, const char *tok, char *err,
		    size_t errlen)
{
	unsigned long long max = JCAL_SLOW_KEEP_DEFAULT;
	const char *p;
	uint64_t ns;

	if (parse_ns(val, &p, JCAL_SLOW_MAX_NS, &ns) || ns < JCAL_SLOW_MIN_NS)
		goto bad;
	if (*p == ':') {
		const char *q = ++p;

		for (max = 0; *p >= '0' && *p <= '9' && max <= JCAL_SLOW_KEEP_MAX; p++)
			max = max * 10 + (unsigned)(*p - '0');
		if (p == q || *p || !max || max > JCAL_SLOW_KEEP_MAX)
			goto bad;
	}
	o->slow_ns = ns;
	o->slow_max = (unsigned)max;
	return 0;
bad:
	return fail(err, errlen,
		    "bad value in option '%s' (expected a duration from 1us to 1h with a unit ns, "
		    "us, ms or s, and optionally :MAX, the calls kept, 1 to 10000: slow=50ms:200)",
		    tok);
}

/* An on|off option's value into *off (1 for off). */
static int on_off(int *off, const char *val, const char *tok, char *err, size_t errlen)
{
	if (!strcmp(val, "on"))
		*off = 0;
	else if (!strcmp(val, "off"))
		*off = 1;
	else
		return fail(err, errlen, "bad value in option '%s' (expected on or off)", tok);
	return 0;
}

static int opt_hists(struct jcal_options *o, const char *val, const char *tok, char *err,
		     size_t errlen)
{
	return on_off(&o->hists_off, val, tok, err, errlen);
}

static int opt_monitors(struct jcal_options *o, const char *val, const char *tok, char *err,
			size_t errlen)
{
	return on_off(&o->monitors_off, val, tok, err, errlen);
}

/* "CALLS:NS": two decimal numbers of at least 1 (no sign, no overflow). */
static int parse_throttle(const char *s, uint64_t *calls, uint64_t *avg)
{
	uint64_t v[2] = {0, 0};

	for (int k = 0; k < 2; k++) {
		if (*s < '0' || *s > '9')
			return -1;
		for (; *s >= '0' && *s <= '9'; s++) {
			unsigned d = (unsigned)(*s - '0');
			if (v[k] > (UINT64_MAX - d) / 10)
				return -1;
			v[k] = v[k] * 10 + d;
		}
		if (*s++ != (k ? '\0' : ':'))
			return -1;
	}
	if (!v[0] || !v[1])
		return -1;
	*calls = v[0];
	*avg = v[1];
	return 0;
}

static int opt_throttle(struct jcal_options *o, const char *val, const char *tok, char *err,
			size_t errlen)
{
	o->throttle_given = 1;
	if (!strcmp(val, "off")) {
		o->throttle_calls = o->throttle_avg = 0;
		return 0;
	}
	if (parse_throttle(val, &o->throttle_calls, &o->throttle_avg))
		return fail(err, errlen,
			    "bad value in option '%s' (expected CALLS:NS, two whole numbers of "
			    "at least 1, such as 10000:200, or off)",
			    tok);
	return 0;
}

static int opt_probes(struct jcal_options *o, const char *val, const char *tok, char *err,
		      size_t errlen)
{
	o->probes_given = 1;
	if (!strcmp(val, "static"))
		o->probes_static = 1;
	else if (!strcmp(val, "switch"))
		o->probes_static = 0;
	else
		return fail(err, errlen, "bad value in option '%s' (expected switch or static)",
			    tok);
	return 0;
}

/* count|probe into *count, with *given set (tiny=, inlined=). */
static int count_or_probe(int *count, int *given, const char *val, const char *tok, char *err,
			  size_t errlen)
{
	*given = 1;
	if (!strcmp(val, "count"))
		*count = 1;
	else if (!strcmp(val, "probe"))
		*count = 0;
	else
		return fail(err, errlen, "bad value in option '%s' (expected count or probe)", tok);
	return 0;
}

static int opt_tiny(struct jcal_options *o, const char *val, const char *tok, char *err,
		    size_t errlen)
{
	return count_or_probe(&o->tiny_count, &o->tiny_given, val, tok, err, errlen);
}

static int opt_inlined(struct jcal_options *o, const char *val, const char *tok, char *err,
		       size_t errlen)
{
	return count_or_probe(&o->inlined_count, &o->inlined_given, val, tok, err, errlen);
}

static int opt_loglevel(struct jcal_options *o, const char *val, const char *tok, char *err,
			size_t errlen)
{
	static const char *const levels[] = {"error", "warn", "info", "debug"};
	for (int i = 0; i < 4; i++)
		if (!strcmp(val, levels[i])) {
			if (!o->quiet)
				o->loglevel = (enum jcal_loglevel)i;
			o->loglevel_given = 1;
			return 0;
		}
	return fail(err, errlen, "bad value in option '%s' (expected error, warn, info or debug)",
		    tok);
}

/* One row per option: the parser dispatches on it and `help` prints it.
 * A row with a syntax takes a value (key=SYNTAX); ONCE marks a key that
 * may be given only once (a second one is refused rather than silently
 * replacing the first); include=, exclude= and recalibrate= add up, and a
 * repeated flag changes nothing. A '\n'
 * in the help starts a continuation line. */
enum opt_count { MANY, ONCE };

static const struct opt_row {
	const char *key;
	const char *syntax; /* NULL: a flag, no value */
	enum opt_count count;
	const char *help;
	opt_handler *parse;	   /* NULL for a command row */
	enum jcal_command command; /* what a command row (trace, stop...) sets */
	enum jcal_later later;	   /* what a later start does with it */
} opt_rows[] = {
    {"help", NULL, MANY, "print this table and exit", NULL, JCAL_CMD_HELP, JCAL_LATER_COMMAND},
    {"trace", NULL, MANY, "record every method entry and exit to the trace file", NULL,
     JCAL_CMD_TRACE, JCAL_LATER_COMMAND},
    {"calibrate", NULL, MANY, "run the built-in calibration workload, write its table, exit", NULL,
     JCAL_CMD_CALIBRATE, JCAL_LATER_COMMAND},
    {"start", NULL, MANY, "to a running JVM (a later load): begin a recording", NULL,
     JCAL_CMD_START, JCAL_LATER_COMMAND},
    {"stop", NULL, MANY, "to a running JVM: end the recording, remove its probes", NULL,
     JCAL_CMD_STOP, JCAL_LATER_COMMAND},
    {"dump", NULL, MANY, "to a running JVM: write what was recorded so far to out=", NULL,
     JCAL_CMD_DUMP, JCAL_LATER_COMMAND},
    {"status", NULL, MANY, "to a running JVM: say what the agent is doing", NULL, JCAL_CMD_STATUS,
     JCAL_LATER_COMMAND},
    {"rotate", NULL, MANY,
     "to a running JVM: end the recording's file and go on in a new one, out= or the start's "
     "out= again (%n one more), with no event lost between them",
     NULL, JCAL_CMD_ROTATE, JCAL_LATER_COMMAND},
    {"out", "FILE", ONCE,
     "trace file; %p = pid, %t = start time, %n = file number (rotate), %% = "
     "%\n(default " DEFAULT_OUT ")",
     opt_out, JCAL_CMD_NONE, JCAL_LATER_RECORDING},
    {"metric", "M[+M...]", ONCE,
     "auto (default), instructions, cycles, cputime, tsc, pfm:EVENT;\n"
     "up to 4 read at every event",
     parse_metrics, JCAL_CMD_NONE, JCAL_LATER_FIXED},
    {"mode", "events|bci", ONCE, "JVMTI method events (default) or bytecode instrumentation",
     opt_mode, JCAL_CMD_NONE, JCAL_LATER_FIXED},
    {"clock", "agentfree|raw", ONCE,
     "agentfree (default): each event's metric without the time\n"
     "the agent spent on the thread's earlier events; raw: the\n"
     "metric as read (calibrate with the clock you trace with)",
     opt_clock, JCAL_CMD_NONE, JCAL_LATER_FIXED},
    {"include", "PATTERN", MANY,
     "trace only the methods of classes matching PATTERN, a glob\n"
     "on pkg.Class names (* any text, ? one character);\n"
     "repeat the option or separate patterns with ';'.\n"
     "mode=bci instruments only them; mode=events still gets\n"
     "every event from the JVM but records only theirs",
     opt_include, JCAL_CMD_NONE, JCAL_LATER_AGENT},
    {"exclude", "PATTERN", MANY,
     "do not trace the methods of matching classes (their time\n"
     "goes to their callers); mode=bci excludes by default\n"
     "(without include=) java.* javax.* jdk.* sun.* com.sun.*",
     opt_exclude, JCAL_CMD_NONE, JCAL_LATER_AGENT},
    {"output", "trace|tree|both", ONCE,
     "with trace: every event to out= (trace, default); or each\n"
     "thread's calling-context tree built in memory, a snapshot\n"
     "to out= at the end (tree); or the trace to out= and a\n"
     "snapshot to out=.tree (both, to check one against the other)",
     opt_output, JCAL_CMD_NONE, JCAL_LATER_RECORDING},
    {"maxcontexts", "N", ONCE,
     "output=tree|both: at most about N calling contexts in all\n"
     "(1000 or more); the coldest fold into <cold contexts>",
     opt_maxcontexts, JCAL_CMD_NONE, JCAL_LATER_RECORDING},
    {"hists", "on|off", ONCE,
     "output=tree|both: each context keeps the histogram of its\n"
     "calls' durations (on, default; jcal-post --report latency\n"
     "reads them), or none (off: the cheapest recording)",
     opt_hists, JCAL_CMD_NONE, JCAL_LATER_RECORDING},
    {"slow", "DURATION[:MAX]", ONCE,
     "output=tree|both: keep the MAX (default 100) longest calls\n"
     "of at least DURATION (50ms, 200us, 2s) with their calling\n"
     "context and largest callees (jcal-post --report slow);\n"
     "wall time when the metrics read the TSC, else CPU time",
     opt_slow, JCAL_CMD_NONE, JCAL_LATER_RECORDING},
    {"monitors", "on|off", ONCE,
     "a trace records each wait the JVM reports: blocked on a\n"
     "contended monitor, in Object.wait (on, default; jcal-post\n"
     "--report waits), or none (off)",
     opt_monitors, JCAL_CMD_NONE, JCAL_LATER_RECORDING},
    {"throttle", "CALLS:NS|off", ONCE,
     "mode=bci: a method called more than CALLS times (counted\n"
     "from the agent's load, inside start=manual regions or\n"
     "not) whose calls average under NS (the first metric's\n"
     "unit) loses its probes while the program runs, so the\n"
     "JIT inlines it again; it keeps one that counts its calls\n"
     "(JDK classes: none); its later time goes to its callers\n"
     "(default off at start-up; 1000:5000 when attached)",
     opt_throttle, JCAL_CMD_NONE, JCAL_LATER_FIXED},
    {"tiny", "count|probe", ONCE,
     "mode=bci: a tiny method (no call, no loop, at most 35\n"
     "bytes of bytecode: a getter, a setter) keeps from its\n"
     "first instrumentation only a probe that counts its calls,\n"
     "its time its callers' (count), or gets every probe (probe)\n"
     "(default probe at start-up; count when attached)",
     opt_tiny, JCAL_CMD_NONE, JCAL_LATER_FIXED},
    {"inlined", "count|probe", ONCE,
     "mode=bci: a method the JIT had inlined into compiled code\n"
     "when a recording starts, without a loop, keeps from its\n"
     "instrumentation then only a probe that counts its calls,\n"
     "its time its callers' (count), or gets every probe (probe,\n"
     "the default)",
     opt_inlined, JCAL_CMD_NONE, JCAL_LATER_FIXED},
    {"probes", "switch|static", ONCE,
     "mode=bci: the probes of the program's classes (version 51\n"
     "and later) are call sites that stop and throttle= switch\n"
     "off in place, so a loop running in the same class is\n"
     "compiled again (switch), or plain calls that they take\n"
     "out by redefining the class (static) (default switch at\n"
     "start-up; static when attached and for calibrate)",
     opt_probes, JCAL_CMD_NONE, JCAL_LATER_FIXED},
    {"start", "auto|manual", ONCE,
     "trace every thread from the start (default), or only\n"
     "between jcal.Control.start() and stop() of each thread",
     opt_start, JCAL_CMD_NONE, JCAL_LATER_RECORDING},
    {"recalibrate", "W", MANY,
     "with trace: run a short calibration burst at start-up\n"
     "(start), at the end (end) or both, and keep its samples\n"
     "in the trace (jcal-post --calib inrun); a period\n"
     "(60s, 5m, 1h) repeats the burst that often while the\n"
     "program runs (the option may be given twice)",
     opt_recalibrate, JCAL_CMD_NONE, JCAL_LATER_REFUSED},
    {"label", "KEY:VALUE", MANY,
     "a label of the recording (repeatable, at most 8): the meta\n"
     "record label.KEY of the trace and snapshot, which\n"
     "jcal-post's pprof export gives every sample (service:web)",
     opt_label, JCAL_CMD_NONE, JCAL_LATER_RECORDING},
    {"duration", "TIME", ONCE,
     "stop the recording after TIME (30s, 5m, 2h); the file is\n"
     "complete and says why it ended",
     opt_duration, JCAL_CMD_NONE, JCAL_LATER_RECORDING},
    {"maxsize", "SIZE", ONCE,
     "stop the recording before the trace file passes SIZE\n"
     "(500M, 2G; at least 1M)",
     opt_maxsize, JCAL_CMD_NONE, JCAL_LATER_RECORDING},
    {"reply", "FILE", ONCE,
     "a command's answer goes to FILE, an empty 0600 file of the\n"
     "JVM's user in a directory jcal-reply-* of its own (the jcal\n"
     "launcher makes it); any other file is refused",
     opt_reply, JCAL_CMD_NONE, JCAL_LATER_RECORDING},
    {"table", "FILE", ONCE,
     "with calibrate: where the table goes\n"
     "(default $JCAL_CALIB_DIR or ~/.local/share/jcal/calib)",
     opt_table, JCAL_CMD_NONE, JCAL_LATER_REFUSED},
    {"calib", "FILE|DIR", ONCE,
     "output=tree|both: the calibration table the trees are\n"
     "compensated with, or a directory searched for the table\n"
     "of this JVM (default $JCAL_CALIB_DIR or\n"
     "~/.local/share/jcal/calib; jcal start hands its caller's)",
     opt_calib, JCAL_CMD_NONE, JCAL_LATER_RECORDING},
    {"log", "FILE", ONCE, "agent messages to FILE instead of stderr", opt_log, JCAL_CMD_NONE,
     JCAL_LATER_AGENT},
    {"loglevel", "L", ONCE, "error, warn, info (default) or debug", opt_loglevel, JCAL_CMD_NONE,
     JCAL_LATER_AGENT},
    {"quiet", NULL, MANY, "only errors (same as loglevel=error)", opt_quiet, JCAL_CMD_NONE,
     JCAL_LATER_AGENT},
};

#define NROWS (sizeof(opt_rows) / sizeof(opt_rows[0]))
_Static_assert(NROWS <= 64, "the once-seen set of jcal_options_parse is a 64-bit mask");

static char help_text[8192];

size_t jcal_options_nrows(void)
{
	return NROWS;
}

void jcal_options_row(size_t i, const char **key, const char **syntax, const char **help)
{
	*key = opt_rows[i].key;
	*syntax = opt_rows[i].syntax;
	*help = opt_rows[i].help;
}

enum jcal_later jcal_options_row_later(size_t i)
{
	return opt_rows[i].later;
}

const char *jcal_later_text(enum jcal_later l)
{
	switch (l) {
	case JCAL_LATER_COMMAND:
		return "a command of its own, not an option of start";
	case JCAL_LATER_RECORDING:
		return "the new recording's own; not given, its default";
	case JCAL_LATER_AGENT:
		return "the agent's from then on; not given, unchanged";
	case JCAL_LATER_FIXED:
		return "fixed when the agent was loaded: refused unless the same";
	case JCAL_LATER_REFUSED:
		return "refused";
	}
	return "?";
}

/* o's metric= as written ("a+b"). */
static void metric_list(const struct jcal_options *o, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (unsigned i = 0; i < o->nmetrics && n < len; i++)
		n += (size_t)snprintf(out + n, len - n, "%s%s", i ? "+" : "", o->metric[i]);
}

/* A fixed option o gives that differs from the agent's: the message. */
static int fixed_differs(const char *key, const struct jcal_options *agent, const char *metrics,
			 const struct jcal_options *o, char *err, size_t errlen)
{
	char given[JCAL_MAX_METRICS * JCAL_OPT_METRIC_MAX], have[64];

	if (!strcmp(key, "mode") && o->mode != agent->mode)
		snprintf(err, errlen, "option 'mode=%s': this JVM's agent records in mode=%s",
			 jcal_mode_name(o->mode), jcal_mode_name(agent->mode));
	else if (!strcmp(key, "clock") && o->clock != agent->clock)
		snprintf(err, errlen, "option 'clock=%s': this JVM's agent records with clock=%s",
			 jcal_clock_name(o->clock), jcal_clock_name(agent->clock));
	else if (!strcmp(key, "metric") && o->nmetrics &&
		 (metric_list(o, given, sizeof(given)), strcmp(given, metrics)))
		snprintf(err, errlen, "option 'metric=%s': this JVM's agent reads %s", given,
			 metrics);
	else if (!strcmp(key, "throttle") && (o->throttle_calls != agent->throttle_calls ||
					      o->throttle_avg != agent->throttle_avg)) {
		char want[64];
		if (agent->throttle_calls)
			snprintf(have, sizeof(have), "throttles with throttle=%llu:%llu",
				 (unsigned long long)agent->throttle_calls,
				 (unsigned long long)agent->throttle_avg);
		else
			snprintf(have, sizeof(have), "was loaded without throttle=");
		if (o->throttle_calls)
			snprintf(want, sizeof(want), "%llu:%llu",
				 (unsigned long long)o->throttle_calls,
				 (unsigned long long)o->throttle_avg);
		else
			snprintf(want, sizeof(want), "off");
		snprintf(err, errlen, "option 'throttle=%s': this JVM's agent %s", want, have);
	} else if (!strcmp(key, "tiny") && o->tiny_count != agent->tiny_count)
		snprintf(err, errlen, "option 'tiny=%s': this JVM's agent was loaded with tiny=%s",
			 o->tiny_count ? "count" : "probe", agent->tiny_count ? "count" : "probe");
	else if (!strcmp(key, "inlined") && o->inlined_count != agent->inlined_count)
		snprintf(
		    err, errlen, "option 'inlined=%s': this JVM's agent was loaded with inlined=%s",
		    o->inlined_count ? "count" : "probe", agent->inlined_count ? "count" : "probe");
	else if (!strcmp(key, "probes") && o->probes_static != agent->probes_static)
		snprintf(err, errlen,
			 "option 'probes=%s': this JVM's agent was loaded with probes=%s",
			 o->probes_static ? "static" : "switch",
			 agent->probes_static ? "static" : "switch");
	else
		return 0;
	snprintf(err + strlen(err), errlen - strlen(err),
		 " (fixed when it was loaded: stop the JVM to change it)");
	return 1;
}

int jcal_options_later_check(const struct jcal_options *agent, const char *metrics,
			     const struct jcal_options *o, char *err, size_t errlen)
{
	for (size_t i = 0; i < NROWS; i++) {
		const struct opt_row *r = &opt_rows[i];

		if (!(o->given & (UINT64_C(1) << i)))
			continue;
		if (r->later == JCAL_LATER_FIXED &&
		    fixed_differs(r->key, agent, metrics, o, err, errlen))
			return one_line(err, errlen);
		if (r->later == JCAL_LATER_REFUSED) {
			snprintf(
			    err, errlen, "option '%s=' is not available for a later recording (%s)",
			    r->key,
			    !strcmp(r->key, "table")
				? "calibrate writes its table there; calib= names the trees' table"
				: "its bursts are set up when the agent loads with the JVM: "
				  "-agentpath:libjcal.so=trace,recalibrate=...");
			return -1;
		}
	}
	return 0;
}

/* The help table, generated from opt_rows on first use. */
const char *jcal_options_help(void)
{
	size_t n = 0;

	if (help_text[0])
		return help_text;
	n += (size_t)snprintf(help_text + n, sizeof(help_text) - n,
			      "jcal: calibrated instrumentation profiler for Java\n"
			      "usage: java -agentpath:/path/to/libjcal.so=OPT[,OPT...] ...\n\n");
	for (size_t i = 0; i < NROWS && n < sizeof(help_text); i++) {
		const struct opt_row *r = &opt_rows[i];
		char left[40];
		snprintf(left, sizeof(left), "%s%s%s", r->key, r->syntax ? "=" : "",
			 r->syntax ? r->syntax : "");
		n += (size_t)snprintf(help_text + n, sizeof(help_text) - n, "  %-18s ", left);
		for (const char *p = r->help; *p && n < sizeof(help_text); p++) {
			n += (size_t)snprintf(help_text + n, sizeof(help_text) - n, "%c", *p);
			if (*p == '\n')
				n += (size_t)snprintf(help_text + n, sizeof(help_text) - n, "%21s",
						      "");
		}
		if (n < sizeof(help_text))
			n += (size_t)snprintf(help_text + n, sizeof(help_text) - n, "\n");
	}
	if (n < sizeof(help_text))
		snprintf(
		    help_text + n, sizeof(help_text) - n,
		    "\nexample: java -agentpath:build/libjcal.so=trace,out=t.bin -cp app Main\n"
		    "         build/jcal-post t.bin --report tree\n");
	return help_text;
}

/* Parses one key[=value] token by its row; *seen holds the once-keys met so far. */
static int parse_token(struct jcal_options *o, char *tok, uint64_t *seen, char *err, size_t errlen)
{
	char *eq = strchr(tok, '=');
	const char *val = eq ? eq + 1 : NULL;
	size_t klen = eq ? (size_t)(eq - tok) : strlen(tok);
	size_t i;

	if (klen == 0)
		return fail(err, errlen, "empty option name in '%s'", tok);
	/* "start" is both a command (no value) and start=auto|manual: prefer
	 * the row whose value-ness matches the token. */
	for (i = 0; i < NROWS; i++)
		if (strlen(opt_rows[i].key) == klen && !strncmp(tok, opt_rows[i].key, klen) &&
		    !opt_rows[i].syntax == !val)
			break;
	if (i == NROWS)
		for (i = 0; i < NROWS; i++)
			if (strlen(opt_rows[i].key) == klen && !strncmp(tok, opt_rows[i].key, klen))
				break;
	if (i == NROWS)
		return fail(err, errlen, "unknown option '%s' (try 'help')", tok);
	const struct opt_row *r = &opt_rows[i];
	o->given |= UINT64_C(1) << i;
	if (r->count == ONCE) {
		if (*seen & (UINT64_C(1) << i)) {
			snprintf(err, errlen, "option '%s': %s= was given already (give it once%s)",
				 tok, r->key,
				 strcmp(r->key, "metric") ? "" : "; metric=A+B reads several");
			return -1;
		}
		*seen |= UINT64_C(1) << i;
	}
	if (!r->syntax && val)
		return fail(err, errlen, "option '%s' takes no value", tok);
	if (r->syntax && !val)
		return fail(err, errlen, "option '%s' needs a value", tok);
	if (!r->parse)
		return set_command(o, r->command, tok, err, errlen);
	return r->parse(o, val, tok, err, errlen);
}

/* An error message is one line: control characters of the quoted token
 * (a newline in the option string) are shown as '?'. */
static int one_line(char *err, size_t errlen)
{
	for (size_t i = 0; err && i < errlen && err[i]; i++)
		if ((unsigned char)err[i] < 0x20 || err[i] == 0x7f)
			err[i] = '?';
	return -1;
}

/* The options of mode=bci alone (throttle=, tiny=count, inlined=count,
 * probes=static),
 * and calibrate's probes. 0, or -1 with the message in err. */
static int bci_only(struct jcal_options *o, char *err, size_t errlen)
{
	/* calibrate,mode=bci takes it (so that one option string serves both)
	 * and leaves every probe in: bci/throttle.c. start without mode=
	 * records in the running agent's mode, or in bci when it attaches: the
	 * session checks it there (session.c). */
	int not_bci = o->mode != JCAL_MODE_BCI && !(o->command == JCAL_CMD_START && !o->mode_given);
	if (not_bci && o->throttle_calls) {
		snprintf(err, errlen, "option 'throttle=%llu:%llu' needs mode=bci",
			 (unsigned long long)o->throttle_calls,
			 (unsigned long long)o->throttle_avg);
		return -1;
	}
	if (not_bci && (o->tiny_count || o->inlined_count || o->probes_static)) {
		snprintf(err, errlen, "option '%s' needs mode=bci",
			 o->tiny_count	    ? "tiny=count"
			 : o->inlined_count ? "inlined=count"
					    : "probes=static");
		return -1;
	}
	/* one table serves recordings of both kinds of probe: it is measured
	 * with the static ones (docs/agent-internals.md, "Switchable probes") */
	if (o->command == JCAL_CMD_CALIBRATE && o->mode == JCAL_MODE_BCI && !o->probes_given)
		o->probes_static = 1;
	return 0;
}

static int parse_all(const char *str, struct jcal_options *o, char *err, size_t errlen);

/* calib= names the table of the trees: output=tree|both with trace or
 * start. */
static int calib_conflict(const struct jcal_options *o, char *err, size_t errlen)
{
	if (!o->calib[0] || o->command == JCAL_CMD_HELP)
		return 0;
	if (o->command != JCAL_CMD_TRACE && o->command != JCAL_CMD_START) {
		snprintf(err, errlen,
			 "option 'calib=%.300s' goes with trace or start (calibrate writes its "
			 "table to table=)",
			 o->calib);
		return -1;
	}
	if (o->output == JCAL_OUTPUT_TRACE) {
		snprintf(err, errlen,
			 "option 'calib=%.300s' needs output=tree or output=both (the table of a "
			 "trace is jcal-post's to pick: --calib)",
			 o->calib);
		return -1;
	}
	return 0;
}

int jcal_options_parse(const char *str, struct jcal_options *o, char *err, size_t errlen)
{
	return parse_all(str, o, err, errlen) ? one_line(err, errlen) : 0;
}

static int parse_all(const char *str, struct jcal_options *o, char *err, size_t errlen)
{
	char buf[4 * JCAL_OPT_PATH_MAX];
	uint64_t seen = 0;

	memset(o, 0, sizeof(*o));
	o->loglevel = JCAL_LOG_INFO;
	strcpy(o->out, DEFAULT_OUT);
	if (err && errlen)
		err[0] = '\0';
	if (!str || !*str)
		return 0;
	if (strlen(str) >= sizeof(buf)) {
		snprintf(err, errlen, "option string too long (%zu bytes)", strlen(str));
		return -1;
	}
	strcpy(buf, str);
	/* Split on commas by hand: strtok would silently skip empty tokens. */
	char *tok = buf;
	for (;;) {
		char *comma = strchr(tok, ',');
		if (comma)
			*comma = '\0';
		if (!*tok)
			return fail(err, errlen, "empty option in '%s'", str);
		if (parse_token(o, tok, &seen, err, errlen))
			return -1;
		if (!comma)
			break;
		tok = comma + 1;
	}
	if (o->quiet)
		o->loglevel = JCAL_LOG_ERROR;
	if ((o->bci_include[0] || o->bci_exclude[0]) && o->command == JCAL_CMD_CALIBRATE) {
		snprintf(err, errlen, "option '%s' goes with trace, not calibrate",
			 o->bci_include[0] ? "include=" : "exclude=");
		return -1;
	}
	if (o->maxcontexts && o->output == JCAL_OUTPUT_TRACE) {
		snprintf(err, errlen, "option 'maxcontexts=%llu' needs output=tree or output=both",
			 (unsigned long long)o->maxcontexts);
		return -1;
	}
	if (o->slow_ns && o->output == JCAL_OUTPUT_TRACE) {
		snprintf(
		    err, errlen,
		    "option 'slow=' needs output=tree or output=both (a trace keeps every call: "
		    "jcal-post --report slow reads them)");
		return -1;
	}
	if (o->hists_off && o->output == JCAL_OUTPUT_TRACE) {
		snprintf(err, errlen, "option 'hists=off' needs output=tree or output=both");
		return -1;
	}
	if (o->output != JCAL_OUTPUT_TRACE && o->command == JCAL_CMD_CALIBRATE) {
		snprintf(err, errlen, "option 'output=%s' goes with trace, not calibrate",
			 jcal_output_name(o->output));
		return -1;
	}
	/* in-run samples are events, which a tree in memory does not keep;
	 * the trees are compensated with the stored table */
	if (o->output != JCAL_OUTPUT_TRACE &&
	    (o->recalibrate_start || o->recalibrate_end || o->recalibrate_period_s)) {
		snprintf(err, errlen,
			 "option 'output=%s' cannot go with recalibrate= (the trees are "
			 "compensated with the stored table; use output=trace)",
			 jcal_output_name(o->output));
		return -1;
	}
	if ((o->duration_s || o->maxsize) && o->command != JCAL_CMD_TRACE &&
	    o->command != JCAL_CMD_START && o->command != JCAL_CMD_HELP) {
		snprintf(err, errlen, "option '%s' goes with trace or start",
			 o->duration_s ? "duration=" : "maxsize=");
		return -1;
	}
	if (bci_only(o, err, errlen))
		return -1;
	if (o->maxsize && o->output == JCAL_OUTPUT_TREE) {
		snprintf(err, errlen,
			 "option 'maxsize=' bounds the trace file, and output=tree writes none "
			 "(maxcontexts= bounds the trees; output=both keeps a trace)");
		return -1;
	}
	if (calib_conflict(o, err, errlen))
		return -1;
	/* Only calibrate writes a table; recalibrate= keeps its samples in the trace. */
	if (o->table[0] && o->command != JCAL_CMD_CALIBRATE && o->command != JCAL_CMD_HELP) {
		snprintf(err, errlen, "option 'table=%.300s' goes with calibrate", o->table);
		return -1;
	}
	/* recalibrate= stays refused with mode=bci (docs/agent-internals.md):
	 * such a trace takes a table from calibrate,mode=bci */
	if (o->mode == JCAL_MODE_BCI && o->command == JCAL_CMD_TRACE &&
	    (o->recalibrate_start || o->recalibrate_end || o->recalibrate_period_s)) {
		snprintf(err, errlen,
			 "option 'mode=bci': recalibrate is not available in bci mode (use a "
			 "table from calibrate,mode=bci)");
		return -1;
	}
	return 0;
}

static int glob(const char *p, const char *pend, const char *s, const char *send)
{
	const char *star = NULL, *resume = NULL;

	while (s < send) {
		char c = *s;
		if (c == '/')
			c = '.';
		if (p < pend && (*p == '?' || *p == c)) {
			p++;
			s++;
		} else if (p < pend && *p == '*') {
			star = ++p;
			resume = s;
		} else if (star) {
			p = star;
			s = ++resume;
		} else {
			return 0;
		}
	}
	while (p < pend && *p == '*')
		p++;
	return p == pend;
}

int jcal_glob_match(const char *pattern, size_t plen, const char *name)
{
	const char *end = name + strlen(name), *dollar = strchr(name, '$');

	if (glob(pattern, pattern + plen, name, end))
		return 1;
	/* The outer classes of a nested class: a.b.C for a.b.C$D$E. */
	for (; dollar; dollar = strchr(dollar + 1, '$'))
		if (dollar > name && glob(pattern, pattern + plen, name, dollar))
			return 1;
	return 0;
}

static int match_list(const char *list, const char *name)
{
	for (const char *p = list; *p;) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (jcal_glob_match(p, len, name))
			return 1;
		if (!end)
			break;
		p = end + 1;
	}
	return 0;
}

int jcal_class_selected(const struct jcal_options *o, const char *name)
{
	if (match_list(o->bci_exclude, name))
		return 0;
	return !o->bci_include[0] || match_list(o->bci_include, name);
}

int jcal_bci_instrumented(const struct jcal_options *o, const char *name)
{
	if (!strncmp(name, "jcal/", 5) || !strncmp(name, "jcal.", 5))
		return 0;
	/* without include=, the default excludes apply too */
	if (!o->bci_include[0] && match_list(JCAL_BCI_DEFAULT_EXCLUDE, name))
		return 0;
	return jcal_class_selected(o, name);
}

void jcal_bci_exclude_list(const struct jcal_options *o, char *out, size_t outlen)
{
	if (o->bci_include[0])
		snprintf(out, outlen, "%s", o->bci_exclude);
	else
		snprintf(out, outlen, "%s%s%s", JCAL_BCI_DEFAULT_EXCLUDE,
			 o->bci_exclude[0] ? ";" : "", o->bci_exclude);
}

static int expand_out(const char *pattern, pid_t pid, time_t t, unsigned seq, char *out,
		      size_t outlen, char *err, size_t errlen);

int jcal_options_expand_out(const char *pattern, pid_t pid, time_t t, char *out, size_t outlen,
			    char *err, size_t errlen)
{
	return jcal_options_expand_out_seq(pattern, pid, t, 1, out, outlen, err, errlen);
}

int jcal_options_expand_out_seq(const char *pattern, pid_t pid, time_t t, unsigned seq, char *out,
				size_t outlen, char *err, size_t errlen)
{
	return expand_out(pattern, pid, t, seq, out, outlen, err, errlen) ? one_line(err, errlen)
									  : 0;
}

int jcal_options_out_varies(const char *pattern)
{
	for (const char *p = pattern; *p; p++)
		if (p[0] == '%' && p[1]) {
			if (p[1] == 'n' || p[1] == 't')
				return 1;
			p++;
		}
	return 0;
}

static int expand_out(const char *pattern, pid_t pid, time_t t, unsigned seq, char *out,
		      size_t outlen, char *err, size_t errlen)
{
	size_t n = 0;
	char piece[64];

	for (const char *p = pattern; *p; p++) {
		const char *add = piece;
		if (*p != '%') {
			piece[0] = *p;
			piece[1] = '\0';
		} else if (p[1] == 'p') {
			snprintf(piece, sizeof(piece), "%ld", (long)pid);
			p++;
		} else if (p[1] == 't') {
			struct tm tm;
			localtime_r(&t, &tm);
			strftime(piece, sizeof(piece), "%Y%m%d-%H%M%S", &tm);
			p++;
		} else if (p[1] == 'n') {
			snprintf(piece, sizeof(piece), "%u", seq);
			p++;
		} else if (p[1] == '%') {
			add = "%";
			p++;
		} else {
			snprintf(err, errlen,
				 "bad escape '%%%.1s' in out=%s (use %%p, %%t, %%n or %%%%)", p + 1,
				 pattern);
			return -1;
		}
		size_t len = strlen(add);
		if (n + len >= outlen) {
			snprintf(err, errlen, "file name too long in out=%s", pattern);
			return -1;
		}
		memcpy(out + n, add, len);
		n += len;
	}
	out[n] = '\0';
	return 0;
}
