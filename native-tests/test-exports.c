/*
 * test-exports.c - the exports and the shaping options of jcal-post:
 * folded stacks and speedscope (golden files of the fig4a vector), the
 * speedscope and Chrome trace schemas checked by parsing what was written
 * (jsonmini.h), evented profiles and Chrome spans from a real trace file,
 * pprof decoded back from gzip and protobuf by a decoder of our own, the
 * HTML flame graph's data and escaping, --exclude/--include/--top/
 * --min-pct/--simple/--merge-threads, and the progress bar.
 *
 * With JCAL_HTML_TRACE=PATH set, also writes a sample trace there for
 * javatests/html-check.sh.
 */
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "native-tests/jsonmini.h"
#include "native-tests/modelgen.h"
#include "postproc/progress.h"
#include "postproc/report.h"
#include "postproc/shaping.h"
#include "native-tests/test.h"

static char err_buf[REPORT_ERR_LEN];

static char *run(int (*fn)(const struct model *, const struct report_opts *), const struct model *m,
		 struct report_opts *o)
{
	int st;
	char *s;

	o->err = err_buf;
	err_buf[0] = '\0';
	s = mg_run(fn, m, o, &st);
	if (st)
		fprintf(stderr, "  export failed: %s\n", err_buf);
	CHECK_EQ_I(st, 0);
	return s;
}

/* Loads a trace file into m as jcal-post does. */
static char *tmp_trace(const char *script)
{
	static char path[64];
	const char *names[] = {"main"};
	int fd;

	snprintf(path, sizeof(path), "/tmp/jcal-test-exports-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	close(fd);
	if (mg_trace_file(path, &script, names, 1, NULL, NULL))
		return NULL;
	return path;
}

static void test_collapsed(void)
{
	struct model m;
	struct report_opts o = {0};
	struct shape_info info = {0};
	char *s;

	CHECK_EQ_I(mg_fig4a(&m), 0);
	s = run(export_collapsed, &m, &o);
	CHECK(mg_golden_equal(s, "fig4a.collapsed"));
	free(s);
	/* merged: no thread frame */
	info.merged = 1;
	o.shaped = &info;
	s = run(export_collapsed, &m, &o);
	CHECK_STR(s, "C 3\nC;A 3\nC;A;B 3\nC;A;B;B 1\nC;B 2\nC;B;A 3\nC;B;A;B 2\nC;B;A;B;A 1\n"
		     "C;B;A;X 1\n");
	free(s);
	model_free(&m);
}

/* Checks a speedscope document; returns the number of profiles. */
static size_t check_speedscope(const char *s, const char *want_unit, int evented)
{
	struct jv *doc = jv_parse(s, strlen(s));
	const struct jv *frames, *profiles;
	size_t nframes, nprof = 0;

	CHECK(doc != NULL);
	if (!doc)
		return 0;
	CHECK(jv_is(jv_get(doc, "$schema"), JV_STR));
	CHECK_STR(jv_get(doc, "$schema")->str,
		  "https://www.speedscope.app/file-format-schema.json");
	frames = jv_get(jv_get(doc, "shared"), "frames");
	profiles = jv_get(doc, "profiles");
	CHECK(jv_is(frames, JV_ARR) && jv_is(profiles, JV_ARR));
	CHECK(jv_is(jv_get(doc, "name"), JV_STR));
	CHECK(jv_is(jv_get(doc, "activeProfileIndex"), JV_NUM));
	CHECK(jv_is(jv_get(doc, "exporter"), JV_STR));
	if (!jv_is(frames, JV_ARR) || !jv_is(profiles, JV_ARR)) {
		jv_free(doc);
		return 0;
	}
	nframes = frames->n;
	for (size_t i = 0; i < nframes; i++)
		CHECK(jv_is(jv_get(frames->item[i], "name"), JV_STR));
	for (size_t i = 0; i < profiles->n; i++) {
		const struct jv *p = profiles->item[i], *type = jv_get(p, "type");
		double start, end;

		nprof++;
		CHECK(jv_is(type, JV_STR) && jv_is(jv_get(p, "name"), JV_STR));
		CHECK(jv_is(jv_get(p, "unit"), JV_STR));
		CHECK_STR(jv_get(p, "unit")->str, want_unit);
		CHECK(jv_is(jv_get(p, "startValue"), JV_NUM) &&
		      jv_is(jv_get(p, "endValue"), JV_NUM));
		start = jv_get(p, "startValue")->num;
		end = jv_get(p, "endValue")->num;
		CHECK(start <= end);
		if (!evented) {
			const struct jv *samples = jv_get(p, "samples"), *w = jv_get(p, "weights");
			double sum = 0;

			CHECK_STR(type->str, "sampled");
			CHECK(jv_is(samples, JV_ARR) && jv_is(w, JV_ARR));
			if (!jv_is(samples, JV_ARR) || !jv_is(w, JV_ARR))
				continue;
			CHECK_EQ_U(samples->n, w->n);
			for (size_t k = 0; k < samples->n; k++) {
				const struct jv *st = samples->item[k];

				CHECK(jv_is(st, JV_ARR) && st->n > 0);
				for (size_t f = 0; st && f < st->n; f++)
					CHECK(jv_is(st->item[f], JV_NUM) &&
					      st->item[f]->num < (double)nframes);
				CHECK(jv_is(w->item[k], JV_NUM) && w->item[k]->num >= 0);
				if (k < w->n)
					sum += w->item[k]->num;
			}
			CHECK(sum == end - start);
		} else {
			const struct jv *ev = jv_get(p, "events");
			double stack[256], at = start;
			size_t depth = 0;

			CHECK_STR(type->str, "evented");
			CHECK(jv_is(ev, JV_ARR));
			for (size_t k = 0; ev && k < ev->n; k++) {
				const struct jv *e = ev->item[k], *t = jv_get(e, "type");
				const struct jv *f = jv_get(e, "frame"), *a = jv_get(e, "at");

				CHECK(jv_is(t, JV_STR) && jv_is(f, JV_NUM) && jv_is(a, JV_NUM));
				if (!jv_is(t, JV_STR) || !jv_is(f, JV_NUM) || !jv_is(a, JV_NUM))
					break;
				CHECK(f->num < (double)nframes);
				CHECK(a->num >= at && a->num <= end); /* in order */
				at = a->num;
				if (!strcmp(t->str, "O")) {
					CHECK(depth < 256);
					if (depth < 256)
						stack[depth++] = f->num;
				} else {
					CHECK_STR(t->str, "C");
					CHECK(depth > 0); /* balanced */
					if (depth)
						CHECK(stack[--depth] == f->num);
				}
			}
			CHECK_EQ_U(depth, 0);
		}
	}
	jv_free(doc);
	return nprof;
}

static void test_speedscope_sampled(void)
{
	struct model m;
	struct report_opts o = {0};
	char *s;
	const char *script = "0 E A\n10 E B\n15 X B\n20 X A\n", *names[] = {"t"};

	CHECK_EQ_I(mg_fig4a(&m), 0);
	o.trace_path = "fig4a.bin";
	s = run(export_speedscope, &m, &o);
	CHECK(mg_golden_equal(s, "fig4a.speedscope.json"));
	CHECK_EQ_U(check_speedscope(s, "none", 0), 1);
	free(s);
	model_free(&m);
	/* a time metric: nanoseconds */
	CHECK_EQ_I(mg_model(&m, &script, names, 1, "cputime", "ns"), 0);
	s = run(export_speedscope, &m, &o);
	CHECK_EQ_U(check_speedscope(s, "nanoseconds", 0), 1);
	free(s);
	model_free(&m);
}

static void test_speedscope_evented(void)
{
	/* fig4a, then a thread with a frame live before tracing (Q), one
	 * nested in it (R), and frames still open at the end (B) */
	const char *fig = mg_golden_script("fig4a.events");
	const char *unbalanced = "0 E A\n1 X A\n2 X R\n3 E A\n4 X Q\n5 E B\n6 E A\n7 X A\n";
	const char *scripts[] = {fig, unbalanced}, *names[] = {"main", "other"};
	struct model m;
	struct report_opts o = {0};
	char path[] = "/tmp/jcal-test-exports-XXXXXX";
	int fd = mkstemp(path);
	char *s;

	CHECK(fd >= 0);
	close(fd);
	/* the fig4a script is a static buffer: copy it before the next use */
	scripts[0] = strdup(fig);
	CHECK_EQ_I(mg_trace_file(path, scripts, names, 2, NULL, NULL), 0);
	CHECK_EQ_I(mg_load(&m, path, NULL), 0);
	o.trace_path = path;
	o.evented = 1;
	s = run(export_speedscope, &m, &o);
	CHECK_EQ_U(check_speedscope(s, "none", 1), 2);
	/* fig4a: 10 calls, opened and closed */
	CHECK(strstr(s, "\"startValue\":0,\"endValue\":19,\"events\":[{\"type\":\"O\"") != NULL);
	/* the other thread: Q (frame 5) and R (4) open at its first event,
	 * outermost first */
	CHECK(strstr(s, "\"name\":\"other#2\",\"unit\":\"none\",\"startValue\":0,\"endValue\":7,"
			"\"events\":[{\"type\":\"O\",\"frame\":5,\"at\":0},{\"type\":\"O\","
			"\"frame\":4,\"at\":0}") != NULL);
	free(s);
	/* only one thread, by --thread */
	{
		const char *pats[] = {"other"};
		struct threadsel sel = {pats, 1};

		o.sel = &sel;
		s = run(export_speedscope, &m, &o);
		CHECK_EQ_U(check_speedscope(s, "none", 1), 1);
		free(s);
		o.sel = NULL;
	}
	/* stdin cannot be read twice */
	o.trace_path = "-";
	{
		int st;

		o.err = err_buf;
		s = mg_run(export_speedscope, &m, &o, &st);
		CHECK_EQ_I(st, -1);
		CHECK(strstr(err_buf, "not stdin") != NULL);
		free(s);
	}
	model_free(&m);
	free((void *)scripts[0]);
	unlink(path);
}

/* Checks Chrome trace JSON; returns the number of X events (sum of durs
 * in *dursum). */
static size_t check_chrome(const char *s, double *dursum)
{
	struct jv *doc = jv_parse(s, strlen(s));
	const struct jv *ev;
	size_t nx = 0;

	*dursum = 0;
	CHECK(doc != NULL);
	ev = jv_get(doc, "traceEvents");
	CHECK(jv_is(ev, JV_ARR));
	CHECK(jv_is(jv_get(doc, "displayTimeUnit"), JV_STR));
	for (size_t i = 0; ev && i < ev->n; i++) {
		const struct jv *e = ev->item[i], *ph = jv_get(e, "ph");

		CHECK(jv_is(jv_get(e, "name"), JV_STR) && jv_is(ph, JV_STR));
		CHECK(jv_is(jv_get(e, "pid"), JV_NUM) && jv_is(jv_get(e, "tid"), JV_NUM));
		if (!jv_is(ph, JV_STR))
			continue;
		if (!strcmp(ph->str, "X")) {
			const struct jv *ts = jv_get(e, "ts"), *dur = jv_get(e, "dur");

			CHECK(jv_is(ts, JV_NUM) && jv_is(dur, JV_NUM));
			CHECK(ts && dur && ts->num >= 0 && dur->num >= 0);
			if (dur)
				*dursum += dur->num;
			nx++;
		} else if (!strcmp(ph->str, "i")) { /* a mark of the slowest spans */
			CHECK(jv_is(jv_get(e, "ts"), JV_NUM) &&
			      jv_is(jv_get(jv_get(e, "args"), "duration"), JV_NUM));
		} else {
			CHECK_STR(ph->str, "M");
			CHECK(jv_is(jv_get(jv_get(e, "args"), "name"), JV_STR) ||
			      jv_is(jv_get(jv_get(e, "args"), "sort_index"), JV_NUM));
		}
	}
	jv_free(doc);
	return nx;
}

static void test_chrome(void)
{
	char *path = tmp_trace(mg_golden_script("fig4a.events"));
	struct model m;
	struct report_opts o = {0};
	double sum;
	char *s;

	CHECK(path != NULL);
	if (!path)
		return;
	CHECK_EQ_I(mg_load(&m, path, NULL), 0);
	o.trace_path = path;
	s = run(export_chrome, &m, &o);
	/* fig4a's ten calls: C 19, A 7, B 1, B 3, B 1, B 9, A 7, B 3, A 1, X 1 */
	CHECK_EQ_U(check_chrome(s, &sum), 10);
	CHECK(sum == 52);
	CHECK(strstr(s, "{\"name\":\"C\",\"cat\":\"java\",\"ph\":\"X\",\"pid\":1,\"tid\":1,"
			"\"ts\":0,\"dur\":19}") != NULL);
	CHECK(strstr(s, "\"args\":{\"name\":\"main\"}") != NULL);
	/* every span among the 20 slowest: marked, longest first (of equal
	 * ones the first to end) */
	CHECK(strstr(s, "\"slow_marked\":10") != NULL);
	CHECK(strstr(s, "{\"name\":\"slow #1\",\"cat\":\"slow\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,"
			"\"tid\":1,\"ts\":0,\"args\":{\"method\":\"C\",\"duration\":19}}") != NULL);
	CHECK(strstr(s, "\"name\":\"slow #2\"") < strstr(s, "\"name\":\"slow #10\""));
	CHECK(strstr(s, "\"slow #2\",\"cat\":\"slow\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":1,"
			"\"ts\":9,\"args\":{\"method\":\"B\",\"duration\":9}}") != NULL);
	free(s);
	o.min_duration = 2;
	s = run(export_chrome, &m, &o);
	CHECK_EQ_U(check_chrome(s, &sum), 6);
	CHECK(strstr(s, "\"dropped_spans\":4") != NULL);
	free(s);
	/* --exclude B: its spans are not shown */
	{
		const char *ex[] = {"B"};
		struct shape_opts so = {0};

		so.exclude = ex;
		so.nexclude = 1;
		o.shaping = &so;
		o.min_duration = 0;
		s = run(export_chrome, &m, &o);
		CHECK_EQ_U(check_chrome(s, &sum), 5);
		free(s);
	}
	model_free(&m);
	unlink(path);
}

/* --- a protobuf decoder of our own, for the pprof export --- */

struct pbr {
	const uint8_t *p, *end;
	int err;
};

static uint64_t pbr_varint(struct pbr *r)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end) {
			r->err = 1;
			return 0;
		}
		v |= (uint64_t)(*r->p & 0x7f) << shift;
		if (!(*r->p++ & 0x80))
			return v;
	}
	r->err = 1;
	return 0;
}

/* Next field: returns 0 at the end; *sub is set for length-delimited. */
static int pbr_next(struct pbr *r, unsigned *field, uint64_t *v, struct pbr *sub)
{
	uint64_t key, len;

	if (r->p >= r->end || r->err)
		return 0;
	key = pbr_varint(r);
	*field = (unsigned)(key >> 3);
	switch (key & 7) {
	case 0:
		*v = pbr_varint(r);
		break;
	case 2:
		len = pbr_varint(r);
		if (len > (uint64_t)(r->end - r->p)) {
			r->err = 1;
			return 0;
		}
		sub->p = r->p;
		sub->end = r->p + len;
		sub->err = 0;
		r->p += len;
		*v = len;
		break;
	default:
		r->err = 1; /* the export writes no other wire types */
		return 0;
	}
	return !r->err;
}

struct pprof {
	char *str[64];
	size_t nstr;
	uint64_t st_type[4], st_unit[4];
	size_t nst;
	struct {
		uint64_t loc[16], val[4], lkey, lstr;
		size_t nloc, nval;
	} sample[32];
	size_t nsample;
	uint64_t loc_id[16], loc_fn[16];
	size_t nloc;
	uint64_t fn_id[16], fn_name[16];
	size_t nfn;
	uint64_t default_type;
};

static void pbr_packed(struct pbr *sub, uint64_t *out, size_t *n, size_t max)
{
	while (sub->p < sub->end && !sub->err && *n < max)
		out[(*n)++] = pbr_varint(sub);
}

static int pprof_decode(const uint8_t *buf, size_t len, struct pprof *pp)
{
	struct pbr r = {buf, buf + len, 0}, sub, sub2, sub3;
	unsigned f, f2, f3;
	uint64_t v, v2, v3;

	memset(pp, 0, sizeof(*pp));
	while (pbr_next(&r, &f, &v, &sub)) {
		switch (f) {
		case 1: /* sample_type */
			while (pp->nst < 4 && pbr_next(&sub, &f2, &v2, &sub2)) {
				if (f2 == 1)
					pp->st_type[pp->nst] = v2;
				else if (f2 == 2)
					pp->st_unit[pp->nst] = v2;
			}
			pp->nst++;
			break;
		case 2: /* sample */
			if (pp->nsample == 32)
				return -1;
			while (pbr_next(&sub, &f2, &v2, &sub2)) {
				if (f2 == 1)
					pbr_packed(&sub2, pp->sample[pp->nsample].loc,
						   &pp->sample[pp->nsample].nloc, 16);
				else if (f2 == 2)
					pbr_packed(&sub2, pp->sample[pp->nsample].val,
						   &pp->sample[pp->nsample].nval, 4);
				else if (f2 == 3) {
					while (pbr_next(&sub2, &f3, &v3, &sub3)) {
						if (f3 == 1)
							pp->sample[pp->nsample].lkey = v3;
						else if (f3 == 2)
							pp->sample[pp->nsample].lstr = v3;
					}
				}
			}
			pp->nsample++;
			break;
		case 4: /* location */
			if (pp->nloc == 16)
				return -1;
			while (pbr_next(&sub, &f2, &v2, &sub2)) {
				if (f2 == 1)
					pp->loc_id[pp->nloc] = v2;
				else if (f2 == 4) {
					while (pbr_next(&sub2, &f3, &v3, &sub3)) {
						if (f3 == 1)
							pp->loc_fn[pp->nloc] = v3;
					}
				}
			}
			pp->nloc++;
			break;
		case 5: /* function */
			if (pp->nfn == 16)
				return -1;
			while (pbr_next(&sub, &f2, &v2, &sub2)) {
				if (f2 == 1)
					pp->fn_id[pp->nfn] = v2;
				else if (f2 == 2)
					pp->fn_name[pp->nfn] = v2;
			}
			pp->nfn++;
			break;
		case 6: /* string_table */
			if (pp->nstr == 64)
				return -1;
			pp->str[pp->nstr] = strndup((const char *)sub.p, (size_t)(sub.end - sub.p));
			pp->nstr++;
			break;
		case 14:
			pp->default_type = v;
			break;
		}
	}
	return r.err ? -1 : 0;
}

static const char *pp_str(const struct pprof *pp, uint64_t i)
{
	return i < pp->nstr ? pp->str[i] : "(bad string index)";
}

/* Function name of location id. */
static const char *pp_loc_name(const struct pprof *pp, uint64_t id)
{
	for (size_t i = 0; i < pp->nloc; i++)
		if (pp->loc_id[i] == id)
			for (size_t k = 0; k < pp->nfn; k++)
				if (pp->fn_id[k] == pp->loc_fn[i])
					return pp_str(pp, pp->fn_name[k]);
	return "(no location)";
}

/* Inflates the gzip s[0..n) and decodes it into pp; 0 or -1. */
static int pprof_read(const char *s, size_t n, struct pprof *pp)
{
	static uint8_t out[1 << 16];
	z_stream z;
	int st;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return -1;
	z.next_in = (Bytef *)s;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = sizeof(out);
	st = inflate(&z, Z_FINISH);
	inflateEnd(&z);
	return st == Z_STREAM_END ? pprof_decode(out, z.total_out, pp) : -1;
}

/* Time outside any traced method is the function "[thread root]", as the
 * tree report's "<thread root>" but in square brackets: pprof shows a name
 * in angle brackets as "<unknown>" (it drops them as C++ template
 * arguments). So is a context folded below the depth limit. */
static void test_pprof_root(void)
{
	static const char *const scripts[] = {
	    "0 E M.main\n1 E M.a\n2 E M.b\n3 X M.b\n4 X M.a\n6 X M.main\n10 E M.c\n11 X M.c\n",
	};
	static const char *const names[] = {"main"};
	struct model m;
	struct report_opts o = {.max_depth = 2};
	struct pprof pp;
	char *s = NULL, p[128];
	size_t n = 0;
	FILE *f;
	int root = 0, folded = 0;

	CHECK_EQ_I(mg_model(&m, scripts, names, 1, NULL, NULL), 0);
	f = open_memstream(&s, &n);
	o.out = f;
	o.err = err_buf;
	CHECK_EQ_I(export_pprof(&m, &o), 0);
	fclose(f);
	memset(&pp, 0, sizeof(pp));
	CHECK_EQ_I(pprof_read(s, n, &pp), 0);
	for (size_t i = 0; i < pp.nsample; i++) {
		p[0] = '\0';
		for (size_t k = 0; k < pp.sample[i].nloc; k++)
			snprintf(p + strlen(p), sizeof(p) - strlen(p), "%s%s", k ? "<" : "",
				 pp_loc_name(&pp, pp.sample[i].loc[k]));
		if (!strcmp(p, "[thread root]")) {
			root++;
			CHECK_EQ_U(pp.sample[i].val[0], 0); /* the root counts no call */
			CHECK_EQ_U(pp.sample[i].val[1], 4); /* 6..10 outside any method */
		}
		if (!strcmp(p, "[deeper frames folded]<M.a<M.main")) {
			folded++;
			CHECK_EQ_U(pp.sample[i].val[0], 1);
			CHECK_EQ_U(pp.sample[i].val[1], 1);
		}
	}
	CHECK_EQ_I(root, 1);
	CHECK_EQ_I(folded, 1);
	for (size_t i = 0; i < pp.nstr; i++) {
		CHECK(pp.str[i][0] != '<');
		free(pp.str[i]);
	}
	/* keep a copy for the optional check with go tool pprof */
	if (getenv("JCAL_PPROF_ROOT_OUT") && (f = fopen(getenv("JCAL_PPROF_ROOT_OUT"), "wb"))) {
		fwrite(s, 1, n, f);
		fclose(f);
	}
	free(s);
	model_free(&m);
}

static void test_pprof(void)
{
	struct model m;
	struct report_opts o = {0};
	char *s = NULL, path[256];
	size_t n = 0;
	FILE *f;
	uint8_t out[1 << 16];
	uLongf outlen = sizeof(out);
	z_stream z;
	struct pprof pp;
	uint64_t calls = 0, ticks = 0;
	int found = 0, st;

	CHECK_EQ_I(mg_fig4a(&m), 0);
	f = open_memstream(&s, &n);
	o.out = f;
	o.err = err_buf;
	CHECK_EQ_I(export_pprof(&m, &o), 0);
	fclose(f);
	/* gzip */
	CHECK(n > 18 && (uint8_t)s[0] == 0x1f && (uint8_t)s[1] == 0x8b);
	memset(&z, 0, sizeof(z));
	CHECK_EQ_I(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)s;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)outlen;
	st = inflate(&z, Z_FINISH);
	CHECK_EQ_I(st, Z_STREAM_END);
	outlen = z.total_out;
	inflateEnd(&z);
	CHECK_EQ_I(pprof_decode(out, outlen, &pp), 0);
	/* strings, sample types, default */
	CHECK(pp.nstr > 0 && pp.str[0] && !pp.str[0][0]);
	CHECK_EQ_U(pp.nst, 2);
	CHECK_STR(pp_str(&pp, pp.st_type[0]), "calls");
	CHECK_STR(pp_str(&pp, pp.st_unit[0]), "count");
	CHECK_STR(pp_str(&pp, pp.st_type[1]), "ticks");
	CHECK_STR(pp_str(&pp, pp.st_unit[1]), "count");
	CHECK_STR(pp_str(&pp, pp.default_type), "ticks");
	/* functions and locations: A B C X, one location each */
	CHECK_EQ_U(pp.nfn, 4);
	CHECK_EQ_U(pp.nloc, 4);
	/* samples: one per calling context, leaf first, thread label */
	CHECK_EQ_U(pp.nsample, 9);
	for (size_t i = 0; i < pp.nsample; i++) {
		char p[128] = "";

		CHECK_EQ_U(pp.sample[i].nval, 2);
		calls += pp.sample[i].val[0];
		ticks += pp.sample[i].val[1];
		CHECK_STR(pp_str(&pp, pp.sample[i].lkey), "thread");
		CHECK_STR(pp_str(&pp, pp.sample[i].lstr), "main#1");
		for (size_t k = 0; k < pp.sample[i].nloc; k++)
			snprintf(p + strlen(p), sizeof(p) - strlen(p), "%s%s", k ? "<" : "",
				 pp_loc_name(&pp, pp.sample[i].loc[k]));
		if (!strcmp(p, "B<A<C")) {
			found = 1;
			CHECK_EQ_U(pp.sample[i].val[0], 2);
			CHECK_EQ_U(pp.sample[i].val[1], 3);
		}
	}
	CHECK(found);
	CHECK_EQ_U(calls, 10);
	CHECK_EQ_U(ticks, 19);
	for (size_t i = 0; i < pp.nstr; i++)
		free(pp.str[i]);
	/* keep a copy for the optional check with go tool pprof */
	if (getenv("JCAL_PPROF_OUT")) {
		snprintf(path, sizeof(path), "%s", getenv("JCAL_PPROF_OUT"));
		f = fopen(path, "wb");
		CHECK(f != NULL);
		if (f) {
			fwrite(s, 1, n, f);
			fclose(f);
		}
	}
	free(s);
	model_free(&m);
}

static void test_html(void)
{
	static const char *script = "0 E p.C.<init>\n2 E p.C.run\n5 X p.C.run\n6 X p.C.<init>\n";
	const char *names[] = {"</script>"};
	struct model m;
	struct report_opts o = {0};
	char *s, *data, *end;
	struct jv *doc;

	CHECK_EQ_I(mg_model(&m, &script, names, 1, NULL, NULL), 0);
	s = run(export_html, &m, &o);
	CHECK(!strncmp(s, "<!DOCTYPE html>", 15));
	CHECK(strstr(s, "jcal-rendered") != NULL);
	CHECK(strstr(s, "://") == NULL); /* nothing external */
	CHECK(strstr(s, "<init>") == NULL);
	CHECK(strstr(s, "</script>\"") == NULL);
	data = strstr(s, "const DATA =\n");
	CHECK(data != NULL);
	if (data) {
		data += strlen("const DATA =\n");
		end = strstr(data, "\n;\n");
		CHECK(end != NULL);
		doc = end ? jv_parse(data, (size_t)(end - data)) : NULL;
		CHECK(doc != NULL);
		if (doc) {
			const struct jv *th = jv_get(doc, "threads"), *tree,
					*nm = jv_get(doc, "names");

			CHECK(jv_is(th, JV_ARR) && th->n == 1);
			CHECK_STR(jv_get(th->item[0], "name")->str, "</script>#1");
			tree = jv_get(th->item[0], "tree");
			/* [root, cum 6, base 0, calls 1, [<init> 6 3 1 [run 3 3 1]]] */
			CHECK(jv_is(tree, JV_ARR) && tree->n == 5);
			CHECK(tree->item[1]->num == 6);
			CHECK(tree->item[4]->n == 5 && tree->item[4]->item[2]->num == 3);
			CHECK_STR(nm->item[(size_t)tree->item[4]->item[0]->num]->str, "p.C.<init>");
			CHECK_STR(jv_get(doc, "unit")->str, "ticks");
			jv_free(doc);
		}
	}
	free(s);
	model_free(&m);
}

/* --- shaping --- */

static char *shaped_collapsed(const struct shape_opts *so, struct shape_info *info)
{
	struct model m;
	struct report_opts o = {0};
	char *s;

	CHECK_EQ_I(mg_fig4a(&m), 0);
	CHECK_EQ_I(shape_apply(&m, so, info), 0);
	o.shaped = info;
	s = run(export_collapsed, &m, &o);
	model_free(&m);
	return s;
}

static void test_shaping_fig4a(void)
{
	const char *exA[] = {"A"}, *inX[] = {"X"}, *inGlob[] = {"[AX]"};
	struct shape_opts so;
	struct shape_info info;
	char *s;

	memset(&so, 0, sizeof(so));
	so.exclude = exA;
	so.nexclude = 1;
	s = shaped_collapsed(&so, &info);
	CHECK_STR(s, "main;C 6\nmain;C;B 8\nmain;C;B;B 4\nmain;C;B;X 1\n");
	CHECK_EQ_U(info.folded, 3);
	free(s);

	memset(&so, 0, sizeof(so));
	so.include = inX;
	so.ninclude = 1;
	s = shaped_collapsed(&so, &info);
	CHECK_STR(s, "main;C;B;A;X 1\n");
	free(s);
	so.include = inGlob; /* a glob: contexts through A or X */
	s = shaped_collapsed(&so, &info);
	CHECK_STR(s, "main;C;A 3\nmain;C;A;B 3\nmain;C;A;B;B 1\nmain;C;B;A 3\nmain;C;B;A;B 2\n"
		     "main;C;B;A;B;A 1\nmain;C;B;A;X 1\n");
	free(s);

	/* --min-pct: under 40% of 19 (7.6) folds into the parent */
	memset(&so, 0, sizeof(so));
	so.min_pct = 40;
	s = shaped_collapsed(&so, &info);
	CHECK_STR(s, "main;C 10\nmain;C;B 9\n");
	free(s);

	/* the two methods of largest cum, C and A, keep frames */
	memset(&so, 0, sizeof(so));
	so.top = 2;
	s = shaped_collapsed(&so, &info);
	CHECK_STR(s, "main;C 5\nmain;C;A 13\nmain;C;A;A 1\n");
	free(s);
}

static void test_shaping_threads_and_names(void)
{
	const char *scripts[] = {"0 E com.ex.App.a\n5 X com.ex.App.a\n",
				 "0 E com.ex.App.a\n3 E org.Lib$In.b\n4 X org.Lib$In.b\n6 X "
				 "com.ex.App.a\n"};
	const char *names[] = {"t1", "t2"}, *pats[] = {"t1"};
	struct threadsel sel = {pats, 1};
	struct model m;
	struct shape_opts so = {0};
	struct shape_info info;
	struct report_opts o = {0};
	char buf[64], *s;

	CHECK_EQ_U(shape_simple_name("Lcom/ex/App$In;", "run", NULL, buf, sizeof(buf)), 10);
	CHECK_STR(buf, "App$In.run");
	shape_simple_name("[Ljava/lang/Object;", "clone", NULL, buf, sizeof(buf));
	CHECK_STR(buf, "Object[].clone");
	shape_simple_name("", "f", NULL, buf, sizeof(buf));
	CHECK_STR(buf, "f");
	shape_simple_name("LMain;", "main", "()V", buf, sizeof(buf));
	CHECK_STR(buf, "Main.main()V");

	CHECK_EQ_I(mg_model(&m, scripts, names, 2, NULL, NULL), 0);
	so.merge = 1;
	so.simple = 1;
	CHECK_EQ_I(shape_apply(&m, &so, &info), 0);
	CHECK_EQ_U(info.merged, 2);
	CHECK_EQ_U(m.nthreads, 1);
	CHECK_STR(m.thread_list[0]->name, "2 threads merged");
	o.shaped = &info;
	s = run(export_collapsed, &m, &o);
	CHECK_STR(s, "App.a 10\nApp.a;Lib$In.b 1\n");
	free(s);
	o.format = REPORT_TEXT;
	s = run(report_arcs, &m, &o);
	CHECK(strstr(s, "(2 threads merged into one tree)\n") != NULL);
	free(s);
	model_free(&m);

	/* merge only the selected threads; the others are counted as elided */
	CHECK_EQ_I(mg_model(&m, scripts, names, 2, NULL, NULL), 0);
	memset(&so, 0, sizeof(so));
	so.merge = 1;
	so.sel = &sel;
	CHECK_EQ_I(shape_apply(&m, &so, &info), 0);
	CHECK_EQ_U(info.merged, 1);
	CHECK_EQ_U(info.elided, 1);
	CHECK_EQ_U(calltree_fig(&m.thread_list[0]->tree, CALLTREE_ROOT, 0)->cum, 5);
	o.shaped = &info;
	s = run(report_callers, &m, &o);
	CHECK(strstr(s, "(1 thread merged into one tree; 1 left out by --thread)\n") != NULL);
	free(s);
	model_free(&m);
}

/* callers: a context's path, leaf first in text, root first in CSV and JSON. */
static void test_callers_paths(void)
{
	const char *script = "0 E M.main\n1 E M.a\n2 E M.leaf\n5 X M.leaf\n6 X M.a\n9 X M.main\n";
	const char *names[] = {"main"};
	struct model m;
	struct report_opts o = {0};
	char *s;

	CHECK_EQ_I(mg_model(&m, &script, names, 1, NULL, NULL), 0);
	o.format = REPORT_TEXT;
	s = run(report_callers, &m, &o);
	CHECK(strstr(s, " M.leaf <- M.a <- M.main\n") != NULL);
	free(s);
	o.format = REPORT_CSV;
	s = run(report_callers, &m, &o);
	CHECK(strstr(s, ",M.main;M.a;M.leaf") != NULL);
	CHECK(strstr(s, "M.leaf <-") == NULL);
	free(s);
	o.format = REPORT_JSON;
	s = run(report_callers, &m, &o);
	CHECK(strstr(s, "\"M.main;M.a;M.leaf\"") != NULL);
	free(s);
	model_free(&m);
}

static void test_progress(void)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	progress_draw(f, "reading", 50, 100, 10);
	progress_draw(f, "x", 7, 0, 4);
	fclose(f);
	CHECK_STR(s, "\rreading [=====>    ]  50%\rx [====] 100%");
	free(s);
}

/* A sample trace with two threads for javatests/html-check.sh. */
static void write_sample_trace(void)
{
	const char *path = getenv("JCAL_HTML_TRACE");
	static const char *methods[] = {
	    "com.example.App.main",    "com.example.App.run",	  "com.example.Parser.parse",
	    "com.example.Parser.expr", "com.example.Parser.term", "com.example.Lexer.next",
	    "com.example.Lexer.peek",  "java.lang.String.charAt", "java.util.HashMap.get",
	    "com.example.Eval.apply",  "com.example.Eval.lookup", "java.lang.StringBuilder.append",
	};
	static char bufs[2][1 << 17];
	const char *scripts[2] = {bufs[0], bufs[1]}, *names[] = {"main", "worker-1"};
	unsigned long long seed = 42;

	for (int ti = 0; ti < 2; ti++) {
		size_t p = 0;
		unsigned long long t = 0;
		int stack[16], depth = 0;

		stack[depth++] = ti;
		p += (size_t)snprintf(bufs[ti] + p, sizeof(bufs[ti]) - p, "%llu E %s\n", t,
				      methods[ti]);
		for (int i = 0; i < 1500 && p < sizeof(bufs[ti]) - 200; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			t += 1 + (seed >> 60);
			if ((depth < 12 && (seed >> 33) % 3 != 0) || depth == 1) {
				int mi = 2 + (int)((seed >> 40) % 10);

				stack[depth++] = mi;
				p += (size_t)snprintf(bufs[ti] + p, sizeof(bufs[ti]) - p,
						      "%llu E %s\n", t, methods[mi]);
			} else {
				p += (size_t)snprintf(bufs[ti] + p, sizeof(bufs[ti]) - p,
						      "%llu X %s\n", t, methods[stack[--depth]]);
			}
		}
		while (depth > 0)
			p += (size_t)snprintf(bufs[ti] + p, sizeof(bufs[ti]) - p, "%llu X %s\n",
					      ++t, methods[stack[--depth]]);
	}
	CHECK_EQ_I(mg_trace_file(path, scripts, names, 2, "cputime", "ns"), 0);
}

int main(void)
{
	RUN(test_collapsed);
	RUN(test_speedscope_sampled);
	RUN(test_speedscope_evented);
	RUN(test_chrome);
	RUN(test_pprof);
	RUN(test_pprof_root);
	RUN(test_html);
	RUN(test_shaping_fig4a);
	RUN(test_shaping_threads_and_names);
	RUN(test_callers_paths);
	RUN(test_progress);
	if (getenv("JCAL_HTML_TRACE"))
		RUN(write_sample_trace);
	return test_summary("exports");
}
