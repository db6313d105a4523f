/*
 * progress.h - a progress bar for long reads of a trace file.
 *
 * The file is read through a stream that counts the bytes it hands out and
 * redraws a one-line bar ("reading trace.bin [=====>    ]  42%") on the
 * given terminal stream, at most once per percent; the line is cleared at
 * the end. The caller decides whether there is a bar (jcal-post: stderr is
 * a terminal and the file is larger than PROGRESS_MIN_BYTES).
 */
#ifndef JCAL_PROGRESS_H
#define JCAL_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

#include "common/trace_reader.h"

#define PROGRESS_MIN_BYTES (64ull << 20)

/* Reads path with v like trace_read_file(); with bar non-NULL and path a
 * regular file, draws the bar on bar while reading. */
enum trace_status progress_read(const char *path, const struct trace_visitor *v,
				struct trace_result *res, FILE *bar, const char *label);

/* jcal-post's bar: stderr when it is a terminal and trace a file larger
 * than PROGRESS_MIN_BYTES ($JCAL_PROGRESS_MIN_BYTES); else NULL. */
FILE *progress_bar_stream(const char *trace);

/* Draws the bar for done of total bytes on f ("label [===>  ] NN%"), width
 * columns of bar; exposed for tests. */
void progress_draw(FILE *f, const char *label, uint64_t done, uint64_t total, unsigned width);

#endif
