/*
 * options.h - the agent's option string (README.md, "Agent options"):
 * parsing and validation.
 *
 * Pure code, no JVMTI: unit-tested in native-tests/test-options.c.
 */
#ifndef JCAL_OPTIONS_H
#define JCAL_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "common/trace_format.h"

#define JCAL_OPT_PATH_MAX 1024
#define JCAL_OPT_METRIC_MAX 128
/* recalibrate=PERIOD bounds: a burst takes ~3 s, so not more often than this */
#define JCAL_RECALIBRATE_MIN_PERIOD_S 10
#define JCAL_RECALIBRATE_MAX_PERIOD_S (24 * 3600)

enum jcal_command {
	JCAL_CMD_NONE = 0,
	JCAL_CMD_HELP,
	JCAL_CMD_TRACE,
	JCAL_CMD_CALIBRATE,
	/* Commands to an agent already running in the JVM (a later load of the
	 * library, docs/live-profiling.md); start on a first load = trace. */
	JCAL_CMD_START,
	JCAL_CMD_STOP,
	JCAL_CMD_DUMP,
	JCAL_CMD_STATUS,
	JCAL_CMD_ROTATE,
};

enum jcal_mode {
	JCAL_MODE_EVENTS = 0,
	JCAL_MODE_BCI,
};

/* output=: what a trace run writes (README.md, "Agent options"). */
enum jcal_output {
	JCAL_OUTPUT_TRACE = 0, /* every event to out= */
	JCAL_OUTPUT_TREE,      /* calling-context trees in memory; a snapshot to out= */
	JCAL_OUTPUT_BOTH,      /* the trace to out=, and a snapshot to out=.tree at the end */
};

/* clock=: what the recorded metric values are (docs/accuracy.md, "The
 * agent-free clock"). */
enum jcal_clock {
	JCAL_CLOCK_AGENTFREE = 0, /* the time inside the agent taken out (default) */
	JCAL_CLOCK_RAW,		  /* the metric as read at each event's start */
};

/* label=KEY:VALUE: at most this many, a key shorter than JCAL_LABEL_KEY_MAX
 * and a value shorter than JCAL_LABEL_VALUE_MAX bytes. */
#define JCAL_MAX_LABELS 8
#define JCAL_LABEL_KEY_MAX 64
#define JCAL_LABEL_VALUE_MAX 128

/* maxcontexts= bounds: below the minimum, folding would run all the time. */
#define JCAL_MAXCONTEXTS_MIN 1000u
#define JCAL_MAXCONTEXTS_MAX 1000000000u
/* slow=DURATION[:MAX]: DURATION from 1us to 1h; MAX calls kept (default
 * and bounds: common/slow_keep.h's SLOW_KEEP_MAX) */
#define JCAL_SLOW_MIN_NS 1000ull
#define JCAL_SLOW_MAX_NS 3600000000000ull
#define JCAL_SLOW_KEEP_DEFAULT 100u
#define JCAL_SLOW_KEEP_MAX 10000u

enum jcal_loglevel {
	JCAL_LOG_ERROR = 0,
	JCAL_LOG_WARN,
	JCAL_LOG_INFO,
	JCAL_LOG_DEBUG,
};

/* The throttle= rule of an agent that attaches to a running JVM in
 * mode=bci without throttle= (docs/live-profiling.md, "What a recording
 * costs a server"): a method called more than 1,000 times whose calls
 * average under 5 us of their own time keeps only the probe that counts
 * its calls. */
#define JCAL_ATTACH_THROTTLE_CALLS 1000
#define JCAL_ATTACH_THROTTLE_NS 5000

struct jcal_options {
	enum jcal_command command;
	enum jcal_mode mode;
	int mode_given;		     /* mode= was in the options */
	char out[JCAL_OPT_PATH_MAX]; /* pattern, %p and %t not yet expanded */
	unsigned nmetrics;	     /* 0 = auto */
	char metric[JCAL_MAX_METRICS][JCAL_OPT_METRIC_MAX];
	char table[JCAL_OPT_PATH_MAX]; /* calibrate: where the table goes; empty = calibration
					  directory */
	/* calib= (output=tree|both): the trees' table, a file or a directory
	 * searched by fingerprint; empty = the calibration directory */
	char calib[JCAL_OPT_PATH_MAX];
	char log[JCAL_OPT_PATH_MAX]; /* empty = stderr */
	enum jcal_loglevel loglevel;
	int quiet;
	int start_manual;      /* start=manual: threads traced only inside jcal.Control regions */
	int recalibrate_start; /* recalibrate=start|both: calibration burst at VMInit, in the trace
				*/
	int recalibrate_end;   /* recalibrate=end|both: the same in a shutdown hook */
	unsigned
	    recalibrate_period_s; /* recalibrate=PERIOD: a burst every PERIOD seconds; 0 = none */
	/* mode=bci filters: ';'-separated globs on "pkg.Class" names, in the
	 * order given (include=/exclude= may repeat); empty = none given. */
	char bci_include[JCAL_OPT_PATH_MAX];
	char bci_exclude[JCAL_OPT_PATH_MAX];
	enum jcal_output output;
	enum jcal_clock clock;
	int clock_given;      /* clock= was in the options */
	uint64_t maxcontexts; /* 0 = no limit */
	int hists_off;	      /* hists=off: the trees keep no histograms; 0 = on (the default) */
	/* slow=DURATION[:MAX] (output=tree|both): the MAX longest calls of
	 * at least slow_ns kept with their paths and callees; 0 = none */
	uint64_t slow_ns;
	unsigned slow_max;
	int monitors_off;    /* monitors=off: the JVM's monitor events not recorded; 0 = on (the
				default) */
	unsigned duration_s; /* duration=: stop the recording after this long; 0 = none */
	uint64_t maxsize;    /* maxsize=: stop before the trace passes this many bytes; 0 = none */
	char reply[JCAL_OPT_PATH_MAX]; /* reply=: where a command's answer goes; empty = stderr */
	int out_given;		       /* out= was in the options */
	/* throttle=CALLS:NS (mode=bci): a method called more than CALLS times
	 * whose calls average under NS (metric units) loses its probes;
	 * 0 = off (throttle=off, or not given: then off, but on with
	 * JCAL_ATTACH_THROTTLE_* when the agent attaches to a running JVM) */
	uint64_t throttle_calls, throttle_avg;
	int throttle_given; /* throttle= (CALLS:NS or off) was in the options */
	/* tiny=count (mode=bci): tiny methods (agent/bci/bci_tiny.h) keep only
	 * the probe that counts their calls from their first instrumentation;
	 * 0 = tiny=probe (or not given: then probe, but count when the agent
	 * attaches to a running JVM) */
	int tiny_count;
	int tiny_given; /* tiny= was in the options */
	/* inlined=count (mode=bci): a method the JIT had inlined into compiled
	 * code when its class is instrumented at a start, without a loop
	 * (agent/bci/jit_inlined.h), keeps only the counting probe from then on;
	 * 0 = inlined=probe (the default) */
	int inlined_count;
	int inlined_given; /* inlined= was in the options */
	/* probes=static (mode=bci): every class gets invokestatic probes, which
	 * stop and throttle= take out by retransforming it; 0 = switch: the
	 * program's classes get probes switched in place (agent/bci/bci_sites.h);
	 * not given: switch, but static when the agent attaches to a running JVM */
	int probes_static;
	int probes_given;   /* probes= was in the options */
	uint64_t given;	    /* bit i: row i of the option table was in the string */
	int loglevel_given; /* loglevel= or quiet was in the options */
	/* label=KEY:VALUE (repeatable): written as the meta records label.KEY,
	 * which jcal-post's pprof export gives every sample as a label;
	 * nlabels of them, 0 = none */
	unsigned nlabels;
	char label_key[JCAL_MAX_LABELS][JCAL_LABEL_KEY_MAX];
	char label_value[JCAL_MAX_LABELS][JCAL_LABEL_VALUE_MAX];
};

/* What a later start (a recording of an agent already running in the JVM,
 * docs/live-profiling.md, "A later start") does with an option it gives:
 * each row of the option table says which. */
enum jcal_later {
	JCAL_LATER_COMMAND = 1, /* a command word: with start, a conflict the parser refuses */
	JCAL_LATER_RECORDING,	/* the new recording's own; not given: its default */
	JCAL_LATER_AGENT,	/* the agent's setting from then on; not given: unchanged */
	JCAL_LATER_FIXED,	/* fixed when the agent was loaded: refused unless the same */
	JCAL_LATER_REFUSED,	/* not available to a later start */
};

/* duration= bounds (1 second to 30 days) and maxsize= bounds (1 MiB to 1 PiB). */
#define JCAL_DURATION_MAX_S (30u * 24 * 3600)
#define JCAL_MAXSIZE_MIN (1ull << 20)
#define JCAL_MAXSIZE_MAX (1ull << 50)

/* Excluded in mode=bci unless include= is given (then only the included
 * classes are instrumented). */
#define JCAL_BCI_DEFAULT_EXCLUDE "java.*;javax.*;jdk.*;sun.*;com.sun.*;jcal.*"

/* Parses an option string ("trace,out=t.bin"; NULL or "" is allowed and
 * yields JCAL_CMD_NONE). Returns 0, or -1 with a one-line message in err
 * that names the offending token. */
int jcal_options_parse(const char *str, struct jcal_options *o, char *err, size_t errlen);

/* Checks one label "KEY:VALUE" as label= takes it (the launcher's --label
 * checks with it too): KEY letters, digits and '_', not starting with a
 * digit nor "__", not one jcal-post sets itself (host, pid, thread, jvm);
 * VALUE 1 to JCAL_LABEL_VALUE_MAX - 1 bytes without control characters or
 * a comma. With key and value non-NULL, copies them (JCAL_LABEL_KEY_MAX
 * and JCAL_LABEL_VALUE_MAX bytes). Returns 0, or -1 with what is wrong in
 * err (the caller names kv). */
int jcal_label_check(const char *kv, char *key, char *value, char *err, size_t errlen);

/* Expands %p (pid), %t (local time YYYYmmdd-HHMMSS), %n (seq: the file's
 * number in a continuous recording, from 1) and %% in pattern. Returns 0,
 * or -1 with a message (unknown escape, result too long). */
int jcal_options_expand_out_seq(const char *pattern, pid_t pid, time_t t, unsigned seq, char *out,
				size_t outlen, char *err, size_t errlen);

/* jcal_options_expand_out_seq with seq 1: a recording's first file. */
int jcal_options_expand_out(const char *pattern, pid_t pid, time_t t, char *out, size_t outlen,
			    char *err, size_t errlen);

/* Whether pattern names a new file at each rotation (has %n or %t). */
int jcal_options_out_varies(const char *pattern);

/* The option table printed by `help`, generated from the parser's rows. */
const char *jcal_options_help(void);
/* The option table, for the man page (agent/launcher/agent_man.c): the
 * number of rows, and row i's key, value syntax (NULL for a flag) and help
 * ('\n' starts a continuation line). */
size_t jcal_options_nrows(void);
void jcal_options_row(size_t i, const char **key, const char **syntax, const char **help);
/* Row i's policy at a later start. */
enum jcal_later jcal_options_row_later(size_t i);
/* What a policy means, in a few words for the man page ("applies to the
 * new recording; not given, its default"). */
const char *jcal_later_text(enum jcal_later l);

/*
 * A later start's options o, against those of the agent running (agent,
 * whose metrics are named metrics, "a+b" as metric= writes them): 0 when
 * every option o gives may apply to the new recording, else -1 with a
 * one-line message in err that names the first one that may not and why
 * (a mode=, clock=, metric= or throttle= other than the agent's, which are
 * fixed when it was loaded; recalibrate=). Pure: session.c calls it before
 * anything changes.
 */
int jcal_options_later_check(const struct jcal_options *agent, const char *metrics,
			     const struct jcal_options *o, char *err, size_t errlen);

const char *jcal_mode_name(enum jcal_mode m);
const char *jcal_output_name(enum jcal_output o);
const char *jcal_clock_name(enum jcal_clock c);

/* Whether the command is one for an agent already running (start, stop,
 * dump, status), as opposed to trace, calibrate or help. */
int jcal_command_is_live(enum jcal_command c);

/* Glob match of a class name against one pattern: '*' any run of characters
 * (dots included), '?' one character. name may be in internal form ("a/b/C",
 * '/' matches '.'). A pattern that matches the outer class of a nested class
 * ("a.b.C" for "a.b.C$Inner") matches the nested class too. */
int jcal_glob_match(const char *pattern, size_t plen, const char *name);

/* Whether mode=bci instruments the class (internal or dotted name): with
 * include= given, when it matches an include and no exclude pattern;
 * otherwise when it matches neither an exclude nor a default-exclude
 * pattern. jcal.* is never instrumented. */
int jcal_bci_instrumented(const struct jcal_options *o, const char *name);

/* Whether mode=events records the methods of the class (internal or dotted
 * name): it matches no exclude pattern and, with include= given, an
 * include pattern. Without either, every class. */
int jcal_class_selected(const struct jcal_options *o, const char *name);

/* The exclude patterns in effect (for the trace meta "bci.exclude"). */
void jcal_bci_exclude_list(const struct jcal_options *o, char *out, size_t outlen);

#endif
