/*
 * metric_event.h - what a counting event counts, and in which CPU modes
 * (docs/metrics.md, "Which events work where"): the privilege modifiers
 * (:u, :k, :h) of a libpfm4 event string, the table of event kinds with
 * their default modes and start-time check, and the plan that sets an
 * event's exclude_* bits and says whether it can count for a JVM thread at
 * all. All of it is pure (no system call): metric_check.c opens and checks
 * the events, native-tests/test-metric-event.c runs this on tables.
 */
#ifndef JCAL_METRIC_EVENT_H
#define JCAL_METRIC_EVENT_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

enum metric_event_class {
	METRIC_EVENT_HARDWARE = 1, /* a PMU event: counts in the mode the CPU runs in */
	METRIC_EVENT_KERNEL,	   /* happens only in the kernel: a context switch, a tracepoint */
	METRIC_EVENT_FAULT,	   /* charged to the faulting instruction's mode, user or kernel */
	METRIC_EVENT_CLOCK,	   /* time: the kernel counts it whatever the exclude_* bits */
	METRIC_EVENT_NEVER,	   /* never counts for a thread (dummy, bpf-output) */
	METRIC_EVENT_OTHER,	   /* unknown to jcal: libpfm4's encoding, not checked */
};

/* The action of the start-time check: one that must move the counter. */
enum metric_event_action {
	METRIC_ACTION_NONE = 0,
	METRIC_ACTION_SLEEP, /* short nanosleeps: each is a context switch (kernel mode) */
	METRIC_ACTION_TOUCH, /* a fresh anonymous page written: a fault (user mode) */
	METRIC_ACTION_SPIN,  /* CPU work in user mode: time, instructions, cycles */
};

struct metric_event_kind {
	uint32_t type;
	uint64_t config;
	int any_config; /* the row stands for every config of its type */
	enum metric_event_class cls;
	const char *what; /* "a context switch", for the messages */
	enum metric_event_action action;
};

/* The kind of an encoded event (perf_event_attr type and config): a row of
 * the table, or a row of class OTHER for what the table does not know. */
const struct metric_event_kind *metric_event_kind_of(uint32_t type, uint64_t config);

/* The privilege modifiers of a libpfm4 event string, as libpfm4 reads them
 * (case-insensitive names, a missing value is 1, y/t/1 and n/f/0; a modifier
 * given twice is set if either says so). Each is -1 when absent. */
struct metric_event_mods {
	int u, k, h;
};

/* Parses the modifiers after the event name ("pmu::EVENT:UMASK:u:k=0").
 * Returns how many of u, k, h were given, or -1 for a value libpfm4 would
 * refuse (then m holds what was read). */
int metric_event_mods_parse(const char *event, struct metric_event_mods *m);

/* What the plan depends on besides the event. */
struct metric_event_env {
	int kernel_denied; /* perf_event_open refused kernel mode (EACCES) */
	int paranoid;	   /* kernel.perf_event_paranoid, for the words */
	unsigned cpus;	   /* CPUs the thread may run on (its affinity) */
};

enum metric_event_verdict {
	METRIC_EVENT_OK = 0,
	METRIC_EVENT_WARN,	   /* accepted, but cannot move for this thread */
	METRIC_EVENT_NEVER_COUNTS, /* refused: would read 0 whatever the program does */
};

struct metric_event_plan {
	unsigned exclude_user, exclude_kernel, exclude_hv;
	enum metric_event_verdict verdict;
	int check;	  /* the kind's action can move the counter in the modes counted */
	char scope[96];	  /* the modes counted and why, a few words for the metric's why */
	char reason[384]; /* WARN, NEVER_COUNTS: the sentence of the warning or error */
	char tag[48];	  /* WARN: a few words for the metric's why */
};

/* Plans event k (enc: libpfm4's encoding at user level, PFM_PLM3) with
 * modifiers m: the user's modes when m gives any (libpfm4 applied them to
 * enc), else the kind's default: user mode only for a hardware event,
 * user and kernel mode for a software event (as perf stat), user mode only
 * for one whose kernel mode env denies. */
void metric_event_plan(const struct metric_event_kind *k, const struct metric_event_mods *m,
		       const struct perf_event_attr *enc, const struct metric_event_env *env,
		       struct metric_event_plan *p);

/* Sets a's exclude_user, exclude_kernel and exclude_hv from p. */
void metric_event_plan_apply(const struct metric_event_plan *p, struct perf_event_attr *a);

/* "user only", "kernel only", "user+kernel"... */
const char *metric_event_modes(unsigned exclude_user, unsigned exclude_kernel, unsigned exclude_hv);

#endif
