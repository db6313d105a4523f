/*
 * diff_gate.h - jcal-post diff's gate for CI (docs/jcal-post.md,
 * "Comparing two runs", the gate): --fail-on calls:PCT and --fail-on
 * cum:PCT, and the methods in scope whose calls (or cum) in NEW exceed
 * BASE's by more than PCT percent.
 */
#ifndef JCAL_DIFF_GATE_H
#define JCAL_DIFF_GATE_H

#include <stddef.h>
#include <stdint.h>

#include "postproc/diff_model.h"

enum diff_gate_what { DIFF_GATE_CALLS, DIFF_GATE_CUM };

struct diff_gate {
	enum diff_gate_what what;
	double pct;    /* >= 0 */
	char spec[48]; /* "calls:0%", "cum:2.5%": as messages name it */
};

/* One method past a gate: its figures of the gate's kind (medians with
 * sets), and whether BASE had it at all. */
struct diff_gate_hit {
	uint32_t name;
	uint64_t from, to;
	int added; /* no BASE run has it */
};

/* Parses "calls:PCT" or "cum:PCT" (PCT a number >= 0, '%' optional:
 * "0", "5%", "2.5%"). Returns 0, or -1 (arg is not one). */
int diff_gate_parse(const char *arg, struct diff_gate *g);

/* Whether to grew past from by more than pct percent (a growth from 0
 * counts). */
int diff_gate_grown(uint64_t from, uint64_t to, double pct);

/* The methods of dm (finished) in scope that grew past g, in the order of
 * order[0..n) (names): a method is in scope when it matches one of the
 * include patterns (fnmatch on its normalised package.Class.method), or
 * always when there are none; pseudo-frames never are. *hits is
 * malloc'ed (free it; NULL with *nhits 0 for none). Returns 0 or -1 (no
 * memory). */
int diff_gate_check(const struct diff_model *dm, const struct diff_gate *g, const uint32_t *order,
		    size_t n, const char *const *include, size_t ninclude,
		    struct diff_gate_hit **hits, size_t *nhits);

/* "METHOD calls 10 -> 30 (+200.0%)" ("(added)" for a method BASE did not
 * have, "(from 0)" for one it had with 0) into buf. */
void diff_gate_describe(const struct diff_model *dm, const struct diff_gate *g,
			const struct diff_gate_hit *h, char *buf, size_t len);

#endif
