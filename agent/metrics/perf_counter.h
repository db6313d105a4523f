/*
 * perf_counter.h - per-thread perf_event counters: event names through
 * libpfm4, perf_event_open, the mmap'd perf_event_mmap_page and the cheap
 * user-space reads from it (rdpmc for hardware counters, a seqlock-protected
 * time read for the thread's CPU time). Every perf_event_open, libpfm4, mmap
 * and rdpmc call of the agent is in perf_counter.c or in the inline readers
 * below; nothing here logs, errors are returned to the caller (metric.c).
 *
 * The page readers take the page (and the functions that read the PMU and
 * the clocks) as arguments so that the unit tests run them on simulated
 * pages; the agent's readers pass the real ones.
 */
#ifndef JCAL_PERF_COUNTER_H
#define JCAL_PERF_COUNTER_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#define PERF_COUNTER_GROUP_MAX 4

/* One counting event of the calling thread. page is NULL when it could not
 * be mapped: then every read is a read(). */
struct perf_counter {
	int fd;
	struct perf_event_mmap_page *page;
};

/* The counting events of one thread (instructions, cycles, pfm:), opened
 * as one perf group (scheduled on the PMU together, so they count the same
 * instructions). */
struct perf_group {
	unsigned n;
	struct perf_counter c[PERF_COUNTER_GROUP_MAX];
};

enum perf_cputime_mode {
	PERF_CPUTIME_NONE = 0,
	/* cap_user_time=1 (TSC sched_clock): time_running + TSC delta since the
	 * page was last updated (at sched-in). One page. */
	PERF_CPUTIME_TSC,
	/* cap_user_time=0 (e.g. kvm-clock): time_running + CLOCK_MONOTONIC
	 * since the last PERF_RECORD_SWITCH (in) record of the thread, found at
	 * data_head - 16 of a one-page ring mapped read-only (overwrite mode). */
	PERF_CPUTIME_SWITCH,
};

/*
 * A cheaper CLOCK_MONOTONIC for the SWITCH mode where the TSC runs at a
 * constant rate (constant_tsc and nonstop_tsc): the clock is read at each
 * new switch-in record (a new time slice, perhaps on another CPU) and once
 * `window` TSC ticks have passed; in between the TSC is scaled by `mult`,
 * learnt from two clock reads of one time slice. Never returns less than
 * before. perf_fastclock_ns() is the whole logic (tested with fake clocks).
 */
struct perf_fastclock {
	int enabled;
	uint64_t mult;	 /* ns per tick, 32.32 fixed point; 0 = not learnt yet */
	uint64_t window; /* ticks an anchor serves */
	uint64_t anchor_tsc, anchor_ns, anchor_key, last_ns;
	int anchored;
};

#define PERF_FASTCLOCK_WINDOW ((uint64_t)1 << 21) /* ~0.5-1 ms at 2-4 GHz */

/* The thread's CPU time through a task-clock event and its mapped page. */
struct perf_cputime {
	int fd;
	enum perf_cputime_mode mode;
	struct perf_event_mmap_page *page;
	size_t map_len;
	const volatile uint8_t *data; /* ring of the SWITCH mode */
	uint64_t data_mask;
	uint64_t base;		  /* CLOCK_THREAD_CPUTIME_ID at open minus task-clock then */
	struct perf_fastclock fc; /* SWITCH mode */
};

/* What failed when a counter could not be set up. */
enum perf_stage {
	PERF_STAGE_OPEN = 1, /* perf_event_open */
	PERF_STAGE_MMAP,     /* mmap of the page(s): the mlock budget */
};

/* --- libpfm4 ------------------------------------------------------------ */

/* pfm_initialize, once. Returns 0 or -1 with a message. */
int perf_counter_lib_init(char *err, size_t errlen);

/* Encodes a libpfm4 event string ("perf::INSTRUCTIONS", "INST_RETIRED")
 * for counting on the calling thread at user level (PFM_PLM3). Returns 0,
 * or -1 with the libpfm4 reason in err. */
int perf_counter_encode(const char *event, struct perf_event_attr *attr, char *err, size_t errlen);

/* The same as libpfm4 gives it: the exclude_* bits of the string's :u/:k/:h
 * modifiers when it has some, else of user level (metric_event.h decides). */
int perf_counter_encode_given(const char *event, struct perf_event_attr *attr, char *err,
			      size_t errlen);

/* --- errors ------------------------------------------------------------- */

/* kernel.perf_event_paranoid, or -100 when it cannot be read. */
int perf_counter_paranoid(void);

/* The symbolic name of errno value e ("ENOENT"), "errno" for others. */
const char *perf_counter_errno_name(int e);

/* 1 when this process seems to run in a container (docker, podman, k8s). */
int perf_counter_in_container(void);

/* One line for a user saying why perf_event_open (stage OPEN) or mmap
 * (stage MMAP) failed with errnum: the errno text and name, the likely
 * cause, the perf_event_paranoid value and a container hint. */
void perf_counter_explain(int errnum, enum perf_stage stage, int paranoid, int container, char *buf,
			  size_t len);

/* --- opening ------------------------------------------------------------ */

/* Whether a counting event of attr's type can be read with rdpmc from its
 * page: not a software event or a tracepoint (their page's index is always
 * 0), so their page is not mapped (it would cost mlock budget for nothing). */
static inline int perf_counter_has_page(const struct perf_event_attr *attr)
{
	return attr->type != PERF_TYPE_SOFTWARE && attr->type != PERF_TYPE_TRACEPOINT;
}

/* Opens n counting events on the calling thread as one group (pid=0,
 * cpu=-1) and maps the page of each one that has one, for rdpmc (a page
 * that cannot be mapped leaves that counter on read(); *unmapped counts
 * them). Returns 0, or -1 with *errnum and *failed (index of the event that
 * failed), nothing open. */
int perf_group_open(struct perf_group *g, const struct perf_event_attr *attr, unsigned n,
		    unsigned *unmapped, int *errnum, unsigned *failed);
void perf_group_close(struct perf_group *g);

/* Opens the calling thread's task-clock in the given mode (exclude_kernel
 * when the kernel demands it for unprivileged use). Returns 0, or -1 with
 * *errnum and *stage; nothing stays open on failure. */
int perf_cputime_open(struct perf_cputime *ct, enum perf_cputime_mode mode, int exclude_kernel,
		      int *errnum, enum perf_stage *stage);

/* 1 when /proc/cpuinfo lists constant_tsc and nonstop_tsc (x86): the
 * SWITCH mode may then extrapolate the clock with the TSC. Read once. */
int perf_tsc_constant(void);
void perf_cputime_close(struct perf_cputime *ct);

/* Opens a task-clock briefly and says which mode its page supports:
 * TSC when cap_user_time, else SWITCH. Returns NONE with *errnum and *stage
 * when neither can be used. */
enum perf_cputime_mode perf_cputime_probe(int exclude_kernel, int *errnum, enum perf_stage *stage);

/* --- reading: inline, on the event path ------------------------------- */

#define perf_barrier() __asm__ __volatile__("" ::: "memory")

static inline uint64_t perf_rdtsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#else
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

static inline uint64_t perf_rdpmc(unsigned counter)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return ((uint64_t)hi << 32) | lo;
#else
	(void)counter;
	return 0;
#endif
}

static inline uint64_t perf_monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t perf_thread_cputime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A raw PMC value of `width` bits as a signed 64-bit quantity, computed on
 * unsigned integers (no implementation-defined right shift). */
static inline uint64_t perf_sign_extend(uint64_t v, unsigned width)
{
	uint64_t sign;

	if (width == 0 || width >= 64)
		return v;
	sign = (uint64_t)1 << (width - 1);
	v &= ((uint64_t)1 << width) - 1;
	return (v ^ sign) - sign;
}

/* count * enabled / running: the estimate of a multiplexed counter. */
static inline uint64_t perf_scale(uint64_t count, uint64_t enabled, uint64_t running)
{
	if (running == enabled)
		return count;
	if (running == 0)
		return 0;
	return (uint64_t)((unsigned __int128)count * enabled / running);
}

/* Nanoseconds since the page's last update, from a TSC value (valid when
 * cap_user_time; the formula of include/uapi/linux/perf_event.h). */
static inline uint64_t perf_page_time_delta(const volatile struct perf_event_mmap_page *pc,
					    uint64_t cyc)
{
	uint16_t shift = pc->time_shift;
	uint32_t mult = pc->time_mult;
	uint64_t quot, rem;

	if (pc->cap_user_time_short)
		cyc = pc->time_cycles + ((cyc - pc->time_cycles) & pc->time_mask);
	quot = cyc >> shift;
	rem = cyc & (((uint64_t)1 << shift) - 1);
	return pc->time_offset + quot * mult + ((rem * mult) >> shift);
}

/* A hardware counter's value from its page: rdpmc inside the seqlock,
 * sign-extended to pmc_width, plus offset, scaled when multiplexed.
 * Returns 0, or -1 when the page cannot serve the read (index 0: the
 * event is not on the PMU now; cap_user_rdpmc 0): then read() the fd. */
static inline int perf_page_read_count(const volatile struct perf_event_mmap_page *pc,
				       uint64_t (*rdpmc)(unsigned), uint64_t (*tsc)(void),
				       uint64_t *value)
{
	uint32_t seq, idx;
	uint64_t count, enabled, running, delta;

	do {
		seq = pc->lock;
		perf_barrier();
		enabled = pc->time_enabled;
		running = pc->time_running;
		idx = pc->index;
		if (!pc->cap_user_rdpmc || idx == 0)
			return -1;
		delta = 0;
		if (pc->cap_user_time && enabled != running)
			delta = perf_page_time_delta(pc, tsc());
		count = pc->offset + perf_sign_extend(rdpmc(idx - 1), pc->pmc_width);
		perf_barrier();
	} while (pc->lock != seq);
	*value = perf_scale(count, enabled + delta, running + delta);
	return 0;
}

/* Task-clock time (ns) in PERF_CPUTIME_TSC mode: time_running plus the TSC
 * delta since the page was last updated; -1 when the page has no
 * cap_user_time (then read() the fd). */
static inline int perf_page_read_tsc_time(const volatile struct perf_event_mmap_page *pc,
					  uint64_t (*tsc)(void), uint64_t *value)
{
	uint32_t seq;
	uint64_t running, delta;

	do {
		seq = pc->lock;
		perf_barrier();
		if (!pc->cap_user_time)
			return -1;
		running = pc->time_running;
		delta = perf_page_time_delta(pc, tsc());
		perf_barrier();
	} while (pc->lock != seq);
	*value = running + delta;
	return 0;
}

/*
 * Now in clock_ns()'s time base for a reader whose current time slice is
 * `key` (its last switch-in record): extrapolated with tsc() from the anchor
 * within the same slice and window, else clock_ns() (a new anchor; a
 * same-slice pair a window or more apart updates mult). The anchor's TSC is
 * read after the clock, so extrapolations lag the clock by at most that
 * gap rather than lead it, and a new anchor moves time forward, not back
 * (a step back would show as a zero delta).
 */
static inline uint64_t perf_fastclock_ns(struct perf_fastclock *fc, uint64_t key,
					 uint64_t (*tsc)(void), uint64_t (*clock_ns)(void))
{
	uint64_t ns, t = tsc(), d = t - fc->anchor_tsc;
	int same = fc->anchored && key == fc->anchor_key;

	if (same && d < fc->window) {
		ns = fc->mult ? fc->anchor_ns + (uint64_t)(((unsigned __int128)d * fc->mult) >> 32)
			      : clock_ns(); /* still learning: keep the anchor */
	} else {
		ns = clock_ns();
		t = tsc();
		d = t - fc->anchor_tsc;
		if (same && d >= fc->window && d < fc->window * 64 && ns > fc->anchor_ns) {
			uint64_t m =
			    (uint64_t)(((unsigned __int128)(ns - fc->anchor_ns) << 32) / d);

			/* a sample far from the rate learnt is a TSC jump: skip it */
			if (!fc->mult)
				fc->mult = m;
			else if (m < fc->mult + fc->mult / 64 && m > fc->mult - fc->mult / 64)
				fc->mult = fc->mult - fc->mult / 8 + m / 8;
		}
		fc->anchor_ns = ns;
		fc->anchor_tsc = t;
		fc->anchor_key = key;
		fc->anchored = 1;
	}
	if (ns < fc->last_ns)
		ns = fc->last_ns;
	fc->last_ns = ns;
	return ns;
}

/* The 16-byte record that context_switch=1, sample_id_all=1 and
 * sample_type=PERF_SAMPLE_TIME produce for a per-thread event. */
struct perf_switch_record {
	struct perf_event_header header;
	uint64_t time;
};

/* Task-clock time (ns) in PERF_CPUTIME_SWITCH mode: time_running (as of
 * the last sched-in) plus the clock's time since the thread's last switch-in
 * record. The clock is read inside the seqlock, so a preemption anywhere in
 * here makes it retry; with fc (enabled), through perf_fastclock_ns.
 * Returns -1 when the last record is not a switch-in (none yet, or another
 * kind): then read() the fd. */
static inline int perf_page_read_switch_time(const volatile struct perf_event_mmap_page *pc,
					     const volatile uint8_t *data, uint64_t mask,
					     uint64_t (*now_ns)(void), struct perf_fastclock *fc,
					     uint64_t *value)
{
	const volatile struct perf_switch_record *r;
	uint32_t seq;
	uint64_t running, head, t, now;

	do {
		seq = pc->lock;
		perf_barrier();
		running = pc->time_running;
		head = pc->data_head;
		perf_barrier();
		if (head < sizeof(*r))
			return -1;
		r = (const volatile struct perf_switch_record *)(data +
								 ((head - sizeof(*r)) & mask));
		if (r->header.type != PERF_RECORD_SWITCH || r->header.size != sizeof(*r) ||
		    (r->header.misc & PERF_RECORD_MISC_SWITCH_OUT))
			return -1;
		t = r->time;
		now =
		    fc && fc->enabled ? perf_fastclock_ns(fc, head, perf_rdtsc, now_ns) : now_ns();
		perf_barrier();
	} while (pc->lock != seq);
	*value = running + (now > t ? now - t : 0);
	return 0;
}

/* The counter's 64-bit value through read() (scaled when multiplexed). */
uint64_t perf_counter_read_slow(const struct perf_counter *c);

/* The same, with the time (ns) the counter has been on the PMU in *running:
 * a hardware counter that never got a PMU slot reads 0 without counting. */
uint64_t perf_counter_read_running(const struct perf_counter *c, uint64_t *running);

/* The task-clock value through read(). */
uint64_t perf_cputime_read_slow(const struct perf_cputime *ct);

static inline uint64_t perf_counter_read(const struct perf_counter *c)
{
	uint64_t v;

	if (c->page && perf_page_read_count(c->page, perf_rdpmc, perf_rdtsc, &v) == 0)
		return v;
	return perf_counter_read_slow(c);
}

/* The thread's CPU time in ns (CLOCK_THREAD_CPUTIME_ID's scale). */
static inline uint64_t perf_cputime_read(struct perf_cputime *ct)
{
	uint64_t v;
	int rc;

	if (ct->mode == PERF_CPUTIME_SWITCH)
		rc = perf_page_read_switch_time(ct->page, ct->data, ct->data_mask,
						perf_monotonic_ns, &ct->fc, &v);
	else
		rc = perf_page_read_tsc_time(ct->page, perf_rdtsc, &v);
	if (rc)
		v = perf_cputime_read_slow(ct);
	return ct->base + v;
}

#endif
