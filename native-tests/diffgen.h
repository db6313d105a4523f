/*
 * diffgen.h - builds jcal-post diff models (postproc/diff_model.h) for the
 * tests: each run from scripts of named methods (modelgen.h), added as
 * jcal-post diff adds a loaded input, and runs a diff report into a
 * string.
 */
#ifndef JCAL_TEST_DIFFGEN_H
#define JCAL_TEST_DIFFGEN_H

#include "native-tests/modelgen.h"
#include "postproc/diff_model.h"
#include "postproc/diff_report.h"

/* Adds the run of threads names[i] running scripts[i] (metric ticks),
 * named path, with the depth limit max_depth (0 none). Returns 0 or -1. */
static inline int dg_add_depth(struct diff_model *dm, const char *const *scripts,
			       const char *const *names, unsigned n, const char *path,
			       uint32_t max_depth)
{
	struct model m;
	struct diff_import im = {0};
	struct diff_run d = {0};
	int r;

	if (mg_model(&m, scripts, names, n, NULL, NULL)) {
		model_free(&m);
		return -1;
	}
	im.max_depth = max_depth;
	d.path = (char *)path;
	r = diff_model_add(dm, &m, &im, &d);
	model_free(&m);
	return r;
}

static inline int dg_add(struct diff_model *dm, const char *const *scripts,
			 const char *const *names, unsigned n, const char *path)
{
	return dg_add_depth(dm, scripts, names, n, path, 0);
}

/* A finished model of one run a side, each one thread "main". */
static inline int dg_pair(struct diff_model *dm, const char *base, const char *new_)
{
	static const char *const names[] = {"main"};

	if (diff_model_init(dm, 1, 1, 0))
		return -1;
	if (dg_add(dm, &base, names, 1, "base.bin") || dg_add(dm, &new_, names, 1, "new.bin") ||
	    diff_model_finish(dm)) {
		diff_model_free(dm);
		return -1;
	}
	return 0;
}

/* Runs a diff report into a string (free it); its status in *status. */
static inline char *dg_run(int (*fn)(const struct diff_model *, const struct diff_report_opts *),
			   const struct diff_model *dm, struct diff_report_opts *o, int *status)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	o->out = f;
	*status = fn(dm, o);
	fclose(f);
	o->out = NULL;
	return s;
}

/* The name id of display, or DIFF_NONE. */
static inline uint32_t dg_name(const struct diff_model *dm, const char *display)
{
	for (uint32_t i = 0; i < dm->nnames; i++)
		if (!strcmp(diff_model_name(dm, i), display))
			return i;
	return DIFF_NONE;
}

/* The comparison of the method displayed as display (status -1 when
 * there is none). */
static inline struct diff_cmp dg_method(const struct diff_model *dm, const char *display)
{
	struct diff_cmp c;
	uint32_t id = dg_name(dm, display);

	memset(&c, 0, sizeof(c));
	c.status = (enum diff_status) - 1;
	if (id != DIFF_NONE)
		diff_report_method(dm, id, &c);
	return c;
}

/* The node of the path "thread;frame;frame" (names as displayed), or
 * DIFF_NONE. */
static inline uint32_t dg_node(const struct diff_model *dm, const char *path)
{
	char buf[512], *save = NULL;
	uint32_t node = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = strtok_r(buf, ";", &save); p && node != DIFF_NONE;
	     p = strtok_r(NULL, ";", &save))
		node = diff_tree_child(&dm->tree, node, dg_name(dm, p));
	return node;
}

/* The comparison of the context of path. */
static inline struct diff_cmp dg_context(const struct diff_model *dm, const char *path)
{
	struct diff_cmp c;
	uint32_t n = dg_node(dm, path);

	memset(&c, 0, sizeof(c));
	c.status = (enum diff_status) - 1;
	if (n != DIFF_NONE)
		diff_model_compare(dm, diff_tree_figs(&dm->tree, n), diff_tree_seen(&dm->tree, n),
				   &c);
	return c;
}

#endif
