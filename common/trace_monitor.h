/*
 * trace_monitor.h - the MONITOR record (docs/trace-format.md, "MONITOR
 * records"): one interval a Java thread spent blocked entering a contended
 * monitor, or in Object.wait, as the JVM's monitor events reported it,
 * with the monitor object's class, the method on top of the thread's stack
 * and the thread's metric readings at both ends.
 *
 * Shared by the writer (common/trace_encoder.c, called by the agent's
 * agent/core/monitor_events.c) and the reader (common/trace_reader.c).
 */
#ifndef JCAL_TRACE_MONITOR_H
#define JCAL_TRACE_MONITOR_H

#include <stdint.h>

#include "common/trace_format.h"

/* What the thread waited for. A reader passes other values on (a later
 * writer may add kinds); jcal-post leaves them out. */
enum trace_monitor_kind {
	TRACE_MON_ENTER = 1, /* MonitorContendedEnter .. MonitorContendedEntered */
	TRACE_MON_WAIT = 2,  /* MonitorWait .. MonitorWaited (Object.wait) */
};

/* Flags. */
#define TRACE_MON_TIMED_OUT 0x1u /* a wait that ended by its timeout */

struct trace_monitor {
	uint32_t thread;       /* serial */
	unsigned kind;	       /* enum trace_monitor_kind */
	uint32_t flags;	       /* TRACE_MON_* */
	uint32_t method;       /* METHOD id on top of the stack (a wait: the caller of
				* Object.wait); 0 not known */
	const char *class_sig; /* the monitor object's class: "Lpkg/C$D;" */
	uint64_t time_ns;      /* wall clock at the start, ns since the epoch */
	uint64_t wall_ns;      /* from the start to the end, ns (monotonic clock) */
	unsigned nmetrics;     /* readings of the thread's metrics, 0..4 */
	uint64_t start[JCAL_MAX_METRICS], end[JCAL_MAX_METRICS];
};

#endif
