/*
 * arcs.c - aggregation of calling-context trees into caller/callee arcs
 * (see arcs.h).
 */
#include "postproc/arcs.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/satsum.h"
#include "common/u64map.h"

/* A line while it is built: its stanza is entry[owner] before sorting. */
struct line_tmp {
	struct arc_line l;
	size_t owner;	       /* entry index: before sorting, then after */
	uint32_t owner_method; /* the stanza's method */
};

struct builder {
	struct arc_entry *e;
	size_t n, cap;
	struct line_tmp *l;
	size_t nl, lcap;
	struct u64map entries; /* method -> entry */
	struct u64map lines;   /* role, owner, method -> line */
	arcs_name_fn name;
	void *name_ctx;
};

const char *arcs_role_name(enum arc_role r)
{
	switch (r) {
	case ARC_PARENT:
		return "PARENT";
	case ARC_RPARENT:
		return "rPARENT";
	case ARC_CHILD:
		return "CHILD";
	case ARC_RCHILD:
		return "rCHILD";
	}
	return "?";
}

/* A context's calls and figures added to its method's entry; its cum
 * counts once for the method when outer (its outermost activation). */
static void entry_add(struct arc_entry *e, const struct calltree_node *n,
		      const struct calltree_fig *f, int outer)
{
	satsum_addto(&e->calls, n->calls, SATSUM_CALLS);
	satsum_addto(&e->base, f->base, SATSUM_BASE);
	satsum_addto(&e->raw_base, f->raw_base, SATSUM_RAW_BASE);
	satsum_addto(&e->cum_all, f->cum, SATSUM_CUM);
	satsum_addto(&e->raw_cum_all, f->raw_cum, SATSUM_RAW_CUM);
	if (outer) {
		satsum_addto(&e->cum, f->cum, SATSUM_CUM);
		satsum_addto(&e->raw_cum, f->raw_cum, SATSUM_RAW_CUM);
	}
}

static int entry_get(struct builder *b, uint32_t method, size_t *out)
{
	uint32_t *v = u64map_find(&b->entries, method);

	if (v) {
		*out = *v;
		return 0;
	}
	if (grow(&b->e, &b->cap, b->n + 1))
		return -1;
	if (b->n >= UINT32_MAX / 4 || u64map_put(&b->entries, method, (uint32_t)b->n))
		return -1;
	memset(&b->e[b->n], 0, sizeof(b->e[b->n]));
	b->e[b->n].method = method;
	b->e[b->n].name = b->name(b->name_ctx, method);
	*out = b->n++;
	return 0;
}

static int line_add(struct builder *b, size_t owner, enum arc_role role, uint32_t method,
		    const struct calltree *t, uint32_t node, unsigned metric)
{
	const struct calltree_fig *f = calltree_fig(t, node, metric);
	uint64_t key = (uint64_t)role << 62 | (uint64_t)owner << 32 | method;
	uint32_t *v = u64map_find(&b->lines, key);
	struct arc_line *l;

	if (!v) {
		if (grow(&b->l, &b->lcap, b->nl + 1))
			return -1;
		if (b->nl >= UINT32_MAX - 1 || u64map_put(&b->lines, key, (uint32_t)b->nl))
			return -1;
		memset(&b->l[b->nl], 0, sizeof(b->l[b->nl]));
		b->l[b->nl].owner = owner;
		b->l[b->nl].owner_method = b->e[owner].method;
		b->l[b->nl].l.role = role;
		b->l[b->nl].l.method = method;
		l = &b->l[b->nl++].l;
	} else {
		l = &b->l[*v].l;
	}
	satsum_addto(&l->calls, t->nodes[node].calls, SATSUM_CALLS);
	satsum_addto(&l->base, f->base, SATSUM_BASE);
	satsum_addto(&l->cum, f->cum, SATSUM_CUM);
	satsum_addto(&l->raw_base, f->raw_base, SATSUM_RAW_BASE);
	satsum_addto(&l->raw_cum, f->raw_cum, SATSUM_RAW_CUM);
	return 0;
}

static int desc(uint64_t x, uint64_t y)
{
	return x > y ? -1 : x < y;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct arc_entry *x = a, *y = b;
	int c;

	if ((x->method == CALLTREE_ROOT_METHOD) != (y->method == CALLTREE_ROOT_METHOD))
		return x->method == CALLTREE_ROOT_METHOD ? -1 : 1;
	if ((c = desc(x->cum, y->cum)) || (c = desc(x->cum_all, y->cum_all)) ||
	    (c = strcmp(x->name, y->name)))
		return c;
	return x->method < y->method ? -1 : x->method > y->method;
}

static int is_parent(enum arc_role r)
{
	return r == ARC_PARENT || r == ARC_RPARENT;
}

static int line_cmp(const void *a, const void *b)
{
	const struct line_tmp *x = a, *y = b;
	int c;

	if (x->owner != y->owner)
		return x->owner < y->owner ? -1 : 1;
	if (is_parent(x->l.role) != is_parent(y->l.role))
		return is_parent(x->l.role) ? -1 : 1;
	if ((c = desc(x->l.cum, y->l.cum)))
		return c;
	if (x->l.index != y->l.index)
		return x->l.index < y->l.index ? -1 : 1;
	return (int)x->l.role - (int)y->l.role;
}

static int add_tree(struct builder *b, const struct calltree *t, unsigned metric)
{
	const struct calltree_node *root = &t->nodes[CALLTREE_ROOT];
	const struct calltree_fig *rf = calltree_fig(t, CALLTREE_ROOT, metric);
	size_t re, me, pe;

	if (entry_get(b, CALLTREE_ROOT_METHOD, &re))
		return -1;
	entry_add(&b->e[re], root, rf, 1);
	for (uint32_t i = 1; i < t->nnodes; i++) {
		const struct calltree_node *n = &t->nodes[i], *p = &t->nodes[n->parent];
		const struct calltree_fig *nf = calltree_fig(t, i, metric);
		struct arc_entry *e;

		if (entry_get(b, n->method, &me) || entry_get(b, p->method, &pe))
			return -1;
		e = &b->e[me];
		entry_add(e, n, nf, n->rl == 1);
		if (line_add(b, me, n->rl == 1 ? ARC_PARENT : ARC_RPARENT, p->method, t, i,
			     metric) ||
		    line_add(b, pe, p->rl <= 1 ? ARC_CHILD : ARC_RCHILD, n->method, t, i, metric))
			return -1;
	}
	return 0;
}

int arcs_build(const struct calltree *const *trees, size_t ntrees, unsigned metric,
	       arcs_name_fn name, void *name_ctx, struct arcs *out)
{
	struct builder b = {0};
	int err = -1;

	memset(out, 0, sizeof(*out));
	b.name = name;
	b.name_ctx = name_ctx;
	if (metric >= JCAL_MAX_METRICS || u64map_init(&b.entries, 256))
		return -1;
	if (u64map_init(&b.lines, 1024))
		goto out;
	for (size_t i = 0; i < ntrees; i++)
		if (add_tree(&b, trees[i], metric))
			goto out;
	if (!b.n && entry_get(&b, CALLTREE_ROOT_METHOD, &(size_t){0}))
		goto out;
	qsort(b.e, b.n, sizeof(*b.e), entry_cmp);
	/* the entries map now points at old positions: rebuild it */
	for (size_t i = 0; i < b.n; i++)
		if (u64map_put(&b.entries, b.e[i].method, (uint32_t)i))
			goto out;
	for (size_t i = 0; i < b.nl; i++) {
		b.l[i].l.index = *u64map_find(&b.entries, b.l[i].l.method);
		b.l[i].owner = *u64map_find(&b.entries, b.l[i].owner_method);
	}
	/* a thread without events has no line: b.l is NULL, which qsort must
	 * not get even for a count of 0 */
	if (b.nl)
		qsort(b.l, b.nl, sizeof(*b.l), line_cmp);
	out->lines = malloc((b.nl ? b.nl : 1) * sizeof(*out->lines));
	if (!out->lines)
		goto out;
	for (size_t i = 0; i < b.nl; i++) {
		struct arc_entry *e = &b.e[b.l[i].owner];

		out->lines[i] = b.l[i].l;
		if (is_parent(b.l[i].l.role)) {
			if (!e->nparents++)
				e->parents = &out->lines[i];
		} else if (!e->nchildren++) {
			e->children = &out->lines[i];
		}
	}
	out->nlines = b.nl;
	out->entry = b.e;
	out->n = b.n;
	b.e = NULL;
	err = 0;
out:
	u64map_free(&b.entries);
	u64map_free(&b.lines);
	free(b.e);
	free(b.l);
	if (err)
		arcs_free(out);
	return err;
}

void arcs_free(struct arcs *a)
{
	free(a->entry);
	free(a->lines);
	memset(a, 0, sizeof(*a));
}
