/*
 * trace_format.h - constants of the jcal trace file format (docs/trace-format.md).
 *
 * Shared by the agent (writer) and jcal-post (reader). Everything here is a
 * wire-format fact: changing a value changes the file format.
 */
#ifndef JCAL_TRACE_FORMAT_H
#define JCAL_TRACE_FORMAT_H

#include <stdint.h>

/* File header (2.x, 24 bytes): 8-byte magic, u16 major, u16 minor,
 * u32 flags (0), u32 CRC-32 of bytes 0-15, then the stop field: u16 stop
 * reason and u16 its bitwise complement. Format 1.x had 16 bytes: magic,
 * major, minor, flags. */
#define TRACE_MAGIC "JCALTRC\x01"
#define TRACE_MAGIC_LEN 8
#define TRACE_FILE_HEADER_LEN 24
#define TRACE_FILE_HEADER_LEN_V1 16
#define TRACE_HEADER_CRC_OFFSET 16
#define TRACE_STOP_OFFSET 20 /* the agent rewrites these 4 bytes in place */
#define TRACE_STOP_LEN 4
#define TRACE_VERSION_MAJOR 2
/* 1.1: control events, LABEL records. 2.0: the chunk CRC covers the chunk
 * header too, the file header has a CRC and a stop field, END counts are
 * checked. This reader also reads 1.x. */
#define TRACE_VERSION_MINOR 0
/* A tree snapshot (the agent's output=tree): a 2.0 file whose trees come in
 * TREE_THREAD and TREE_NODES records instead of events. It has its own
 * major version, so that a 2.x reader, which skips records it does not
 * know, refuses it rather than showing empty trees. This reader reads 3.x
 * as it reads 2.x. 3.1 adds the TREE_HISTS records, 3.2 the TREE_SLOW
 * records, which earlier 3.x readers skip. */
#define TRACE_SNAPSHOT_VERSION_MAJOR 3
#define TRACE_SNAPSHOT_VERSION_MINOR 2

/* Why the agent stopped writing before the end (the stop field). */
enum trace_stop {
	TRACE_STOP_NONE = 0,
	TRACE_STOP_NOSPACE = 1, /* no space left on the device (ENOSPC, EDQUOT) */
	TRACE_STOP_FSIZE = 2,	/* the file size limit (EFBIG: ulimit -f) */
	TRACE_STOP_WRITE = 3,	/* any other write error */
};

/* Chunk header: u32 magic, u8 kind, u8[3] zero, u32 payload length,
 * u32 CRC-32 (zlib polynomial) of header bytes 0-11 and the payload
 * (format 1.x: of the payload only). All little-endian. */
#define TRACE_CHUNK_MAGIC 0x4b43434aU /* "JCCK" on disk */
#define TRACE_CHUNK_HEADER_LEN 16
#define TRACE_CHUNK_CRC_OFFSET 12
#define TRACE_CHUNK_MAX_PAYLOAD (64u << 20)

enum trace_chunk_kind {
	TRACE_CHUNK_RECORDS = 1, /* framed records: meta, methods, threads... */
	TRACE_CHUNK_EVENTS = 2,	 /* one thread's events, delta/varint coded */
};

/* Records inside a RECORDS chunk: u8 kind, varint payload length, payload.
 * Unknown kinds are skipped by readers (forward compatibility). */
enum trace_record_kind {
	TRACE_REC_META = 1,	    /* str key, str value */
	TRACE_REC_METHOD = 2,	    /* varint id, varint modifiers, str class, str name, str sig */
	TRACE_REC_THREAD_START = 3, /* see trace_thread in trace_reader.h */
	TRACE_REC_THREAD_END =
	    4, /* varint serial, varint time_ns, varint events, u8 n, n x varint metric */
	TRACE_REC_THREAD_NAME =
	    5, /* varint serial, varint time_ns, str name [, varint java_tid (1.1)] */
	TRACE_REC_COMPILED_LOAD = 6,   /* varint method id, varint time_ns, varint code size */
	TRACE_REC_COMPILED_UNLOAD = 7, /* varint method id, varint time_ns */
	TRACE_REC_END = 8,   /* varint events, varint threads, varint lost events: clean shutdown */
	TRACE_REC_LABEL = 9, /* varint id, str text: a mark's label (1.1) */
	/* 3.0 (tree snapshots, common/trace_tree.h): */
	TRACE_REC_TREE_THREAD = 10, /* varint serial, u8 nmetrics, varint nodes, varint flags,
				       varint n, n x varint stat */
	TRACE_REC_TREE_NODES = 11,  /* varint serial, u8 nmetrics, varint first, varint count,
				       count x node */
	/* 3.1: */
	TRACE_REC_TREE_HISTS = 12, /* varint serial, varint count, count x histogram */
	/* 2.0, added later (older readers skip it): a thread's wait on a
	 * monitor, common/trace_monitor.h */
	TRACE_REC_MONITOR = 13, /* varint serial, kind, flags, method, str class, varint
				   time_ns, wall_ns, metrics list start, metrics list end */
	/* 3.2: a call kept by slow= (common/trace_slow.h) */
	TRACE_REC_TREE_SLOW = 14,
};

/* Event tag byte in an EVENTS chunk:
 * bits 0-1 transition, bits 2-4 method type, bit 5 method id follows.
 * Without bit 5 the event is an exit of the method on top of the
 * decoder's shadow stack (see docs/trace-format.md). */
#define TRACE_TAG_TRANS_MASK 0x03u
#define TRACE_TAG_TYPE_SHIFT 2
#define TRACE_TAG_TYPE_MASK 0x1cu
#define TRACE_TAG_EXPLICIT 0x20u
#define TRACE_TAG_RESERVED 0xc0u

/* Shadow stack depth kept by encoder and decoder (identical rules). */
#define TRACE_SHADOW_DEPTH 1024

#define JCAL_MAX_METRICS 4

/* THREAD_START flags. */
#define TRACE_THREAD_DAEMON 0x1u
#define TRACE_THREAD_VIRTUAL 0x2u
#define TRACE_THREAD_LATE 0x4u /* first seen at an event, not at ThreadStart */
/* its events continue those of the previous file of a continuous recording
 * (a rotation): a frame open at its first event was entered, and its call
 * counted, in an earlier file */
#define TRACE_THREAD_CONTINUED 0x8u

enum jcal_transition {
	JCAL_TR_ENTRY = 0, /* E */
	JCAL_TR_EXIT = 1,  /* X */
	JCAL_TR_THROW = 2, /* T: frame popped by an exception */
	JCAL_TR_COUNT = 3,
	/* Not a method event (format 1.1): a region control of the thread,
	 * its kind in the type bits, a label id as its "method". */
	JCAL_TR_CONTROL = 3,
};

/* Kinds of control events (jcal.Control, docs/trace-format.md). */
enum jcal_control {
	JCAL_CTL_STOP = 0,  /* tracing of the thread stops: the next delta is not its */
	JCAL_CTL_START = 1, /* tracing of the thread (re)starts */
	JCAL_CTL_MARK = 2,  /* a labelled point */
	JCAL_CTL_COUNT = 3,
};

enum jcal_mtype {
	JCAL_MT_INTERP_STATIC = 0, /* I */
	JCAL_MT_INTERP = 1,	   /* i */
	JCAL_MT_JIT_STATIC = 2,	   /* J */
	JCAL_MT_JIT = 3,	   /* j */
	JCAL_MT_NATIVE_STATIC = 4, /* N */
	JCAL_MT_NATIVE = 5,	   /* n */
	JCAL_MT_OTHER = 6,	   /* O: thread root, unknown */
	JCAL_MT_COUNT = 7,
};

/* Java modifier bits recorded in METHOD records (JVM spec values). */
#define JCAL_ACC_STATIC 0x0008u
#define JCAL_ACC_NATIVE 0x0100u

static inline char jcal_mtype_letter(unsigned t)
{
	return t < JCAL_MT_COUNT ? "IiJjNnO"[t] : '?';
}

static inline char jcal_transition_letter(unsigned t)
{
	return t < JCAL_TR_COUNT ? "EXT"[t] : '?';
}

/* Type of a method from its modifiers and whether it runs compiled code. */
static inline unsigned jcal_mtype_of(uint32_t modifiers, int jitted)
{
	unsigned inst = (modifiers & JCAL_ACC_STATIC) ? 0u : 1u;
	if (modifiers & JCAL_ACC_NATIVE)
		return JCAL_MT_NATIVE_STATIC + inst;
	return (jitted ? JCAL_MT_JIT_STATIC : JCAL_MT_INTERP_STATIC) + inst;
}

#endif
