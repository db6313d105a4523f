/*
 * test-crc-fast.c - jcal-post's CRC-32 (postproc/crc_fast.c) gives zlib's
 * values, alone and chained, at every length and alignment, and the trace
 * reader checks chunks with it once it is set.
 */
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "postproc/crc_fast.h"
#include "native-tests/test.h"
#include "common/trace_reader.h"
#include "native-tests/tracegen.h"
#include "native-tests/xorshift.h"

static uint8_t data[(1 << 20) + 64];

static void fill(void)
{
	uint64_t s = 0x243f6a8885a308d3ull;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(xorshift_next(&s) >> 56);
}

/* Lengths 0..300 at offsets 0..15, from a zero and from a chained CRC. */
static void test_same_as_zlib(void)
{
	unsigned bad = 0;

	fill();
	for (size_t off = 0; off < 16; off++)
		for (size_t len = 0; len <= 300; len++) {
			uint32_t z0 = (uint32_t)crc32_z(0, data + off, len);
			uint32_t seed = (uint32_t)crc32_z(0, data + 400, 13);
			uint32_t zc = (uint32_t)crc32_z(seed, data + off, len);

			bad += crc_fast(0, data + off, len) != z0;
			bad += crc_fast(seed, data + off, len) != zc;
		}
	CHECK_EQ_U(bad, 0);
	CHECK_EQ_U(crc_fast(0x1234abcd, NULL, 0), 0x1234abcd);
	CHECK_EQ_U(crc_fast(0, data + 3, sizeof(data) - 64),
		   (uint32_t)crc32_z(0, data + 3, sizeof(data) - 64));
	/* "123456789": the CRC-32 check value */
	CHECK_EQ_U(crc_fast(0, (const uint8_t *)"123456789", 9), 0xcbf43926u);
}

struct counts {
	uint64_t events;
};

static int on_event(void *ctx, const struct trace_event *e)
{
	(void)e;
	((struct counts *)ctx)->events++;
	return 0;
}

static uint32_t crc_wrong(uint32_t crc, const uint8_t *buf, size_t len)
{
	return crc_fast(crc, buf, len) ^ 1;
}

/* A trace of three chunks read with the fast CRC set: whole, it reads; a
 * byte changed in its second chunk's payload is a CRC mismatch there. */
static void test_reader_uses_it(void)
{
	const char *dir = getenv("TMPDIR");
	char path[256];
	struct tracegen tg;
	struct trace_result res;
	struct counts c = {0};
	struct trace_visitor v = {.ctx = &c, .event = on_event};
	uint64_t m = 0;
	long second = 0;

	snprintf(path, sizeof(path), "%s/jcal-test-crc-XXXXXX", dir ? dir : "/tmp");
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	CHECK_EQ_I(tg_open(&tg, path), 0);
	for (int chunk = 0; chunk < 3; chunk++) {
		if (chunk == 1)
			second = ftell(tg.f);
		tg_events_begin(&tg, 1, 1);
		for (int i = 0; i < 100; i++) {
			m += 3;
			tg_event(&tg, JCAL_TR_ENTRY, JCAL_MT_INTERP, 7, &m);
			m += 5;
			tg_event(&tg, JCAL_TR_EXIT, JCAL_MT_INTERP, 7, &m);
		}
		tg_events_end(&tg);
	}
	CHECK_EQ_I(tg_close(&tg), 0);

	trace_use_crc32(crc_fast);
	CHECK_EQ_I(trace_read_file(path, &v, &res), TRACE_OK);
	CHECK_EQ_U(res.chunks, 3);
	CHECK_EQ_U(c.events, 600);

	FILE *f = fopen(path, "r+b");
	CHECK(f != NULL);
	if (f) {
		int b;

		fseek(f, second + TRACE_CHUNK_HEADER_LEN + 10, SEEK_SET);
		b = fgetc(f);
		fseek(f, second + TRACE_CHUNK_HEADER_LEN + 10, SEEK_SET);
		fputc(b ^ 0x40, f);
		fclose(f);
	}
	c.events = 0;
	CHECK_EQ_I(trace_read_file(path, &v, &res), TRACE_CORRUPT);
	CHECK(strstr(res.msg, "CRC mismatch") != NULL);
	CHECK_EQ_U(c.events, 200);
	/* the reader computes every CRC through the function set */
	trace_use_crc32(crc_wrong);
	CHECK_EQ_I(trace_read_file(path, &v, &res), TRACE_CORRUPT);
	CHECK(strstr(res.msg, "file header: CRC mismatch") != NULL);
	trace_use_crc32(NULL);
	unlink(path);
}

int main(void)
{
	RUN(test_same_as_zlib);
	RUN(test_reader_uses_it);
	return test_summary("crc-fast");
}
