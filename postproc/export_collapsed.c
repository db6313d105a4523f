/*
 * export_collapsed.c - folded stacks ("a;b;c N"), one line per calling
 * context with a non-zero base, as flamegraph.pl, speedscope and most
 * flame graph tools read them. The thread name is the first frame unless
 * the threads were merged; time in the thread root with no frame open is
 * the thread's own line. Values are the base of the shown metric
 * (calibrated unless --raw), TSC ticks as ns. Frames below the depth
 * limit (--max-depth) are one "<deeper frames folded>" frame. Names are
 * escaped as in the text reports, ';' written as ',' (output.h).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "postproc/output.h"
#include "postproc/report.h"
#include "postproc/report_util.h"

/* Writes the path of node (root excluded), root first. */
static int put_path(FILE *f, const struct model *m, const struct calltree *t, uint32_t node,
		    uint32_t *buf)
{
	uint32_t d = 0;

	for (uint32_t n = node; n != CALLTREE_ROOT; n = t->nodes[n].parent)
		buf[d++] = n;
	for (uint32_t i = d; i-- > 0;) {
		if (i + 1 < d)
			fputc(';', f);
		text_escape_folded(f, model_method_name(m, t->nodes[buf[i]].method));
	}
	return 0;
}

int export_collapsed(const struct model *m, const struct report_opts *o)
{
	const struct model_thread **list;
	size_t n;
	int merged = o->shaped && o->shaped->merged;
	unsigned mi = o->metric;

	if (report_threads(m, o, &list, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct report_view view;
		const struct calltree *t;
		uint32_t *buf;

		if (report_view_get(&view, list[i], o)) {
			free(list);
			return -1;
		}
		t = view.t;
		buf = malloc(((size_t)t->max_level + 1) * sizeof(*buf));
		if (!buf) {
			report_view_free(&view);
			free(list);
			return -1;
		}
		for (uint32_t k = 0; k < t->nnodes; k++) {
			uint32_t node = t->order[k];
			uint64_t v = model_value(m, mi, calltree_fig(t, node, mi)->base);

			if (!v)
				continue;
			if (!merged) {
				text_escape_folded(o->out, list[i]->name);
				if (node != CALLTREE_ROOT)
					fputc(';', o->out);
			} else if (node == CALLTREE_ROOT) {
				text_escape_folded(o->out,
						   model_method_name(m, CALLTREE_ROOT_METHOD));
			}
			put_path(o->out, m, t, node, buf);
			fprintf(o->out, " %" PRIu64 "\n", v);
		}
		free(buf);
		report_view_free(&view);
	}
	free(list);
	return 0;
}
