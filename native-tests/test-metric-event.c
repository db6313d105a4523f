/*
 * test-metric-event.c - the pure parts of the per-event modes
 * (agent/metrics/metric_event.c): the table of event kinds, the parser of
 * the :u/:k/:h modifiers (checked against libpfm4's own reading of the same
 * strings), and the plan of each event's exclude_* bits with its verdict,
 * on the encodings libpfm4 gives (no perf_event_open: any machine).
 */
#include <linux/perf_event.h> /* before libpfm4's own copy, as perf_counter.c */
#include <perfmon/pfmlib_perf_event.h>

#include "agent/metrics/metric_event.h"
#include "agent/metrics/perf_counter.h"
#include "native-tests/test.h"

static const struct kind_case {
	int line;
	uint32_t type;
	uint64_t config;
	enum metric_event_class cls;
	enum metric_event_action action;
} kind_cases[] = {
    {__LINE__, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, METRIC_EVENT_KERNEL,
     METRIC_ACTION_SLEEP},
    {__LINE__, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, METRIC_EVENT_KERNEL,
     METRIC_ACTION_NONE},
    {__LINE__, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES, METRIC_EVENT_KERNEL,
     METRIC_ACTION_NONE},
    {__LINE__, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, METRIC_EVENT_FAULT,
     METRIC_ACTION_TOUCH},
    {__LINE__, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, METRIC_EVENT_FAULT,
     METRIC_ACTION_TOUCH},
    {__LINE__, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, METRIC_EVENT_FAULT,
     METRIC_ACTION_NONE},
    {__LINE__, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, METRIC_EVENT_CLOCK,
     METRIC_ACTION_SPIN},
    {__LINE__, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, METRIC_EVENT_CLOCK, METRIC_ACTION_SPIN},
    {__LINE__, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, METRIC_EVENT_NEVER, METRIC_ACTION_NONE},
    {__LINE__, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT, METRIC_EVENT_NEVER,
     METRIC_ACTION_NONE},
    {__LINE__, PERF_TYPE_SOFTWARE, 99, METRIC_EVENT_OTHER, METRIC_ACTION_NONE},
    {__LINE__, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, METRIC_EVENT_HARDWARE,
     METRIC_ACTION_SPIN},
    {__LINE__, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, METRIC_EVENT_HARDWARE,
     METRIC_ACTION_SPIN},
    {__LINE__, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, METRIC_EVENT_HARDWARE,
     METRIC_ACTION_NONE},
    {__LINE__, PERF_TYPE_HW_CACHE, 0x10002, METRIC_EVENT_HARDWARE, METRIC_ACTION_NONE},
    {__LINE__, PERF_TYPE_RAW, 0xc0, METRIC_EVENT_HARDWARE, METRIC_ACTION_NONE},
    {__LINE__, PERF_TYPE_TRACEPOINT, 316, METRIC_EVENT_KERNEL, METRIC_ACTION_NONE},
    {__LINE__, PERF_TYPE_BREAKPOINT, 0, METRIC_EVENT_OTHER, METRIC_ACTION_NONE},
    {__LINE__, 42, 0x3c, METRIC_EVENT_HARDWARE, METRIC_ACTION_NONE}, /* a PMU of sysfs */
};

static void test_kinds(void)
{
	for (size_t i = 0; i < sizeof(kind_cases) / sizeof(kind_cases[0]); i++) {
		const struct kind_case *c = &kind_cases[i];
		const struct metric_event_kind *k = metric_event_kind_of(c->type, c->config);

		if (k->cls != c->cls || k->action != c->action) {
			fprintf(stderr, "  line %d: class %d action %d, want %d %d\n", c->line,
				k->cls, k->action, c->cls, c->action);
			test_cur_failed = 1;
		}
		CHECK(k->what && *k->what);
	}
}

static const struct mods_case {
	int line;
	const char *event;
	int n, u, k, h;
} mods_cases[] = {
    {__LINE__, "perf::CONTEXT-SWITCHES", 0, -1, -1, -1},
    {__LINE__, "perf::CONTEXT-SWITCHES:u", 1, 1, -1, -1},
    {__LINE__, "perf::CONTEXT-SWITCHES:U", 1, 1, -1, -1},
    {__LINE__, "perf::CONTEXT-SWITCHES:k", 1, -1, 1, -1},
    {__LINE__, "perf::CONTEXT-SWITCHES:u:k", 2, 1, 1, -1},
    {__LINE__, "perf::CONTEXT-SWITCHES:k=0", 1, -1, 0, -1},
    {__LINE__, "perf::CONTEXT-SWITCHES:u=0", 1, 0, -1, -1},
    {__LINE__, "perf::CONTEXT-SWITCHES:u=0:u", 1, 1, -1, -1}, /* ORed, as libpfm4 */
    {__LINE__, "perf::CONTEXT-SWITCHES:u=1:k=1", 2, 1, 1, -1},
    {__LINE__, "perf::CONTEXT-SWITCHES:u=y:k=f", 2, 1, 0, -1},
    {__LINE__, "perf::CONTEXT-SWITCHES:u=2", -1, 0, -1, -1},
    {__LINE__, "perf::CONTEXT-SWITCHES:u=10", -1, 0, -1, -1},
    {__LINE__, "perf::CONTEXT-SWITCHES:period=10", 0, -1, -1, -1},
    {__LINE__, "perf::CONTEXT-SWITCHES:mg", 0, -1, -1, -1},
    {__LINE__, "perf::CONTEXT-SWITCHES:mh:u", 1, 1, -1, -1},
    {__LINE__, "perf::PAGE-FAULTS:K", 1, -1, 1, -1},
    {__LINE__, "perf::PERF_COUNT_HW_CACHE_L1D:READ:ACCESS", 0, -1, -1, -1},
    {__LINE__, "perf::PERF_COUNT_HW_CACHE_L1D:READ:ACCESS:k", 1, -1, 1, -1},
    {__LINE__, "perf::INSTRUCTIONS:h", 1, -1, -1, 1},
    {__LINE__, "perf::INSTRUCTIONS:u:k:h", 3, 1, 1, 1},
    {__LINE__, "perf_raw::r0c0:u", 1, 1, -1, -1},
    {__LINE__, "INST_RETIRED:ANY_P:k", 1, -1, 1, -1},
    {__LINE__, "perf::sched:sched_switch:u", 1, 1, -1, -1}, /* a tracepoint */
    {__LINE__, "perf::u", 0, -1, -1, -1},		    /* an event named u */
    {__LINE__, "u", 0, -1, -1, -1},
    {__LINE__, "", 0, -1, -1, -1},
};

static void test_mods_parse(void)
{
	for (size_t i = 0; i < sizeof(mods_cases) / sizeof(mods_cases[0]); i++) {
		const struct mods_case *c = &mods_cases[i];
		struct metric_event_mods m;
		int n = metric_event_mods_parse(c->event, &m);

		if (n != c->n || m.u != c->u || m.k != c->k || m.h != c->h) {
			fprintf(stderr, "  line %d: %s: n %d u %d k %d h %d, want %d %d %d %d\n",
				c->line, c->event, n, m.u, m.k, m.h, c->n, c->u, c->k, c->h);
			test_cur_failed = 1;
		}
	}
}

/* libpfm4's exclude bits of event under default privilege levels plm. */
static int pfm_bits(const char *event, int plm, struct perf_event_attr *a)
{
	pfm_perf_encode_arg_t arg;

	memset(a, 0, sizeof(*a));
	memset(&arg, 0, sizeof(arg));
	arg.attr = a;
	arg.size = sizeof(arg);
	return pfm_get_os_event_encoding(event, plm, PFM_OS_PERF_EVENT_EXT, &arg) == PFM_SUCCESS
		   ? 0
		   : -1;
}

/*
 * The parser against libpfm4: a string gives privilege modifiers exactly
 * when its encoding does not depend on the default level passed to
 * libpfm4, and then the user and kernel bits are the parsed ones.
 */
static void test_mods_agree_with_libpfm4(void)
{
	char err[256];
	unsigned compared = 0;

	CHECK_EQ_I(perf_counter_lib_init(err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(mods_cases) / sizeof(mods_cases[0]); i++) {
		const struct mods_case *c = &mods_cases[i];
		struct perf_event_attr user, all;
		struct metric_event_mods m;
		int n = metric_event_mods_parse(c->event, &m), given;

		if (pfm_bits(c->event, PFM_PLM3, &user) ||
		    pfm_bits(c->event, PFM_PLM0 | PFM_PLM3, &all)) {
			/* libpfm4 refuses it: so must a bad value */
			if (n == -1)
				compared++;
			continue;
		}
		compared++;
		given = user.exclude_kernel == all.exclude_kernel;
		if (given != (n > 0)) {
			fprintf(stderr, "  line %d: %s: libpfm4 says modifiers %s, parser %d\n",
				c->line, c->event, given ? "given" : "absent", n);
			test_cur_failed = 1;
			continue;
		}
		if (given &&
		    (user.exclude_user != (m.u != 1) || user.exclude_kernel != (m.k != 1))) {
			fprintf(stderr, "  line %d: %s: libpfm4 eu %u ek %u, parser u %d k %d\n",
				c->line, c->event, user.exclude_user, user.exclude_kernel, m.u,
				m.k);
			test_cur_failed = 1;
		}
	}
	printf("     (%u of %zu strings compared with libpfm4)\n", compared,
	       sizeof(mods_cases) / sizeof(mods_cases[0]));
	CHECK(compared >= 18);
}

#define OK METRIC_EVENT_OK
#define LIBPFM 2
#define WARN METRIC_EVENT_WARN
#define NEVER METRIC_EVENT_NEVER_COUNTS

static const struct plan_case {
	int line;
	const char *event;
	int denied;
	unsigned cpus;
	unsigned eu, ek, eh; /* eh LIBPFM: libpfm4's bit (it depends on the CPU's PMU) */
	enum metric_event_verdict verdict;
	int check;
	const char *scope;  /* exact, when OK or WARN */
	const char *reason; /* a part of it, when WARN or NEVER */
} plan_cases[] = {
    {__LINE__, "perf::CONTEXT-SWITCHES", 0, 2, 0, 0, 1, OK, 1, "user+kernel (software default)",
     NULL},
    {__LINE__, "perf::CONTEXT-SWITCHES:k", 0, 2, 1, 0, LIBPFM, OK, 1, "kernel only (as given)",
     NULL},
    {__LINE__, "perf::CONTEXT-SWITCHES:u:k", 0, 2, 0, 0, LIBPFM, OK, 1, "user+kernel (as given)",
     NULL},
    {__LINE__, "perf::CONTEXT-SWITCHES:u", 0, 2, 0, 1, LIBPFM, NEVER, 0, NULL,
     "a context switch happens only in the kernel, and its modifiers exclude kernel mode"},
    {__LINE__, "perf::CONTEXT-SWITCHES", 1, 2, 0, 0, 1, NEVER, 0, NULL,
     "a context switch happens only in the kernel, and counting kernel mode is not permitted "
     "here (kernel.perf_event_paranoid=2 without CAP_PERFMON: lower it to 1 or grant "
     "CAP_PERFMON)"},
    {__LINE__, "perf::CONTEXT-SWITCHES:k", 1, 2, 1, 0, LIBPFM, NEVER, 0, NULL,
     "a context switch happens only in the kernel, and counting kernel mode is not permitted "
     "here"},
    {__LINE__, "perf::CONTEXT-SWITCHES:u=0", 0, 2, 1, 1, LIBPFM, NEVER, 0, NULL,
     "its modifiers exclude user and kernel mode"},
    {__LINE__, "perf::CPU-MIGRATIONS", 0, 2, 0, 0, 1, OK, 0, "user+kernel (software default)",
     NULL},
    {__LINE__, "perf::CPU-MIGRATIONS", 0, 1, 0, 0, 1, WARN, 0, "user+kernel (software default)",
     "cannot move for this thread: its CPU affinity allows 1 CPU"},
    {__LINE__, "perf::PERF_COUNT_SW_CGROUP_SWITCHES", 0, 2, 0, 0, 1, OK, 0,
     "user+kernel (software default)", NULL},
    {__LINE__, "perf::PAGE-FAULTS", 0, 2, 0, 0, 1, OK, 1, "user+kernel (software default)", NULL},
    {__LINE__, "perf::PAGE-FAULTS", 1, 2, 0, 1, 1, OK, 1,
     "user only: kernel not permitted (paranoid=2)", NULL},
    {__LINE__, "perf::PAGE-FAULTS:u", 0, 2, 0, 1, LIBPFM, OK, 1, "user only (as given)", NULL},
    {__LINE__, "perf::PAGE-FAULTS:k", 0, 2, 1, 0, LIBPFM, OK, 0, "kernel only (as given)", NULL},
    {__LINE__, "perf::PAGE-FAULTS:u=0", 0, 2, 1, 1, LIBPFM, NEVER, 0, NULL,
     "its modifiers exclude user and kernel mode"},
    {__LINE__, "perf::MINOR-FAULTS", 0, 2, 0, 0, 1, OK, 1, "user+kernel (software default)", NULL},
    {__LINE__, "perf::MAJOR-FAULTS", 0, 2, 0, 0, 1, OK, 0, "user+kernel (software default)", NULL},
    {__LINE__, "perf::TASK-CLOCK", 0, 2, 0, 0, 1, OK, 1, "all CPU time (a clock; software default)",
     NULL},
    {__LINE__, "perf::PERF_COUNT_SW_CPU_CLOCK", 1, 2, 0, 1, 1, OK, 1,
     "all CPU time (a clock; exclude_kernel: paranoid=2)", NULL},
    {__LINE__, "perf::TASK-CLOCK:u", 0, 2, 0, 1, LIBPFM, OK, 1,
     "all CPU time (a clock; user only as given)", NULL},
    /* the kernel counts a clock's time whatever the bits: never refused */
    {__LINE__, "perf::TASK-CLOCK:u=0", 0, 2, 1, 1, LIBPFM, OK, 1,
     "all CPU time (a clock; no mode as given)", NULL},
    {__LINE__, "perf::INSTRUCTIONS", 0, 2, 0, 1, 1, OK, 1, "user only (hardware default)", NULL},
    {__LINE__, "perf::INSTRUCTIONS", 1, 2, 0, 1, 1, OK, 1, "user only (hardware default)", NULL},
    {__LINE__, "perf::CYCLES:u", 0, 2, 0, 1, LIBPFM, OK, 1, "user only (as given)", NULL},
    {__LINE__, "perf::INSTRUCTIONS:k", 0, 2, 1, 0, LIBPFM, OK, 0, "kernel only (as given)", NULL},
    {__LINE__, "perf::INSTRUCTIONS:u:k", 0, 2, 0, 0, LIBPFM, OK, 1, "user+kernel (as given)", NULL},
    {__LINE__, "perf::INSTRUCTIONS:u:k", 1, 2, 0, 0, LIBPFM, NEVER, 0, NULL,
     "its modifiers ask for kernel mode, which is not permitted here "
     "(kernel.perf_event_paranoid=2"},
    {__LINE__, "perf::BRANCH-MISSES", 0, 2, 0, 1, 1, OK, 0, "user only (hardware default)", NULL},
    {__LINE__, "perf::L1-DCACHE-LOADS", 0, 2, 0, 1, 1, OK, 0, "user only (hardware default)", NULL},
    {__LINE__, "perf_raw::r0c0", 0, 2, 0, 1, 1, OK, 0, "user only (hardware default)", NULL},
};

static int plan_of(const char *event, int denied, unsigned cpus, struct perf_event_attr *a,
		   struct metric_event_plan *p)
{
	struct metric_event_env env = {denied, 2, cpus};
	struct metric_event_mods m;
	char err[256];

	if (perf_counter_encode_given(event, a, err, sizeof(err))) {
		fprintf(stderr, "  %s: libpfm4: %s\n", event, err);
		return -1;
	}
	metric_event_mods_parse(event, &m);
	metric_event_plan(metric_event_kind_of(a->type, a->config), &m, a, &env, p);
	return 0;
}

static void check_plan(const struct plan_case *c, const struct perf_event_attr *enc,
		       const struct metric_event_plan *p)
{
	int bad = p->exclude_user != c->eu || p->exclude_kernel != c->ek ||
		  p->exclude_hv != (c->eh == LIBPFM ? enc->exclude_hv : c->eh) ||
		  p->verdict != c->verdict || p->check != c->check;

	if (c->verdict != NEVER && strcmp(p->scope, c->scope))
		bad = 1;
	if (c->reason && !strstr(p->reason, c->reason))
		bad = 1;
	/* The summary shows 127 characters of "requested; SCOPE; check: ...
	 * moved it by N; perf group, read()": 75 besides a software event's
	 * scope; a hardware event's ("user only (hardware default)", "... (as
	 * given)") has 92 besides it with " (no user rdpmc)", and is shorter. */
	if (strlen(p->scope) > 52)
		bad = 1;
	if (bad) {
		fprintf(stderr,
			"  line %d: %s: eu %u ek %u eh %u verdict %d check %d scope \"%s\" reason "
			"\"%s\"\n",
			c->line, c->event, p->exclude_user, p->exclude_kernel, p->exclude_hv,
			p->verdict, p->check, p->scope, p->reason);
		test_cur_failed = 1;
	}
}

static void test_plan(void)
{
	for (size_t i = 0; i < sizeof(plan_cases) / sizeof(plan_cases[0]); i++) {
		const struct plan_case *c = &plan_cases[i];
		struct metric_event_plan p;
		struct perf_event_attr a;

		if (plan_of(c->event, c->denied, c->cpus, &a, &p)) {
			fprintf(stderr, "  line %d: not encoded\n", c->line);
			test_cur_failed = 1;
			continue;
		}
		check_plan(c, &a, &p);
	}
}

/* Events libpfm4 does not name, planned from their attributes. */
static void test_plan_by_attr(void)
{
	struct metric_event_mods none = {-1, -1, -1};
	struct metric_event_env env = {0, 2, 2}, denied = {1, 2, 2};
	struct metric_event_plan p;
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.exclude_kernel = 1;
	metric_event_plan(metric_event_kind_of(a.type, a.config), &none, &a, &env, &p);
	CHECK_EQ_I(p.verdict, NEVER);
	CHECK_STR(p.reason, "the dummy event (it counts nothing) never counts for a JVM thread");

	a.type = PERF_TYPE_TRACEPOINT;
	a.config = 316;
	metric_event_plan(metric_event_kind_of(a.type, a.config), &none, &a, &env, &p);
	CHECK_EQ_I(p.verdict, OK);
	CHECK_EQ_U(p.exclude_kernel, 0);
	CHECK_EQ_I(p.check, 0);
	metric_event_plan(metric_event_kind_of(a.type, a.config), &none, &a, &denied, &p);
	CHECK_EQ_I(p.verdict, NEVER);
	CHECK(strstr(p.reason, "a tracepoint hit happens only in the kernel") != NULL);

	/* ":h" where libpfm4 knows a hypervisor level: nothing a thread runs */
	struct metric_event_mods h = {-1, -1, 1};
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.exclude_user = a.exclude_kernel = 1;
	a.exclude_hv = 0;
	metric_event_plan(metric_event_kind_of(a.type, a.config), &h, &a, &env, &p);
	CHECK_EQ_I(p.verdict, NEVER);
	CHECK_STR(p.reason, "its modifiers exclude user and kernel mode, the only modes a JVM "
			    "thread runs in");
	a.exclude_user = 0;

	a.type = PERF_TYPE_BREAKPOINT;
	a.config = 0;
	a.exclude_kernel = 1;
	metric_event_plan(metric_event_kind_of(a.type, a.config), &none, &a, &env, &p);
	CHECK_EQ_I(p.verdict, OK);
	CHECK_EQ_U(p.exclude_kernel, 1);
	CHECK_STR(p.scope, "user only (libpfm4 default; event unknown to jcal)");

	metric_event_plan_apply(&p, &a);
	CHECK_EQ_U(a.exclude_user, 0);
	CHECK_EQ_U(a.exclude_kernel, 1);
	CHECK_EQ_U(a.exclude_hv, 1);
}

static void test_modes_words(void)
{
	CHECK_STR(metric_event_modes(0, 0, 1), "user+kernel");
	CHECK_STR(metric_event_modes(0, 1, 1), "user only");
	CHECK_STR(metric_event_modes(1, 0, 1), "kernel only");
	CHECK_STR(metric_event_modes(1, 1, 0), "hypervisor only");
	CHECK_STR(metric_event_modes(1, 1, 1), "no mode");
}

int main(void)
{
	RUN(test_kinds);
	RUN(test_mods_parse);
	RUN(test_mods_agree_with_libpfm4);
	RUN(test_plan);
	RUN(test_plan_by_attr);
	RUN(test_modes_words);
	return test_summary("metric-event");
}
