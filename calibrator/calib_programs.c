/*
 * calib_programs.c - builds the calibration workload's programs: nodes in
 * prefix order, {type, flags, nchildren, size} then the children.
 */
#include "calibrator/calib_programs.h"

#include <stdlib.h>
#include <string.h>

struct builder {
	const int *types; /* node type of each type index 0 .. ntypes-1 */
	int32_t code[512];
	int len;
	int open[16]; /* start of each node still open */
	int depth;
	int oom;
};

static void reset(struct builder *b, const int *types)
{
	memset(b, 0, sizeof(*b));
	b->types = types;
}

static void node_open(struct builder *b, int type, int flags)
{
	type = b->types[type];
	if (b->len + 4 > (int)(sizeof(b->code) / sizeof(b->code[0])) || b->depth == 16) {
		b->oom = 1;
		return;
	}
	if (b->depth > 0)
		b->code[b->open[b->depth - 1] + 2]++;
	b->open[b->depth++] = b->len;
	b->code[b->len++] = type;
	b->code[b->len++] = flags;
	b->code[b->len++] = 0;
	b->code[b->len++] = 0;
}

static void node_close(struct builder *b)
{
	if (b->oom || b->depth == 0)
		return;
	int start = b->open[--b->depth];
	b->code[start + 3] = b->len - start;
}

static void leaf(struct builder *b, int type, int flags)
{
	node_open(b, type, flags);
	node_close(b);
}

static int finish(struct builder *b, struct calib_prog *p)
{
	if (b->oom || b->depth != 0)
		return -1;
	p->code = malloc((size_t)b->len * sizeof(int32_t));
	if (!p->code)
		return -1;
	memcpy(p->code, b->code, (size_t)b->len * sizeof(int32_t));
	p->len = b->len;
	return 0;
}

/* m[catch]{ p, q, p[throw], q, p, q[throw] }: siblings of every type pair
 * after a normal or an exceptional return (p:X:m:E:q, p:T:m:E:q...). */
static void siblings(struct builder *b, int m, int p, int q)
{
	node_open(b, m, CALIB_CATCHES);
	leaf(b, p, 0);
	leaf(b, q, 0);
	leaf(b, p, CALIB_THROWS);
	leaf(b, q, 0);
	leaf(b, p, 0);
	leaf(b, q, CALIB_THROWS);
	node_close(b);
}

/* o[catch]{ m{i}, m[catch]{i[throw]}, m{i[throw]}, m[throw]{i}, m[throw]{}, m{} }:
 * nested returns and throws through three levels (i:X:m:X:o, i:T:m:X:o,
 * i:T:m:T:o, i:X:m:T:o), calls two deep (o:E:m:E:i) and leaves (o:E:m:T:o,
 * o:E:m:X:o, the last one returning normally before o returns or throws). top_flags may make o
 * throw to the thread root. */
static void nested(struct builder *b, int o, int m, int i, int top_flags)
{
	node_open(b, o, CALIB_CATCHES | top_flags);
	node_open(b, m, 0);
	leaf(b, i, 0);
	node_close(b);
	node_open(b, m, CALIB_CATCHES);
	leaf(b, i, CALIB_THROWS);
	node_close(b);
	node_open(b, m, 0);
	leaf(b, i, CALIB_THROWS);
	node_close(b);
	node_open(b, m, CALIB_THROWS);
	leaf(b, i, 0);
	node_close(b);
	leaf(b, m, CALIB_THROWS);
	leaf(b, m, 0);
	node_close(b);
}

/* o{ m[throw]{} }: an exception passing through o to the thread root. */
static void propagate(struct builder *b, int o, int m)
{
	node_open(b, o, 0);
	leaf(b, m, CALIB_THROWS);
	node_close(b);
}

static uint32_t rng_next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

static void random_tree(struct builder *b, uint64_t *s, int depth, int ntypes)
{
	int type = (int)(rng_next(s) % (uint32_t)ntypes);
	int flags = 0;
	if (rng_next(s) % 4 == 0)
		flags |= CALIB_THROWS;
	if (rng_next(s) % 2 == 0)
		flags |= CALIB_CATCHES;
	node_open(b, type, flags);
	int kids = depth > 0 ? (int)(rng_next(s) % 3) : 0;
	for (int k = 0; k < kids; k++)
		random_tree(b, s, depth - 1, ntypes);
	node_close(b);
}

#define RANDOM_PROGRAMS 128
#define MAX_SHAPES (3 * 64 + 8 + 16)
#define MAX_PROGRAMS (MAX_SHAPES + RANDOM_PROGRAMS)

/*
 * Systematic shapes for every type triple, single-node programs of every
 * type (normal and throwing: the thread root calling a leaf), exceptions
 * passing through every type pair to the thread root, and seeded
 * random trees. Systematic and random programs alternate, so that over the
 * rounds consecutive top-level calls meet every pair of types (a:X:O:E:b).
 * Shapes and trees are built over type indices 0 .. ntypes-1, which become
 * the node types types[]: I i N n (mode=events) or I i H h (mode=bci).
 */
static size_t build(struct calib_prog **out, const int *types, int ntypes)
{
	struct calib_prog *p = calloc(MAX_PROGRAMS, sizeof(*p));
	uint64_t seed = 0x6a63616c;
	struct builder b;
	size_t n = 0;
	int random_left = RANDOM_PROGRAMS;
	const int t2 = ntypes * ntypes, t3 = t2 * ntypes;
	const int shapes = 3 * t3 + 2 * ntypes + t2;

	if (!p)
		return 0;
	for (int shape = 0; shape < shapes; shape++) {
		int x = (shape % t3) / t2, y = (shape % t2) / ntypes, z = shape % ntypes;
		int s = shape - 3 * t3;
		reset(&b, types);
		if (shape < t3)
			siblings(&b, x, y, z);
		else if (shape < 2 * t3)
			nested(&b, x, y, z, 0);
		else if (shape < 3 * t3)
			nested(&b, x, y, z, CALIB_THROWS);
		else if (s < 2 * ntypes)
			leaf(&b, s / 2, (s & 1) ? CALIB_THROWS : 0);
		else
			propagate(&b, (s - 2 * ntypes) / ntypes, (s - 2 * ntypes) % ntypes);
		if (finish(&b, &p[n++]))
			goto oom;
		if (random_left > 0 && (shape & 1)) {
			reset(&b, types);
			random_tree(&b, &seed, 4, ntypes);
			if (finish(&b, &p[n++]))
				goto oom;
			random_left--;
		}
	}
	while (random_left-- > 0) {
		reset(&b, types);
		random_tree(&b, &seed, 4, ntypes);
		if (finish(&b, &p[n++]))
			goto oom;
	}
	*out = p;
	return n;
oom:
	calib_programs_free(p, n);
	return 0;
}

size_t calib_programs_build(struct calib_prog **out)
{
	static const int types[] = {CALIB_I, CALIB_i, CALIB_N, CALIB_n};
	return build(out, types, 4);
}

size_t calib_programs_build_bci(struct calib_prog **out)
{
	static const int types[] = {CALIB_I, CALIB_i, CALIB_H, CALIB_h};
	return build(out, types, 4);
}

void calib_programs_free(struct calib_prog *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++)
		free(p[i].code);
	free(p);
}

static int check_node(const struct calib_prog *p, int pc)
{
	if (pc < 0 || pc + 4 > p->len)
		return -1;
	const int32_t *h = &p->code[pc];
	if (h[0] < 0 || h[0] >= CALIB_NODE_TYPES || (h[1] & ~3) || h[2] < 0 || h[3] < 4 ||
	    pc + h[3] > p->len)
		return -1;
	int c = pc + 4;
	for (int k = 0; k < h[2]; k++) {
		if (check_node(p, c))
			return -1;
		c += p->code[c + 3];
	}
	return c == pc + h[3] ? 0 : -1;
}

int calib_program_check(const struct calib_prog *p)
{
	return p->len > 0 && check_node(p, 0) == 0 && p->code[3] == p->len ? 0 : -1;
}

char calib_type_letter(int type)
{
	static const char letters[CALIB_NODE_TYPES + 1] = "IiNnIi";

	if (type < 0 || type >= CALIB_NODE_TYPES)
		return '?';
	return letters[type];
}
