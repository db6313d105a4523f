/*
 * flat.c - aggregation of trees into the flat profile (see flat.h).
 */
#include "postproc/flat.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/satsum.h"
#include "common/u64map.h"

static int desc(uint64_t x, uint64_t y)
{
	return x > y ? -1 : x < y;
}

static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct flat_row *x = a, *y = b;
	int c = 0;

	switch (*(const enum flat_sort *)arg) {
	case FLAT_BY_BASE:
		c = desc(x->base, y->base);
		break;
	case FLAT_BY_CUM:
		c = desc(x->cum, y->cum);
		break;
	case FLAT_BY_CALLS:
		c = desc(x->calls, y->calls);
		break;
	case FLAT_BY_NAME:
		break;
	}
	if (c)
		return c;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->method < y->method ? -1 : x->method > y->method;
}

void flat_sort_rows(struct flat_row *rows, size_t n, enum flat_sort sort)
{
	if (n)
		qsort_r(rows, n, sizeof(*rows), row_cmp, &sort);
}

int flat_sort_parse(const char *s, enum flat_sort *out)
{
	static const char *names[] = {"base", "cum", "calls", "name"};

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			*out = (enum flat_sort)i;
			return 0;
		}
	return -1;
}

int flat_build(const struct calltree *const *trees, size_t ntrees, unsigned metric,
	       enum flat_sort sort, flat_name_fn name, void *name_ctx, struct flat_row **rows,
	       size_t *nrows)
{
	struct u64map idx;
	struct flat_row *r = NULL;
	size_t n = 0, cap = 0;

	*rows = NULL;
	*nrows = 0;
	if (metric >= JCAL_MAX_METRICS || u64map_init(&idx, 256))
		return -1;
	for (size_t ti = 0; ti < ntrees; ti++) {
		const struct calltree *t = trees[ti];

		for (uint32_t i = 1; i < t->nnodes; i++) {
			const struct calltree_node *node = &t->nodes[i];
			const struct calltree_fig *nodef = calltree_fig(t, i, 0);
			uint32_t *v = u64map_find(&idx, node->method);
			struct flat_row *row;

			if (!v) {
				if (grow(&r, &cap, n + 1))
					goto fail;
				if (u64map_put(&idx, node->method, (uint32_t)n))
					goto fail;
				memset(&r[n], 0, sizeof(r[n]));
				r[n].method = node->method;
				r[n].name = name(name_ctx, node->method);
				row = &r[n++];
			} else {
				row = &r[*v];
			}
			satsum_addto(&row->calls, node->calls, SATSUM_CALLS);
			satsum_addto(&row->base, nodef[metric].base, SATSUM_BASE);
			satsum_addto(&row->raw_base, nodef[metric].raw_base, SATSUM_RAW_BASE);
			if (node->rl == 1) {
				satsum_addto(&row->cum, nodef[metric].cum, SATSUM_CUM);
				satsum_addto(&row->raw_cum, nodef[metric].raw_cum, SATSUM_RAW_CUM);
			}
		}
	}
	u64map_free(&idx);
	flat_sort_rows(r, n, sort);
	*rows = r;
	*nrows = n;
	return 0;
fail:
	u64map_free(&idx);
	free(r);
	return -1;
}
