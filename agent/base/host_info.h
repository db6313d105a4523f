/*
 * host_info.h - the host part of the fingerprint (docs/calibration-format.md):
 * CPU and kernel.
 */
#ifndef JCAL_HOST_INFO_H
#define JCAL_HOST_INFO_H

#include "common/trace_encoder.h"

struct host_info {
	char cpu_vendor[64];
	char cpu_family[16];
	char cpu_model[16];
	char cpu_stepping[16];
	char cpu_model_name[128];
	char kernel[128];
	char hostname[128];
	int ncpus;
};

void host_info_read(struct host_info *h);
/* Adds host.* meta records. */
void host_info_write(const struct host_info *h, struct trace_recbuf *rb);

#endif
