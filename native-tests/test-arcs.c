/*
 * test-arcs.c - the caller/callee (arcs) and bottom-up (callers) reports:
 * the four invariants of docs/jcal-post.md (arcs) on every method of the
 * fig4a golden vector (its worked example), the example's stanzas line by
 * line, the golden outputs, and its example of exact caller attribution.
 */
#include <stdlib.h>

#include "postproc/arcs.h"
#include "native-tests/modelgen.h"
#include "postproc/report.h"
#include "native-tests/test.h"

static const char *name_of(void *ctx, uint32_t method)
{
	return model_method_name(ctx, method);
}

static int build(const struct model *m, struct arcs *a)
{
	const struct calltree *t = &m->thread_list[0]->tree;

	return arcs_build(&t, 1, 0, name_of, (void *)m, a);
}

static const struct arc_entry *find(const struct arcs *a, const char *name)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->entry[i].name, name))
			return &a->entry[i];
	return NULL;
}

/* The four invariants (arcs.h), for every entry of a. */
static void check_invariants(const struct arcs *a)
{
	for (size_t i = 0; i < a->n; i++) {
		const struct arc_entry *e = &a->entry[i];
		uint64_t pc = 0, pb = 0, pu = 0, pall = 0, cu = 0, cu_plain = 0;
		int rchild = 0;

		for (size_t k = 0; k < e->nparents; k++) {
			pc += e->parents[k].calls;
			pb += e->parents[k].base;
			pall += e->parents[k].cum;
			if (e->parents[k].role == ARC_PARENT)
				pu += e->parents[k].cum;
		}
		for (size_t k = 0; k < e->nchildren; k++) {
			cu += e->children[k].cum;
			if (e->children[k].role == ARC_CHILD)
				cu_plain += e->children[k].cum;
			else
				rchild = 1;
		}
		if (i == 0) { /* the thread root has no parents */
			CHECK_EQ_U(e->nparents, 0);
		} else {
			CHECK_EQ_U(pc, e->calls); /* 1 */
			CHECK_EQ_U(pb, e->base);  /* 2 */
			CHECK_EQ_U(pu, e->cum);	  /* 3 */
			CHECK_EQ_U(pall, e->cum_all);
		}
		CHECK_EQ_U(cu, e->cum_all - e->base); /* 4 */
		if (e->cum_all == e->cum) {	      /* 4 as the seed writes it */
			CHECK(!rchild);
			CHECK_EQ_U(cu_plain, e->cum - e->base);
		}
	}
}

/* The worked example's stanzas (docs/jcal-post.md, arcs) line by line, with
 * B's "rPARENT 1 1 1 B": without it invariants 1 and 2 fail. */
static void test_fig10_numbers(void)
{
	static const char *want[] = {
	    "SELF 1 0 19 19 [0] <thread root>",
	    "CHILD 1 3 19 C [1]",
	    "PARENT 1 3 19 <thread root> [0]",
	    "SELF 1 3 19 19 [1] C",
	    "CHILD 1 2 9 B [3]",
	    "CHILD 1 3 7 A [2]",
	    "PARENT 1 3 7 C [1]",
	    "PARENT 1 3 7 B [3]",
	    "rPARENT 1 1 1 B [3]",
	    "SELF 3 7 14 15 [2] A",
	    "CHILD 3 5 7 B [3]",
	    "CHILD 1 1 1 X [4]",
	    "PARENT 1 2 9 C [1]",
	    "PARENT 2 3 4 A [2]",
	    "rPARENT 1 2 3 A [2]",
	    "rPARENT 1 1 1 B [3]",
	    "SELF 5 8 13 17 [3] B",
	    "CHILD 1 3 7 A [2]",
	    "rCHILD 1 1 1 A [2]",
	    "CHILD 1 1 1 B [3]",
	    "PARENT 1 1 1 A [2]",
	    "SELF 1 1 1 1 [4] X",
	};
	struct model m;
	struct arcs a;
	char got[128];
	size_t k = 0, nwant = sizeof(want) / sizeof(want[0]);

	CHECK_EQ_I(mg_fig4a(&m), 0);
	CHECK_EQ_I(build(&m, &a), 0);
	CHECK_EQ_U(a.n, 5);
	for (size_t i = 0; i < a.n; i++) {
		const struct arc_entry *e = &a.entry[i];
		const struct arc_line *l;

		for (size_t j = 0; j < e->nparents + 1 + e->nchildren; j++) {
			if (j == e->nparents) {
				snprintf(got, sizeof(got), "SELF %llu %llu %llu %llu [%zu] %s",
					 (unsigned long long)e->calls, (unsigned long long)e->base,
					 (unsigned long long)e->cum, (unsigned long long)e->cum_all,
					 i, e->name);
			} else {
				l = j < e->nparents ? &e->parents[j]
						    : &e->children[j - e->nparents - 1];
				snprintf(got, sizeof(got), "%s %llu %llu %llu %s [%zu]",
					 arcs_role_name(l->role), (unsigned long long)l->calls,
					 (unsigned long long)l->base, (unsigned long long)l->cum,
					 a.entry[l->index].name, l->index);
			}
			CHECK(k < nwant);
			if (k < nwant)
				CHECK_STR(got, want[k]);
			k++;
		}
	}
	CHECK_EQ_U(k, nwant);
	check_invariants(&a);
	arcs_free(&a);
	model_free(&m);
}

/* The invariants on more shapes: deep self-recursion, mutual recursion,
 * an unmatched exit, time in the thread root, two threads added up. */
static void test_invariants_more(void)
{
	static const char *scripts[] = {
	    "0 E A\n1 E A\n3 E A\n4 E B\n6 E A\n7 E B\n9 X B\n10 X A\n12 X B\n13 X A\n"
	    "15 X A\n18 X A\n20 E C\n25 X C\n",
	    "0 E B\n2 X Q\n5 E A\n6 E B\n8 E B\n9 X B\n11 X B\n13 X A\n17 E B\n18 E A\n"
	    "19 X A\n",
	};
	static const char *names[] = {"t1", "t2"};
	struct model m;
	struct arcs a;
	const struct calltree *trees[2];

	CHECK_EQ_I(mg_model(&m, scripts, names, 2, NULL, NULL), 0);
	for (size_t i = 0; i < 2; i++) {
		trees[i] = &m.thread_list[i]->tree;
		CHECK_EQ_I(arcs_build(&trees[i], 1, 0, name_of, &m, &a), 0);
		check_invariants(&a);
		arcs_free(&a);
	}
	CHECK_EQ_I(arcs_build(trees, 2, 0, name_of, &m, &a), 0);
	check_invariants(&a);
	CHECK_EQ_U(a.entry[0].calls, 2);
	CHECK_EQ_U(a.entry[0].cum, 25 + 19);
	arcs_free(&a);
	model_free(&m);
}

static void test_golden_outputs(void)
{
	static const struct {
		enum report_format fmt;
		const char *file;
	} cases[] = {
	    {REPORT_TEXT, "fig4a.report-arcs.txt"},
	    {REPORT_CSV, "fig4a.report-arcs.csv"},
	    {REPORT_JSON, "fig4a.report-arcs.json"},
	};
	struct model m;
	int st;

	CHECK_EQ_I(mg_fig4a(&m), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct report_opts o = {0};
		char *s;

		o.format = cases[i].fmt;
		s = mg_run(report_arcs, &m, &o, &st);
		CHECK_EQ_I(st, 0);
		CHECK(mg_golden_equal(s, cases[i].file));
		free(s);
	}
	{
		struct report_opts o = {0};
		char *s = mg_run(report_callers, &m, &o, &st);

		CHECK_EQ_I(st, 0);
		CHECK(mg_golden_equal(s, "fig4a.report-callers.txt"));
		free(s);
	}
	model_free(&m);
}

/*
 * Exact attribution (docs/jcal-post.md, arcs): start -> main -> A -> {B, C};
 * B and C each call D 40 times; the calls from B take three fourths of D's
 * time. In ticks of 1/20 s the self times are start 2, main 20, A 200,
 * B 400, C 600, D 800. Exact attribution gives B 400/1000, C 600/800 (base/
 * cum), not gprof's average-case split (B 400/800, C 600/1000).
 */
static const char *seed002_script(void)
{
	static char buf[16384];
	size_t p = 0;
	unsigned long long t = 0;

#define EV(tr, name) p += (size_t)snprintf(buf + p, sizeof(buf) - p, "%llu %s %s\n", t, tr, name)
	EV("E", "start");
	t += 2;
	EV("E", "main");
	t += 20;
	EV("E", "A");
	t += 200;
	EV("E", "B");
	for (int i = 0; i < 40; i++) {
		t += 10;
		EV("E", "D");
		t += 15;
		EV("X", "D");
	}
	EV("X", "B");
	EV("E", "C");
	for (int i = 0; i < 40; i++) {
		t += 15;
		EV("E", "D");
		t += 5;
		EV("X", "D");
	}
	EV("X", "C");
	EV("X", "A");
	EV("X", "main");
	EV("X", "start");
#undef EV
	return buf;
}

static void test_seed002_tables(void)
{
	static const struct {
		const char *routine, *caller;
		uint64_t self, cum;
	} table2[] = {
	    {"start", "<thread root>", 2, 2022},
	    {"main", "start", 20, 2020},
	    {"A", "main", 200, 2000},
	    {"B", "A", 400, 1000},
	    {"C", "A", 600, 800},
	    {"D", "B", 800, 800},
	};
	const char *script = seed002_script(), *names[] = {"main"};
	struct model m;
	struct arcs a;
	const struct arc_entry *d, *b, *c;

	CHECK_EQ_I(mg_model(&m, &script, names, 1, NULL, NULL), 0);
	CHECK_EQ_I(build(&m, &a), 0);
	check_invariants(&a);
	for (size_t i = 0; i < sizeof(table2) / sizeof(table2[0]); i++) {
		const struct arc_entry *e = find(&a, table2[i].routine);
		int caller_found = 0;

		CHECK(e != NULL);
		if (!e)
			continue;
		CHECK_EQ_U(e->base, table2[i].self);
		CHECK_EQ_U(e->cum, table2[i].cum);
		for (size_t k = 0; k < e->nparents; k++)
			if (!strcmp(a.entry[e->parents[k].index].name, table2[i].caller))
				caller_found = 1;
		CHECK(caller_found);
	}
	/* D's time split by caller: 3/4 from B, 1/4 from C, 40 calls each */
	d = find(&a, "D");
	b = find(&a, "B");
	c = find(&a, "C");
	CHECK(d && b && c);
	if (d && b && c) {
		CHECK_EQ_U(d->nparents, 2);
		CHECK_STR(a.entry[d->parents[0].index].name, "B");
		CHECK_EQ_U(d->parents[0].calls, 40);
		CHECK_EQ_U(d->parents[0].cum, 600);
		CHECK_STR(a.entry[d->parents[1].index].name, "C");
		CHECK_EQ_U(d->parents[1].calls, 40);
		CHECK_EQ_U(d->parents[1].cum, 200);
		CHECK_EQ_U(b->nchildren, 1);
		CHECK_EQ_U(b->children[0].cum, 600);
		CHECK_EQ_U(c->children[0].cum, 200);
		/* not Table III: gprof's equal split would give B 800, C 1000 */
		CHECK(b->cum != 800 && c->cum != 1000);
	}
	arcs_free(&a);
	{
		struct report_opts o = {0};
		int st;
		char *s;

		o.format = REPORT_CSV;
		s = mg_run(report_callers, &m, &o, &st);
		CHECK_EQ_I(st, 0);
		CHECK(strstr(s, "D,start;main;A;B;D,40,600,600,75.00\n") != NULL);
		CHECK(strstr(s, "D,start;main;A;C;D,40,200,200,25.00\n") != NULL);
		free(s);
	}
	model_free(&m);
}

int main(void)
{
	RUN(test_fig10_numbers);
	RUN(test_invariants_more);
	RUN(test_golden_outputs);
	RUN(test_seed002_tables);
	return test_summary("arcs");
}
