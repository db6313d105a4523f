/*
 * perf_counter.c - owns every perf_event_open, libpfm4 and mmap call of the
 * agent: event encoding, opening and mapping per-thread counters (hardware
 * groups, the task-clock behind metric=cputime), the read() fallbacks, and
 * the explanation of a failure for the user. See perf_counter.h for the
 * inline user-space readers.
 */
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>

#include "agent/metrics/perf_counter.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			       unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

int perf_counter_lib_init(char *err, size_t errlen)
{
	static int done;
	int ret;

	if (done)
		return 0;
	ret = pfm_initialize();
	if (ret != PFM_SUCCESS) {
		snprintf(err, errlen, "libpfm4 initialization failed: %s", pfm_strerror(ret));
		return -1;
	}
	done = 1;
	return 0;
}

/* libpfm4's encoding of event at user level (PFM_PLM3), as it comes. */
static int encode_plm3(const char *event, struct perf_event_attr *attr, char *err, size_t errlen)
{
	pfm_perf_encode_arg_t arg;
	int ret;

	if (perf_counter_lib_init(err, errlen))
		return -1;
	memset(attr, 0, sizeof(*attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = attr;
	arg.size = sizeof(arg);
	ret = pfm_get_os_event_encoding(event, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS) {
		snprintf(err, errlen, "%s", pfm_strerror(ret));
		return -1;
	}
	attr->size = sizeof(*attr);
	return 0;
}

int perf_counter_encode(const char *event, struct perf_event_attr *attr, char *err, size_t errlen)
{
	if (encode_plm3(event, attr, err, errlen))
		return -1;
	/* user level only, as for the events jcal encodes itself: libpfm4 sets
	 * exclude_hv only where it knows the PMU to have a hypervisor level
	 * (seen set on an AMD EPYC VM, left clear on an Intel Xeon one) */
	attr->exclude_hv = 1;
	return 0;
}

int perf_counter_encode_given(const char *event, struct perf_event_attr *attr, char *err,
			      size_t errlen)
{
	return encode_plm3(event, attr, err, errlen);
}

int perf_counter_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = -100;

	if (!f)
		return v;
	if (fscanf(f, "%d", &v) != 1)
		v = -100;
	fclose(f);
	return v;
}

int perf_counter_in_container(void)
{
	char line[512];
	FILE *f;
	int found = 0;

	if (access("/.dockerenv", F_OK) == 0 || access("/run/.containerenv", F_OK) == 0)
		return 1;
	if (getenv("container") || getenv("KUBERNETES_SERVICE_HOST"))
		return 1;
	f = fopen("/proc/1/cgroup", "r");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "docker") || strstr(line, "kubepods") ||
			strstr(line, "containerd") || strstr(line, "lxc") || strstr(line, "libpod");
	fclose(f);
	return found;
}

const char *perf_counter_errno_name(int e)
{
	switch (e) {
	case ENOENT:
		return "ENOENT";
	case ENODEV:
		return "ENODEV";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case EACCES:
		return "EACCES";
	case EPERM:
		return "EPERM";
	case EMFILE:
		return "EMFILE";
	case ENFILE:
		return "ENFILE";
	case EINVAL:
		return "EINVAL";
	case ENOSYS:
		return "ENOSYS";
	case EBUSY:
		return "EBUSY";
	case ENOMEM:
		return "ENOMEM";
	case E2BIG:
		return "E2BIG";
	default:
		return "errno";
	}
}

static const char *open_cause(int e, int paranoid)
{
	switch (e) {
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		return "the kernel has no such event here: no hardware PMU is exposed to this "
		       "machine (usual in VMs and cloud instances without virtual PMU)";
	case EACCES:
	case EPERM:
		return paranoid > 2
			   ? "perf_event_open is restricted to privileged users "
			     "(perf_event_paranoid > 2; lower it to 2 or grant CAP_PERFMON)"
			   : "not permitted: counting one's own threads at user level needs "
			     "perf_event_paranoid <= 2 or CAP_PERFMON";
	case EMFILE:
	case ENFILE:
		return "out of file descriptors: every counter of every thread needs one "
		       "(raise ulimit -n)";
	case EINVAL:
		return "the kernel rejected the event's attributes (unsupported encoding or flag "
		       "for this CPU or kernel)";
	case ENOSYS:
		return "perf_event_open is not available (kernel without CONFIG_PERF_EVENTS, or "
		       "blocked by a seccomp filter)";
	case EBUSY:
		return "the PMU is in exclusive use by another user";
	default:
		return "perf_event_open failed";
	}
}

void perf_counter_explain(int errnum, enum perf_stage stage, int paranoid, int container, char *buf,
			  size_t len)
{
	const char *cause, *call = stage == PERF_STAGE_MMAP ? "mmap" : "perf_event_open";
	char par[32];

	if (stage == PERF_STAGE_MMAP)
		cause = (errnum == EPERM || errnum == ENOMEM)
			    ? "the perf mlock budget is used up (kernel.perf_event_mlock_kb, "
			      "then ulimit -l)"
			    : "the counter's page cannot be mapped";
	else
		cause = open_cause(errnum, paranoid);
	if (paranoid == -100)
		snprintf(par, sizeof(par), "unknown");
	else
		snprintf(par, sizeof(par), "%d", paranoid);
	snprintf(buf, len, "%s: %s (%s): %s; kernel.perf_event_paranoid=%s%s", call,
		 strerror(errnum), perf_counter_errno_name(errnum), cause, par,
		 container ? "; running in a container: the host decides perf access (its "
			     "PMU, perf_event_paranoid, seccomp profile and CAP_PERFMON)"
			   : "");
}

static long page_size(void)
{
	static long ps;

	if (!ps)
		ps = sysconf(_SC_PAGESIZE);
	return ps;
}

int perf_group_open(struct perf_group *g, const struct perf_event_attr *attr, unsigned n,
		    unsigned *unmapped, int *errnum, unsigned *failed)
{
	memset(g, 0, sizeof(*g));
	*unmapped = 0;
	for (unsigned i = 0; i < n && i < PERF_COUNTER_GROUP_MAX; i++) {
		struct perf_event_attr a = attr[i];
		void *p;

		a.size = sizeof(a);
		a.disabled = 0;
		a.inherit = 0;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		g->c[i].fd =
		    sys_perf_event_open(&a, 0, -1, i ? g->c[0].fd : -1, PERF_FLAG_FD_CLOEXEC);
		if (g->c[i].fd < 0) {
			*errnum = errno;
			*failed = i;
			perf_group_close(g);
			return -1;
		}
		g->n = i + 1;
		if (!perf_counter_has_page(&a))
			continue;
		p = mmap(NULL, (size_t)page_size(), PROT_READ, MAP_SHARED, g->c[i].fd, 0);
		if (p == MAP_FAILED)
			(*unmapped)++;
		else
			g->c[i].page = p;
	}
	return 0;
}

void perf_group_close(struct perf_group *g)
{
	/* Members first, the leader last. */
	for (unsigned i = g->n; i-- > 0;) {
		if (g->c[i].page)
			munmap(g->c[i].page, (size_t)page_size());
		if (g->c[i].fd >= 0)
			close(g->c[i].fd);
		g->c[i].page = NULL;
		g->c[i].fd = -1;
	}
	g->n = 0;
}

uint64_t perf_counter_read_slow(const struct perf_counter *c)
{
	uint64_t running;

	return perf_counter_read_running(c, &running);
}

uint64_t perf_counter_read_running(const struct perf_counter *c, uint64_t *running)
{
	uint64_t v[3];

	*running = 0;
	if (read(c->fd, v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	*running = v[2];
	return perf_scale(v[0], v[1], v[2]);
}

uint64_t perf_cputime_read_slow(const struct perf_cputime *ct)
{
	uint64_t v;

	if (read(ct->fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	return v;
}

static void cputime_attr(struct perf_event_attr *a, enum perf_cputime_mode mode, int exclude_kernel)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_TASK_CLOCK;
	a->exclude_kernel = exclude_kernel ? 1 : 0;
	a->exclude_hv = exclude_kernel ? 1 : 0;
	if (mode == PERF_CPUTIME_SWITCH) {
		a->context_switch = 1;
		a->sample_id_all = 1;
		a->sample_type = PERF_SAMPLE_TIME;
		a->use_clockid = 1;
		a->clockid = CLOCK_MONOTONIC;
	}
}

/* Leaves a switch-in record as the ring's last one: a short sleep is a
 * switch out and back in even on an idle CPU. */
static void cputime_prime(const struct perf_cputime *ct)
{
	struct timespec pause = {0, 1000};
	uint64_t v;

	for (int i = 0; i < 3; i++) {
		if (perf_page_read_switch_time(ct->page, ct->data, ct->data_mask, perf_monotonic_ns,
					       NULL, &v) == 0)
			return;
		nanosleep(&pause, NULL);
	}
}

int perf_tsc_constant(void)
{
	static atomic_int known; /* 0 unknown, 1 yes, 2 no */
	int k = atomic_load(&known);

	if (!k) {
#if defined(__x86_64__) || defined(__i386__)
		FILE *f = fopen("/proc/cpuinfo", "r");
		char *line = NULL;
		size_t cap = 0;
		int constant = 0, nonstop = 0;

		while (f && getline(&line, &cap, f) > 0)
			if (!strncmp(line, "flags", 5)) {
				constant = strstr(line, " constant_tsc") != NULL;
				nonstop = strstr(line, " nonstop_tsc") != NULL;
				break;
			}
		free(line);
		if (f)
			fclose(f);
		k = constant && nonstop ? 1 : 2;
#else
		k = 2;
#endif
		atomic_store(&known, k);
	}
	return k == 1;
}

int perf_cputime_open(struct perf_cputime *ct, enum perf_cputime_mode mode, int exclude_kernel,
		      int *errnum, enum perf_stage *stage)
{
	struct perf_event_attr a;
	size_t pages = mode == PERF_CPUTIME_SWITCH ? 2 : 1;
	uint64_t clock_ns, task_ns;
	void *p;

	memset(ct, 0, sizeof(*ct));
	ct->fd = -1;
	cputime_attr(&a, mode, exclude_kernel);
	ct->fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (ct->fd < 0) {
		*errnum = errno;
		*stage = PERF_STAGE_OPEN;
		return -1;
	}
	ct->map_len = pages * (size_t)page_size();
	/* Read-only: the ring is in overwrite mode, data_tail is never needed. */
	p = mmap(NULL, ct->map_len, PROT_READ, MAP_SHARED, ct->fd, 0);
	if (p == MAP_FAILED) {
		*errnum = errno;
		*stage = PERF_STAGE_MMAP;
		close(ct->fd);
		ct->fd = -1;
		return -1;
	}
	ct->page = p;
	ct->mode = mode;
	if (mode == PERF_CPUTIME_SWITCH) {
		uint64_t off = ct->page->data_offset, size = ct->page->data_size;

		if (!off || !size) { /* kernels before 4.1 */
			off = (uint64_t)page_size();
			size = (uint64_t)page_size();
		}
		ct->data = (const volatile uint8_t *)p + off;
		ct->data_mask = size - 1;
		cputime_prime(ct);
		ct->fc.enabled = perf_tsc_constant();
		ct->fc.window = PERF_FASTCLOCK_WINDOW;
	}
	/* Clock first: the base errs low, so reads can only undercount. */
	clock_ns = perf_thread_cputime_ns();
	task_ns = perf_cputime_read(ct);
	ct->base = clock_ns - task_ns;
	return 0;
}

void perf_cputime_close(struct perf_cputime *ct)
{
	if (ct->page)
		munmap(ct->page, ct->map_len);
	if (ct->fd >= 0)
		close(ct->fd);
	ct->page = NULL;
	ct->fd = -1;
	ct->mode = PERF_CPUTIME_NONE;
}

enum perf_cputime_mode perf_cputime_probe(int exclude_kernel, int *errnum, enum perf_stage *stage)
{
	struct perf_cputime ct;
	enum perf_cputime_mode mode;

	if (perf_cputime_open(&ct, PERF_CPUTIME_TSC, exclude_kernel, errnum, stage))
		return PERF_CPUTIME_NONE;
	mode = ct.page->cap_user_time ? PERF_CPUTIME_TSC : PERF_CPUTIME_SWITCH;
	perf_cputime_close(&ct);
	if (mode == PERF_CPUTIME_SWITCH) {
		if (perf_cputime_open(&ct, PERF_CPUTIME_SWITCH, exclude_kernel, errnum, stage))
			return PERF_CPUTIME_NONE;
		perf_cputime_close(&ct);
	}
	return mode;
}
