/*
 * metric.c - the choice of the metric set (docs/metrics.md, with the
 * fallback chain of metric=auto and its loud warning), the TSC frequency,
 * and the per-thread opening of the metrics with per-thread fallback.
 * The counters themselves (libpfm4, perf_event_open, mmap, rdpmc) are in
 * perf_counter.c; the per-event read is metric_read_all in metric.h.
 */
#include "agent/metrics/metric.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent/base/log.h"
#include "agent/metrics/metric_check.h"

static uint64_t mono_raw_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Start of the run, for the final frequency estimate. */
static uint64_t tsc_start, mono_start;

static uint64_t tsc_hz_over(uint64_t t0, uint64_t m0)
{
	uint64_t t1 = perf_rdtsc(), m1 = mono_raw_ns();
	if (m1 <= m0)
		return 0;
	return (uint64_t)((double)(t1 - t0) * 1e9 / (double)(m1 - m0));
}

static uint64_t tsc_hz_estimate(void)
{
#if defined(__x86_64__) || defined(__i386__)
	struct timespec pause = {0, 20 * 1000 * 1000};
	uint64_t t0 = perf_rdtsc(), m0 = mono_raw_ns();
	nanosleep(&pause, NULL);
	return tsc_hz_over(t0, m0);
#else
	return 1000000000u; /* the fallback clock counts nanoseconds */
#endif
}

uint64_t metric_set_tsc_hz_final(struct metric_set *ms)
{
	if (!ms->tsc_hz)
		return 0;
#if defined(__x86_64__) || defined(__i386__)
	/* Only trust a run long enough for the estimate to beat the 20 ms one. */
	if (mono_raw_ns() - mono_start > 1000000000u)
		ms->tsc_hz = tsc_hz_over(tsc_start, mono_start);
#endif
	return ms->tsc_hz;
}

/* snprintf("%s") that says nothing about truncation: messages may be cut. */
static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int is_hardware(const char *name)
{
	return !strcmp(name, "instructions") || !strcmp(name, "cycles") ||
	       !strncmp(name, "pfm:", 4);
}

/* The libpfm4 event string of a hardware metric: the kernel's generic
 * events for instructions and cycles (mapped by it to the CPU's own). */
static const char *pfm_event_of(const char *name)
{
	if (!strcmp(name, "instructions"))
		return "perf::INSTRUCTIONS";
	if (!strcmp(name, "cycles"))
		return "perf::CYCLES";
	return name + 4;
}

static struct metric_desc *add_desc(struct metric_set *ms, const char *name, enum metric_kind kind)
{
	struct metric_desc *d = &ms->m[ms->n++];

	snprintf(d->name, sizeof(d->name), "%s", name);
	d->kind = kind;
	if (kind == METRIC_HW) {
		d->unit = "count";
		d->hw_slot = ms->nhw++;
	} else if (kind == METRIC_TSC) {
		d->unit = "ticks";
		if (!ms->tsc_hz) {
			tsc_start = perf_rdtsc();
			mono_start = mono_raw_ns();
			ms->tsc_hz = tsc_hz_estimate();
		}
	} else {
		d->unit = "ns";
	}
	return d;
}

/* Encodes counting metric d into the set as libpfm4 reads it (its :u/:k
 * modifiers applied; hw_check then plans the modes). Returns 0, or -1 with
 * the reason (an unknown event name, or libpfm4 not knowing the generic
 * events). */
static int hw_encode(struct metric_set *ms, struct metric_desc *d, char *err, size_t errlen)
{
	struct perf_event_attr *a = &ms->hw_attr[d->hw_slot];
	char why[256];

	if (perf_counter_encode_given(pfm_event_of(d->name), a, why, sizeof(why)) == 0) {
		/* a clock (task-clock, cpu-clock) counts nanoseconds */
		if (metric_event_kind_of(a->type, a->config)->cls == METRIC_EVENT_CLOCK)
			d->unit = "ns";
		return 0;
	}
	if (!strncmp(d->name, "pfm:", 4)) {
		char alt[JCAL_OPT_METRIC_MAX], hint[JCAL_OPT_METRIC_MAX + 32] = "";
		struct perf_event_attr a;
		char *sep;

		/* libpfm4's perf:: names use '-' (perf::BRANCH-MISSES): suggest it. */
		copy_str(alt, sizeof(alt), d->name + 4);
		sep = strstr(alt, "::");
		for (char *p = sep ? sep + 2 : alt; *p; p++)
			if (*p == '_')
				*p = '-';
		if (strcmp(alt, d->name + 4) && perf_counter_encode(alt, &a, why, sizeof(why)) == 0)
			snprintf(hint, sizeof(hint), " (did you mean 'pfm:%s'?)", alt);
		perf_counter_encode(d->name + 4, &a, why, sizeof(why));
		snprintf(err, errlen, "unknown event '%s' in metric '%s': libpfm4: %s%s",
			 d->name + 4, d->name, why, hint);
	} else
		snprintf(err, errlen, "cannot encode metric '%s' with libpfm4: %s", d->name, why);
	return -1;
}

/* The messages of perf_event_open's failure e for metric name: the full
 * explanation in err, a short one in brief. */
static void open_failure(const char *name, int e, char *err, size_t errlen, char *brief,
			 size_t brieflen)
{
	char expl[512];

	perf_counter_explain(e, PERF_STAGE_OPEN, perf_counter_paranoid(),
			     perf_counter_in_container(), expl, sizeof(expl));
	snprintf(err, errlen, "cannot open metric '%s': %s", name, expl);
	snprintf(brief, brieflen, "%s: perf_event_open: %s (paranoid=%d%s)", name, strerror(e),
		 perf_counter_paranoid(), perf_counter_in_container() ? ", container" : "");
}

/* Plans and checks counting metric d at start (metric_check.h): its modes
 * and the check's result go to d->note, a warning to the log. Returns 0,
 * or -1 with the full explanation in err, a short one in brief and
 * perf_event_open's errno in *errnum (0 when the event was refused). */
static int hw_check(struct metric_set *ms, struct metric_desc *d, char *err, size_t errlen,
		    char *brief, size_t brieflen, int *errnum)
{
	struct metric_check c;

	metric_check_event(pfm_event_of(d->name), &ms->hw_attr[d->hw_slot], &c);
	*errnum = 0;
	switch (c.status) {
	case METRIC_CHECK_NEVER:
		snprintf(err, errlen, "metric '%s' can never count: %s", d->name, c.reason);
		snprintf(brief, brieflen, "%s: can never count", d->name);
		return -1;
	case METRIC_CHECK_OPEN_FAILED:
		open_failure(d->name, c.errnum, err, errlen, brief, brieflen);
		*errnum = c.errnum;
		return -1;
	case METRIC_CHECK_WARN:
		jcal_warn("metric '%s' %s", d->name, c.reason);
		snprintf(d->note, sizeof(d->note), "%s", c.words);
		return 0;
	default:
		snprintf(d->note, sizeof(d->note), "%s", c.words);
		return 0;
	}
}

/* How counting metric d is read on every thread, in a few words: rdpmc
 * where the group's pages offer it (hw_probe says), else read(). */
static const char *hw_how(const struct metric_set *ms, const struct metric_desc *d, int rdpmc)
{
	if (!perf_counter_has_page(&ms->hw_attr[d->hw_slot]))
		return "perf group, read()";
	return rdpmc ? "perf group, rdpmc" : "perf group, read() (no user rdpmc)";
}

/* d->why = PREFIX NOTE; HOW (the note is a field of d: built aside first). */
static void hw_why(struct metric_desc *d, const char *prefix, const char *how)
{
	char why[sizeof(d->why)];

	snprintf(why, sizeof(why), "%s%s; %s", prefix, d->note, how);
	memcpy(d->why, why, sizeof(why));
}

/* Opens the set's counting group once on the calling thread. Returns 0
 * (*rdpmc: whether its pages offer user rdpmc), or -1 with the full
 * explanation in err, a short one in brief and perf_event_open's errno in
 * *errnum. */
static int hw_probe(const struct metric_set *ms, int *rdpmc, char *err, size_t errlen, char *brief,
		    size_t brieflen, int *errnum)
{
	struct perf_group g;
	unsigned unmapped, failed;
	int e;

	if (perf_group_open(&g, ms->hw_attr, ms->nhw, &unmapped, &e, &failed)) {
		const char *name = "";

		for (unsigned i = 0; i < ms->n; i++)
			if (ms->m[i].kind == METRIC_HW && ms->m[i].hw_slot == failed)
				name = ms->m[i].name;
		open_failure(name, e, err, errlen, brief, brieflen);
		*errnum = e;
		return -1;
	}
	*rdpmc = 0;
	for (unsigned i = 0; i < g.n; i++)
		if (g.c[i].page) {
			*rdpmc = g.c[i].page->cap_user_rdpmc;
			break;
		}
	perf_group_close(&g);
	return 0;
}

/* Picks the cputime backend: the cheapest correct one that opens here. */
static void cputime_choose(struct metric_set *ms, char *how, size_t howlen)
{
	enum perf_stage stage;
	int e;
	char expl[512];

	ms->cputime_mode = perf_cputime_probe(ms->exclude_kernel, &e, &stage);
	if (ms->cputime_mode == PERF_CPUTIME_TSC) {
		snprintf(how, howlen, "perf task-clock page + TSC (cap_user_time)");
		return;
	}
	if (ms->cputime_mode == PERF_CPUTIME_SWITCH) {
		snprintf(how, howlen,
			 "perf task-clock page + context-switch records "
			 "(cap_user_time=0)");
		return;
	}
	perf_counter_explain(e, stage, perf_counter_paranoid(), perf_counter_in_container(), expl,
			     sizeof(expl));
	jcal_warn("metric cputime: the perf task-clock cannot be used (%s); reading "
		  "CLOCK_THREAD_CPUTIME_ID instead, a system call (~0.5 us) per event",
		  expl);
	snprintf(how, howlen,
		 "clock_gettime(CLOCK_THREAD_CPUTIME_ID): perf task-clock "
		 "unavailable (%s)",
		 strerror(e));
}

static int thread_cputime_works(void)
{
	struct timespec ts;
	return clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0;
}

/* Whether two "cannot open metric 'x': why" messages give the same why. */
static int same_reason(const char *a, const char *b)
{
	const char *ra = strstr(a, "': "), *rb = strstr(b, "': ");
	return ra && rb && !strcmp(ra, rb);
}

/* The environment variable through which the first JVM of a process tree
 * tells the JVMs it starts that the metric fallback was already reported. */
#define FALLBACK_NOTED_ENV "JCAL_METRIC_NOTED"

/* Reports that metric=auto fell back to metric: one line, once per process
 * tree (children inherit the environment, docs/metrics.md); the full
 * explanation at loglevel=debug. */
static void report_fallback(const char *metric, const char *code)
{
	char noted[96];
	const char *prev = getenv(FALLBACK_NOTED_ENV);

	snprintf(noted, sizeof(noted), "%s:%s", metric, code);
	if (prev && !strcmp(prev, noted)) {
		jcal_debug("metric %s (no hardware counters here: %s; reported by a parent "
			   "process)",
			   metric, code);
		return;
	}
	jcal_info("metric %s (no hardware counters here: %s; details: loglevel=debug)", metric,
		  code);
	setenv(FALLBACK_NOTED_ENV, noted, 1);
}

static int open_auto(struct metric_set *ms)
{
	static const char *const hw[] = {"instructions", "cycles"};
	char err[2][768] = {"", ""}, brief[2][200], how[200];
	int errnum[2] = {0, 0}, encoded[2] = {0, 0}, rdpmc;

	for (unsigned i = 0; i < 2; i++) {
		char prefix[sizeof(brief[0]) + 64] = "auto: ";
		struct metric_desc *d;

		ms->n = 0;
		ms->nhw = 0;
		d = add_desc(ms, hw[i], METRIC_HW);
		if (hw_encode(ms, d, err[i], sizeof(err[i]))) {
			copy_str(brief[i], sizeof(brief[i]), err[i]);
			continue;
		}
		encoded[i] = 1;
		if (hw_check(ms, d, err[i], sizeof(err[i]), brief[i], sizeof(brief[i]),
			     &errnum[i]) ||
		    hw_probe(ms, &rdpmc, err[i], sizeof(err[i]), brief[i], sizeof(brief[i]),
			     &errnum[i]))
			continue;
		if (i == 1) {
			snprintf(prefix, sizeof(prefix), "auto: instructions unavailable (%s); ",
				 brief[0]);
			jcal_info("metric cycles (instructions cannot be counted here: %s; "
				  "details: loglevel=debug)",
				  errnum[0]    ? perf_counter_errno_name(errnum[0])
				  : encoded[0] ? "it never counts"
					       : "no libpfm4 event");
			jcal_debug("metric=auto: %s", err[0]);
		}
		hw_why(d, prefix, hw_how(ms, d, rdpmc));
		return 0;
	}
	ms->n = 0;
	ms->nhw = 0;
	memset(ms->hw_attr, 0, sizeof(ms->hw_attr));
	if (same_reason(err[0], err[1])) {
		jcal_debug("metric=auto: cannot count instructions or cycles: %s",
			   strstr(err[0], "': ") + 3);
	} else {
		jcal_debug("metric=auto: no hardware counters: %s", err[0]);
		jcal_debug("metric=auto: no hardware counters: %s", err[1]);
	}
	const char *code = errnum[0]	? perf_counter_errno_name(errnum[0])
			   : errnum[1]	? perf_counter_errno_name(errnum[1])
			   : encoded[0] ? "never counts"
					: "no libpfm4 event";
	if (thread_cputime_works()) {
		struct metric_desc *d = add_desc(ms, "cputime", METRIC_CPUTIME);

		cputime_choose(ms, how, sizeof(how));
		jcal_debug("metric=auto: falling back to cputime (%s): method costs will be CPU "
			   "time in ns, not instruction counts",
			   how);
		report_fallback("cputime", code);
		snprintf(d->why, sizeof(d->why), "auto: no hardware counters (%s); cputime via %s",
			 brief[0], how);
	} else {
		struct metric_desc *d = add_desc(ms, "tsc", METRIC_TSC);

		jcal_warn("metric=auto: CLOCK_THREAD_CPUTIME_ID fails too (%s); falling back to "
			  "tsc (wall-clock ticks, includes time off the CPU)",
			  strerror(errno));
		snprintf(d->why, sizeof(d->why),
			 "auto: no hardware counters (%s), no thread CPU clock; tsc", brief[0]);
	}
	return 0;
}

int metric_set_open(struct metric_set *ms, const struct jcal_options *o, char *err, size_t errlen)
{
	char how[200], brief[200];
	int e, rdpmc = 0;

	memset(ms, 0, sizeof(*ms));
	ms->exclude_kernel = perf_counter_paranoid() >= 2;
	if (o->nmetrics == 0)
		return open_auto(ms);
	for (unsigned i = 0; i < o->nmetrics; i++) {
		const char *name = o->metric[i];
		struct metric_desc *d;

		if (is_hardware(name)) {
			d = add_desc(ms, name, METRIC_HW);
			if (hw_encode(ms, d, err, errlen) ||
			    hw_check(ms, d, err, errlen, brief, sizeof(brief), &e))
				return -1;
		} else if (!strcmp(name, "tsc")) {
			d = add_desc(ms, name, METRIC_TSC);
			snprintf(d->why, sizeof(d->why), "requested; rdtsc");
		} else if (!strcmp(name, "cputime")) {
			d = add_desc(ms, name, METRIC_CPUTIME);
		} else {
			snprintf(err, errlen, "unknown metric '%s'", name);
			return -1;
		}
	}
	if (ms->nhw && hw_probe(ms, &rdpmc, err, errlen, brief, sizeof(brief), &e))
		return -1;
	for (unsigned i = 0; i < ms->n; i++)
		if (ms->m[i].kind == METRIC_HW)
			hw_why(&ms->m[i], "requested; ", hw_how(ms, &ms->m[i], rdpmc));
	for (unsigned i = 0; i < ms->n; i++) {
		if (ms->m[i].kind != METRIC_CPUTIME)
			continue;
		cputime_choose(ms, how, sizeof(how));
		snprintf(ms->m[i].why, sizeof(ms->m[i].why), "requested; %s", how);
	}
	return 0;
}

void metric_set_names(const struct metric_set *ms, char *out, size_t outlen)
{
	size_t n = 0;
	out[0] = '\0';
	for (unsigned i = 0; i < ms->n && n < outlen; i++)
		n += (size_t)snprintf(out + n, outlen - n, "%s%s", i ? "+" : "", ms->m[i].name);
}

static atomic_uint fallbacks;
static atomic_int warned_hw_open, warned_hw_map, warned_ct_open, warned_ct_map;

/* A per-thread fallback: counted always, said once per cause. */
static void thread_fallback(atomic_int *warned, const char *what, int e, enum perf_stage stage,
			    const char *then)
{
	char expl[512];

	atomic_fetch_add(&fallbacks, 1);
	if (atomic_exchange(warned, 1))
		return;
	perf_counter_explain(e, stage, perf_counter_paranoid(), perf_counter_in_container(), expl,
			     sizeof(expl));
	jcal_warn("thread %ld: cannot open %s (%s); %s (said once; later threads that fail the "
		  "same way fall back silently)",
		  (long)syscall(SYS_gettid), what, expl, then);
}

unsigned metric_thread_fallbacks(void)
{
	return atomic_load(&fallbacks);
}

int metric_thread_open(const struct metric_set *ms, struct metric_thread *mt)
{
	enum perf_stage stage;
	unsigned unmapped, failed;
	int e, rc = 0, hw_ok = 0, ct_state = 0; /* 0 untried, 1 open, -1 failed */

	memset(mt, 0, sizeof(*mt));
	for (unsigned i = 0; i < PERF_COUNTER_GROUP_MAX; i++)
		mt->hw.c[i].fd = -1;
	mt->ct.fd = -1;
	if (ms->nhw) {
		if (perf_group_open(&mt->hw, ms->hw_attr, ms->nhw, &unmapped, &e, &failed) == 0) {
			hw_ok = 1;
			if (unmapped)
				thread_fallback(&warned_hw_map, "the hardware counters' pages",
						ENOMEM, PERF_STAGE_MMAP,
						"its counters are read with read(), ~0.6 us each");
		} else {
			rc = -1;
			thread_fallback(&warned_hw_open, "its hardware counters", e,
					PERF_STAGE_OPEN,
					"its hardware metric values are recorded as 0");
		}
	}
	for (unsigned i = 0; i < ms->n; i++) {
		const struct metric_desc *d = &ms->m[i];

		switch (d->kind) {
		case METRIC_HW:
			mt->slot[i] = (uint8_t)d->hw_slot;
			mt->reader[i] = hw_ok ? METRIC_READ_HW : METRIC_READ_ZERO;
			break;
		case METRIC_TSC:
			mt->reader[i] = METRIC_READ_TSC;
			break;
		case METRIC_CPUTIME:
			if (ms->cputime_mode != PERF_CPUTIME_NONE && ct_state == 0) {
				ct_state = perf_cputime_open(&mt->ct, ms->cputime_mode,
							     ms->exclude_kernel, &e, &stage)
					       ? -1
					       : 1;
				if (ct_state < 0) {
					rc = -1;
					thread_fallback(stage == PERF_STAGE_MMAP ? &warned_ct_map
										 : &warned_ct_open,
							"its perf task-clock", e, stage,
							"its cputime is read with "
							"clock_gettime(CLOCK_THREAD_CPUTIME_ID), "
							"~0.5 us per event");
				}
			}
			mt->reader[i] =
			    ct_state > 0 ? METRIC_READ_CPUTIME_PERF : METRIC_READ_CPUTIME_CLOCK;
			break;
		}
	}
	return rc;
}

void metric_thread_close(const struct metric_set *ms, struct metric_thread *mt)
{
	(void)ms;
	perf_group_close(&mt->hw);
	perf_cputime_close(&mt->ct);
	memset(mt->reader, METRIC_READ_ZERO, sizeof(mt->reader));
}
