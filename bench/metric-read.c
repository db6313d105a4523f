/*
 * metric-read.c - ns per metric read for each backend this machine offers:
 * the thread CPU clock, read() and the mapped page of a perf task-clock,
 * rdtsc, CLOCK_MONOTONIC, and rdpmc of a hardware counter where a PMU is
 * exposed. Usage: metric-read [reads per backend, default 2000000]. The
 * table it prints is the one in docs/metrics.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/metrics/perf_counter.h"

static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct perf_cputime ct_switch, ct_tsc;
static struct perf_group hw;

static uint64_t r_thread_cputime(void)
{
	return perf_thread_cputime_ns();
}
static uint64_t r_perf_read(void)
{
	return perf_cputime_read_slow(&ct_switch);
}
static uint64_t r_perf_switch(void)
{
	return perf_cputime_read(&ct_switch);
}
static uint64_t r_perf_tsc(void)
{
	return perf_cputime_read(&ct_tsc);
}
static uint64_t r_rdtsc(void)
{
	return perf_rdtsc();
}
static uint64_t r_monotonic(void)
{
	return perf_monotonic_ns();
}
static uint64_t r_rdpmc(void)
{
	return perf_counter_read(&hw.c[0]);
}

static void run(const char *name, uint64_t (*fn)(void), long n)
{
	uint64_t t0, t1, acc = 0;

	for (long i = 0; i < n / 10; i++) /* warm up */
		acc += fn();
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		acc += fn();
	t1 = now_ns();
	sink = acc;
	printf("| %-52s | %8.1f |\n", name, (double)(t1 - t0) / (double)n);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	int exclude_kernel = perf_counter_paranoid() >= 2, e;
	enum perf_stage stage;
	enum perf_cputime_mode mode;
	struct perf_event_attr attr;
	unsigned unmapped, failed;
	char why[512];

	if (n <= 0) {
		fprintf(stderr, "usage: metric-read [reads per backend]\n");
		return 1;
	}
	mode = perf_cputime_probe(exclude_kernel, &e, &stage);
	printf("| backend (%ld reads each) | ns/read |\n|---|---:|\n", n);
	run("clock_gettime(CLOCK_THREAD_CPUTIME_ID)", r_thread_cputime, n);
	run("clock_gettime(CLOCK_MONOTONIC)", r_monotonic, n);
	run("rdtsc", r_rdtsc, n);
	if (perf_cputime_open(&ct_switch, PERF_CPUTIME_SWITCH, exclude_kernel, &e, &stage) == 0) {
		run("perf task-clock, read()", r_perf_read, n);
		run("perf task-clock page + switch records (cputime)", r_perf_switch, n);
	} else {
		perf_counter_explain(e, stage, perf_counter_paranoid(), 0, why, sizeof(why));
		printf("| perf task-clock: not available here (%s) | - |\n", why);
	}
	if (mode == PERF_CPUTIME_TSC &&
	    perf_cputime_open(&ct_tsc, PERF_CPUTIME_TSC, exclude_kernel, &e, &stage) == 0)
		run("perf task-clock page + TSC (cputime, cap_user_time)", r_perf_tsc, n);
	else
		printf("| perf task-clock page + TSC: not here (cap_user_time=0) | - |\n");
	if (perf_counter_encode("perf::INSTRUCTIONS", &attr, why, sizeof(why)))
		printf("| instructions: libpfm4 cannot encode it (%s) | - |\n", why);
	else if (perf_group_open(&hw, &attr, 1, &unmapped, &e, &failed))
		printf("| instructions (rdpmc): not here (perf_event_open: %s) | - |\n",
		       strerror(e));
	else
		run(hw.c[0].page && hw.c[0].page->cap_user_rdpmc ? "instructions, rdpmc"
								 : "instructions, read()",
		    r_rdpmc, n);
	printf("\ncputime backend chosen by the agent here: %s\n",
	       mode == PERF_CPUTIME_TSC	     ? "perf page + TSC"
	       : mode == PERF_CPUTIME_SWITCH ? "perf page + switch records"
					     : "clock_gettime");
	return 0;
}
