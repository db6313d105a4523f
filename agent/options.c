/*
 * options.c - parses and validates the agent option string (SPEC §2).
 *
 * Strict: every token must be a known key with a valid value; the first bad
 * one is reported by name and nothing else happens.
 */
#include "options.h"

#include <stdio.h>
#include <string.h>

#define DEFAULT_OUT "jcal-%p.bin"

static const char help_text[] =
	"jcal: calibrated instrumentation profiler for Java\n"
	"usage: java -agentpath:/path/to/libjcal.so=OPT[,OPT...] ...\n"
	"\n"
	"  help               print this table and exit\n"
	"  trace              record every method entry and exit to the trace file\n"
	"  calibrate          run the built-in calibration workload, write its table, exit\n"
	"  out=FILE           trace file; %p = pid, %t = start time, %% = %\n"
	"                     (default " DEFAULT_OUT ")\n"
	"  metric=M[+M...]    auto (default), instructions, cycles, cputime, tsc, pfm:EVENT;\n"
	"                     up to 4 read at every event\n"
	"  mode=events|bci    JVMTI method events (default) or bytecode instrumentation\n"
	"  include=PATTERN    mode=bci: instrument only classes matching PATTERN, a glob\n"
	"                     on pkg.Class names (* any text, ? one character);\n"
	"                     repeat the option or separate patterns with ';'\n"
	"  exclude=PATTERN    mode=bci: do not instrument matching classes; default\n"
	"                     (without include=) java.* javax.* jdk.* sun.* com.sun.*\n"
	"  start=auto|manual  trace every thread from the start (default), or only\n"
	"                     between jcal.Control.start() and stop() of each thread\n"
	"  recalibrate=W      with trace: run a short calibration burst at start-up\n"
	"                     (start), at the end (end) or both, and keep its samples\n"
	"                     in the trace (jcal-post --calib inrun); a period\n"
	"                     (60s, 5m, 1h) repeats the burst that often while the\n"
	"                     program runs (the option may be given twice)\n"
	"  table=FILE         with calibrate: where the table goes\n"
	"                     (default $JCAL_CALIB_DIR or ~/.local/share/jcal/calib)\n"
	"  log=FILE           agent messages to FILE instead of stderr\n"
	"  loglevel=L         error, warn, info (default) or debug\n"
	"  quiet              only errors (same as loglevel=error)\n"
	"\n"
	"example: java -agentpath:build/libjcal.so=trace,out=t.bin -cp app Main\n"
	"         build/jcal-post t.bin --report tree\n";

const char *jcal_options_help(void)
{
	return help_text;
}

const char *jcal_mode_name(enum jcal_mode m)
{
	return m == JCAL_MODE_BCI ? "bci" : "events";
}

static int fail(char *err, size_t errlen, const char *fmt, const char *tok)
{
	snprintf(err, errlen, fmt, tok);
	return -1;
}

_Static_assert(JCAL_RECALIBRATE_MIN_PERIOD_S == 10 && JCAL_RECALIBRATE_MAX_PERIOD_S == 86400,
	       "the recalibrate= error message names the bounds 10s and 24h");

/* recalibrate=PERIOD: digits with a unit s, m or h (bare digits: seconds). */
static int parse_period(const char *val, unsigned *seconds)
{
	unsigned long long n = 0, unit = 1;
	const char *p = val;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (unsigned)(*p - '0');
		if (n > JCAL_RECALIBRATE_MAX_PERIOD_S)
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
	if (n < JCAL_RECALIBRATE_MIN_PERIOD_S || n > JCAL_RECALIBRATE_MAX_PERIOD_S)
		return -1;
	*seconds = (unsigned)n;
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
	static const char *const names[] = { "auto", "instructions", "cycles", "cputime", "tsc" };
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
				return fail(err, errlen,
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

static int set_command(struct jcal_options *o, enum jcal_command c, const char *tok, char *err,
		       size_t errlen)
{
	if (o->command != JCAL_CMD_NONE && o->command != c)
		return fail(err, errlen, "option '%s' conflicts with an earlier mode option", tok);
	o->command = c;
	return 0;
}

static int parse_token(struct jcal_options *o, char *tok, char *err, size_t errlen)
{
	char *eq = strchr(tok, '=');
	const char *val = eq ? eq + 1 : NULL;
	char key[32];
	size_t klen = eq ? (size_t)(eq - tok) : strlen(tok);

	if (klen == 0)
		return fail(err, errlen, "empty option name in '%s'", tok);
	if (klen >= sizeof(key))
		return fail(err, errlen, "unknown option '%s' (try 'help')", tok);
	memcpy(key, tok, klen);
	key[klen] = '\0';

	static const char *const flags[] = { "help", "trace", "calibrate", "quiet" };
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		if (strcmp(key, flags[i]))
			continue;
		if (val)
			return fail(err, errlen, "option '%s' takes no value", tok);
		if (!strcmp(key, "help"))
			return set_command(o, JCAL_CMD_HELP, tok, err, errlen);
		if (!strcmp(key, "trace"))
			return set_command(o, JCAL_CMD_TRACE, tok, err, errlen);
		if (!strcmp(key, "calibrate"))
			return set_command(o, JCAL_CMD_CALIBRATE, tok, err, errlen);
		o->quiet = 1;
		o->loglevel = JCAL_LOG_ERROR;
		return 0;
	}
	if (!strcmp(key, "out") || !strcmp(key, "table") || !strcmp(key, "log") ||
	    !strcmp(key, "metric") || !strcmp(key, "mode") || !strcmp(key, "loglevel") ||
	    !strcmp(key, "start") || !strcmp(key, "recalibrate") || !strcmp(key, "include") ||
	    !strcmp(key, "exclude")) {
		if (!val)
			return fail(err, errlen, "option '%s' needs a value", tok);
	} else {
		return fail(err, errlen, "unknown option '%s' (try 'help')", tok);
	}
	if (!strcmp(key, "out"))
		return set_path(o->out, val, tok, err, errlen);
	if (!strcmp(key, "table"))
		return set_path(o->table, val, tok, err, errlen);
	if (!strcmp(key, "log"))
		return set_path(o->log, val, tok, err, errlen);
	if (!strcmp(key, "metric"))
		return parse_metrics(o, val, tok, err, errlen);
	if (!strcmp(key, "include"))
		return add_patterns(o->bci_include, val, tok, err, errlen);
	if (!strcmp(key, "exclude"))
		return add_patterns(o->bci_exclude, val, tok, err, errlen);
	if (!strcmp(key, "recalibrate")) {
		if (!strcmp(val, "start") || !strcmp(val, "both"))
			o->recalibrate_start = 1;
		if (!strcmp(val, "end") || !strcmp(val, "both"))
			o->recalibrate_end = 1;
		if (strcmp(val, "start") && strcmp(val, "end") && strcmp(val, "both") &&
		    parse_period(val, &o->recalibrate_period_s))
			return fail(err, errlen,
				    "bad value in option '%s' (expected start, end, both or a "
				    "period from 10s to 24h such as 60s, 5m or 1h)",
				    tok);
		return 0;
	}
	if (!strcmp(key, "start")) {
		if (!strcmp(val, "auto"))
			o->start_manual = 0;
		else if (!strcmp(val, "manual"))
			o->start_manual = 1;
		else
			return fail(err, errlen, "bad value in option '%s' (expected auto or manual)",
				    tok);
		return 0;
	}
	if (!strcmp(key, "mode")) {
		if (!strcmp(val, "events"))
			o->mode = JCAL_MODE_EVENTS;
		else if (!strcmp(val, "bci"))
			o->mode = JCAL_MODE_BCI;
		else
			return fail(err, errlen, "bad value in option '%s' (expected events or bci)",
				    tok);
		return 0;
	}
	static const char *const levels[] = { "error", "warn", "info", "debug" };
	for (int i = 0; i < 4; i++)
		if (!strcmp(val, levels[i])) {
			if (!o->quiet)
				o->loglevel = (enum jcal_loglevel)i;
			return 0;
		}
	return fail(err, errlen, "bad value in option '%s' (expected error, warn, info or debug)",
		    tok);
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

static int parse_all(const char *str, struct jcal_options *o, char *err, size_t errlen);

/* Keys that take one value: a second one is refused rather than silently
 * replacing the first (include=, exclude= and recalibrate= add up). */
static const char *const single_keys[] = { "out",  "table",    "log",  "metric",
					   "mode", "loglevel", "start" };

/* Fails when tok repeats a single-valued key already in *seen. */
static int check_repeat(const char *tok, unsigned *seen, char *err, size_t errlen)
{
	size_t klen = strcspn(tok, "=");

	for (size_t i = 0; i < sizeof(single_keys) / sizeof(single_keys[0]); i++) {
		if (strlen(single_keys[i]) != klen || strncmp(tok, single_keys[i], klen))
			continue;
		if (*seen & (1u << i)) {
			snprintf(err, errlen,
				 "option '%s': %s= was given already (give it once%s)", tok,
				 single_keys[i],
				 strcmp(single_keys[i], "metric") ? "" : "; metric=A+B reads several");
			return -1;
		}
		*seen |= 1u << i;
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
	unsigned seen = 0;

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
		if (check_repeat(tok, &seen, err, errlen) || parse_token(o, tok, err, errlen))
			return -1;
		if (!comma)
			break;
		tok = comma + 1;
	}
	if (o->quiet)
		o->loglevel = JCAL_LOG_ERROR;
	if ((o->bci_include[0] || o->bci_exclude[0]) && o->mode != JCAL_MODE_BCI) {
		snprintf(err, errlen, "option '%s' needs mode=bci",
			 o->bci_include[0] ? "include=" : "exclude=");
		return -1;
	}
	/* Only calibrate writes a table; recalibrate= keeps its samples in the trace. */
	if (o->table[0] && o->command != JCAL_CMD_CALIBRATE && o->command != JCAL_CMD_HELP) {
		snprintf(err, errlen, "option 'table=%.300s' goes with calibrate", o->table);
		return -1;
	}
	return 0;
}

static int glob(const char *p, const char *pend, const char *s, const char *send)
{
	const char *star = NULL, *resume = NULL;

	while (s < send) {
		char c = *s == '/' ? '.' : *s;
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

int jcal_bci_instrumented(const struct jcal_options *o, const char *name)
{
	if (!strncmp(name, "jcal/", 5) || !strncmp(name, "jcal.", 5))
		return 0;
	if (match_list(o->bci_exclude, name))
		return 0;
	if (o->bci_include[0])
		return match_list(o->bci_include, name);
	return !match_list(JCAL_BCI_DEFAULT_EXCLUDE, name);
}

void jcal_bci_exclude_list(const struct jcal_options *o, char *out, size_t outlen)
{
	if (o->bci_include[0])
		snprintf(out, outlen, "%s", o->bci_exclude);
	else
		snprintf(out, outlen, "%s%s%s", JCAL_BCI_DEFAULT_EXCLUDE,
			 o->bci_exclude[0] ? ";" : "", o->bci_exclude);
}

static int expand_out(const char *pattern, pid_t pid, time_t t, char *out, size_t outlen,
		      char *err, size_t errlen);

int jcal_options_expand_out(const char *pattern, pid_t pid, time_t t, char *out, size_t outlen,
			    char *err, size_t errlen)
{
	return expand_out(pattern, pid, t, out, outlen, err, errlen) ? one_line(err, errlen) : 0;
}

static int expand_out(const char *pattern, pid_t pid, time_t t, char *out, size_t outlen,
		      char *err, size_t errlen)
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
		} else if (p[1] == '%') {
			add = "%";
			p++;
		} else {
			snprintf(err, errlen, "bad escape '%%%.1s' in out=%s (use %%p, %%t or %%%%)",
				 p + 1, pattern);
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
