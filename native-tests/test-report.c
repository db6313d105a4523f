/*
 * test-report.c - unit tests of jcal-post's model and reports: method
 * names, CSV/JSON quoting, thread selection, the flat profile and every
 * report format on the fig4a golden vector (compared exactly with the
 * files in native-tests/golden/), and an end-to-end read of a synthetic
 * trace file through the real reader.
 */
#include <stdlib.h>
#include <unistd.h>

#include "postproc/flat.h"
#include "native-tests/golden.h"
#include "postproc/model.h"
#include "postproc/names.h"
#include "postproc/output.h"
#include "postproc/report.h"
#include "native-tests/test.h"
#include "postproc/threadsel.h"
#include "native-tests/tracegen.h"

static void test_names(void)
{
	static const struct {
		const char *cls, *name, *sig, *want;
	} cases[] = {
	    {"Lpkg/sub/Class$Inner;", "method", NULL, "pkg.sub.Class$Inner.method"},
	    {"Ljava/lang/String;", "length", "()I", "java.lang.String.length()I"},
	    {"LMain;", "main", "", "Main.main"},
	    {"[I", "clone", NULL, "int[].clone"},
	    {"[[Ljava/lang/Object;", "clone", NULL, "java.lang.Object[][].clone"},
	    {"[Z", "clone", NULL, "boolean[].clone"},
	    {"", "C", NULL, "C"},
	    {NULL, "C", NULL, "C"},
	    {"pkg/Plain", "m", NULL, "pkg.Plain.m"},
	    {"L;", "m", NULL, ".m"},
	    {"[Q", "m", NULL, "[Q.m"},
	};
	char buf[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n =
		    names_method(cases[i].cls, cases[i].name, cases[i].sig, buf, sizeof(buf));

		CHECK_STR(buf, cases[i].want);
		CHECK_EQ_U(n, strlen(cases[i].want));
	}
	/* truncation keeps the string terminated and reports the full length */
	CHECK_EQ_U(names_method("Ljava/lang/String;", "length", NULL, buf, 8), 23);
	CHECK_STR(buf, "java.la");
	CHECK_EQ_U(names_class("[J", buf, sizeof(buf)), 6);
	CHECK_STR(buf, "long[]");
}

/* Runs fn(f, arg) into a memory stream and returns the text (free it). */
static char *capture_str(void (*fn)(FILE *, const char *), const char *arg)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	fn(f, arg);
	fclose(f);
	return s;
}

static void test_csv_field(void)
{
	static const char *cases[][2] = {
	    {"plain", "plain"},
	    {"a,b", "\"a,b\""},
	    {"say \"hi\"", "\"say \"\"hi\"\"\""},
	    {"line\nbreak", "\"line\nbreak\""},
	    {"cr\r", "\"cr\r\""},
	    {"", ""},
	    {"semi;colon", "semi;colon"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = capture_str(csv_field, cases[i][0]);

		CHECK_STR(s, cases[i][1]);
		free(s);
	}
}

static void test_json_string(void)
{
	static const char *cases[][2] = {
	    {"plain", "\"plain\""},
	    {"q\"b\\", "\"q\\\"b\\\\\""},
	    {"\n\t\r\b\f\x01\x1f", "\"\\n\\t\\r\\b\\f\\u0001\\u001f\""},
	    {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	     "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""},
	    {"bad\xff\xc3", "\"bad\\ufffd\\ufffd\""},
	    {"nul\xc0\x80", "\"nul\\u0000\""},
	    {"\xed\xa0\xbd\xed\xb8\x80", "\"\\ud83d\\ude00\""},
	    {"\xe0\x80\x80", "\"\\ufffd\\ufffd\\ufffd\""},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = capture_str(json_string, cases[i][0]);

		CHECK_STR(s, cases[i][1]);
		free(s);
	}
	{
		char *s = capture_str(json_string, NULL);

		CHECK_STR(s, "null");
		free(s);
	}
}

static void test_threadsel(void)
{
	const char *pats1[] = {"main"}, *pats2[] = {"pool-*", "#7"}, *pats3[] = {"worker#3"};
	struct threadsel all = {NULL, 0}, s1 = {pats1, 1}, s2 = {pats2, 2}, s3 = {pats3, 1};

	CHECK(threadsel_match(&all, 1, "anything", 0));
	CHECK(threadsel_match(NULL, 1, "anything", 0));
	CHECK(threadsel_match(&s1, 1, "main", 0));
	CHECK(!threadsel_match(&s1, 1, "main2", 0));
	CHECK(threadsel_match(&s2, 2, "pool-1-thread-1", 0));
	CHECK(threadsel_match(&s2, 7, "x", 0));
	CHECK(!threadsel_match(&s2, 8, "x", 0));
	CHECK(threadsel_match(&s3, 3, "worker", 0));
	CHECK(!threadsel_match(&s3, 4, "worker", 0));
	CHECK(!threadsel_match(&s3, 3, "worker2", 0));
	const char *kinds[] = {"virtual"};
	struct threadsel sv = {kinds, 1};
	CHECK(threadsel_match(&sv, 9, "vt-1", TRACE_THREAD_VIRTUAL));
	CHECK(!threadsel_match(&sv, 1, "main", 0));
	kinds[0] = "platform";
	CHECK(threadsel_match(&sv, 1, "main", TRACE_THREAD_DAEMON));
	CHECK(!threadsel_match(&sv, 9, "vt-1", TRACE_THREAD_VIRTUAL));
	CHECK_EQ_I(threadsel_check("#12"), 0);
	CHECK_EQ_I(threadsel_check("#"), -1);
	CHECK_EQ_I(threadsel_check("#x"), -1);
	CHECK_EQ_I(threadsel_check("name"), 0);
}

/* Feeds the fig4a golden vector into m through the visitor callbacks, as
 * the reader would: meta, four methods, thread 1 "main", 20 events, END. */
static int fig4a_model(struct model *m)
{
	struct trace_visitor v;
	struct trace_method tm = {0};
	struct trace_thread tt = {0};
	struct trace_end end = {20, 1, 0};
	char lines[64][256];
	int n;

	model_init(m, NULL);
	model_visitor(m, &v);
	v.meta(v.ctx, "agent.version", "0.1.0");
	v.meta(v.ctx, "mode", "events");
	v.meta(v.ctx, "metrics", "ticks");
	v.meta(v.ctx, "metric.0.name", "ticks");
	v.meta(v.ctx, "metric.0.unit", "ticks");
	for (const char *p = "ABCX"; *p; p++) {
		char name[2] = {*p, 0};

		tm.id = golden_method_id(name);
		tm.modifiers = JCAL_ACC_STATIC;
		tm.class_sig = "";
		tm.name = name;
		tm.sig = "()V";
		v.method(v.ctx, &tm);
	}
	tt.serial = 1;
	tt.java_tid = 1;
	tt.os_tid = 4242;
	tt.name = "main";
	v.thread_start(v.ctx, &tt);
	n = golden_lines("fig4a.events", lines, 64);
	for (int i = 0; i < n; i++) {
		struct trace_event e = {.thread = 1, .nmetrics = 1, .type = JCAL_MT_INTERP_STATIC};
		unsigned long long t;
		char tr, name[8];

		if (sscanf(lines[i], "%llu %c %7s", &t, &tr, name) != 3)
			return -1;
		e.transition = tr == 'E' ? JCAL_TR_ENTRY : JCAL_TR_EXIT;
		e.method = golden_method_id(name);
		e.metric[0] = t;
		if (v.event(v.ctx, &e))
			return -1;
	}
	v.end(v.ctx, &end);
	if (model_finish(m) || model_names(m, 0))
		return -1;
	return n;
}

typedef int (*report_fn)(const struct model *, const struct report_opts *);

static char *run_report_sorted(const struct model *m, report_fn fn, enum report_format fmt,
			       const struct threadsel *sel, enum flat_sort sort)
{
	char *s = NULL;
	size_t n = 0;
	struct report_opts o = {0};
	FILE *f = open_memstream(&s, &n);

	o.out = f;
	o.format = fmt;
	o.sel = sel;
	o.sort = sort;
	o.order = TREE_ORDER_CALL; /* the golden vectors list contexts in call order */
	o.trace_path = "fig4a.bin";
	CHECK_EQ_I(fn(m, &o), 0);
	fclose(f);
	return s;
}

static char *run_report(const struct model *m, report_fn fn, enum report_format fmt,
			const struct threadsel *sel)
{
	return run_report_sorted(m, fn, fmt, sel, FLAT_BY_BASE);
}

/* Compares with a golden output; JCAL_GOLDEN_UPDATE=1 rewrites it. */
static void check_golden(const char *got, const char *name)
{
	char *want;

	if (getenv("JCAL_GOLDEN_UPDATE")) {
		char path[512];
		FILE *f;

		snprintf(path, sizeof(path), "native-tests/golden/%s", name);
		f = fopen(path, "w");
		CHECK(f != NULL);
		if (f) {
			fputs(got, f);
			fclose(f);
		}
		return;
	}
	want = golden_text(name);
	CHECK(want != NULL);
	if (want)
		CHECK_STR(got, want);
	free(want);
}

static void test_fig4a_flat(void)
{
	struct model m;
	char want[16][256], got[256];
	int nwant = golden_lines("fig4a.flat", want, 16);
	const struct calltree *trees[1];
	struct flat_row *r;
	size_t n;

	CHECK_EQ_I(fig4a_model(&m), 20);
	CHECK_EQ_I(nwant, 4);
	trees[0] = &m.thread_list[0]->tree;
	/* the golden vector lists the rows by cum */
	CHECK_EQ_I(
	    flat_build(trees, 1, 0, FLAT_BY_CUM, (flat_name_fn)model_method_name, &m, &r, &n), 0);
	CHECK_EQ_U(n, 4);
	for (size_t i = 0; i < n && (int)i < nwant; i++) {
		snprintf(got, sizeof(got), "%s %llu %llu %llu", r[i].name,
			 (unsigned long long)r[i].calls, (unsigned long long)r[i].base,
			 (unsigned long long)r[i].cum);
		CHECK_STR(got, want[i]);
		CHECK_EQ_U(r[i].raw_base, r[i].base);
		CHECK_EQ_U(r[i].raw_cum, r[i].cum);
	}
	free(r);
	/* the default order: by base, ties by name */
	CHECK_EQ_I(
	    flat_build(trees, 1, 0, FLAT_BY_BASE, (flat_name_fn)model_method_name, &m, &r, &n), 0);
	CHECK_EQ_U(n, 4);
	CHECK_STR(r[0].name, "B");
	CHECK_STR(r[1].name, "A");
	CHECK_STR(r[2].name, "C");
	CHECK_STR(r[3].name, "X");
	free(r);
	CHECK_EQ_I(
	    flat_build(trees, 1, 0, FLAT_BY_NAME, (flat_name_fn)model_method_name, &m, &r, &n), 0);
	CHECK_STR(r[0].name, "A");
	CHECK_STR(r[3].name, "X");
	free(r);
	CHECK_EQ_I(
	    flat_build(trees, 1, 0, FLAT_BY_CALLS, (flat_name_fn)model_method_name, &m, &r, &n), 0);
	CHECK_STR(r[0].name, "B");
	CHECK_STR(r[2].name, "C"); /* C and X: 1 call each, by name */
	free(r);
	model_free(&m);
}

/* The CSV reports agree with the golden tree/flat vectors. */
static void test_fig4a_csv_matches_vectors(void)
{
	struct model m;
	char want[16][256], got[256];
	int nwant;
	char *s, *line, *save;
	int row = 0;

	CHECK_EQ_I(fig4a_model(&m), 20);
	s = run_report(&m, report_tree, REPORT_CSV, NULL);
	nwant = golden_lines("fig4a.tree", want, 16);
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save), row++) {
		char thread[64], path[128] = "";
		unsigned level, rl;
		unsigned long long calls, base, cum, rb, rc;

		if (row == 0) {
			CHECK_STR(line, "thread,level,rl,calls,base,cum,raw_base,raw_cum,path");
			continue;
		}
		CHECK(sscanf(line, "%63[^,],%u,%u,%llu,%llu,%llu,%llu,%llu,%127s", thread, &level,
			     &rl, &calls, &base, &cum, &rb, &rc, path) >= 8);
		CHECK_STR(thread, "main#1");
		if (row == 1) {
			CHECK_STR(line, "main#1,0,1,1,0,19,0,19,");
			continue;
		}
		if (row - 2 >= nwant)
			break;
		snprintf(got, sizeof(got), "%s %llu %llu %llu", path, calls, base, cum);
		CHECK_STR(got, want[row - 2]);
	}
	CHECK_EQ_I(row, 11);
	free(s);

	s = run_report_sorted(&m, report_flat, REPORT_CSV, NULL, FLAT_BY_CUM);
	nwant = golden_lines("fig4a.flat", want, 16);
	row = 0;
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save), row++) {
		char name[64];
		unsigned long long calls, base, cum;

		if (row == 0) {
			CHECK_STR(line, "method,calls,base,cum,raw_base,raw_cum");
			continue;
		}
		CHECK(sscanf(line, "%63[^,],%llu,%llu,%llu", name, &calls, &base, &cum) == 4);
		if (row - 1 < nwant) {
			snprintf(got, sizeof(got), "%s %llu %llu %llu", name, calls, base, cum);
			CHECK_STR(got, want[row - 1]);
		}
	}
	CHECK_EQ_I(row, 5);
	free(s);
	model_free(&m);
}

/* Every report format, compared exactly with its golden output. */
static void test_fig4a_golden_outputs(void)
{
	static const struct {
		report_fn fn;
		enum report_format fmt;
		const char *file;
	} cases[] = {
	    {report_tree, REPORT_TEXT, "fig4a.report-tree.txt"},
	    {report_tree, REPORT_CSV, "fig4a.report-tree.csv"},
	    {report_tree, REPORT_JSON, "fig4a.report-tree.json"},
	    {report_flat, REPORT_TEXT, "fig4a.report-flat.txt"},
	    {report_flat, REPORT_CSV, "fig4a.report-flat.csv"},
	    {report_flat, REPORT_JSON, "fig4a.report-flat.json"},
	    {report_summary, REPORT_TEXT, "fig4a.report-summary.txt"},
	    {report_summary, REPORT_CSV, "fig4a.report-summary.csv"},
	    {report_summary, REPORT_JSON, "fig4a.report-summary.json"},
	};
	struct model m;

	CHECK_EQ_I(fig4a_model(&m), 20);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = run_report(&m, cases[i].fn, cases[i].fmt, NULL);

		check_golden(s, cases[i].file);
		free(s);
	}
	model_free(&m);
}

/* The default tree order: each context's children by cum, largest first
 * (C's B, cum 9, before A, cum 7), ties in call order; and by name. */
static void test_fig4a_tree_orders(void)
{
	struct model m;
	struct report_opts o = {0};
	char *s = NULL;
	size_t n = 0;
	FILE *f;

	CHECK_EQ_I(fig4a_model(&m), 20);
	f = open_memstream(&s, &n);
	o.out = f;
	o.format = REPORT_TEXT;
	CHECK_EQ_I(o.order, TREE_ORDER_CUM);
	CHECK_EQ_I(report_tree(&m, &o), 0);
	fclose(f);
	check_golden(s, "fig4a.report-tree-cum.txt");
	free(s);
	s = NULL;
	f = open_memstream(&s, &n);
	o.out = f;
	o.format = REPORT_CSV;
	o.order = TREE_ORDER_NAME;
	CHECK_EQ_I(report_tree(&m, &o), 0);
	fclose(f);
	/* by name: A before B under C, and under B: A before X */
	CHECK(strstr(s, ",C;A\n") < strstr(s, ",C;B\n"));
	CHECK(strstr(s, ",C;B;A;B;A\n") < strstr(s, ",C;B;A;X\n"));
	free(s);
	model_free(&m);
}

/* Threads seen only in events, unknown methods, a second thread, --thread. */
static void test_model_placeholders(void)
{
	struct model m;
	struct trace_visitor v;
	struct trace_event e = {.thread = 9, .nmetrics = 1, .type = JCAL_MT_INTERP};
	struct trace_thread tt = {.serial = 2, .name = "worker", .flags = TRACE_THREAD_DAEMON};
	const char *pats[] = {"#9"};
	struct threadsel sel = {pats, 1};
	char *s;

	model_init(&m, NULL);
	model_visitor(&m, &v);
	e.transition = JCAL_TR_ENTRY;
	e.method = 77;
	e.metric[0] = 5;
	CHECK_EQ_I(v.event(v.ctx, &e), 0);
	e.transition = JCAL_TR_EXIT;
	e.metric[0] = 9;
	CHECK_EQ_I(v.event(v.ctx, &e), 0);
	CHECK_EQ_I(v.thread_start(v.ctx, &tt), 0);
	CHECK_EQ_I(model_finish(&m), 0);
	CHECK_EQ_I(model_names(&m, 1), 0);
	CHECK_EQ_U(m.nthreads, 2);
	CHECK_EQ_U(m.thread_list[0]->serial, 2);
	CHECK_STR(m.thread_list[1]->name, "thread-#9");
	CHECK_STR(model_thread_kind(m.thread_list[0]), "daemon");
	CHECK_STR(model_method_name(&m, 77), "<unknown method #77>");
	CHECK_STR(model_method_name(&m, CALLTREE_ROOT_METHOD), "<thread root>");
	CHECK_EQ_U(m.nmetrics, 1);
	CHECK_STR(m.metric[0].name, "metric0");
	s = run_report(&m, report_tree, REPORT_CSV, &sel);
	CHECK_STR(s, "thread,level,rl,calls,base,cum,raw_base,raw_cum,path\n"
		     "thread-#9#9,0,1,1,0,4,0,4,\n"
		     "thread-#9#9,1,1,1,4,4,4,4,<unknown method #77>\n");
	free(s);
	model_free(&m);
}

static void test_model_tsc_and_metrics(void)
{
	struct model m;
	struct trace_visitor v;
	struct trace_event e = {.thread = 1, .nmetrics = 2, .type = JCAL_MT_INTERP};

	model_init(&m, NULL);
	model_visitor(&m, &v);
	v.meta(v.ctx, "metrics", "tsc+instructions");
	v.meta(v.ctx, "tsc.hz", "2000000000");
	v.meta(v.ctx, "metric.1.unit", "instructions");
	v.meta(v.ctx, "metric.0.why", "fallback");
	v.meta(v.ctx, "metric.0.why", "requested");
	e.transition = JCAL_TR_ENTRY;
	e.method = 1;
	CHECK_EQ_I(v.event(v.ctx, &e), 0);
	e.transition = JCAL_TR_EXIT;
	e.metric[0] = 3000;
	e.metric[1] = 100;
	CHECK_EQ_I(v.event(v.ctx, &e), 0);
	CHECK_EQ_I(model_finish(&m), 0);
	CHECK_EQ_U(m.nmetrics, 2);
	CHECK_STR(m.metric[0].name, "tsc");
	CHECK_STR(m.metric[0].unit, "ns");
	CHECK_STR(m.metric[0].why, "requested");
	CHECK_STR(m.metric[1].name, "instructions");
	CHECK_EQ_I(model_metric_index(&m, "instructions"), 1);
	CHECK_EQ_I(model_metric_index(&m, "cycles"), -1);
	CHECK_EQ_U(model_value(&m, 0, 3000), 1500);
	CHECK_EQ_U(model_value(&m, 1, 100), 100);
	CHECK_EQ_U(calltree_fig(&m.thread_list[0]->tree, 1, 1)->raw_base, 100);
	model_free(&m);
}

/* Writes fig4a as a real trace file and reads it back through the reader. */
static void test_trace_file_roundtrip(void)
{
	char path[] = "/tmp/jcal-test-report-XXXXXX";
	int fd = mkstemp(path);
	struct tracegen tg;
	struct trace_result res;
	struct model m, ref;
	char lines[64][256];
	int n = golden_lines("fig4a.events", lines, 64);
	char *a, *b;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	CHECK_EQ_I(tg_open(&tg, path), 0);
	trace_rec_meta(&tg.rb, "agent.version", "0.1.0");
	trace_rec_meta(&tg.rb, "mode", "events");
	trace_rec_meta(&tg.rb, "metrics", "ticks");
	trace_rec_meta(&tg.rb, "metric.0.name", "ticks");
	trace_rec_meta(&tg.rb, "metric.0.unit", "ticks");
	for (const char *p = "ABCX"; *p; p++) {
		char name[2] = {*p, 0};

		trace_rec_method(&tg.rb, golden_method_id(name), JCAL_ACC_STATIC, "", name, "()V");
	}
	trace_rec_thread_start(&tg.rb, 1, 1, 4242, 0, 0, "main", 1, (uint64_t[]){0});
	tg_flush(&tg);
	tg_events_begin(&tg, 1, 1);
	for (int i = 0; i < n; i++) {
		unsigned long long t;
		char tr, name[8];
		uint64_t metric[1];

		sscanf(lines[i], "%llu %c %7s", &t, &tr, name);
		metric[0] = t;
		tg_event(&tg, tr == 'E' ? JCAL_TR_ENTRY : JCAL_TR_EXIT, JCAL_MT_INTERP_STATIC,
			 golden_method_id(name), metric);
	}
	tg_events_end(&tg);
	trace_rec_end(&tg.rb, 20, 1, 0);
	CHECK_EQ_I(tg_close(&tg), 0);

	model_init(&m, NULL);
	CHECK_EQ_I(model_load(&m, path, &res), TRACE_OK);
	CHECK(res.has_end);
	CHECK_EQ_I(model_finish(&m), 0);
	CHECK_EQ_I(model_names(&m, 0), 0);
	CHECK_EQ_I(fig4a_model(&ref), 20);
	a = run_report(&m, report_tree, REPORT_TEXT, NULL);
	b = run_report(&ref, report_tree, REPORT_TEXT, NULL);
	CHECK_STR(a, b);
	free(a);
	free(b);
	model_free(&m);
	model_free(&ref);

	/* cut off inside the last chunk: truncated, what came before is read */
	{
		FILE *f = fopen(path, "r+b");
		long size;

		CHECK(f != NULL);
		fseek(f, 0, SEEK_END);
		size = ftell(f);
		fclose(f);
		CHECK_EQ_I(truncate(path, size - 3), 0);
		model_init(&m, NULL);
		CHECK_EQ_I(model_load(&m, path, &res), TRACE_TRUNCATED);
		CHECK(!m.has_end);
		CHECK_EQ_I(model_finish(&m), 0);
		CHECK_EQ_U(m.thread_list[0]->tree.stats.events, 20);
		model_free(&m);
	}
	unlink(path);
}

int main(void)
{
	RUN(test_names);
	RUN(test_csv_field);
	RUN(test_json_string);
	RUN(test_threadsel);
	RUN(test_fig4a_flat);
	RUN(test_fig4a_csv_matches_vectors);
	RUN(test_fig4a_golden_outputs);
	RUN(test_fig4a_tree_orders);
	RUN(test_model_placeholders);
	RUN(test_model_tsc_and_metrics);
	RUN(test_trace_file_roundtrip);
	return test_summary("report");
}
