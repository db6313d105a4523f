/*
 * metric_event.c - the kinds of counting events jcal knows (what each
 * counts, in which CPU mode it happens, the action that must move it), the
 * parser of the :u/:k/:h modifiers of a libpfm4 event string, and the plan
 * of an event's exclude_* bits with its verdict (docs/metrics.md, "Which
 * events work where"). No system call here: metric_check.c acts on it.
 */
#include "agent/metrics/metric_event.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define SW PERF_TYPE_SOFTWARE
#define HW PERF_TYPE_HARDWARE

static const struct metric_event_kind kinds[] = {
    {SW, PERF_COUNT_SW_CPU_CLOCK, 0, METRIC_EVENT_CLOCK, "CPU time", METRIC_ACTION_SPIN},
    {SW, PERF_COUNT_SW_TASK_CLOCK, 0, METRIC_EVENT_CLOCK, "CPU time", METRIC_ACTION_SPIN},
    {SW, PERF_COUNT_SW_PAGE_FAULTS, 0, METRIC_EVENT_FAULT, "a page fault", METRIC_ACTION_TOUCH},
    {SW, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, METRIC_EVENT_KERNEL, "a context switch",
     METRIC_ACTION_SLEEP},
    {SW, PERF_COUNT_SW_CPU_MIGRATIONS, 0, METRIC_EVENT_KERNEL, "a CPU migration",
     METRIC_ACTION_NONE},
    {SW, PERF_COUNT_SW_PAGE_FAULTS_MIN, 0, METRIC_EVENT_FAULT, "a minor page fault",
     METRIC_ACTION_TOUCH},
    /* a major fault needs I/O: no cheap action */
    {SW, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 0, METRIC_EVENT_FAULT, "a major page fault",
     METRIC_ACTION_NONE},
    {SW, PERF_COUNT_SW_ALIGNMENT_FAULTS, 0, METRIC_EVENT_FAULT, "an alignment fault",
     METRIC_ACTION_NONE},
    {SW, PERF_COUNT_SW_EMULATION_FAULTS, 0, METRIC_EVENT_FAULT, "an emulation fault",
     METRIC_ACTION_NONE},
    {SW, PERF_COUNT_SW_DUMMY, 0, METRIC_EVENT_NEVER, "the dummy event (it counts nothing)",
     METRIC_ACTION_NONE},
    {SW, PERF_COUNT_SW_BPF_OUTPUT, 0, METRIC_EVENT_NEVER,
     "bpf-output (what a BPF program writes, not what the thread does)", METRIC_ACTION_NONE},
    {SW, PERF_COUNT_SW_CGROUP_SWITCHES, 0, METRIC_EVENT_KERNEL, "a context switch between cgroups",
     METRIC_ACTION_NONE},
    /* the generic events that any user-mode work moves */
    {HW, PERF_COUNT_HW_INSTRUCTIONS, 0, METRIC_EVENT_HARDWARE, "an instruction",
     METRIC_ACTION_SPIN},
    {HW, PERF_COUNT_HW_CPU_CYCLES, 0, METRIC_EVENT_HARDWARE, "a CPU cycle", METRIC_ACTION_SPIN},
    {HW, PERF_COUNT_HW_REF_CPU_CYCLES, 0, METRIC_EVENT_HARDWARE, "a reference cycle",
     METRIC_ACTION_SPIN},
    {HW, 0, 1, METRIC_EVENT_HARDWARE, "a hardware event", METRIC_ACTION_NONE},
    {PERF_TYPE_HW_CACHE, 0, 1, METRIC_EVENT_HARDWARE, "a cache event", METRIC_ACTION_NONE},
    {PERF_TYPE_RAW, 0, 1, METRIC_EVENT_HARDWARE, "a PMU event", METRIC_ACTION_NONE},
    {PERF_TYPE_TRACEPOINT, 0, 1, METRIC_EVENT_KERNEL, "a tracepoint hit", METRIC_ACTION_NONE},
};

/* Dynamic types (a PMU of /sys/bus/event_source/devices) past the fixed ones. */
static const struct metric_event_kind pmu_kind = {
    0, 0, 1, METRIC_EVENT_HARDWARE, "a PMU event", METRIC_ACTION_NONE};
static const struct metric_event_kind other_kind = {
    0, 0, 1, METRIC_EVENT_OTHER, "an event jcal does not know", METRIC_ACTION_NONE};

const struct metric_event_kind *metric_event_kind_of(uint32_t type, uint64_t config)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].type == type && (kinds[i].any_config || kinds[i].config == config))
			return &kinds[i];
	if (type >= PERF_TYPE_MAX)
		return &pmu_kind;
	return &other_kind; /* a breakpoint, an unknown software config */
}

/* A boolean value as libpfm4 reads it: 1, 0, or -1 when it would refuse it. */
static int bool_value(const char *v, size_t len)
{
	int c;

	if (len != 1)
		return -1;
	c = tolower((unsigned char)v[0]);
	if (c == 'y' || c == 't' || c == '1')
		return 1;
	if (c == 'n' || c == 'f' || c == '0')
		return 0;
	return -1;
}

int metric_event_mods_parse(const char *event, struct metric_event_mods *m)
{
	const char *p = strstr(event, "::");
	int n = 0, bad = 0;

	m->u = m->k = m->h = -1;
	/* the event name runs to the first ':' after the PMU's "::" */
	p = strchr(p ? p + 2 : event, ':');
	while (p) {
		const char *tok = p + 1, *end = strchr(tok, ':');
		size_t len = end ? (size_t)(end - tok) : strlen(tok);
		const char *eq = memchr(tok, '=', len);
		size_t nlen = eq ? (size_t)(eq - tok) : len;
		int *slot = NULL, v = 1;

		if (nlen == 1) {
			int c = tolower((unsigned char)tok[0]);

			slot = c == 'u' ? &m->u : c == 'k' ? &m->k : c == 'h' ? &m->h : NULL;
		}
		if (slot) {
			if (eq)
				v = bool_value(eq + 1, len - nlen - 1);
			if (v < 0) {
				bad = 1;
				v = 0;
			}
			if (*slot < 0)
				n++;
			*slot = *slot == 1 || v; /* libpfm4 ORs repeated modifiers */
		}
		p = end;
	}
	return bad ? -1 : n;
}

const char *metric_event_modes(unsigned exclude_user, unsigned exclude_kernel, unsigned exclude_hv)
{
	if (!exclude_user)
		return exclude_kernel ? "user only" : "user+kernel";
	if (!exclude_kernel)
		return "kernel only";
	return exclude_hv ? "no mode" : "hypervisor only";
}

/* The default modes of a kind, when the event string gives none. */
static void plan_default(const struct metric_event_kind *k, const struct perf_event_attr *enc,
			 const struct metric_event_env *env, struct metric_event_plan *p)
{
	p->exclude_hv = 1;
	switch (k->cls) {
	case METRIC_EVENT_HARDWARE:
		p->exclude_kernel = 1;
		snprintf(p->scope, sizeof(p->scope), "user only (hardware default)");
		break;
	case METRIC_EVENT_KERNEL:
	case METRIC_EVENT_FAULT:
		snprintf(p->scope, sizeof(p->scope), "user+kernel (software default)");
		if (!env->kernel_denied || k->cls == METRIC_EVENT_KERNEL)
			break;
		/* a user-mode fault still counts: faults in system calls are missed */
		p->exclude_kernel = 1;
		snprintf(p->scope, sizeof(p->scope),
			 "user only: kernel not permitted (paranoid=%d)", env->paranoid);
		break;
	case METRIC_EVENT_CLOCK:
		snprintf(p->scope, sizeof(p->scope), "all CPU time (a clock; software default)");
		if (!env->kernel_denied)
			break;
		/* the kernel counts a clock's time whatever the bits say */
		p->exclude_kernel = 1;
		snprintf(p->scope, sizeof(p->scope),
			 "all CPU time (a clock; exclude_kernel: paranoid=%d)", env->paranoid);
		break;
	default: /* OTHER, NEVER: libpfm4's encoding at user level */
		p->exclude_user = enc->exclude_user;
		p->exclude_kernel = enc->exclude_kernel;
		snprintf(p->scope, sizeof(p->scope), "%s (libpfm4 default; event unknown to jcal)",
			 metric_event_modes(p->exclude_user, p->exclude_kernel, 1));
		break;
	}
}

/* The verdict on the modes planned: refused, a warning, or fine. */
static void plan_verdict(const struct metric_event_kind *k, int given,
			 const struct metric_event_env *env, struct metric_event_plan *p)
{
	if (k->cls == METRIC_EVENT_NEVER) {
		p->verdict = METRIC_EVENT_NEVER_COUNTS;
		snprintf(p->reason, sizeof(p->reason), "%s never counts for a JVM thread", k->what);
	} else if (k->cls != METRIC_EVENT_CLOCK && p->exclude_user && p->exclude_kernel) {
		p->verdict = METRIC_EVENT_NEVER_COUNTS;
		snprintf(p->reason, sizeof(p->reason),
			 "its modifiers exclude user and kernel mode, the only modes a JVM thread "
			 "runs in");
	} else if (k->cls == METRIC_EVENT_KERNEL && (p->exclude_kernel || env->kernel_denied)) {
		p->verdict = METRIC_EVENT_NEVER_COUNTS;
		if (given && p->exclude_kernel)
			snprintf(p->reason, sizeof(p->reason),
				 "%s happens only in the kernel, and its modifiers exclude kernel "
				 "mode (drop ':u', or write ':u:k')",
				 k->what);
		else
			snprintf(p->reason, sizeof(p->reason),
				 "%s happens only in the kernel, and counting kernel mode is not "
				 "permitted here (kernel.perf_event_paranoid=%d without "
				 "CAP_PERFMON: lower it to 1 or grant CAP_PERFMON)",
				 k->what, env->paranoid);
	} else if (!p->exclude_kernel && env->kernel_denied) {
		p->verdict = METRIC_EVENT_NEVER_COUNTS;
		snprintf(p->reason, sizeof(p->reason),
			 "its modifiers ask for kernel mode, which is not permitted here "
			 "(kernel.perf_event_paranoid=%d without CAP_PERFMON: lower it to 1 or "
			 "grant CAP_PERFMON)",
			 env->paranoid);
	} else if (k->type == PERF_TYPE_SOFTWARE && k->config == PERF_COUNT_SW_CPU_MIGRATIONS &&
		   !k->any_config && env->cpus == 1) {
		p->verdict = METRIC_EVENT_WARN;
		snprintf(p->reason, sizeof(p->reason),
			 "cannot move for this thread: its CPU affinity allows 1 CPU (it is "
			 "recorded all the same and will read 0)");
		snprintf(p->tag, sizeof(p->tag), "1 CPU allowed: cannot move");
	}
}

void metric_event_plan(const struct metric_event_kind *k, const struct metric_event_mods *m,
		       const struct perf_event_attr *enc, const struct metric_event_env *env,
		       struct metric_event_plan *p)
{
	int given = m->u >= 0 || m->k >= 0 || m->h >= 0;

	memset(p, 0, sizeof(*p));
	if (given) {
		/* libpfm4 applied the modifiers to enc; a hypervisor level is a
		 * PMU's (libpfm4 refuses :h on a software event) */
		const char *modes = metric_event_modes(enc->exclude_user, enc->exclude_kernel,
						       k->cls == METRIC_EVENT_HARDWARE ||
							       k->cls == METRIC_EVENT_OTHER
							   ? enc->exclude_hv
							   : 1);

		p->exclude_user = enc->exclude_user;
		p->exclude_kernel = enc->exclude_kernel;
		p->exclude_hv = enc->exclude_hv;
		if (k->cls == METRIC_EVENT_CLOCK)
			snprintf(p->scope, sizeof(p->scope), "all CPU time (a clock; %s as given)",
				 modes);
		else
			snprintf(p->scope, sizeof(p->scope), "%s (as given)", modes);
	} else {
		plan_default(k, enc, env, p);
	}
	plan_verdict(k, given, env, p);
	switch (k->action) {
	case METRIC_ACTION_SLEEP:
		p->check = !p->exclude_kernel;
		break;
	case METRIC_ACTION_TOUCH:
		p->check = !p->exclude_user;
		break;
	case METRIC_ACTION_SPIN:
		p->check = k->cls == METRIC_EVENT_CLOCK || !p->exclude_user;
		break;
	default:
		p->check = 0;
		break;
	}
	if (p->verdict == METRIC_EVENT_NEVER_COUNTS)
		p->check = 0;
}

void metric_event_plan_apply(const struct metric_event_plan *p, struct perf_event_attr *a)
{
	a->exclude_user = p->exclude_user ? 1 : 0;
	a->exclude_kernel = p->exclude_kernel ? 1 : 0;
	a->exclude_hv = p->exclude_hv ? 1 : 0;
}
