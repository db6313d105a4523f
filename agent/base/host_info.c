/*
 * host_info.c - reads the CPU identity from /proc/cpuinfo and the kernel
 * release from uname(2), and records them as host.* meta records.
 */
#include "agent/base/host_info.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static void copy_value(char *dst, size_t len, const char *line)
{
	const char *v = strchr(line, ':');
	if (!v)
		return;
	v++;
	while (*v == ' ' || *v == '\t')
		v++;
	snprintf(dst, len, "%s", v);
	dst[strcspn(dst, "\n")] = '\0';
}

void host_info_read(struct host_info *h)
{
	char line[512];
	struct utsname u;
	FILE *f;

	memset(h, 0, sizeof(*h));
	strcpy(h->cpu_vendor, "unknown");
	f = fopen("/proc/cpuinfo", "r");
	if (f) {
		/* The first processor's block describes the CPU. */
		while (fgets(line, sizeof(line), f) && line[0] != '\n') {
			if (!strncmp(line, "vendor_id", 9))
				copy_value(h->cpu_vendor, sizeof(h->cpu_vendor), line);
			else if (!strncmp(line, "cpu family", 10))
				copy_value(h->cpu_family, sizeof(h->cpu_family), line);
			else if (!strncmp(line, "model name", 10))
				copy_value(h->cpu_model_name, sizeof(h->cpu_model_name), line);
			else if (!strncmp(line, "model", 5) && (line[5] == '\t' || line[5] == ' '))
				copy_value(h->cpu_model, sizeof(h->cpu_model), line);
			else if (!strncmp(line, "stepping", 8))
				copy_value(h->cpu_stepping, sizeof(h->cpu_stepping), line);
		}
		fclose(f);
	}
	if (uname(&u) == 0)
		snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
	if (gethostname(h->hostname, sizeof(h->hostname) - 1) != 0)
		h->hostname[0] = '\0';
	h->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
}

void host_info_write(const struct host_info *h, struct trace_recbuf *rb)
{
	char n[16];

	trace_rec_meta(rb, "host.cpu.vendor", h->cpu_vendor);
	trace_rec_meta(rb, "host.cpu.family", h->cpu_family);
	trace_rec_meta(rb, "host.cpu.model", h->cpu_model);
	trace_rec_meta(rb, "host.cpu.stepping", h->cpu_stepping);
	trace_rec_meta(rb, "host.cpu.model_name", h->cpu_model_name);
	trace_rec_meta(rb, "host.kernel", h->kernel);
	trace_rec_meta(rb, "host.name", h->hostname);
	snprintf(n, sizeof(n), "%d", h->ncpus);
	trace_rec_meta(rb, "host.cpus", n);
}
