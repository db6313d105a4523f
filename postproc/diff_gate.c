/*
 * diff_gate.c - the --fail-on gate of jcal-post diff (see diff_gate.h).
 */
#include "postproc/diff_gate.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "postproc/diff_stats.h"

int diff_gate_parse(const char *arg, struct diff_gate *g)
{
	const char *num;
	char *end;

	memset(g, 0, sizeof(*g));
	if (!strncmp(arg, "calls:", 6)) {
		g->what = DIFF_GATE_CALLS;
		num = arg + 6;
	} else if (!strncmp(arg, "cum:", 4)) {
		g->what = DIFF_GATE_CUM;
		num = arg + 4;
	} else {
		return -1;
	}
	if (!(*num >= '0' && *num <= '9') && *num != '.')
		return -1;
	g->pct = strtod(num, &end);
	if (end == num || (*end == '%' && end[1]) || (*end && *end != '%') || !isfinite(g->pct) ||
	    g->pct < 0)
		return -1;
	snprintf(g->spec, sizeof(g->spec), "%s:%g%%", g->what == DIFF_GATE_CALLS ? "calls" : "cum",
		 g->pct);
	return 0;
}

int diff_gate_grown(uint64_t from, uint64_t to, double pct)
{
	if (to <= from)
		return 0;
	if (pct <= 0 || !from)
		return 1;
	/* to > from * (1 + pct / 100), without the rounding of a product */
	return (long double)(to - from) * 100.0L > (long double)from * (long double)pct;
}

static int in_scope(const struct diff_name *n, const char *const *include, size_t ninclude)
{
	if (n->kind != DIFF_NAME_METHOD)
		return 0;
	if (!ninclude)
		return 1;
	for (size_t i = 0; i < ninclude; i++)
		if (!fnmatch(include[i], n->match ? n->match : "", 0))
			return 1;
	return 0;
}

int diff_gate_check(const struct diff_model *dm, const struct diff_gate *g, const uint32_t *order,
		    size_t n, const char *const *include, size_t ninclude,
		    struct diff_gate_hit **hits, size_t *nhits)
{
	struct diff_gate_hit *h = NULL;
	size_t k = 0, cap = 0;

	*hits = NULL;
	*nhits = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t name = order[i];
		struct diff_cmp c;
		uint64_t from, to;

		if (!in_scope(&dm->names[name], include, ninclude))
			continue;
		diff_model_compare(dm, &dm->flat[(size_t)name * dm->nruns],
				   &dm->flat_seen[(size_t)name * dm->nruns], &c);
		from = g->what == DIFF_GATE_CALLS ? c.base.calls : c.base.cum;
		to = g->what == DIFF_GATE_CALLS ? c.new_.calls : c.new_.cum;
		if (!c.new_.present || !diff_gate_grown(from, to, g->pct))
			continue;
		if (grow(&h, &cap, k + 1)) {
			free(h);
			return -1;
		}
		h[k].name = name;
		h[k].from = from;
		h[k].to = to;
		h[k++].added = !c.base.present;
	}
	*hits = h;
	*nhits = k;
	return 0;
}

void diff_gate_describe(const struct diff_model *dm, const struct diff_gate *g,
			const struct diff_gate_hit *h, char *buf, size_t len)
{
	char change[64];

	if (h->added)
		snprintf(change, sizeof(change), "added");
	else if (!h->from)
		snprintf(change, sizeof(change), "from 0");
	else
		diff_stats_pct(change, sizeof(change), h->from, h->to);
	snprintf(buf, len, "%s %s %" PRIu64 " -> %" PRIu64 " (%s)", diff_model_name(dm, h->name),
		 g->what == DIFF_GATE_CALLS ? "calls" : "cum", h->from, h->to, change);
}
