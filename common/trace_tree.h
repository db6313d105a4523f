/*
 * trace_tree.h - the records of a tree snapshot (docs/trace-format.md,
 * "Tree snapshots"): one TREE_THREAD record per Java thread (its flags and
 * statistics), then its nodes in TREE_NODES records, in pre-order (a
 * parent before its children, children in the order they were first
 * called), node 0 being the thread root.
 *
 * Shared by the writer (common/tree_snapshot.c) and the reader
 * (common/trace_reader.c).
 */
#ifndef JCAL_TRACE_TREE_H
#define JCAL_TRACE_TREE_H

#include <stdint.h>

#include "common/trace_format.h"

/* TREE_THREAD flags. */
#define TRACE_TREE_COMPENSATED 0x1u /* comp figures come from a calibration table */
#define TRACE_TREE_ENDED 0x2u	    /* the thread had ended when the snapshot was taken */

/* The statistics of a TREE_THREAD record, in file order. A reader takes
 * the ones it knows and ignores any after them (a later minor version may
 * append some); missing ones are 0. */
enum trace_tree_stat {
	TRACE_TS_EVENTS = 0, /* method and control events the tree took */
	TRACE_TS_TYPE = 1,   /* + enum jcal_mtype: events per method type */
	TRACE_TS_TRANSITION = TRACE_TS_TYPE + JCAL_MT_COUNT, /* + enum jcal_transition */
	TRACE_TS_UNMATCHED = TRACE_TS_TRANSITION + JCAL_TR_COUNT,
	TRACE_TS_MISMATCHED,
	TRACE_TS_UNWOUND,
	TRACE_TS_OPEN, /* frames open when the snapshot was taken */
	TRACE_TS_BACKWARDS,
	TRACE_TS_CONTROL,					      /* + enum jcal_control */
	TRACE_TS_FOLDED_CONTEXTS = TRACE_TS_CONTROL + JCAL_CTL_COUNT, /* maxcontexts= */
	TRACE_TS_FOLDED_CALLS,
	TRACE_TS_COUNT,
};

struct trace_tree_thread {
	uint32_t serial;
	unsigned nmetrics; /* 1..JCAL_MAX_METRICS */
	uint32_t nodes;	   /* root included */
	uint32_t flags;	   /* TRACE_TREE_* */
	uint64_t stat[TRACE_TS_COUNT];
};

/* One node. Figures are the node's own (base): what the thread spent in
 * this context outside its children, raw and compensated, in raw metric
 * units; cum is the reader's sum. */
struct trace_tree_node {
	uint32_t serial; /* the thread */
	uint32_t index;	 /* 0 = the root */
	uint32_t parent; /* < index; 0 for the root */
	uint32_t method; /* a METHOD id, or one of calltree.h's pseudo ids */
	uint64_t calls;
	unsigned nmetrics;
	uint64_t raw[JCAL_MAX_METRICS];
	uint64_t comp[JCAL_MAX_METRICS];
};

/* Most nodes one TREE_NODES record holds (the writer's choice; a reader
 * takes any count that fits the record). */
#define TRACE_TREE_NODES_PER_RECORD 1024u

#endif
