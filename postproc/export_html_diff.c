/*
 * export_html_diff.c - the differential flame graph's data (see
 * export_html_diff.h): the merged contexts of both runs written as the
 * page's DATA, nested as the page reads them, with each frame name once;
 * and the cut that keeps a large comparison's page within the bound of the
 * other flame graphs (docs/jcal-post.md, "Defaults on a large trace").
 */
#include "postproc/export_html_diff.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "common/satsum.h"
#include "postproc/default_cut.h"
#include "postproc/export_html_diff_internal.h"
#include "postproc/output.h"
#include "postproc/report_util.h"

/* A frame name's index in "names". */
struct name_idx {
	const char *name;
	uint32_t i;
	UT_hash_handle hh;
};

/* Writes "names" and sets idx[k] for every context k. */
static int names_write(FILE *f, const struct html_diff_ctx *ctx, size_t n, uint32_t *idx)
{
	struct name_idx *all = calloc(n, sizeof(*all)), *map = NULL, *e;
	uint32_t k = 0;

	if (!all)
		return -1;
	fputs(",\"names\":[", f);
	for (size_t i = 0; i < n; i++) {
		const char *s = ctx[i].name ? ctx[i].name : "";

		HASH_FIND_STR(map, s, e);
		if (!e) {
			e = &all[k];
			e->name = s;
			e->i = k;
			HASH_ADD_KEYPTR(hh, map, s, strlen(s), e);
			if (k++)
				fputc(',', f);
			report_json_html(f, s);
		}
		idx[i] = e->i;
	}
	fputc(']', f);
	HASH_CLEAR(hh, map);
	free(all);
	return 0;
}

/* first[k], next[k]: the callees of context k, in the order of ctx. */
static int children(const struct html_diff_ctx *ctx, size_t n, uint32_t **first, uint32_t **next)
{
	uint32_t *last = malloc(n * sizeof(*last));

	*first = malloc(n * sizeof(**first));
	*next = malloc(n * sizeof(**next));
	if (!last || !*first || !*next) {
		free(last);
		free(*first);
		free(*next);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t p = ctx[i].parent;

		(*first)[i] = (*next)[i] = last[i] = HTML_DIFF_NONE;
		if (!i)
			continue;
		if ((*first)[p] == HTML_DIFF_NONE)
			(*first)[p] = (uint32_t)i;
		else
			(*next)[last[p]] = (uint32_t)i;
		last[p] = (uint32_t)i;
	}
	free(last);
	return 0;
}

/* "tree": the contexts nested, depth first without recursion (a context's
 * array is closed when the walk leaves it). */
static void tree_write(FILE *f, const struct html_diff_ctx *ctx, const uint32_t *idx,
		       const uint32_t *first, const uint32_t *next)
{
	uint32_t k = 0;

	fputs(",\"tree\":", f);
	for (;;) {
		const struct html_diff_ctx *c = &ctx[k];

		fprintf(f, "[%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u",
			idx[k], c->calls[0], c->calls[1], c->self[0], c->self[1], c->flags);
		if (first[k] != HTML_DIFF_NONE) {
			fputc(',', f);
			k = first[k];
			continue;
		}
		fputc(']', f);
		while (k && next[k] == HTML_DIFF_NONE) {
			k = ctx[k].parent;
			fputc(']', f);
		}
		if (!k)
			return;
		fputc(',', f);
		k = next[k];
	}
}

int html_diff_write(FILE *f, const struct html_diff_page *pg, const struct html_diff_ctx *ctx,
		    size_t n)
{
	uint32_t *idx = malloc((n ? n : 1) * sizeof(*idx)), *first = NULL, *next = NULL;

	if (!idx || !n || children(ctx, n, &first, &next)) {
		free(idx);
		return -1;
	}
	html_diff_page_open(f);
	fputs("{\"title\":", f);
	report_json_html(f, pg->title ? pg->title : "");
	fputs(",\"metric\":", f);
	report_json_html(f, pg->metric ? pg->metric : "");
	fputs(",\"unit\":", f);
	report_json_html(f, pg->unit ? pg->unit : "");
	fprintf(f, ",\"value\":\"%s\",\"notes\":[", pg->calls ? "calls" : "cost");
	for (size_t i = 0; i < pg->nnotes; i++) {
		if (i)
			fputc(',', f);
		report_json_html(f, pg->notes[i]);
	}
	fputc(']', f);
	if (names_write(f, ctx, n, idx)) {
		free(idx);
		free(first);
		free(next);
		return -1;
	}
	tree_write(f, ctx, idx, first, next);
	fputs("}\n", f);
	html_diff_page_close(f);
	free(idx);
	free(first);
	free(next);
	return 0;
}

/* What a cut compares, per context: calls and cost with the callees', in
 * each run (cum[4 * k + 2 * value + run], value 0 calls, 1 cost). */
static uint64_t *cums(const struct html_diff_ctx *ctx, size_t n)
{
	uint64_t *cum = malloc((n ? n : 1) * 4 * sizeof(*cum));

	if (!cum)
		return NULL;
	for (size_t k = 0; k < n; k++)
		for (int r = 0; r < 2; r++) {
			cum[4 * k + r] = ctx[k].calls[r];
			cum[4 * k + 2 + r] = ctx[k].self[r];
		}
	for (size_t k = n; k-- > 1;)
		for (int j = 0; j < 4; j++)
			satsum_addto(&cum[4 * ctx[k].parent + j], cum[4 * k + j],
				     j < 2 ? SATSUM_CALLS : SATSUM_CUM);
	return cum;
}

/* The four thresholds of pct: pct% of the root's, rounded up. */
static void thresholds(const uint64_t *cum, double pct, uint64_t th[4])
{
	for (int j = 0; j < 4; j++) {
		double t = (double)cum[j] * pct / 100.0;

		th[j] = t >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)t;
		if ((double)th[j] < t)
			th[j]++;
	}
}

/* Context k is kept: the root, or one of its cums reaches its threshold
 * (a caller's cums are never below its callee's: the kept form a tree). */
static int kept(const uint64_t *cum, size_t k, const uint64_t th[4])
{
	if (!k)
		return 1;
	for (int j = 0; j < 4; j++)
		if (cum[4 * k + j] && cum[4 * k + j] >= th[j])
			return 1;
	return 0;
}

static unsigned digits(uint64_t v)
{
	unsigned d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

double html_diff_default_pct(const struct html_diff_ctx *ctx, size_t n, uint64_t budget)
{
	uint64_t *cum = cums(ctx, n), est[DEFAULT_CUT_NPCT + 1] = {0};
	uint64_t th[DEFAULT_CUT_NPCT][4];
	unsigned nd = digits(n);
	size_t k = 0;

	if (!cum)
		return -1;
	for (size_t s = 0; s < DEFAULT_CUT_NPCT; s++)
		thresholds(cum, default_cut_pct_ladder[s], th[s]);
	for (size_t i = 0; i < n; i++) {
		/* "[name,c,c,s,s,f]," */
		uint64_t b = 9 + nd + digits(ctx[i].calls[0]) + digits(ctx[i].calls[1]) +
			     digits(ctx[i].self[0]) + digits(ctx[i].self[1]);

		est[0] += b;
		for (size_t s = 0; s < DEFAULT_CUT_NPCT && kept(cum, i, th[s]); s++)
			est[s + 1] += b; /* the thresholds only grow */
	}
	free(cum);
	while (k < DEFAULT_CUT_NPCT && est[k] > budget)
		k++;
	return k ? default_cut_pct_ladder[k - 1] : 0;
}

/* The index in out of the folded frame under caller p (an index of the
 * contexts kept), made at its first folded callee: *m frames are made so
 * far; fold[p] is its index, or HTML_DIFF_NONE. */
static uint32_t folded_of(struct html_diff_ctx *out, size_t *m, uint32_t *fold, uint32_t p)
{
	if (fold[p] == HTML_DIFF_NONE) {
		memset(&out[*m], 0, sizeof(out[*m]));
		out[*m].parent = p;
		out[*m].name = HTML_DIFF_FOLDED_NAME;
		fold[p] = (uint32_t)(*m)++;
	}
	return fold[p];
}

int html_diff_fold(struct html_diff_ctx *ctx, size_t *n, double pct, struct html_diff_cut *cut)
{
	size_t nn = *n, m = 0, top = 0;
	uint64_t *cum = cums(ctx, nn), th[4];
	uint32_t *map = malloc((nn ? nn : 1) * sizeof(*map)),
		 *fold = malloc((nn ? nn : 1) * sizeof(*fold));
	struct html_diff_ctx *tail = malloc((nn ? nn : 1) * sizeof(*tail));

	if (!cum || !map || !fold || !tail) {
		free(cum);
		free(map);
		free(fold);
		free(tail);
		return -1;
	}
	thresholds(cum, pct, th);
	for (size_t k = 0; k < nn; k++)
		fold[k] = HTML_DIFF_NONE;
	/* kept contexts move down in place (map: old index -> new); the
	 * folded frames gather in tail, then follow them */
	for (size_t k = 0; k < nn; k++) {
		uint32_t p = k ? ctx[k].parent : HTML_DIFF_NONE;

		if (pct <= 0 || kept(cum, k, th)) {
			ctx[m] = ctx[k];
			ctx[m].parent = k ? map[p] : HTML_DIFF_NONE;
			map[k] = (uint32_t)m++;
			continue;
		}
		map[k] = HTML_DIFF_NONE;
		if (map[p] == HTML_DIFF_NONE)
			continue; /* under a context folded already */
		uint32_t f = folded_of(tail, &top, fold, map[p]);

		tail[f].flags |= ctx[k].flags & (HTML_DIFF_IN_BASE | HTML_DIFF_IN_NEW);
		for (int r = 0; r < 2; r++) {
			satsum_addto(&tail[f].calls[r], cum[4 * k + r], SATSUM_CALLS);
			satsum_addto(&tail[f].self[r], cum[4 * k + 2 + r], SATSUM_CUM);
		}
	}
	memcpy(&ctx[m], tail, top * sizeof(*tail));
	cut->pct = top ? pct : 0;
	cut->before = nn;
	cut->after = m + top;
	cut->folded = nn - m;
	*n = m + top;
	free(cum);
	free(map);
	free(fold);
	free(tail);
	return 0;
}
