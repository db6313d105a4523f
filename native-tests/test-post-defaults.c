/*
 * test-post-defaults.c - jcal-post's defaults at real-program scale: the order
 * of the tree's children (tree_order.c), the hot path (report_hot.c), the
 * default cuts of a large trace (default_cut.c) and the names of
 * overloads (overloads.c, names_params).
 */
#include <stdlib.h>

#include "postproc/default_cut.h"
#include "native-tests/modelgen.h"
#include "postproc/names.h"
#include "native-tests/test.h"
#include "postproc/tree_order.h"

static const char *name_of(const void *m, uint32_t id)
{
	return model_method_name(m, id);
}

/* Siblings of equal cum keep the order of their first call. */
static void test_order_ties(void)
{
	const char *s = "0 E X\n2 X X\n3 E Y\n5 X Y\n6 E Z\n11 X Z\n12 E W\n14 X W\n";
	const char *names[] = {"main"};
	struct model m;
	uint32_t *o;
	const struct calltree *t;

	CHECK_EQ_I(mg_model(&m, &s, names, 1, NULL, NULL), 0);
	t = &m.thread_list[0]->tree;
	o = tree_order_preorder(t, TREE_ORDER_CUM, 0, name_of, &m);
	CHECK(o != NULL);
	if (o) {
		CHECK_STR(model_method_name(&m, t->nodes[o[1]].method), "Z");
		CHECK_STR(model_method_name(&m, t->nodes[o[2]].method), "X");
		CHECK_STR(model_method_name(&m, t->nodes[o[3]].method), "Y");
		CHECK_STR(model_method_name(&m, t->nodes[o[4]].method), "W");
		free(o);
	}
	o = tree_order_preorder(t, TREE_ORDER_BASE, 0, name_of, &m);
	CHECK(o != NULL && !strcmp(model_method_name(&m, t->nodes[o[1]].method), "Z"));
	free(o);
	o = tree_order_preorder(t, TREE_ORDER_CALL, 0, name_of, &m);
	CHECK(o != NULL && !strcmp(model_method_name(&m, t->nodes[o[1]].method), "X"));
	free(o);
	CHECK(tree_order_parse("cum", &(enum tree_order){TREE_ORDER_CALL}) == 0);
	CHECK(tree_order_parse("calls", &(enum tree_order){TREE_ORDER_CALL}) == -1);
	model_free(&m);
}

/* fig4a: C, then B (cum 9 > A's 7), A (7), B (3), A (1). */
static void test_hot_path(void)
{
	struct model m;
	struct report_opts o = {0};
	int st;
	char *s;

	CHECK_EQ_I(mg_fig4a(&m), 0);
	o.format = REPORT_CSV;
	s = mg_run(report_hot, &m, &o, &st);
	CHECK_EQ_I(st, 0);
	CHECK_STR(s, "thread,level,rl,calls,base,cum,raw_base,raw_cum,method\n"
		     "main#1,0,1,1,0,19,0,19,<thread root>\n"
		     "main#1,1,1,1,3,19,3,19,C\n"
		     "main#1,2,1,1,2,9,2,9,B\n"
		     "main#1,3,1,1,3,7,3,7,A\n"
		     "main#1,4,2,1,2,3,2,3,B\n"
		     "main#1,5,2,1,1,1,1,1,A\n");
	free(s);
	o.format = REPORT_TEXT;
	s = mg_run(report_hot, &m, &o, &st);
	CHECK(s != NULL && strstr(s, "Hot path of thread \"main\" #1") != NULL);
	CHECK(s != NULL && strstr(s, " 47.37      B\n") != NULL); /* 9 of 19 */
	free(s);
	o.format = REPORT_JSON;
	s = mg_run(report_hot, &m, &o, &st);
	CHECK(s != NULL &&
	      strstr(s, "{\"method\":\"A\",\"level\":5,\"rl\":2,\"calls\":1,") != NULL);
	free(s);
	model_free(&m);
}

#define W 320u		 /* A methods, each calling W B methods: 1 + W + W*W contexts */
#define HEAVY 1000000ull /* the one expensive context: A0;B0 */

/* A thread "big" of 1 + W + W*W contexts (each B context called twice,
 * every event one tick later, A0;B0 HEAVY ticks more) with names of more
 * than 200 bytes, and a thread "small" of 3 contexts. */
static int big_model(struct model *m)
{
	static char cls[260], meth[32];
	struct trace_visitor v;
	struct trace_thread big = {.serial = 1, .java_tid = 1, .os_tid = 1, .name = "big"};
	struct trace_thread small = {.serial = 2, .java_tid = 2, .os_tid = 2, .name = "small"};
	struct trace_event e = {.thread = 1, .nmetrics = 1, .type = JCAL_MT_INTERP_STATIC};
	struct trace_end end = {0, 1, 0};
	uint64_t t = 0;

	memset(cls, 'k', sizeof(cls) - 1);
	memcpy(cls, "Lpkg/", 5);
	cls[sizeof(cls) - 2] = ';';
	model_init(m, NULL);
	model_visitor(m, &v);
	v.meta(v.ctx, "metrics", "ticks");
	v.meta(v.ctx, "metric.0.name", "ticks");
	v.meta(v.ctx, "metric.0.unit", "ticks");
	if (v.thread_start(v.ctx, &big) || v.thread_start(v.ctx, &small))
		return -1;
	for (uint32_t id = 1; id <= 2 * W + 2; id++) {
		struct trace_method tm = {.id = id, .modifiers = JCAL_ACC_STATIC, .sig = "()V"};

		snprintf(meth, sizeof(meth), "%c%u", id <= W ? 'a' : id <= 2 * W ? 'b' : 'm', id);
		tm.class_sig = cls;
		tm.name = meth;
		if (v.method(v.ctx, &tm))
			return -1;
	}
	for (uint32_t a = 1; a <= W; a++) {
		e.method = a;
		e.transition = JCAL_TR_ENTRY;
		e.metric[0] = t++;
		if (v.event(v.ctx, &e))
			return -1;
		for (uint32_t b = W + 1; b <= 2 * W; b++)
			for (int k = 0; k < 4; k++) {
				e.method = b;
				e.transition = k % 2 ? JCAL_TR_EXIT : JCAL_TR_ENTRY;
				if (a == 1 && b == W + 1 && k == 1)
					t += HEAVY;
				e.metric[0] = t++;
				if (v.event(v.ctx, &e))
					return -1;
			}
		e.method = a;
		e.transition = JCAL_TR_EXIT;
		e.metric[0] = t++;
		if (v.event(v.ctx, &e))
			return -1;
	}
	/* small: m calls n */
	e.thread = 2;
	for (int k = 0; k < 4; k++) {
		e.method = k == 0 || k == 3 ? 2 * W + 1 : 2 * W + 2;
		e.transition = k < 2 ? JCAL_TR_ENTRY : JCAL_TR_EXIT;
		e.metric[0] = (uint64_t)k;
		if (v.event(v.ctx, &e))
			return -1;
	}
	v.end(v.ctx, &end);
	return model_finish(m) || model_names(m, 0) ? -1 : 0;
}

static void test_cut_tree(void)
{
	struct model m;
	struct default_cut dc;
	char note[512];
	uint64_t cum;

	CHECK_EQ_I(big_model(&m), 0);
	CHECK_EQ_U(m.thread_list[0]->tree.nnodes, 1 + W + W * W);
	cum = calltree_fig(&m.thread_list[0]->tree, CALLTREE_ROOT, 0)->cum;
	CHECK_EQ_U(cum, W * (2 + 4 * W) - 1 + HEAVY);
	/* CSV and JSON are data: never cut */
	CHECK_EQ_I(default_cut_trees(&m, "tree", REPORT_CSV, 0, NULL, 0, &dc), 0);
	CHECK_EQ_I(dc.active, 0);
	CHECK_EQ_I(default_cut_trees(&m, "flat", REPORT_TEXT, 0, NULL, 0, &dc), 0);
	CHECK_EQ_I(dc.active, 0);
	CHECK_EQ_I(default_cut_trees(&m, "tree", REPORT_TEXT, 0, NULL, 0, &dc), 0);
	CHECK_EQ_I(dc.active, 1);
	CHECK_EQ_U(dc.cut, 1);
	CHECK_EQ_U(dc.threads, 2);
	/* 0.5% of the cum: the root, A0 and A0;B0 */
	CHECK_EQ_U(dc.before, 1 + W + W * W);
	CHECK_EQ_U(dc.after, 3);
	CHECK_EQ_U(m.thread_list[0]->tree.nnodes, 3);
	CHECK_EQ_U(calltree_fig(&m.thread_list[0]->tree, CALLTREE_ROOT, 0)->cum, cum);
	CHECK_EQ_U(m.thread_list[1]->tree.nnodes, 3); /* small: as it was */
	default_cut_note(&dc, note, sizeof(note));
	CHECK_STR(note, "tree: 1 of 2 threads had more than 100000 contexts: their contexts under "
			"--min-pct 0.5 of the thread's cum are folded into their callers (102721 "
			"-> 3 contexts); --all or --min-pct 0 shows every context");
	model_free(&m);
}

static void test_cut_exports(void)
{
	struct model m;
	struct default_cut dc;
	char note[512];
	struct report_opts o = {0};
	int st;
	char *s;
	size_t lines = 0;

	/* html (about 20 bytes a context) and pprof (16) fit: nothing cut */
	CHECK_EQ_I(big_model(&m), 0);
	CHECK_EQ_I(default_cut_trees(&m, "html", REPORT_TEXT, 0, NULL, 0, &dc), 0);
	CHECK_EQ_I(dc.active, 0);
	CHECK_EQ_I(default_cut_trees(&m, "pprof", REPORT_TEXT, 0, NULL, 0, &dc), 0);
	CHECK_EQ_I(dc.active, 0);
	/* folded stacks of 400-byte paths do not: the B contexts (cum 2) go
	 * at 0.0002% (threshold 3 ticks), not yet at 0.0001% (2) */
	CHECK_EQ_I(default_cut_trees(&m, "collapsed", REPORT_TEXT, 0, NULL, 0, &dc), 0);
	CHECK_EQ_I(dc.active, 1);
	CHECK(dc.pct == 0.0002);
	CHECK_EQ_U(dc.before, 1 + W + W * W + 3);
	CHECK_EQ_U(dc.after, 1 + W + 1 + 3);
	default_cut_note(&dc, note, sizeof(note));
	CHECK_STR(note, "collapsed: contexts under --min-pct 0.0002 of their thread's cum folded "
			"into their callers to stay near 32 MB (102724 -> 325 contexts); --all or "
			"--min-pct 0 writes every context");
	s = mg_run(export_collapsed, &m, &o, &st);
	CHECK_EQ_I(st, 0);
	for (const char *p = s; p && (p = strchr(p, '\n')); p++)
		lines++;
	CHECK_EQ_U(lines, 1 + W + 1 + 2); /* big's root, the A, A0;B0; small's m and n */
	free(s);
	model_free(&m);
	/* sampled speedscope: a few bytes a frame, under 32 MB */
	CHECK_EQ_I(big_model(&m), 0);
	CHECK_EQ_I(default_cut_trees(&m, "speedscope", REPORT_TEXT, 0, NULL, 0, &dc), 0);
	CHECK_EQ_I(dc.active, 0);
	model_free(&m);
}

/* chrome: 205122 calls; at --min-duration 2 each B context (cum 2, two
 * calls) holds one span, A0;B0 two, each A one, small's m one. */
static void test_cut_spans(void)
{
	struct model m;
	struct default_cut dc;
	char note[512];

	CHECK_EQ_I(big_model(&m), 0);
	CHECK_EQ_U(default_cut_spans(&m, 0, NULL, &dc), 2);
	CHECK_EQ_U(dc.before, W + 2 * W * W + 2);
	CHECK_EQ_U(dc.after, (W * W - 1) + 2 + W + 1);
	default_cut_note(&dc, note, sizeof(note));
	CHECK_STR(note, "chrome: spans shorter than --min-duration 2 left out to stay near 200000 "
			"spans (205122 calls, at most 102722 spans written); --all or "
			"--min-duration 0 writes every span");
	/* one thread of few calls: nothing to cut */
	{
		const char *pats[] = {"small"};
		struct threadsel sel = {pats, 1};

		CHECK_EQ_U(default_cut_spans(&m, 0, &sel, &dc), 0);
		CHECK_EQ_I(dc.active, 0);
	}
	model_free(&m);
}

static void test_params(void)
{
	char buf[256];

	CHECK_EQ_U(names_params("(I[JLjava/lang/String;[[La/B$C;)V", 1, buf, sizeof(buf)),
		   strlen("(int, long[], String, B$C[][])"));
	CHECK_STR(buf, "(int, long[], String, B$C[][])");
	names_params("(I[JLjava/lang/String;[[La/B$C;)V", 0, buf, sizeof(buf));
	CHECK_STR(buf, "(int, long[], java.lang.String, a.B$C[][])");
	names_params("()V", 1, buf, sizeof(buf));
	CHECK_STR(buf, "()");
	names_params("(Lbroken", 1, buf, sizeof(buf));
	CHECK_STR(buf, "()");
	CHECK_EQ_U(names_params("(ZZ)V", 1, buf, 4), strlen("(boolean, boolean)"));
	CHECK_STR(buf, "(bo");
	/* return types, for methods that differ by theirs only */
	CHECK_EQ_U(names_return("(I)Ljava/nio/channels/SocketChannel;", 1, buf, sizeof(buf)),
		   strlen("SocketChannel"));
	CHECK_STR(buf, "SocketChannel");
	names_return("(I)Ljava/nio/channels/SocketChannel;", 0, buf, sizeof(buf));
	CHECK_STR(buf, "java.nio.channels.SocketChannel");
	names_return("()V", 1, buf, sizeof(buf));
	CHECK_STR(buf, "void");
	names_return("()[[J", 1, buf, sizeof(buf));
	CHECK_STR(buf, "long[][]");
	names_return("()[Ljava/lang/String;", 1, buf, sizeof(buf));
	CHECK_STR(buf, "String[]");
	CHECK_EQ_U(names_return("(I", 1, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
	CHECK_EQ_U(names_return(NULL, 1, buf, sizeof(buf)), 0);
	CHECK_EQ_U(names_return("()Ljava/lang/Object;", 1, buf, 4), strlen("Object"));
	CHECK_STR(buf, "Obj");
}

/* Overloads, a clash of simple parameter names, a bridge method that
 * differs by its return type only, and a second class loader's copy. */
static void test_overload_names(void)
{
	static const struct {
		const char *name, *sig, *shown;
	} ms[] = {
	    {"m", "(I)V", "p.C.m(int)"},
	    {"m", "(Ljava/lang/String;)V", "p.C.m(String)"},
	    {"n", "()V", "p.C.n"},
	    {"p", "(La/X;)V", "p.C.p(a.X)"},
	    {"p", "(Lb/X;)V", "p.C.p(b.X)"},
	    {"q", "()Ljava/lang/Object;", "p.C.q(): Object"},
	    {"q", "()Ljava/lang/String;", "p.C.q(): String"},
	    {"s", "()La/X;", "p.C.s(): a.X"},
	    {"s", "()Lb/X;", "p.C.s(): b.X"},
	    {"u", "(I)[I", "p.C.u"},
	    {"r", "()V", "p.C.r"},
	    {"r", "()V", "p.C.r"}, /* the same method from another class loader */
	};
	const size_t n = sizeof(ms) / sizeof(ms[0]);
	struct model m;
	struct trace_visitor v;
	struct trace_thread th = {.serial = 1, .java_tid = 1, .os_tid = 1, .name = "main"};
	struct trace_event e = {.thread = 1, .nmetrics = 1, .type = JCAL_MT_INTERP_STATIC};
	struct trace_end end = {0, 1, 0};
	struct report_opts o = {0};
	uint64_t t = 0;
	int st;
	char *s;

	model_init(&m, NULL);
	model_visitor(&m, &v);
	CHECK_EQ_I(v.thread_start(v.ctx, &th), 0);
	for (size_t i = 0; i < n; i++) {
		struct trace_method tm = {.id = (uint32_t)i + 1, .modifiers = JCAL_ACC_STATIC};

		tm.class_sig = "Lp/C;";
		tm.name = ms[i].name;
		tm.sig = ms[i].sig;
		CHECK_EQ_I(v.method(v.ctx, &tm), 0);
		e.method = (uint32_t)i + 1;
		e.transition = JCAL_TR_ENTRY;
		e.metric[0] = t++;
		CHECK_EQ_I(v.event(v.ctx, &e), 0);
		e.transition = JCAL_TR_EXIT;
		e.metric[0] = t++;
		CHECK_EQ_I(v.event(v.ctx, &e), 0);
	}
	v.end(v.ctx, &end);
	CHECK_EQ_I(model_finish(&m), 0);
	CHECK_EQ_I(model_names(&m, 0), 0);
	for (size_t i = 0; i + 1 < n; i++)
		CHECK_STR(model_method_name(&m, (uint32_t)i + 1), ms[i].shown);
	/* the flat report: one row per method, r's two copies in one */
	o.format = REPORT_CSV;
	o.sort = FLAT_BY_NAME;
	s = mg_run(report_flat, &m, &o, &st);
	CHECK_STR(s, "method,calls,base,cum,raw_base,raw_cum\n"
		     "p.C.m(String),1,1,1,1,1\n"
		     "p.C.m(int),1,1,1,1,1\n"
		     "p.C.n,1,1,1,1,1\n"
		     "p.C.p(a.X),1,1,1,1,1\n"
		     "p.C.p(b.X),1,1,1,1,1\n"
		     "p.C.q(): Object,1,1,1,1,1\n"
		     "p.C.q(): String,1,1,1,1,1\n"
		     "p.C.r,2,2,2,2,2\n"
		     "p.C.s(): a.X,1,1,1,1,1\n"
		     "p.C.s(): b.X,1,1,1,1,1\n"
		     "p.C.u,1,1,1,1,1\n");
	free(s);
	/* --sig: the descriptors, as before */
	CHECK_EQ_I(model_names(&m, 1), 0);
	CHECK_STR(model_method_name(&m, 1), "p.C.m(I)V");
	CHECK_STR(model_method_name(&m, 3), "p.C.n()V");
	model_free(&m);
}

int main(void)
{
	RUN(test_order_ties);
	RUN(test_hot_path);
	RUN(test_cut_tree);
	RUN(test_cut_exports);
	RUN(test_cut_spans);
	RUN(test_params);
	RUN(test_overload_names);
	return test_summary("post-defaults");
}
