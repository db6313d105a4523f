/*
 * test-throttle.c - throttle=CALLS:NS's pure parts: the rule
 * (throttle_decide), the own time of each call (common/throttle_stack.h),
 * the throttle.method.ID meta record's format and
 * parse (common/throttle_fact.c), and jcal-post's list of throttled
 * methods read from a model's meta records (postproc/throttled.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "postproc/merge_throttled.h"
#include "postproc/model.h"
#include "postproc/report.h"
#include "native-tests/test.h"
#include "common/throttle_fact.h"
#include "common/throttle_stack.h"
#include "postproc/throttled.h"

static void test_decide(void)
{
	/* more than CALLS calls ... */
	CHECK(!throttle_decide(100, 100, 100, 100, 200));
	CHECK(throttle_decide(101, 100, 100, 100, 200));
	/* ... whose completed calls average under NS (strictly) */
	CHECK(throttle_decide(101, 10, 1999, 100, 200));
	CHECK(!throttle_decide(101, 10, 2000, 100, 200));
	CHECK(!throttle_decide(101, 10, 5000, 100, 200));
	/* nothing timed yet: no average, no decision */
	CHECK(!throttle_decide(1000, 0, 0, 100, 200));
	/* no overflow: NS x timed past 2^64 means any sum is under it */
	CHECK(throttle_decide(UINT64_MAX, UINT64_MAX, UINT64_MAX - 1, 1, 2));
	CHECK(!throttle_decide(UINT64_MAX, 1ull << 62, UINT64_MAX, 1, 3));
	CHECK(throttle_decide(UINT64_MAX, 1ull << 62, UINT64_MAX, 1, 4));
	/* CALLS at the top: never */
	CHECK(!throttle_decide(UINT64_MAX, 1, 0, UINT64_MAX, 200));
}

/* Exits one call of m at v: its own time, or UINT64_MAX when not timed. */
static uint64_t self_at(struct throttle_stack *s, const void *m, uint64_t v)
{
	uint64_t self = 12345;

	return throttle_stack_exit(s, m, v, &self) ? self : UINT64_MAX;
}

static void test_stack_self_time(void)
{
	static struct throttle_stack s; /* 6 KB: not on the stack */
	static const char a, b, c;
	uint64_t v = 1000;

	/* a calls b twice; b calls c: each call's own time, callees out */
	throttle_stack_enter(&s, &a, v);
	v += 7;
	throttle_stack_enter(&s, &b, v);
	v += 3;
	throttle_stack_enter(&s, &c, v);
	v += 50;
	CHECK_EQ_U(self_at(&s, &c, v), 50);
	v += 4;
	CHECK_EQ_U(self_at(&s, &b, v), 7); /* 57 less c's 50 */
	throttle_stack_enter(&s, &b, v);
	v += 20;
	CHECK_EQ_U(self_at(&s, &b, v), 20);
	v += 1;
	CHECK_EQ_U(self_at(&s, &a, v), 8); /* 85 less 57 and 20 */
	CHECK_EQ_U(s.depth, 0);

	/* a linear recursion of 200 levels, 5 a level before the call and 2
	 * after: every level's own time is 7, the outermost call's inclusive
	 * time 1400 (the rule on inclusive time averaged ~700 a call) */
	for (int i = 0; i < 200; i++) {
		throttle_stack_enter(&s, &a, v);
		v += 5;
	}
	for (int i = 0; i < 200; i++) {
		v += 2;
		CHECK_EQ_U(self_at(&s, &a, v), 7);
	}
	CHECK_EQ_U(s.depth, 0);

	/* an exit with no entry seen: not timed, nothing changes */
	CHECK_EQ_U(self_at(&s, &a, v), UINT64_MAX);
	CHECK_EQ_U(s.depth, 0);
}

static void test_stack_odd_exits(void)
{
	static struct throttle_stack s;
	static const char a, b, c, d;
	uint64_t v = 0;

	/* b's frame never saw its exit (a throw past its probes): a's exit
	 * drops it; b's time, c's included, stays a's own */
	throttle_stack_enter(&s, &a, v);
	throttle_stack_enter(&s, &b, v += 10);
	throttle_stack_enter(&s, &c, v += 10);
	CHECK_EQ_U(self_at(&s, &c, v += 5), 5);
	CHECK_EQ_U(self_at(&s, &a, v += 10), 35);
	CHECK_EQ_U(s.depth, 0);

	/* a method not among the top four frames: not timed, stack kept */
	throttle_stack_enter(&s, &d, v);
	throttle_stack_enter(&s, &a, v);
	throttle_stack_enter(&s, &b, v);
	throttle_stack_enter(&s, &c, v);
	throttle_stack_enter(&s, &b, v);
	CHECK_EQ_U(self_at(&s, &d, v), UINT64_MAX);
	CHECK_EQ_U(s.depth, 5);
	/* three frames down is still found */
	CHECK_EQ_U(self_at(&s, &a, v += 3), 3);
	CHECK_EQ_U(s.depth, 1);
	CHECK_EQ_U(self_at(&s, &d, v += 1), 1); /* a's 3 taken out */
	CHECK_EQ_U(s.depth, 0);

	/* past THROTTLE_DEPTH frames are counted, not timed; the ones below
	 * are timed again, their deep callees' time their own */
	for (int i = 0; i < THROTTLE_DEPTH + 3; i++)
		throttle_stack_enter(&s, &a, v += 1);
	for (int i = 0; i < 3; i++)
		CHECK_EQ_U(self_at(&s, &a, v += 1), UINT64_MAX);
	CHECK_EQ_U(self_at(&s, &a, v += 1), 7); /* 1 + the 3 deeper calls' 6 */
	CHECK_EQ_U(self_at(&s, &a, v += 1), 2);
	while (s.depth)
		(void)self_at(&s, &a, v);

	/* the metric went back: 0, never a wrapped difference */
	throttle_stack_enter(&s, &a, 100);
	CHECK_EQ_U(self_at(&s, &a, 90), 0);
}

/* Field by field: the structs' padding bytes are unspecified. */
static int fact_eq(const struct throttle_fact *a, const struct throttle_fact *b)
{
	return a->method == b->method && a->time_ns == b->time_ns && a->calls == b->calls &&
	       a->timed == b->timed && a->sum == b->sum && a->final_calls == b->final_calls &&
	       a->has_final == b->has_final && a->counted == b->counted &&
	       a->has_counted == b->has_counted && a->tiny == b->tiny && a->inlined == b->inlined;
}

static void test_fact_round_trip(void)
{
	struct throttle_fact f = {7, 1795451460297956490ull, 31499, 31487, 1156680, 0, 0, 0, 0, 0,
				  0},
			     g;
	char key[64], val[256];

	CHECK(throttle_fact_format(&f, key, sizeof(key), val, sizeof(val)) == 0);
	CHECK_STR(key, "throttle.method.7");
	CHECK_STR(val, "time_ns=1795451460297956490 calls=31499 timed=31487 sum=1156680");
	CHECK(throttle_fact_parse(key, val, &g) == 0);
	CHECK(fact_eq(&f, &g));
	f.final_calls = 31500;
	f.has_final = 1;
	f.method = UINT32_MAX;
	CHECK(throttle_fact_format(&f, key, sizeof(key), val, sizeof(val)) == 0);
	CHECK_STR(key, "throttle.method.4294967295");
	CHECK(throttle_fact_parse(key, val, &g) == 0);
	CHECK_EQ_U(g.method, UINT32_MAX);
	CHECK(g.has_final);
	CHECK_EQ_U(g.final_calls, 31500);
	CHECK_EQ_U(g.sum, 1156680);
	CHECK(!g.has_counted);
	/* the calls its counting probe counted in the recording */
	f.counted = 968501;
	f.has_counted = 1;
	CHECK(throttle_fact_format(&f, key, sizeof(key), val, sizeof(val)) == 0);
	CHECK_STR(val, "time_ns=1795451460297956490 calls=31499 timed=31487 sum=1156680 "
		       "final_calls=31500 counted=968501");
	CHECK(throttle_fact_parse(key, val, &g) == 0);
	CHECK(fact_eq(&f, &g));
	CHECK(throttle_fact_format(&f, key, sizeof(key), val, 92) == -1);
	f.has_final = 0; /* counted without final_calls reads back too */
	f.final_calls = 0;
	CHECK(throttle_fact_format(&f, key, sizeof(key), val, sizeof(val)) == 0);
	CHECK(throttle_fact_parse(key, val, &g) == 0);
	CHECK(fact_eq(&f, &g));
	f.has_final = 1;
	f.final_calls = 31500;
	/* a tiny method's record (tiny=count): reason=tiny, last */
	f.tiny = 1;
	CHECK(throttle_fact_format(&f, key, sizeof(key), val, sizeof(val)) == 0);
	CHECK_STR(val, "time_ns=1795451460297956490 calls=31499 timed=31487 sum=1156680 "
		       "final_calls=31500 counted=968501 reason=tiny");
	CHECK(throttle_fact_parse(key, val, &g) == 0);
	CHECK(fact_eq(&f, &g) && g.tiny);
	CHECK(throttle_fact_format(&f, key, sizeof(key), val, 100) == -1);
	f.tiny = 0;
	/* a method the JIT had inlined (inlined=count): reason=inlined */
	f.inlined = 1;
	CHECK(throttle_fact_format(&f, key, sizeof(key), val, sizeof(val)) == 0);
	CHECK_STR(val, "time_ns=1795451460297956490 calls=31499 timed=31487 sum=1156680 "
		       "final_calls=31500 counted=968501 reason=inlined");
	CHECK(throttle_fact_parse(key, val, &g) == 0);
	CHECK(fact_eq(&f, &g) && g.inlined && !g.tiny);
	CHECK(throttle_fact_format(&f, key, sizeof(key), val, 103) == -1);
	/* another reason is read as none */
	CHECK(throttle_fact_parse(key, "time_ns=1 calls=2 timed=3 sum=4 reason=inline", &g) == 0);
	CHECK(!g.inlined && !g.tiny);
	f.inlined = 0;
	/* buffers too small */
	CHECK(throttle_fact_format(&f, key, 10, val, sizeof(val)) == -1);
	CHECK(throttle_fact_format(&f, key, sizeof(key), val, 40) == -1);
	CHECK(throttle_fact_format(&f, key, sizeof(key), val, 70) == -1);
}

static void test_fact_parse_errors(void)
{
	struct throttle_fact g;

	/* not ours */
	CHECK(throttle_fact_parse("throttle", "10:20", &g) == 1);
	CHECK(throttle_fact_parse("mode", "bci", &g) == 1);
	/* later agents may add fields: skipped */
	CHECK(throttle_fact_parse("throttle.method.3", "new=x time_ns=1 calls=2 timed=3 sum=4 z=9",
				  &g) == 0);
	CHECK_EQ_U(g.calls, 2);
	CHECK(!g.has_final);
	CHECK(!g.has_counted);
	CHECK(throttle_fact_parse("throttle.method.3", "time_ns=1 calls=2 timed=3 sum=4 counted=x",
				  &g) == -1);
	/* reason=tiny marks a tiny method; another reason is a later agent's */
	CHECK(throttle_fact_parse("throttle.method.3",
				  "reason=tiny time_ns=1 calls=0 timed=0 sum=0", &g) == 0);
	CHECK(g.tiny);
	CHECK(throttle_fact_parse("throttle.method.3",
				  "time_ns=1 calls=0 timed=0 sum=0 reason=tinyx", &g) == 0);
	CHECK(!g.tiny);
	CHECK(throttle_fact_parse("throttle.method.3",
				  "time_ns=1 calls=0 timed=0 sum=0 reason=", &g) == 0);
	CHECK(!g.tiny);
	/* malformed */
	CHECK(throttle_fact_parse("throttle.method.", "time_ns=1 calls=2 timed=3 sum=4", &g) == -1);
	CHECK(throttle_fact_parse("throttle.method.0", "time_ns=1 calls=2 timed=3 sum=4", &g) ==
	      -1);
	CHECK(throttle_fact_parse("throttle.method.4294967296", "time_ns=1 calls=2 timed=3 sum=4",
				  &g) == -1);
	CHECK(throttle_fact_parse("throttle.method.3x", "time_ns=1 calls=2 timed=3 sum=4", &g) ==
	      -1);
	CHECK(throttle_fact_parse("throttle.method.3", "time_ns=1 calls=2 timed=3", &g) == -1);
	CHECK(throttle_fact_parse("throttle.method.3", "time_ns=1 calls=-2 timed=3 sum=4", &g) ==
	      -1);
	CHECK(throttle_fact_parse("throttle.method.3", "time_ns=1 calls=2x timed=3 sum=4", &g) ==
	      -1);
	CHECK(throttle_fact_parse("throttle.method.3",
				  "time_ns=1 calls=99999999999999999999 timed=3 sum=4", &g) == -1);
	CHECK(throttle_fact_parse("throttle.method.3", "garbage", &g) == -1);
	CHECK(throttle_fact_parse("throttle.method.3", "a=1 b time_ns=1 calls=2 timed=3 sum=4",
				  &g) == -1);
	CHECK(throttle_fact_parse("throttle.method.3", "", &g) == -1);
	CHECK(throttle_fact_parse("throttle.method.3", NULL, &g) == -1);
}

static int add_meta(struct trace_visitor *v, const char *k, const char *val)
{
	return v->meta(v->ctx, k, val);
}

static void test_post_list(void)
{
	struct model m;
	struct trace_visitor v;
	struct throttle_fact *f;
	size_t n, bad;

	model_init(&m, NULL);
	memset(&v, 0, sizeof(v));
	model_visitor(&m, &v);
	/* a trace without throttle=: nothing is throttled */
	CHECK(add_meta(&v, "throttle.method.5", "time_ns=9 calls=1 timed=1 sum=1") == 0);
	CHECK(!throttled_is(&m, 5));
	CHECK(add_meta(&v, "throttle", "10:20") == 0);
	CHECK(throttled_is(&m, 5));
	CHECK(add_meta(&v, "throttle.method.9", "time_ns=3 calls=11 timed=10 sum=100") == 0);
	CHECK(add_meta(&v, "throttle.method.2", "bad") == 0);
	/* the final count, written at the end, replaces the first record */
	CHECK(add_meta(&v, "throttle.method.9",
		       "time_ns=3 calls=11 timed=10 sum=100 final_calls=12") == 0);
	CHECK(throttled_list(&m, &f, &n, &bad) == 0);
	CHECK_EQ_U(n, 2);
	CHECK_EQ_U(bad, 1);
	if (n == 2) {
		CHECK_EQ_U(f[0].method, 9); /* by time */
		CHECK_EQ_U(throttled_calls(&f[0]), 12);
		CHECK_EQ_U(f[0].calls, 11);
		CHECK_EQ_U(f[1].method, 5);
		CHECK_EQ_U(throttled_calls(&f[1]), 1);
	}
	free(f);
	CHECK(throttled_is(&m, 9) && throttled_is(&m, 2) && !throttled_is(&m, 3));
	model_free(&m);
}

static int event(struct trace_visitor *v, uint32_t method, unsigned tr, uint64_t t)
{
	struct trace_event e = {.thread = 1,
				.method = method,
				.transition = (uint8_t)tr,
				.type = JCAL_MT_JIT_STATIC,
				.nmetrics = 1};

	e.metric[0] = t;
	return v->event(v->ctx, &e);
}

/* A model of a cputime trace recorded with throttle=10:20, fed through v. */
static void throttled_trace(struct model *m, struct trace_visitor *v)
{
	model_init(m, NULL);
	memset(v, 0, sizeof(*v));
	model_visitor(m, v);
	CHECK(add_meta(v, "metric.0.name", "cputime") == 0);
	CHECK(add_meta(v, "throttle", "10:20") == 0);
}

/* The summary gives, beside the calls counted since the agent loaded, the
 * entries the trace recorded: 9 entered 3 times in two calling contexts,
 * 5 never (throttled before anything was recorded). */
static void test_post_recorded(void)
{
	struct model m;
	struct trace_visitor v;
	struct trace_thread tt = {.serial = 1, .java_tid = 1, .os_tid = 7, .name = "main"};
	struct report_opts o;
	char *out = NULL;
	size_t len = 0;
	uint64_t t = 0;

	throttled_trace(&m, &v);
	CHECK(add_meta(&v, "throttle.method.5",
		       "time_ns=2 calls=40 timed=40 sum=80 final_calls=40") == 0);
	CHECK(add_meta(&v, "throttle.method.9",
		       "time_ns=3 calls=11 timed=10 sum=100 final_calls=12") == 0);
	CHECK(v.thread_start(v.ctx, &tt) == 0);
	/* 7 { 9 9 } 9 */
	CHECK(event(&v, 7, JCAL_TR_ENTRY, t += 10) == 0);
	for (int i = 0; i < 2; i++) {
		CHECK(event(&v, 9, JCAL_TR_ENTRY, t += 10) == 0);
		CHECK(event(&v, 9, JCAL_TR_EXIT, t += 10) == 0);
	}
	CHECK(event(&v, 7, JCAL_TR_EXIT, t += 10) == 0);
	CHECK(event(&v, 9, JCAL_TR_ENTRY, t += 10) == 0);
	CHECK(event(&v, 9, JCAL_TR_EXIT, t += 10) == 0);
	CHECK(model_finish(&m) == 0);
	CHECK(model_names(&m, 0) == 0);
	memset(&o, 0, sizeof(o));
	o.out = open_memstream(&out, &len);
	o.format = REPORT_CSV;
	CHECK(o.out != NULL);
	if (!o.out) {
		model_free(&m);
		return;
	}
	CHECK(throttled_summary_csv(&m, &o) == 0);
	fclose(o.out);
	CHECK(out && strstr(out, "throttled,2\n"));
	/* by time: 5 first */
	CHECK(out && strstr(out, "throttled.0.calls,40\nthrottled.0.calls_at_throttling,40\n"
				 "throttled.0.recorded_calls,0\n"));
	CHECK(out && strstr(out, "throttled.1.calls,12\nthrottled.1.calls_at_throttling,11\n"
				 "throttled.1.recorded_calls,3\n"));
	free(out);
	model_free(&m);
}

/* The flat report of a trace whose throttled method 9 was counted 6 times
 * after its probes went: calls 3 + 6; with a calibrated report its
 * counted calls' time estimated at its recorded base per call (10), 60 in
 * all, of which 7, which made 2 of its 3 recorded calls, loses 40 (the
 * share of the call from the thread's root stays there). Raw: calls only. */
static void test_post_flat_counted(void)
{
	struct model m;
	struct trace_visitor v;
	struct trace_thread tt = {.serial = 1, .java_tid = 1, .os_tid = 7, .name = "main"};
	struct report_opts o;
	char *out = NULL;
	size_t len = 0;

	throttled_trace(&m, &v);
	CHECK(add_meta(&v, "throttle.method.9",
		       "time_ns=3 calls=11 timed=10 sum=100 final_calls=12 counted=6") == 0);
	CHECK(v.thread_start(v.ctx, &tt) == 0);
	/* 7 (100 of its own) { 9 9 } and 9 at the root, 10 each */
	CHECK(event(&v, 7, JCAL_TR_ENTRY, 10) == 0);
	CHECK(event(&v, 9, JCAL_TR_ENTRY, 110) == 0);
	CHECK(event(&v, 9, JCAL_TR_EXIT, 120) == 0);
	CHECK(event(&v, 9, JCAL_TR_ENTRY, 130) == 0);
	CHECK(event(&v, 9, JCAL_TR_EXIT, 140) == 0);
	CHECK(event(&v, 7, JCAL_TR_EXIT, 150) == 0);
	CHECK(event(&v, 9, JCAL_TR_ENTRY, 160) == 0);
	CHECK(event(&v, 9, JCAL_TR_EXIT, 170) == 0);
	CHECK(model_finish(&m) == 0);
	CHECK(model_names(&m, 0) == 0);
	for (int calibrated = 0; calibrated < 2; calibrated++) {
		memset(&o, 0, sizeof(o));
		o.out = open_memstream(&out, &len);
		o.format = REPORT_CSV;
		o.calibrated = calibrated;
		CHECK(o.out != NULL);
		if (!o.out)
			break;
		CHECK(report_flat(&m, &o) == 0);
		fclose(o.out);
		CHECK(out &&
		      strstr(out, "method,calls,base,cum,raw_base,raw_cum,throttled,estimated\n"));
		if (calibrated) {
			CHECK(out && strstr(out, ",9,90,90,90,90,1,60\n"));
			CHECK(out && strstr(out, ",1,80,140,80,140,0,0\n"));
		} else {
			CHECK(out && strstr(out, ",9,30,30,30,30,1,0\n"));
			CHECK(out && strstr(out, ",1,120,140,120,140,0,0\n"));
		}
		if (out && (!strstr(out, ",9,") || !strstr(out, ",1,")))
			fprintf(stderr, "%s", out);
		free(out);
		out = NULL;
	}
	model_free(&m);
}

/* Writes a summary of m in format fmt into a string (free it). */
static char *summary_of(struct model *m, enum report_format fmt)
{
	struct report_opts o;
	char *out = NULL;
	size_t len = 0;

	memset(&o, 0, sizeof(o));
	o.out = open_memstream(&out, &len);
	o.format = fmt;
	if (!o.out)
		return NULL;
	if (fmt == REPORT_CSV)
		CHECK(throttled_summary_csv(m, &o) == 0);
	else if (fmt == REPORT_JSON)
		CHECK(throttled_summary_json(m, &o) == 0);
	else
		CHECK(throttled_summary_text(m, &o) == 0);
	fclose(o.out);
	return out;
}

/* A model with the meta records kv (key, value, ..., NULL) and one thread
 * "main" that calls method 1 once, finished and named. */
static void model_of_metas(struct model *m, const char *const *kv)
{
	struct trace_visitor v;
	struct trace_thread tt = {.serial = 1, .java_tid = 1, .os_tid = 7, .name = "main"};

	model_init(m, NULL);
	memset(&v, 0, sizeof(v));
	model_visitor(m, &v);
	for (size_t i = 0; kv[i] && kv[i + 1]; i += 2)
		CHECK(add_meta(&v, kv[i], kv[i + 1]) == 0);
	CHECK(v.thread_start(v.ctx, &tt) == 0);
	CHECK(event(&v, 1, JCAL_TR_ENTRY, 10) == 0);
	CHECK(event(&v, 1, JCAL_TR_EXIT, 50) == 0);
	CHECK(model_finish(m) == 0);
	CHECK(model_names(m, 0) == 0);
}

/* tiny=count alone (throttle=off): tiny methods 4 (counted 7 times here),
 * 6 (5 times) and 8 (never called here). The text summary has no
 * "throttled:" part, a "tiny:" one that lists the two called, most
 * counted first, "from the start"; CSV and JSON list them with reason
 * tiny; the flat report gives each its counted calls, marked. */
static void test_post_tiny(void)
{
	static const char *const kv[] = {
	    "metric.0.name",
	    "cputime",
	    "throttle",
	    "off",
	    "throttle.tiny",
	    "35",
	    "start.time_ns",
	    "100",
	    "throttle.method.8",
	    "time_ns=50 calls=0 timed=0 sum=0 final_calls=0 counted=0 reason=tiny",
	    "throttle.method.6",
	    "time_ns=60 calls=0 timed=0 sum=0 final_calls=0 counted=5 reason=tiny",
	    "throttle.method.4",
	    "time_ns=70 calls=0 timed=0 sum=0 final_calls=0 counted=7 reason=tiny",
	    NULL};
	struct model m;
	char *out;

	model_of_metas(&m, kv);
	out = summary_of(&m, REPORT_TEXT);
	CHECK(out && !strstr(out, "throttled:"));
	CHECK(out &&
	      strstr(out, "  tiny:                  3 methods (tiny=count: no call, no loop, "
			  "at most 35 bytes of bytecode): only a probe that counts their "
			  "calls from the start, their time their callers'; 2 of them counted "
			  "here, 12 calls counted"));
	CHECK(out && strstr(out, "    from the start  7 counted  "));
	CHECK(out && strstr(out, "    from the start  5 counted  "));
	CHECK(out && strstr(out, "7 counted") < strstr(out, "5 counted"));
	free(out);
	out = summary_of(&m, REPORT_CSV);
	CHECK(out && strstr(out, "throttled,0\n"));
	CHECK(out && strstr(out, "throttled.tiny,3\nthrottled.tiny_called,2\n"));
	CHECK(out && strstr(out, "throttled.0.counted_calls,7\nthrottled.0.reason,tiny\n"));
	CHECK(out && strstr(out, "throttled.1.counted_calls,5\nthrottled.1.reason,tiny\n"));
	CHECK(out && !strstr(out, "throttled.2."));
	free(out);
	out = summary_of(&m, REPORT_JSON);
	CHECK(out && strstr(out, "\"rule\":\"off\""));
	CHECK(out && strstr(out, "\"tiny\":3,\"tiny_called\":2"));
	CHECK(out && strstr(out, "\"counted_calls\":7,\"reason\":\"tiny\"") == NULL);
	CHECK(out && strstr(out, ",\"reason\":\"tiny\",\"counted_calls\":7}"));
	free(out);
	/* the flat report: 4 and 6 get rows of their own, marked */
	struct report_opts o;
	size_t len = 0;
	out = NULL;
	memset(&o, 0, sizeof(o));
	o.out = open_memstream(&out, &len);
	o.format = REPORT_CSV;
	CHECK(o.out && report_flat(&m, &o) == 0);
	if (o.out)
		fclose(o.out);
	CHECK(out && strstr(out, ",7,0,0,0,0,1,0\n"));
	CHECK(out && strstr(out, ",5,0,0,0,0,1,0\n"));
	CHECK(out && strstr(out, ",1,40,40,40,40,0,0\n"));
	free(out);
	model_free(&m);
}

static uint32_t plus100(void *ctx, uint32_t id)
{
	(void)ctx;
	return id + 100;
}

/* A merged profile's records: each input's taken to the profile's ids and
 * added (earliest time; calls, timed, sum and counted summed). */
static void test_merge_throttled(void)
{
	struct model a, b, out;
	struct trace_visitor v;
	struct merge_throttled t;

	memset(&t, 0, sizeof(t));
	model_init(&a, NULL);
	model_init(&b, NULL);
	model_init(&out, NULL);
	model_visitor(&a, &v);
	CHECK(add_meta(&v, "throttle", "1000:5000") == 0);
	CHECK(add_meta(&v, "throttle.time", "self") == 0);
	CHECK(add_meta(&v, "throttle.method.9",
		       "time_ns=30 calls=1001 timed=1000 sum=500 final_calls=1001 counted=7") == 0);
	model_visitor(&b, &v);
	CHECK(add_meta(&v, "throttle", "1000:5000") == 0);
	CHECK(add_meta(&v, "throttle.method.9",
		       "time_ns=20 calls=1002 timed=1002 sum=600 final_calls=1003 counted=5") == 0);
	CHECK(add_meta(&v, "throttle.method.4", "time_ns=40 calls=2000 timed=1 sum=1") == 0);
	/* a tiny method (tiny=count) stays one */
	CHECK(add_meta(&v, "throttle.tiny", "35") == 0);
	CHECK(add_meta(&v, "throttle.method.6",
		       "time_ns=10 calls=0 timed=0 sum=0 final_calls=0 counted=3 reason=tiny") ==
	      0);
	/* an input without throttle= adds nothing */
	CHECK(merge_throttled_add(&t, &out, plus100, NULL) == 0 && t.n == 0);
	CHECK(merge_throttled_add(&t, &a, plus100, NULL) == 0);
	CHECK(merge_throttled_add(&t, &b, plus100, NULL) == 0);
	model_visitor(&out, &v);
	CHECK(merge_throttled_write(&t, &v) == 0);
	CHECK(model_meta(&out, "throttle") && !strcmp(model_meta(&out, "throttle"), "1000:5000"));
	CHECK(model_meta(&out, "throttle.time") &&
	      !strcmp(model_meta(&out, "throttle.time"), "self"));
	const char *m9 = model_meta(&out, "throttle.method.109"),
		   *m4 = model_meta(&out, "throttle.method.104");
	CHECK(m9 &&
	      !strcmp(m9, "time_ns=20 calls=2003 timed=2002 sum=1100 final_calls=2004 counted=12"));
	CHECK(m4 && !strcmp(m4, "time_ns=40 calls=2000 timed=1 sum=1 final_calls=2000"));
	CHECK(!model_meta(&out, "throttle.method.9"));
	const char *m6 = model_meta(&out, "throttle.method.106");
	CHECK(m6 && !strcmp(m6, "time_ns=10 calls=0 timed=0 sum=0 final_calls=0 counted=3 "
				"reason=tiny"));
	CHECK(model_meta(&out, "throttle.tiny") &&
	      !strcmp(model_meta(&out, "throttle.tiny"), "35"));
	merge_throttled_free(&t);
	model_free(&a);
	model_free(&b);
	model_free(&out);
}

/* inlined=count beside the rule and tiny=count: method 2 throttled by the
 * rule, 6 tiny (counted 5 times), 4 and 8 inlined (7 times, never). Each
 * has its part of the text summary: the rule's lists 2 alone, "tiny:" 6,
 * "inlined:" the one of its two called here; CSV and JSON count them
 * apart and give reason inlined; a merge keeps the reason and the meta. */
static void test_post_inlined(void)
{
	static const char *const kv[] = {
	    "metric.0.name",
	    "cputime",
	    "throttle",
	    "1000:5000",
	    "throttle.time",
	    "self",
	    "throttle.tiny",
	    "35",
	    "throttle.inlined",
	    "count",
	    "start.time_ns",
	    "100",
	    "throttle.method.2",
	    "time_ns=1000000100 calls=1200 timed=1200 sum=600 final_calls=1300",
	    "throttle.method.6",
	    "time_ns=60 calls=0 timed=0 sum=0 final_calls=0 counted=5 reason=tiny",
	    "throttle.method.4",
	    "time_ns=70 calls=0 timed=0 sum=0 final_calls=0 counted=7 reason=inlined",
	    "throttle.method.8",
	    "time_ns=80 calls=0 timed=0 sum=0 final_calls=0 counted=0 reason=inlined",
	    NULL};
	struct model m, out2;
	struct trace_visitor v;
	struct merge_throttled t;
	char *out;

	model_of_metas(&m, kv);
	out = summary_of(&m, REPORT_TEXT);
	CHECK(out && strstr(out, "  throttled:             1 method (throttle=1000:5000)"));
	CHECK(out && strstr(out, "  tiny:                  1 method (tiny=count"));
	CHECK(out &&
	      strstr(out, "  inlined:               2 methods (inlined=count: the JIT had inlined "
			  "them into compiled code when the recording started, and they have no "
			  "loop): only a probe that counts their calls from then on, their time "
			  "their callers'; 1 of them counted here, 7 calls counted"));
	CHECK(out && strstr(out, "    from the start  5 counted  ") &&
	      strstr(out, "    from the start  7 counted  ") &&
	      strstr(out, "5 counted") < strstr(out, "  inlined:") &&
	      strstr(out, "7 counted") > strstr(out, "  inlined:"));
	free(out);
	out = summary_of(&m, REPORT_CSV);
	CHECK(out && strstr(out, "throttled,1\n"));
	CHECK(out && strstr(out, "throttled.tiny,1\nthrottled.tiny_called,1\n"));
	CHECK(out && strstr(out, "throttled.inlined,2\nthrottled.inlined_called,1\n"));
	CHECK(out && strstr(out, "throttled.1.counted_calls,5\nthrottled.1.reason,tiny\n"));
	CHECK(out && strstr(out, "throttled.2.counted_calls,7\nthrottled.2.reason,inlined\n"));
	CHECK(out && !strstr(out, "throttled.3."));
	free(out);
	out = summary_of(&m, REPORT_JSON);
	CHECK(out &&
	      strstr(out, "\"tiny\":1,\"tiny_called\":1,\"inlined\":2,\"inlined_called\":1"));
	CHECK(out && strstr(out, ",\"reason\":\"inlined\",\"counted_calls\":7}"));
	free(out);
	/* merged: the reason and the meta stay */
	memset(&t, 0, sizeof(t));
	model_init(&out2, NULL);
	CHECK(merge_throttled_add(&t, &m, plus100, NULL) == 0);
	model_visitor(&out2, &v);
	CHECK(merge_throttled_write(&t, &v) == 0);
	const char *m4 = model_meta(&out2, "throttle.method.104");
	CHECK(m4 && !strcmp(m4, "time_ns=70 calls=0 timed=0 sum=0 final_calls=0 counted=7 "
				"reason=inlined"));
	CHECK(model_meta(&out2, "throttle.inlined") &&
	      !strcmp(model_meta(&out2, "throttle.inlined"), "count"));
	merge_throttled_free(&t);
	model_free(&out2);
	model_free(&m);
}

int main(void)
{
	RUN(test_decide);
	RUN(test_stack_self_time);
	RUN(test_stack_odd_exits);
	RUN(test_fact_round_trip);
	RUN(test_fact_parse_errors);
	RUN(test_post_list);
	RUN(test_post_recorded);
	RUN(test_post_flat_counted);
	RUN(test_post_tiny);
	RUN(test_post_inlined);
	RUN(test_merge_throttled);
	return test_summary("throttle");
}
