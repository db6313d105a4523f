/*
 * report_util.c - helpers shared by the newer reports and exports (see
 * report_util.h).
 */
#include "postproc/report_util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "postproc/output.h"

void report_shape_note(const struct report_opts *o, size_t shown)
{
	const struct shape_info *s = o->shaped;

	if (!s)
		return;
	if (s->merged)
		fprintf(o->out, "(%zu thread%s merged into one tree", s->merged,
			s->merged == 1 ? "" : "s");
	else if (s->elided)
		fprintf(o->out, "(%zu thread%s shown", shown, shown == 1 ? "" : "s");
	if (s->elided)
		fprintf(o->out, "; %zu left out by --thread)\n", s->elided);
	else if (s->merged)
		fputs(")\n", o->out);
	if (s->pools)
		fprintf(
		    o->out,
		    "(%zu threads of %zu pool%s shown as one tree per pool; --split-pools shows "
		    "each thread)\n",
		    s->pooled, s->pools, s->pools == 1 ? "" : "s");
}

int report_metric_is_time(const struct model *m, unsigned i)
{
	return i < m->nmetrics && !strcmp(m->metric[i].unit, "ns");
}

void report_thread_label(const struct model_thread *t, char *buf, size_t len)
{
	snprintf(buf, len, "%s#%" PRIu32, t->name, t->serial);
}

void report_json_html(FILE *f, const char *s)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *mem = open_memstream(&buf, &n);

	if (!mem) {
		json_string(f, "");
		return;
	}
	json_string(mem, s);
	fclose(mem);
	for (size_t i = 0; i < n; i++) {
		switch (buf[i]) {
		case '<':
			fputs("\\u003c", f);
			break;
		case '>':
			fputs("\\u003e", f);
			break;
		case '&':
			fputs("\\u0026", f);
			break;
		default:
			fputc(buf[i], f);
		}
	}
	free(buf);
}

double report_pct(uint64_t v, uint64_t total)
{
	double p = total ? 100.0 * (double)v / (double)total : 0.0;

	return p > 100.0 ? 100.0 : p;
}

uint32_t report_max_depth(const struct report_opts *o)
{
	return o->max_depth ? o->max_depth : REPORT_MAX_DEPTH_DEFAULT;
}

int report_view_get(struct report_view *v, const struct model_thread *th,
		    const struct report_opts *o)
{
	uint32_t limit = report_max_depth(o);

	memset(v, 0, sizeof(*v));
	v->t = &th->tree;
	if (th->tree.max_level <= limit)
		return 0;
	if (shape_cap_depth(&th->tree, limit, &v->own, &v->folded))
		return -1;
	v->t = &v->own;
	v->owned = 1;
	return 0;
}

void report_view_free(struct report_view *v)
{
	if (v->owned)
		calltree_free(&v->own);
	memset(v, 0, sizeof(*v));
}

void report_view_note(const struct report_opts *o, const struct report_view *v)
{
	if (v->folded)
		fprintf(o->out,
			"  note: %" PRIu64 " contexts deeper than --max-depth %" PRIu32
			" folded into \"<deeper frames folded>\" (calls, base and cum kept)\n",
			v->folded, report_max_depth(o));
}

void report_json_open(const struct model *m, const struct report_opts *o)
{
	fputs("{\"metric\":{\"name\":", o->out);
	json_string(o->out, m->metric[o->metric].name);
	fputs(",\"unit\":", o->out);
	json_string(o->out, m->metric[o->metric].unit);
	fprintf(o->out, "},\"calibrated\":%s,\"threads\":[\n", o->calibrated ? "true" : "false");
}

void report_csv_node(FILE *f, const struct model *m, unsigned mi, const char *label,
		     const struct calltree *t, uint32_t node)
{
	const struct calltree_node *n = &t->nodes[node];
	const struct calltree_fig *nf = calltree_fig(t, node, mi);

	csv_field(f, label);
	fprintf(
	    f,
	    ",%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
	    n->level, n->rl, n->calls, model_value(m, mi, nf->base), model_value(m, mi, nf->cum),
	    model_value(m, mi, nf->raw_base), model_value(m, mi, nf->raw_cum));
}

void report_path(FILE *f, const struct model *m, const uint32_t *path, uint32_t depth,
		 enum report_format fmt)
{
	fputs(fmt == REPORT_JSON ? "[" : "", f);
	for (uint32_t i = 0; i < depth; i++) {
		const char *name = model_method_name(m, path[i]);

		if (fmt == REPORT_TEXT) {
			fputs(i ? " > " : "", f);
			text_escape(f, name);
		} else if (fmt == REPORT_JSON) {
			fputs(i ? "," : "", f);
			json_string(f, name);
		} else {
			fputs(i ? ";" : "", f);
			fputs(name, f);
		}
	}
	fputs(fmt == REPORT_JSON ? "]" : "", f);
}
