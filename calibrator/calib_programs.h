/*
 * calib_programs.h - the call-tree programs the calibration workload runs
 * (format in calibrator/java/jcal/calib/Workload.java). Pure code: built once
 * from a fixed seed, so every calibration runs the same programs.
 */
#ifndef JCAL_CALIB_PROGRAMS_H
#define JCAL_CALIB_PROGRAMS_H

#include <stddef.h>
#include <stdint.h>

/* Node types (the Workload method that runs a node) and flags. H and h are
 * I and i too long for HotSpot to compile: they stay interpreted. */
enum { CALIB_I = 0, CALIB_i = 1, CALIB_N = 2, CALIB_n = 3, CALIB_H = 4, CALIB_h = 5 };
#define CALIB_NODE_TYPES 6
/* A child of this type is skipped, not called: the env timer's baseline. */
#define CALIB_NONE 6
#define CALIB_THROWS 1
#define CALIB_CATCHES 2

struct calib_prog {
	int32_t *code;
	int len;
};

/* Builds the program set: systematic shapes for every caller/callee/
 * grand-callee type triple (with normal and exception exits, shallow and
 * nested) plus seeded random trees. Returns the count, 0 when out of memory. */
size_t calib_programs_build(struct calib_prog **out);
/* The same shapes over types I, i, H and h: mode=bci, which does not trace
 * natives. I and i run as J/j once the JIT has compiled them, H and h stay
 * I/i, so every caller/callee pair of interpreted and compiled types
 * occurs. */
size_t calib_programs_build_bci(struct calib_prog **out);
void calib_programs_free(struct calib_prog *p, size_t n);

/* Checks a program's structure (sizes, types, flags). 0 ok, -1 broken. */
int calib_program_check(const struct calib_prog *p);

/* Letter of the trace method type of a node type run interpreted (I i N n I i). */
char calib_type_letter(int type);

#endif
