/*
 * test-fuzz-regressions.c - replays every input kept under
 * native-tests/fuzz/regressions/<harness>/ (crashes the fuzzers found) and
 * every seed under native-tests/fuzz/corpus/<harness>/ through the fuzz
 * targets of fuzz/fuzz-targets.h, so that `make test` (and its ASan+UBSan
 * build) checks them without clang or libFuzzer; with malloc wrapped
 * (alloc_limit.h), no input may ask for more at once than the harnesses let
 * libFuzzer allow (FUZZ_MALLOC_LIMIT_MB).
 */
#include <dirent.h>
#include <stdlib.h>

#include "native-tests/alloc_limit.h"
#include "native-tests/fuzz/fuzz-targets.h"
#include "native-tests/test.h"

/* The folder of this source file, where the inputs are. */
static char src_dir[1024];

struct target {
	const char *harness;
	int (*fn)(const uint8_t *data, size_t size);
};

static const struct target targets[] = {
    {"fuzz-trace-reader", fuzz_trace_reader},
    {"fuzz-calib-table", fuzz_calib_table},
    {"fuzz-agent-options", fuzz_agent_options},
    {"fuzz-bci-rewrite", fuzz_bci_rewrite},
};

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (n == cap) {
			uint8_t *nb = realloc(buf, cap = cap ? 2 * cap : 4096);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	fclose(f);
	*len = n;
	return buf;
}

/* Runs every file of dir/harness through t; returns the files run. */
static unsigned replay_dir(const char *kind, const struct target *t)
{
	char dir[1200], path[1500];
	struct dirent *de;
	unsigned files = 0;

	snprintf(dir, sizeof(dir), "%s/fuzz/%s/%s", src_dir, kind, t->harness);
	DIR *d = opendir(dir);
	if (!d)
		return 0; /* no inputs kept for this harness */
	while ((de = readdir(d)) != NULL) {
		size_t len = 0;
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		uint8_t *data = slurp(path, &len);
		CHECK(data != NULL);
		if (!data)
			continue;
		alloc_largest_reset();
		int line = t->fn(data, len);
		size_t largest = alloc_largest_reset();
		if (line)
			fprintf(stderr, "  %s: property at line %d of the fuzz target failed\n",
				path, line);
		CHECK(line == 0);
		/* what libFuzzer reports as out of memory (make fuzz) */
		if (largest > (size_t)FUZZ_MALLOC_LIMIT_MB << 20)
			fprintf(stderr, "  %s: asked for %zu bytes at once\n", path, largest);
		CHECK(largest <= (size_t)FUZZ_MALLOC_LIMIT_MB << 20);
		free(data);
		files++;
	}
	closedir(d);
	return files;
}

static void test_regressions(void)
{
	unsigned n = 0;

	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		n += replay_dir("regressions", &targets[i]);
	CHECK(n >= 1);
}

static void test_seed_corpora(void)
{
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		unsigned n = replay_dir("corpus", &targets[i]);
		if (n == 0)
			fprintf(stderr, "  no seed corpus for %s\n", targets[i].harness);
		CHECK(n > 0);
	}
}

/* The crash the trace fuzzer found first: an empty first chunk used to reach
 * the payload decoders with a NULL buffer (UB: NULL + 0). */
static void test_empty_first_chunk(void)
{
	uint8_t img[1 + TRACE_FILE_HEADER_LEN + TRACE_CHUNK_HEADER_LEN];

	/* format 1.x (16-byte header, CRC of the payload: 0 for none) and 2.x */
	for (unsigned major = 1; major <= 2; major++) {
		size_t hl = major == 1 ? TRACE_FILE_HEADER_LEN_V1 : TRACE_FILE_HEADER_LEN;
		size_t n = 1 + hl + TRACE_CHUNK_HEADER_LEN;

		memset(img, 0, sizeof(img));
		img[0] = 1; /* file image, CRCs as they are */
		if (major == 1) {
			memcpy(img + 1, TRACE_MAGIC, TRACE_MAGIC_LEN);
			img[1 + 8] = 1;
		} else {
			trace_header_encode(img + 1);
		}
		memcpy(img + 1 + hl, "JCCK", 4);
		for (unsigned kind = 0; kind < 4; kind++) {
			img[1 + hl + 4] = (uint8_t)kind;
			if (major == 2) {
				uint32_t crc = trace_chunk_crc(img + 1 + hl, NULL, 0);
				for (int i = 0; i < 4; i++)
					img[1 + hl + 12 + i] = (uint8_t)(crc >> (8 * i));
			}
			CHECK_EQ_I(fuzz_trace_reader(img, n), 0);
		}
	}
}

int main(int argc, char **argv)
{
	const char *file = __FILE__, *slash = strrchr(file, '/');

	(void)argc;
	(void)argv;
	snprintf(src_dir, sizeof(src_dir), "%.*s", slash ? (int)(slash - file) : 1,
		 slash ? file : ".");
	RUN(test_regressions);
	RUN(test_seed_corpora);
	RUN(test_empty_first_chunk);
	return test_summary("fuzz-regressions");
}
