/*
 * jcal-bci-rewrite.c - command-line front end of agent/bci/bci_rewrite.c, for
 * the verifier tests: rewrites class files on disk with mode=bci probes.
 *
 *   jcal-bci-rewrite [-c] [-t] [-i] [-s FIRST_ID] [-m MAP] [-p PREFIX] IN.class OUT.class
 *   jcal-bci-rewrite [-c] [-t] [-i] [-s FIRST_ID] [-m MAP] [-p PREFIX] [-l LIST] -d OUTDIR [-f
 * FILES] IN.class...
 *
 * -p: native methods get wrappers that call them renamed PREFIX+NAME, as
 * the agent does with the JVMTI native method prefix (agent/bci/bci_native.h).
 * Method ids are assigned in order from FIRST_ID (default 1); MAP gets one
 * line per id: "ID CLASS NAME DESC". -c: every method of an even id only
 * counts its calls (the probe of a throttled method, BCI_COUNT_ONLY, with
 * the id as its counter's slot); its MAP line reads "cID CLASS NAME DESC". -t: every tiny
 * method (agent/bci/bci_tiny.h) only counts its calls, as with the agent's tiny=count (its MAP
 * line reads "cID ..." too). -i: switchable probes (invokedynamic call sites, bootstrapped by
 * jcal.Tracker.site) in classes of version 51 and later. With -d, OUT is
 * OUTDIR/CLASS.class (the class's internal name). Classes that need no change are copied. FILES:
 * more input paths, one a line. LIST gets one line per input: "rewritten CLASS", "unchanged CLASS"
 * (nothing instrumented) or "error PATH: MESSAGE" (the rewriter refused it; nothing written).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/bci/bci_rewrite.h"
#include "agent/bci/bci_tiny.h"
#include "agent/bci/classfile.h"

struct ids {
	uint32_t next;
	const char *prefix; /* -p */
	int count;	    /* -c */
	int tiny;	    /* -t */
	int sites;	    /* -i */
	FILE *map;
	FILE *list; /* -l: one status line per class */
};

static int assign(void *ctx, const char *cls, const char *name, const char *desc, uint16_t access,
		  uint32_t *id)
{
	struct ids *ids = ctx;

	(void)access;
	*id = ids->next++;
	int counted = ids->count && *id % 2 == 0;
	if (ids->map)
		fprintf(ids->map, "%s%u %s %s %s\n", counted ? "c" : "", *id, cls, name, desc);
	return counted ? BCI_COUNT_ONLY : 0;
}

/* -t: a tiny method only counts its calls, with its id as its slot. */
static int assign_tiny(void *ctx, const char *cls, const char *name, const char *desc,
		       uint16_t access, uint32_t *id)
{
	struct ids *ids = ctx;

	(void)access;
	*id = ids->next++;
	if (ids->map)
		fprintf(ids->map, "c%u %s %s %s\n", *id, cls, name, desc);
	return BCI_COUNT_ONLY;
}

static void note(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "jcal-bci-rewrite: note: %s\n", msg);
}

static int read_file(const char *path, uint8_t **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	uint8_t *p = malloc(cap);

	if (!f || !p) {
		fprintf(stderr, "jcal-bci-rewrite: error: cannot read %s: %s\n", path,
			strerror(errno));
		if (f)
			fclose(f);
		free(p);
		return -1;
	}
	for (;;) {
		if (n == cap) {
			uint8_t *q = realloc(p, cap *= 2);
			if (!q) {
				free(p);
				fclose(f);
				return -1;
			}
			p = q;
		}
		size_t r = fread(p + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	fclose(f);
	*buf = p;
	*len = n;
	return 0;
}

static int mkdirs(char *path)
{
	for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(path, 0777) && errno != EEXIST) {
			*s = '/';
			return -1;
		}
		*s = '/';
	}
	return 0;
}

static int write_file(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "jcal-bci-rewrite: error: cannot write %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	return 0;
}

static int rewrite(const char *in, const char *out, const char *outdir, struct ids *ids,
		   struct bci_stats *total)
{
	struct bci_config cfg = {.method_id = assign,
				 .tiny_id = ids->tiny ? assign_tiny : NULL,
				 .is_tiny = bci_tiny,
				 .note = note,
				 .ctx = ids,
				 .native_prefix = ids->prefix,
				 .switchable = ids->sites};
	struct bci_stats st;
	uint8_t *buf, *res;
	size_t len, rlen;
	char err[512], path[4096];
	int rc;

	if (read_file(in, &buf, &len))
		return -1;
	if (bci_rewrite_class(buf, len, &cfg, &res, &rlen, &st, err, sizeof(err))) {
		fprintf(stderr, "jcal-bci-rewrite: error: %s: %s\n", in, err);
		if (ids->list)
			fprintf(ids->list, "error %s: %s\n", in, err);
		free(buf);
		return -1;
	}
	if (outdir) {
		struct cf_class c;
		char name[2048];
		if (cf_parse(buf, len, &c, err, sizeof(err))) {
			fprintf(stderr, "jcal-bci-rewrite: error: %s: %s\n", in, err);
			cf_free(&c);
			free(buf);
			free(res);
			return -1;
		}
		snprintf(path, sizeof(path), "%s/%s.class", outdir,
			 cf_utf8_str(&c, c.this_class, name, sizeof(name)));
		cf_free(&c);
		if (ids->list)
			fprintf(ids->list, "%s %s\n", res ? "rewritten" : "unchanged", name);
		out = path;
		mkdirs(path);
	}
	rc = res ? write_file(out, res, rlen) : write_file(out, buf, len);
	total->methods += st.methods;
	total->instrumented += st.instrumented;
	total->skipped += st.skipped;
	total->no_handler += st.no_handler;
	total->natives += st.natives;
	total->switchable += st.switchable;
	free(buf);
	free(res);
	return rc;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: jcal-bci-rewrite [-c] [-t] [-i] [-s FIRST_ID] [-m MAP] [-p PREFIX] "
		"IN.class OUT.class\n"
		"       jcal-bci-rewrite [-c] [-t] [-i] [-s FIRST_ID] [-m MAP] [-p PREFIX] [-l "
		"LIST] -d OUTDIR "
		"[-f FILES] IN.class...\n");
	exit(1);
}

/* -f: rewrites every path listed in files (one a line) into outdir. */
static int rewrite_listed(const char *files, const char *outdir, struct ids *ids,
			  struct bci_stats *total)
{
	FILE *f = fopen(files, "r");
	char line[4096];
	int rc = 0;

	if (!f) {
		fprintf(stderr, "jcal-bci-rewrite: error: cannot read %s: %s\n", files,
			strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] && rewrite(line, NULL, outdir, ids, total))
			rc = 1;
	}
	fclose(f);
	return rc;
}

int main(int argc, char **argv)
{
	struct ids ids = {.next = 1};
	struct bci_stats total = {0};
	const char *outdir = NULL, *map = NULL, *list = NULL, *files = NULL;
	int opt, rc = 0;

	while ((opt = getopt(argc, argv, "ctis:m:d:l:f:p:")) != -1) {
		if (opt == 's')
			ids.next = (uint32_t)strtoul(optarg, NULL, 10);
		else if (opt == 'm')
			map = optarg;
		else if (opt == 'd')
			outdir = optarg;
		else if (opt == 'l')
			list = optarg;
		else if (opt == 'f')
			files = optarg;
		else if (opt == 'p')
			ids.prefix = optarg;
		else if (opt == 'c')
			ids.count = 1;
		else if (opt == 't')
			ids.tiny = 1;
		else if (opt == 'i')
			ids.sites = 1;
		else
			usage();
	}
	if (ids.next == 0 || (outdir ? optind >= argc && !files : argc - optind != 2 || files))
		usage();
	if ((map && !(ids.map = fopen(map, "w"))) || (list && !(ids.list = fopen(list, "w")))) {
		fprintf(stderr, "jcal-bci-rewrite: error: cannot write %s: %s\n",
			ids.map || !map ? list : map, strerror(errno));
		return 1;
	}
	if (outdir) {
		for (int i = optind; i < argc; i++)
			if (rewrite(argv[i], NULL, outdir, &ids, &total))
				rc = 1;
		if (files && rewrite_listed(files, outdir, &ids, &total))
			rc = 1;
	} else {
		rc = rewrite(argv[optind], argv[optind + 1], NULL, &ids, &total) ? 1 : 0;
	}
	if ((ids.map && fclose(ids.map)) || (ids.list && fclose(ids.list)))
		rc = 1;
	printf("jcal-bci-rewrite: %u methods, %u instrumented, %u skipped, %u without handler",
	       total.methods, total.instrumented, total.skipped, total.no_handler);
	if (ids.prefix)
		printf(", %u natives wrapped", total.natives);
	if (ids.sites)
		printf(", %u switchable", total.switchable);
	printf("\n");
	return rc;
}
