/*
 * tracegen.h - writes small synthetic trace files with the real encoder,
 * for end-to-end tests of the reader and jcal-post's model.
 *
 * Usage: tg_open, then records (tg_rec_* on tg.rb) and tg_flush, one
 * tg_events_begin / tg_event... / tg_events_end per events chunk, tg_close.
 */
#ifndef JCAL_TEST_TRACEGEN_H
#define JCAL_TEST_TRACEGEN_H

#include <stdio.h>
#include <stdlib.h>

#include "common/trace_encoder.h"

struct tracegen {
	FILE *f;
	struct trace_recbuf rb;
	struct trace_events_enc enc;
	uint8_t buf[1 << 16];
	int err;
};

static inline int tg_open(struct tracegen *tg, const char *path)
{
	uint8_t h[TRACE_FILE_HEADER_LEN];

	tg->err = 0;
	tg->f = fopen(path, "wb");
	if (!tg->f)
		return -1;
	trace_header_encode(h);
	fwrite(h, 1, sizeof(h), tg->f);
	trace_recbuf_init(&tg->rb);
	return 0;
}

/* Writes the records collected in tg->rb as one chunk. */
static inline void tg_flush(struct tracegen *tg)
{
	if (trace_recbuf_pending(&tg->rb)) {
		size_t n = trace_recbuf_finish(&tg->rb);

		if (fwrite(tg->rb.buf, 1, n, tg->f) != n)
			tg->err = 1;
		trace_recbuf_clear(&tg->rb);
	}
}

static inline void tg_events_begin(struct tracegen *tg, uint32_t serial, unsigned nmetrics)
{
	trace_events_init(&tg->enc, tg->buf, sizeof(tg->buf), serial, nmetrics);
}

static inline void tg_events_end(struct tracegen *tg)
{
	size_t n = trace_events_finish(&tg->enc);

	if (n && fwrite(tg->buf, 1, n, tg->f) != n)
		tg->err = 1;
}

static inline void tg_event(struct tracegen *tg, unsigned trans, unsigned type, uint32_t method,
			    const uint64_t *metric)
{
	if (trace_events_full(&tg->enc)) {
		uint32_t serial = tg->enc.serial;
		unsigned n = tg->enc.nmetrics;

		tg_events_end(tg);
		tg_events_begin(tg, serial, n);
	}
	trace_events_add(&tg->enc, trans, type, method, metric);
}

static inline int tg_close(struct tracegen *tg)
{
	tg_flush(tg);
	trace_recbuf_free(&tg->rb);
	if (fclose(tg->f))
		tg->err = 1;
	return tg->err ? -1 : 0;
}

#endif
