/*
 * test-metric-check.c - the start-time check of counting events
 * (agent/metrics/metric_check.c) and what metric_set_open makes of it, on
 * the kernel's software events (no PMU needed): each check action moves its
 * counter, and a context-switch counter opened user mode only does not move
 * (the zeros this check exists to catch); the events planned, opened and
 * checked; a kernel that denies kernel mode (capabilities dropped in a
 * child, under perf_event_paranoid >= 2); an event that cannot move for
 * the thread (affinity of one CPU, in a child) warned about once; the
 * metric's why as the summary shows it; and the per-thread group read at
 * events. Where perf_event_open is not permitted at all, says SKIP.
 */
#include <errno.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent/base/options.h"
#include "agent/metrics/metric.h"
#include "agent/metrics/metric_check.h"
#include "agent/metrics/perf_counter.h"
#include "native-tests/test.h"

/* The summary prints the first 127 characters of a metric's why. */
#define WHY_SHOWN 127

static int perf_ok; /* a software counter opens here */

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static int ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

static int open_sw(uint64_t config, unsigned exclude_kernel, struct perf_group *g)
{
	struct perf_event_attr a;
	unsigned unmapped, failed;
	int e;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.exclude_kernel = exclude_kernel;
	a.exclude_hv = 1;
	return perf_group_open(g, &a, 1, &unmapped, &e, &failed);
}

static int skip(const char *what)
{
	if (perf_ok)
		return 0;
	printf("     SKIP %s: perf_event_open is not permitted here (paranoid=%d)\n", what,
	       perf_counter_paranoid());
	return 1;
}

static void test_actions_move(void)
{
	struct perf_group g;
	char done[96];
	int sched;

	if (skip("actions"))
		return;
	CHECK_EQ_I(open_sw(PERF_COUNT_SW_CONTEXT_SWITCHES, 0, &g), 0);
	CHECK(g.c[0].page == NULL); /* a software event has no rdpmc: no page mapped */
	CHECK(metric_check_act(METRIC_ACTION_SLEEP, &g.c[0], done, sizeof(done), &sched) >= 1);
	CHECK_STR(done, "1 sleep");
	perf_group_close(&g);

	CHECK_EQ_I(open_sw(PERF_COUNT_SW_PAGE_FAULTS, 1, &g), 0);
	CHECK(metric_check_act(METRIC_ACTION_TOUCH, &g.c[0], done, sizeof(done), &sched) >= 1);
	CHECK_STR(done, "1 page touch");
	perf_group_close(&g);

	/* 200 us of CLOCK_THREAD_CPUTIME_ID: the task-clock agrees within 25 % */
	CHECK_EQ_I(open_sw(PERF_COUNT_SW_TASK_CLOCK, 1, &g), 0);
	CHECK(metric_check_act(METRIC_ACTION_SPIN, &g.c[0], done, sizeof(done), &sched) >= 150000);
	CHECK_STR(done, "200 us of CPU");
	perf_group_close(&g);
}

/* The zeros of a context switch counted user mode only: what the check catches. */
static void test_action_sees_zero(void)
{
	struct perf_group g;
	char done[96];
	int sched = 0;

	if (skip("zero"))
		return;
	CHECK_EQ_I(open_sw(PERF_COUNT_SW_CONTEXT_SWITCHES, 1, &g), 0);
	CHECK_EQ_U(metric_check_act(METRIC_ACTION_SLEEP, &g.c[0], done, sizeof(done), &sched), 0);
	CHECK_STR(done, "3 sleeps");
	CHECK_EQ_I(sched, 1); /* it ran and did not count: a proof */
	perf_group_close(&g);
}

static int check_of(const char *event, struct perf_event_attr *a, struct metric_check *c)
{
	char err[256];

	if (perf_counter_encode_given(event, a, err, sizeof(err))) {
		fprintf(stderr, "  %s: %s\n", event, err);
		return -1;
	}
	metric_check_event(event, a, c);
	return 0;
}

static void test_check_event(void)
{
	struct perf_event_attr a;
	struct metric_check c;

	if (skip("check"))
		return;
	CHECK_EQ_I(check_of("perf::CONTEXT-SWITCHES", &a, &c), 0);
	CHECK_EQ_I(c.status, METRIC_CHECK_OK);
	CHECK_EQ_U(a.exclude_kernel, 0);
	CHECK_EQ_U(a.exclude_user, 0);
	CHECK(starts(c.words, "user+kernel (software default); check: 1 sleep moved it by "));

	CHECK_EQ_I(check_of("perf::CONTEXT-SWITCHES:u", &a, &c), 0);
	CHECK_EQ_I(c.status, METRIC_CHECK_NEVER);
	CHECK(strstr(c.reason, "happens only in the kernel") != NULL);

	CHECK_EQ_I(check_of("perf::PAGE-FAULTS:u", &a, &c), 0);
	CHECK_EQ_I(c.status, METRIC_CHECK_OK);
	CHECK_EQ_U(a.exclude_kernel, 1);
	CHECK(starts(c.words, "user only (as given); check: 1 page touch moved it by "));

	CHECK_EQ_I(check_of("perf::MAJOR-FAULTS", &a, &c), 0);
	CHECK_EQ_I(c.status, METRIC_CHECK_OK);
	CHECK_STR(c.words, "user+kernel (software default); not checked");
}

/* Drops CAP_PERFMON and CAP_SYS_ADMIN from the effective set: this process
 * is then an unprivileged user for perf_event_open. */
static void drop_perf_caps(void)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct cap[2];
	static const int drop[] = {CAP_SYS_ADMIN, 38 /* CAP_PERFMON, Linux 5.8 */};

	if (syscall(SYS_capget, &hdr, cap))
		return;
	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		cap[drop[i] / 32].effective &= ~(1u << (drop[i] % 32));
	syscall(SYS_capset, &hdr, cap);
}

/* In a child without the capabilities: exit 0 when the checks agree with
 * the paranoid level, else a code saying which did not. */
static int child_denied(void)
{
	int paranoid = perf_counter_paranoid();
	struct perf_event_attr a;
	struct metric_check c;
	struct perf_group g;

	drop_perf_caps();
	if (open_sw(PERF_COUNT_SW_CONTEXT_SWITCHES, 0, &g) == 0) {
		perf_group_close(&g);
		return paranoid >= 2 ? 10 : 0; /* kernel mode permitted: nothing to see */
	}
	if (errno != EACCES && paranoid < 2)
		return 11;
	if (check_of("perf::CONTEXT-SWITCHES", &a, &c) || c.status != METRIC_CHECK_NEVER ||
	    !strstr(c.reason, "counting kernel mode is not permitted here"))
		return 12;
	if (check_of("perf::PAGE-FAULTS", &a, &c))
		return 13;
	if (paranoid > 2) /* nothing at all for the unprivileged */
		return c.status == METRIC_CHECK_OPEN_FAILED && c.errnum == EACCES ? 0 : 14;
	if (c.status != METRIC_CHECK_OK || !a.exclude_kernel ||
	    !starts(c.words, "user only: kernel not permitted (paranoid="))
		return 15;
	if (check_of("perf::TASK-CLOCK", &a, &c) || c.status != METRIC_CHECK_OK ||
	    !strstr(c.words, "all CPU time (a clock; exclude_kernel: paranoid="))
		return 16;
	if (check_of("perf::CONTEXT-SWITCHES:k", &a, &c) || c.status != METRIC_CHECK_NEVER)
		return 17;
	printf("     (without CAP_PERFMON: context switches refused, page faults user only)\n");
	return 0;
}

static int run_child(int (*fn)(void))
{
	int status = -1;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		status = fn();
		fflush(stdout);
		_exit(status);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_kernel_denied(void)
{
	if (skip("kernel denied"))
		return;
	printf("     (kernel.perf_event_paranoid=%d)\n", perf_counter_paranoid());
	CHECK_EQ_I(run_child(child_denied), 0);
}

static int parse(struct jcal_options *o, const char *s)
{
	char err[256];
	int rc = jcal_options_parse(s, o, err, sizeof(err));
	if (rc)
		fprintf(stderr, "  parse %s: %s\n", s, err);
	return rc;
}

/* Four metrics, three of them software events in one group, opened and
 * read on this thread around actions that move each of them. */
static void test_set_open_four(void)
{
	struct jcal_options o;
	struct metric_set ms;
	struct metric_thread mt;
	char err[1024];
	uint64_t v0[JCAL_MAX_METRICS], v1[JCAL_MAX_METRICS];
	struct timespec pause = {0, 200000};
	long ps = sysconf(_SC_PAGESIZE);
	char *p;

	if (skip("four metrics"))
		return;
	CHECK_EQ_I(parse(&o, "trace,metric=pfm:perf::CONTEXT-SWITCHES+pfm:perf::PAGE-FAULTS+"
			     "pfm:perf::TASK-CLOCK+cputime"),
		   0);
	CHECK_EQ_I(metric_set_open(&ms, &o, err, sizeof(err)), 0);
	CHECK_EQ_U(ms.n, 4);
	CHECK_EQ_U(ms.nhw, 3);
	CHECK_STR(ms.m[0].unit, "count");
	CHECK_STR(ms.m[1].unit, "count");
	CHECK_STR(ms.m[2].unit, "ns"); /* a clock */
	CHECK(starts(ms.m[0].why,
		     "requested; user+kernel (software default); check: 1 sleep moved it by "));
	CHECK(starts(ms.m[1].why,
		     "requested; user+kernel (software default); check: 1 page touch moved "
		     "it by "));
	CHECK(starts(ms.m[2].why,
		     "requested; all CPU time (a clock; software default); check: 200 us of "
		     "CPU moved it by "));
	for (unsigned i = 0; i < 3; i++) {
		CHECK(ends(ms.m[i].why, "; perf group, read()"));
		CHECK(strlen(ms.m[i].why) <= WHY_SHOWN);
	}
	CHECK_EQ_U(ms.hw_attr[0].exclude_kernel, 0);
	CHECK_EQ_U(ms.hw_attr[1].exclude_kernel, 0);

	CHECK_EQ_I(metric_thread_open(&ms, &mt), 0);
	CHECK_EQ_U(mt.reader[0], METRIC_READ_HW);
	metric_read_all(&ms, &mt, v0);
	for (int i = 0; i < 5; i++)
		nanosleep(&pause, NULL);
	p = mmap(NULL, (size_t)ps * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	for (int i = 0; p != MAP_FAILED && i < 8; i++)
		p[(long)i * ps] = 1;
	metric_read_all(&ms, &mt, v1);
	CHECK(v1[0] - v0[0] >= 5); /* a switch per sleep */
	CHECK(v1[1] - v0[1] >= 8); /* a fault per page */
	CHECK(v1[2] > v0[2]);
	CHECK(v1[3] > v0[3]);
	if (p != MAP_FAILED)
		munmap(p, (size_t)ps * 8);
	metric_thread_close(&ms, &mt);
}

static void test_set_open_refused(void)
{
	struct jcal_options o;
	struct metric_set ms;
	char err[1024];

	if (skip("refused"))
		return;
	CHECK_EQ_I(parse(&o, "trace,metric=tsc+pfm:perf::CONTEXT-SWITCHES:u"), 0);
	CHECK_EQ_I(metric_set_open(&ms, &o, err, sizeof(err)), -1);
	CHECK_STR(err, "metric 'pfm:perf::CONTEXT-SWITCHES:u' can never count: a context switch "
		       "happens only in the kernel, and its modifiers exclude kernel mode (drop "
		       "':u', or write ':u:k')");
	CHECK_EQ_I(parse(&o, "trace,metric=pfm:perf::PAGE-FAULTS:u=0"), 0);
	CHECK_EQ_I(metric_set_open(&ms, &o, err, sizeof(err)), -1);
	CHECK(strstr(err, "can never count: its modifiers exclude user and kernel mode") != NULL);
}

/* In a child on one CPU: exit 0 when the migrations counter opens with
 * one warning, said in its why too. */
static int child_one_cpu(void)
{
	struct jcal_options o;
	struct metric_set ms;
	char err[1024];
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return 20;
	if (parse(&o, "trace,metric=pfm:perf::CPU-MIGRATIONS"))
		return 10;
	if (metric_set_open(&ms, &o, err, sizeof(err)))
		return 11;
	if (strcmp(ms.m[0].why, "requested; user+kernel (software default); not checked; 1 CPU "
				"allowed: cannot move; perf group, read()"))
		return 12;
	return 0;
}

/* Runs fn in a child with stderr captured; returns its exit status. */
static int in_child(int (*fn)(void), char *out, size_t outlen)
{
	int p[2], status = -1;
	size_t n = 0;
	ssize_t k;
	pid_t pid;

	if (pipe(p))
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], 2);
		_exit(fn());
	}
	close(p[1]);
	while (n + 1 < outlen && (k = read(p[0], out + n, outlen - 1 - n)) > 0)
		n += (size_t)k;
	out[n] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_cannot_move_warned(void)
{
	char out[4096];

	if (skip("one CPU"))
		return;
	CHECK_EQ_I(in_child(child_one_cpu, out, sizeof(out)), 0);
	CHECK_STR(out,
		  "jcal: warning: metric 'pfm:perf::CPU-MIGRATIONS' cannot move for this "
		  "thread: its CPU affinity allows 1 CPU (it is recorded all the same and will "
		  "read 0)\n");
}

int main(void)
{
	struct perf_group g;

	perf_ok = open_sw(PERF_COUNT_SW_TASK_CLOCK, 1, &g) == 0;
	if (perf_ok)
		perf_group_close(&g);
	RUN(test_actions_move);
	RUN(test_action_sees_zero);
	RUN(test_check_event);
	RUN(test_kernel_denied);
	RUN(test_set_open_four);
	RUN(test_set_open_refused);
	RUN(test_cannot_move_warned);
	return test_summary("metric-check");
}
