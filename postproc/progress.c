/*
 * progress.c - progress bar over a counting read stream (see progress.h).
 */
#include "postproc/progress.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct counting {
	FILE *in, *bar;
	const char *label;
	uint64_t done, total;
	int last_pct;
};

void progress_draw(FILE *f, const char *label, uint64_t done, uint64_t total, unsigned width)
{
	unsigned pct = total ? (unsigned)(done * 100 / total) : 100, fill;

	if (pct > 100)
		pct = 100;
	fill = width * pct / 100;
	fprintf(f, "\r%s [", label);
	for (unsigned i = 0; i < width; i++)
		fputc(i < fill ? '=' : i == fill ? '>' : ' ', f);
	fprintf(f, "] %3u%%", pct);
	fflush(f);
}

static ssize_t counting_read(void *cookie, char *buf, size_t size)
{
	struct counting *c = cookie;
	size_t n = fread(buf, 1, size, c->in);
	int pct;

	if (n == 0 && ferror(c->in))
		return -1;
	c->done += n;
	pct = c->total ? (int)(c->done * 100 / c->total) : 100;
	if (pct != c->last_pct) {
		c->last_pct = pct;
		progress_draw(c->bar, c->label, c->done, c->total, 40);
	}
	return (ssize_t)n;
}

static int counting_close(void *cookie)
{
	struct counting *c = cookie;
	int r = fclose(c->in);

	/* clear the bar's line */
	fprintf(c->bar, "\r%*s\r", (int)strlen(c->label) + 50, "");
	fflush(c->bar);
	free(c);
	return r;
}

enum trace_status progress_read(const char *path, const struct trace_visitor *v,
				struct trace_result *res, FILE *bar, const char *label)
{
	cookie_io_functions_t io = {counting_read, NULL, NULL, counting_close};
	struct counting *c;
	struct stat sb;
	enum trace_status st;
	FILE *f;

	if (!bar || !strcmp(path, "-") || stat(path, &sb) || !S_ISREG(sb.st_mode))
		return trace_read_file(path, v, res);
	c = calloc(1, sizeof(*c));
	if (!c)
		return trace_read_file(path, v, res);
	c->in = fopen(path, "rb");
	if (!c->in) {
		free(c);
		return trace_read_file(path, v, res);
	}
	c->bar = bar;
	c->label = label;
	c->total = (uint64_t)sb.st_size;
	c->last_pct = -1;
	f = fopencookie(c, "rb", io);
	if (!f) {
		fclose(c->in);
		free(c);
		return trace_read_file(path, v, res);
	}
	st = trace_read_stream(f, path, v, res);
	fclose(f);
	return st;
}

FILE *progress_bar_stream(const char *trace)
{
	const char *env = getenv("JCAL_PROGRESS_MIN_BYTES");
	uint64_t min = env && *env ? strtoull(env, NULL, 10) : PROGRESS_MIN_BYTES;
	struct stat sb;

	if (!isatty(2) || !strcmp(trace, "-") || stat(trace, &sb) || (uint64_t)sb.st_size <= min)
		return NULL;
	return stderr;
}
