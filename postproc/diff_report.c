/*
 * diff_report.c - the table of jcal-post diff's reports and what they
 * share (see diff_report.h).
 */
#include "postproc/diff_report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "postproc/output.h"

const struct diff_report_kind diff_report_kinds[] = {
    {"flat", diff_report_flat,
     "per method, both runs' calls, base and cum and their deltas, by the size of the change", 0},
    {"tree", diff_report_tree,
     "per thread (names matched with pool numbers normalised) per calling context, both runs' "
     "figures and deltas",
     DIFF_REPORT_CONTEXTS},
    {"callers", diff_report_callers, "per method, its callers and callees with both runs' calls",
     0},
    {"collapsed", diff_export_collapsed,
     "export: folded stacks with both runs' values, 'a;b;c BASE NEW' (FlameGraph's difffolded)",
     DIFF_REPORT_CONTEXTS | DIFF_REPORT_VALUE},
    {"html", diff_export_html,
     "export: differential flame graph, one self-contained page: NEW's shape (or BASE's) "
     "coloured by change, both runs' figures on hover, a switch between calls and cost",
     DIFF_REPORT_CONTEXTS | DIFF_REPORT_VALUE},
};
const size_t diff_report_nkinds = sizeof(diff_report_kinds) / sizeof(diff_report_kinds[0]);

const struct diff_report_kind *diff_report_find(const char *name)
{
	for (size_t i = 0; i < diff_report_nkinds; i++)
		if (!strcmp(name, diff_report_kinds[i].name))
			return &diff_report_kinds[i];
	return NULL;
}

int diff_report_sets(const struct diff_model *dm)
{
	return dm->nbase > 1 || dm->nnew > 1;
}

void diff_report_method(const struct diff_model *dm, uint32_t name, struct diff_cmp *c)
{
	diff_model_compare(dm, &dm->flat[(size_t)name * dm->nruns],
			   &dm->flat_seen[(size_t)name * dm->nruns], c);
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

int diff_report_by_change(const struct diff_cmp *a, const struct diff_cmp *b)
{
	uint64_t ca = absdiff(a->base.calls, a->new_.calls),
		 cb = absdiff(b->base.calls, b->new_.calls);
	uint64_t ua = absdiff(a->base.cum, a->new_.cum), ub = absdiff(b->base.cum, b->new_.cum);

	if (ca != cb)
		return ca > cb ? -1 : 1;
	if (ua != ub)
		return ua > ub ? -1 : 1;
	return 0;
}

struct method_sort {
	const struct diff_model *dm;
	const struct diff_cmp *cmp; /* by name */
};

static int by_change(const void *pa, const void *pb, void *arg)
{
	const struct method_sort *s = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	int c = diff_report_by_change(&s->cmp[a], &s->cmp[b]);

	if (c)
		return c;
	c = strcmp(diff_model_name(s->dm, a), diff_model_name(s->dm, b));
	return c ? c : (a > b) - (a < b);
}

int diff_report_methods(const struct diff_model *dm, uint32_t **order, size_t *n)
{
	struct diff_cmp *cmp = malloc((dm->nnames ? dm->nnames : 1) * sizeof(*cmp));
	uint32_t *o = malloc((dm->nnames ? dm->nnames : 1) * sizeof(*o));
	struct method_sort s = {dm, cmp};
	size_t k = 0;

	*order = NULL;
	*n = 0;
	if (!cmp || !o) {
		free(cmp);
		free(o);
		return -1;
	}
	for (uint32_t i = 0; i < dm->nnames; i++) {
		int any = 0;

		if (i == DIFF_ROOT_NAME || dm->names[i].kind == DIFF_NAME_THREAD)
			continue;
		for (unsigned r = 0; r < dm->nruns; r++)
			any |= dm->flat_seen[(size_t)i * dm->nruns + r];
		if (!any)
			continue;
		diff_report_method(dm, i, &cmp[i]);
		o[k++] = i;
	}
	if (k)
		qsort_r(o, k, sizeof(*o), by_change, &s);
	free(cmp);
	*order = o;
	*n = k;
	return 0;
}

void diff_report_delta_str(char *buf, size_t len, uint64_t from, uint64_t to, int plus)
{
	if (to >= from)
		snprintf(buf, len, "%s%" PRIu64, plus && to > from ? "+" : "", to - from);
	else
		snprintf(buf, len, "-%" PRIu64, from - to);
}

void diff_report_delta(FILE *f, uint64_t from, uint64_t to, int plus)
{
	char buf[32];

	diff_report_delta_str(buf, sizeof(buf), from, to, plus);
	fputs(buf, f);
}

const char *diff_report_status(enum diff_status s)
{
	switch (s) {
	case DIFF_SAME:
		return "same";
	case DIFF_CHANGED:
		return "changed";
	case DIFF_ADDED:
		return "added";
	case DIFF_REMOVED:
		return "removed";
	}
	return "same";
}

char diff_report_mark(enum diff_status s)
{
	static const char marks[] = {' ', '*', '+', '-'}; /* by enum diff_status */

	return marks[(unsigned)s < sizeof(marks) ? (unsigned)s : 0];
}

const char *diff_report_cost(enum diff_cost c)
{
	return c == DIFF_COST_BEYOND ? "beyond" : c == DIFF_COST_WITHIN ? "within" : "";
}

void diff_report_spread(char *buf, size_t len, double pct)
{
	if (isinf(pct))
		snprintf(buf, len, "inf");
	else
		snprintf(buf, len, "%.1f", pct);
}

/* "18 method names (12 hidden classes, 6 lambdas); 2 thread names", or
 * "nothing" */
static void normalised_text(const struct diff_model *dm, FILE *f)
{
	int any = 0;

	if (!dm->norm_methods && !dm->norm_threads) {
		fputs("nothing (no generated class or numbered thread name)", f);
		return;
	}
	if (dm->norm_methods) {
		fprintf(f, "%" PRIu64 " method name%s (", dm->norm_methods,
			dm->norm_methods == 1 ? "" : "s");
		for (unsigned k = 0; k < NAME_NORM_NKINDS; k++)
			if (dm->norm_kind[k]) {
				fprintf(f, "%s%" PRIu64 " %s", any ? ", " : "", dm->norm_kind[k],
					name_norm_label(k));
				any = 1;
			}
		fputc(')', f);
	}
	if (dm->norm_threads)
		fprintf(f, "%s%" PRIu64 " thread name%s (pool and thread numbers)",
			dm->norm_methods ? "; " : "", dm->norm_threads,
			dm->norm_threads == 1 ? "" : "s");
}

void diff_report_text_head(const struct diff_model *dm, const struct diff_report_opts *o,
			   const char *what)
{
	FILE *f = o->out;

	fprintf(f, "jcal-post diff: %s  metric ", what);
	text_escape(f, dm->metric);
	if (dm->unit[0]) {
		fputs(" (", f);
		text_escape(f, dm->unit);
		fputc(')', f);
	}
	if (diff_report_sets(dm))
		fprintf(f, "  medians of %u base and %u new runs", dm->nbase, dm->nnew);
	fputc('\n', f);
	for (unsigned r = 0; r < dm->added; r++) {
		const struct diff_run *run = &dm->runs[r];

		fprintf(f, "  %-4s  ", run->side == DIFF_BASE ? "base" : "new");
		text_escape(f, run->path);
		fputs(": ", f);
		text_escapef(f, "%s, mode %s", run->jvm[0] ? run->jvm : "JVM unknown",
			     run->mode[0] ? run->mode : "unknown");
		fprintf(f, ", %" PRIu64 " events, %" PRIu32 " thread%s%s, calibration ",
			run->events, run->threads, run->threads == 1 ? "" : "s",
			run->snapshot ? " (snapshot)" : "");
		text_escape(f, run->calib ? run->calib : "none (raw figures)");
		fputc('\n', f);
	}
	fputs("  normalised: ", f);
	normalised_text(dm, f);
	fputc('\n', f);
	if (dm->folded)
		fprintf(f,
			"  note: %" PRIu64 " contexts deeper than --max-depth %" PRIu32
			" folded into \"<deeper frames folded>\" (calls, base and cum kept)\n",
			dm->folded, dm->max_depth);
}

static void json_side(const struct diff_model *dm, FILE *f, enum diff_side side)
{
	int first = 1;

	fputc('[', f);
	for (unsigned r = 0; r < dm->added; r++) {
		const struct diff_run *run = &dm->runs[r];

		if (run->side != side)
			continue;
		fputs(first ? "{\"path\":" : ",{\"path\":", f);
		first = 0;
		json_string(f, run->path);
		fputs(",\"jvm\":", f);
		json_string(f, run->jvm);
		fputs(",\"mode\":", f);
		json_string(f, run->mode);
		fprintf(f,
			",\"snapshot\":%s,\"events\":%" PRIu64 ",\"threads\":%" PRIu32
			",\"calibrated\":%s,\"calibration\":",
			run->snapshot ? "true" : "false", run->events, run->threads,
			run->calibrated ? "true" : "false");
		json_string(f, run->calib);
		fputc('}', f);
	}
	fputc(']', f);
}

void diff_report_json_head(const struct diff_model *dm, const struct diff_report_opts *o)
{
	FILE *f = o->out;

	fputs("{\"metric\":{\"name\":", f);
	json_string(f, dm->metric);
	fputs(",\"unit\":", f);
	json_string(f, dm->unit);
	fputs("},\n\"base\":", f);
	json_side(dm, f, DIFF_BASE);
	fputs(",\n\"new\":", f);
	json_side(dm, f, DIFF_NEW);
	fprintf(f, ",\n\"normalised\":{\"methods\":%" PRIu64, dm->norm_methods);
	for (unsigned k = 0; k < NAME_NORM_NKINDS; k++)
		fprintf(f, ",\"%s\":%" PRIu64, name_norm_key(k), dm->norm_kind[k]);
	fprintf(f, ",\"threads\":%" PRIu64 "}", dm->norm_threads);
	if (dm->folded)
		fprintf(f, ",\n\"max_depth\":%" PRIu32 ",\"folded_contexts\":%" PRIu64,
			dm->max_depth, dm->folded);
}

void diff_report_csv_sets(FILE *f, const struct diff_cmp *c)
{
	char spread[32];

	diff_report_spread(spread, sizeof(spread), c->cost_spread);
	fprintf(f, ",%" PRIu64 ",%s,%s", c->calls_spread, spread, diff_report_cost(c->cost));
}

void diff_report_csv_figs(FILE *f, const struct diff_cmp *c)
{
	const uint64_t v[3][2] = {{c->base.calls, c->new_.calls},
				  {c->base.base, c->new_.base},
				  {c->base.cum, c->new_.cum}};

	for (int i = 0; i < 3; i++) {
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",", v[i][0], v[i][1]);
		diff_report_delta(f, v[i][0], v[i][1], 0);
	}
	fprintf(f, ",%s", diff_report_status(c->status));
}

void diff_report_json_figs(FILE *f, const struct diff_model *dm, const struct diff_cmp *c)
{
	static const char *const what[3] = {"calls", "base", "cum"};
	const uint64_t v[3][2] = {{c->base.calls, c->new_.calls},
				  {c->base.base, c->new_.base},
				  {c->base.cum, c->new_.cum}};

	for (int i = 0; i < 3; i++) {
		fprintf(f, ",\"%s_base\":%" PRIu64 ",\"%s_new\":%" PRIu64 ",\"%s_delta\":", what[i],
			v[i][0], what[i], v[i][1], what[i]);
		diff_report_delta(f, v[i][0], v[i][1], 0);
	}
	fprintf(f, ",\"status\":\"%s\"", diff_report_status(c->status));
	if (diff_report_sets(dm)) {
		fprintf(f, ",\"calls_spread\":%" PRIu64 ",\"cost_spread\":", c->calls_spread);
		if (isinf(c->cost_spread))
			fputs("null", f);
		else
			fprintf(f, "%.1f", c->cost_spread);
		fprintf(f, ",\"cost_change\":\"%s\"", diff_report_cost(c->cost));
	}
}

/* ---- the columns of text reports ---- */

static const char *const heads[DIFF_COLS] = {
    "CallsBase", "CallsNew", "CallsDelta", "Calls%",	"CumBase", "CumNew", "CumDelta",
    "Cum%",	 "BaseBase", "BaseNew",	   "BaseDelta", "Spread%", "Cost",
};

/* What follows column k: two blanks between the groups. */
static const char *gap(int k)
{
	return k == 3 || k == 7 || k == 10 ? "  " : " ";
}

/* The cells of c. */
static void cells(char x[DIFF_COLS][32], const struct diff_cmp *c)
{
	const uint64_t v[3][2] = {{c->base.calls, c->new_.calls},
				  {c->base.cum, c->new_.cum},
				  {c->base.base, c->new_.base}};

	/* Calls (4 cells), Cum (4), Base (3: no percentage of a self cost) */
	for (int i = 0; i < 3; i++) {
		char(*cell)[32] = &x[i * 4];

		snprintf(cell[0], sizeof(cell[0]), "%" PRIu64, v[i][0]);
		snprintf(cell[1], sizeof(cell[1]), "%" PRIu64, v[i][1]);
		diff_report_delta_str(cell[2], sizeof(cell[2]), v[i][0], v[i][1], 1);
		if (i < 2)
			diff_stats_pct(cell[3], sizeof(cell[3]), v[i][0], v[i][1]);
	}
	diff_report_spread(x[11], sizeof(x[11]), c->cost_spread);
	snprintf(x[12], sizeof(x[12]), "%s", diff_report_cost(c->cost));
}

void diff_report_cols_init(const struct diff_model *dm, struct diff_cols *cols)
{
	cols->n = diff_report_sets(dm) ? DIFF_COLS : DIFF_COLS - 2;
	for (int k = 0; k < DIFF_COLS; k++)
		cols->w[k] = strlen(heads[k]);
}

void diff_report_cols_fit(struct diff_cols *cols, const struct diff_cmp *c)
{
	char x[DIFF_COLS][32];

	cells(x, c);
	for (int k = 0; k < cols->n; k++)
		if (strlen(x[k]) > cols->w[k])
			cols->w[k] = strlen(x[k]);
}

void diff_report_cols_head(FILE *f, const struct diff_cols *cols)
{
	for (int k = 0; k < cols->n; k++)
		fprintf(f, "%*s%s", (int)cols->w[k], heads[k], gap(k));
	fputs("  ", f);
}

void diff_report_cols_row(FILE *f, const struct diff_cols *cols, const struct diff_cmp *c)
{
	char x[DIFF_COLS][32];

	cells(x, c);
	for (int k = 0; k < cols->n; k++)
		fprintf(f, "%*s%s", (int)cols->w[k], x[k], gap(k));
	fprintf(f, "%c ", diff_report_mark(c->status));
}
