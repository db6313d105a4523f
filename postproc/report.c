/*
 * report.c - helpers shared by the reports (see report.h).
 */
#include "report.h"

#include <stdlib.h>

int report_threads(const struct model *m, const struct report_opts *o,
		   const struct model_thread ***list, size_t *n)
{
	const struct model_thread **l = malloc((m->nthreads ? m->nthreads : 1) * sizeof(*l));
	size_t k = 0;

	*list = NULL;
	*n = 0;
	if (!l)
		return -1;
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct model_thread *t = m->thread_list[i];

		if (threadsel_match(o->sel, t->serial, t->name, t->flags))
			l[k++] = t;
	}
	*list = l;
	*n = k;
	return 0;
}

void report_metric_label(const struct model *m, unsigned i, char *buf, size_t len)
{
	if (i < m->nmetrics && m->metric[i].unit[0])
		snprintf(buf, len, "%s (%s)", m->metric[i].name, m->metric[i].unit);
	else if (i < m->nmetrics)
		snprintf(buf, len, "%s", m->metric[i].name);
	else
		snprintf(buf, len, "metric%u", i);
}

unsigned report_width(unsigned w, uint64_t v)
{
	unsigned d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d > w ? d : w;
}
