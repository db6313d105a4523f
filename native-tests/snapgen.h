/*
 * snapgen.h - writes the tree snapshots of many recordings of one
 * program, as output=tree writes them (native-tests/modelgen.h's
 * snapshots), for the merge of many inputs: its memory bound
 * (test-post-bounds.c) and its figures (bench/gen-snapshots.c,
 * docs/performance.md, 4e).
 *
 * Recording i (from 0) is host "host-(i % 10)", pid 1000 + i, label
 * run:i; its thread "main" runs Main.main -> App.work r times (r = 1 +
 * i % 4) and "worker" Worker.run -> Worker.step once, one tick an event:
 * main base r + 1, work base r, run base 2, step base 1.
 */
#ifndef JCAL_TEST_SNAPGEN_H
#define JCAL_TEST_SNAPGEN_H

#include <stdio.h>

#include "native-tests/modelgen.h"

static inline unsigned snapgen_r(unsigned i)
{
	return 1 + i % 4;
}

/* Writes recording i's snapshot to path. Returns 0 or -1. */
static inline int snapgen_write(const char *path, unsigned i)
{
	char main_s[512], host[32], pid[32], run[32];
	const char *meta[] = {"host.name", host, "pid", pid, "label.run", run, NULL};
	const char *scripts[2] = {main_s, "0 E app.Worker.run\n1 E app.Worker.step\n"
					  "2 X app.Worker.step\n3 X app.Worker.run\n"};
	static const char *const names[] = {"main", "worker"};
	unsigned r = snapgen_r(i), t = 0;
	size_t n = 0;
	int err;

	snprintf(host, sizeof(host), "host-%u", i % 10);
	snprintf(pid, sizeof(pid), "%u", 1000 + i);
	snprintf(run, sizeof(run), "%u", i);
	n += (size_t)snprintf(main_s + n, sizeof(main_s) - n, "%u E app.Main.main\n", t++);
	for (unsigned k = 0; k < r; k++) {
		n += (size_t)snprintf(main_s + n, sizeof(main_s) - n, "%u E app.App.work\n", t++);
		n += (size_t)snprintf(main_s + n, sizeof(main_s) - n, "%u X app.App.work\n", t++);
	}
	snprintf(main_s + n, sizeof(main_s) - n, "%u X app.Main.main\n", t);
	mg_meta = meta;
	err = mg_snapshot_file(path, scripts, names, 2);
	mg_meta = NULL;
	return err;
}

#endif
