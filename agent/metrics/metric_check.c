/*
 * metric_check.c - the start-time check of each counting event of metric=
 * (docs/metrics.md, "Which events work where"): plans its modes
 * (metric_event.c), opens it alone on the loading thread, plans again
 * without kernel mode when perf_event_open refuses kernel mode, and performs
 * the kind's action once to see the counter move. The opening and reading
 * are perf_counter.c's.
 */
#include "agent/metrics/metric_check.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define CHECK_TRIES 3
#define CHECK_SLEEP_NS 50000 /* a sleep: a context switch out and back in */
#define CHECK_SPIN_NS 200000 /* of the thread's CPU time */

/* CPUs the calling thread may run on (1 when it cannot be told). */
static unsigned affinity_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return (unsigned)CPU_COUNT(&set);
}

static void act_once(enum metric_event_action action)
{
	struct timespec pause = {0, CHECK_SLEEP_NS};
	long ps = sysconf(_SC_PAGESIZE);
	volatile uint64_t sink = 0;
	uint64_t until;
	char *p;

	switch (action) {
	case METRIC_ACTION_SLEEP:
		nanosleep(&pause, NULL);
		break;
	case METRIC_ACTION_TOUCH:
		p = mmap(NULL, (size_t)ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			 0);
		if (p == MAP_FAILED)
			break;
		*(volatile char *)p = 1;
		munmap(p, (size_t)ps);
		break;
	case METRIC_ACTION_SPIN:
		until = perf_thread_cputime_ns() + CHECK_SPIN_NS;
		while (perf_thread_cputime_ns() < until)
			for (int i = 0; i < 1000; i++)
				sink += (uint64_t)i;
		(void)sink; /* clang: set but not used; volatile keeps the spin */
		break;
	default:
		break;
	}
}

unsigned long long metric_check_act(enum metric_event_action action, const struct perf_counter *c,
				    char *done, size_t len, int *scheduled)
{
	uint64_t run0, run1, before = perf_counter_read_running(c, &run0), moved = 0;
	unsigned n = 0;

	while (n < CHECK_TRIES && !moved) {
		act_once(action);
		n++;
		moved = perf_counter_read_running(c, &run1) - before;
	}
	*scheduled = run1 > run0;
	switch (action) {
	case METRIC_ACTION_SLEEP:
		snprintf(done, len, "%u sleep%s", n, n > 1 ? "s" : "");
		break;
	case METRIC_ACTION_TOUCH:
		snprintf(done, len, "%u page touch%s", n, n > 1 ? "es" : "");
		break;
	case METRIC_ACTION_SPIN:
		snprintf(done, len, "%u us of CPU", n * (CHECK_SPIN_NS / 1000));
		break;
	default:
		snprintf(done, len, "nothing");
		break;
	}
	return (unsigned long long)moved;
}

/* Plans the event and opens it alone into g. Returns 0, or -1 with c
 * saying why (refused, or perf_event_open's errno). */
static int plan_and_open(const struct metric_event_kind *k, const struct metric_event_mods *m,
			 struct perf_event_attr *attr, struct metric_event_plan *p,
			 struct perf_group *g, struct metric_check *c)
{
	struct metric_event_env env = {0, perf_counter_paranoid(), affinity_cpus()};
	const struct perf_event_attr enc = *attr;
	unsigned unmapped, failed;
	int e;

	for (;;) {
		metric_event_plan(k, m, &enc, &env, p);
		metric_event_plan_apply(p, attr);
		if (p->verdict == METRIC_EVENT_NEVER_COUNTS) {
			c->status = METRIC_CHECK_NEVER;
			snprintf(c->reason, sizeof(c->reason), "%s", p->reason);
			return -1;
		}
		if (perf_group_open(g, attr, 1, &unmapped, &e, &failed) == 0)
			return 0;
		/* EACCES: unprivileged under perf_event_paranoid >= 2, no kernel mode
		 * (a seccomp filter says EPERM or ENOSYS) */
		if (e == EACCES && !attr->exclude_kernel && !env.kernel_denied) {
			env.kernel_denied = 1;
			continue;
		}
		c->status = METRIC_CHECK_OPEN_FAILED;
		c->errnum = e;
		snprintf(c->words, sizeof(c->words), "%s", p->scope);
		return -1;
	}
}

void metric_check_event(const char *event, struct perf_event_attr *attr, struct metric_check *c)
{
	const struct metric_event_kind *k = metric_event_kind_of(attr->type, attr->config);
	struct metric_event_mods m;
	struct metric_event_plan p;
	struct perf_group g;
	char done[96];
	unsigned long long moved = 0;
	int scheduled = 1;

	memset(c, 0, sizeof(*c));
	metric_event_mods_parse(event, &m); /* a bad value: libpfm4 refused it already */
	if (plan_and_open(k, &m, attr, &p, &g, c))
		return;
	if (p.check)
		moved = metric_check_act(k->action, &g.c[0], done, sizeof(done), &scheduled);
	if (!p.check) {
		snprintf(c->words, sizeof(c->words), "%s; not checked", p.scope);
	} else if (!moved && !scheduled) {
		/* a PMU busy with other users (the NMI watchdog, perf): not a proof */
		snprintf(c->words, sizeof(c->words), "%s; not checked", p.scope);
		if (p.verdict == METRIC_EVENT_OK) {
			p.verdict = METRIC_EVENT_WARN;
			snprintf(
			    p.reason, sizeof(p.reason),
			    "may read 0: the PMU gave it no counter during the start-time check "
			    "(%s; other perf users or the NMI watchdog hold them)",
			    done);
			snprintf(p.tag, sizeof(p.tag), "no PMU slot at start: may read 0");
		}
	} else if (!moved) {
		c->status = METRIC_CHECK_NEVER;
		snprintf(c->reason, sizeof(c->reason),
			 "it did not move during a start-time check that must move it (%s: 0; "
			 "%s): the kernel accepts the event but does not count %s for this "
			 "thread",
			 done, metric_event_modes(p.exclude_user, p.exclude_kernel, p.exclude_hv),
			 k->what);
	} else {
		snprintf(c->words, sizeof(c->words), "%s; check: %s moved it by %llu", p.scope,
			 done, moved);
	}
	perf_group_close(&g);
	if (c->status == METRIC_CHECK_OK && p.verdict == METRIC_EVENT_WARN) {
		size_t n = strlen(c->words);

		c->status = METRIC_CHECK_WARN;
		snprintf(c->reason, sizeof(c->reason), "%s", p.reason);
		snprintf(c->words + n, sizeof(c->words) - n, "; %s", p.tag);
	}
}
