/*
 * perfdata.h - reads a HotSpot PerfData buffer (the hsperfdata_USER/PID
 * file every JVM with -XX:+UsePerfData maps): its prologue and entries,
 * and finds a string or long entry by name. Pure: works on bytes in
 * memory, trusts nothing in them (docs/live-profiling.md).
 */
#ifndef JCAL_PERFDATA_H
#define JCAL_PERFDATA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct perfdata {
	const unsigned char *buf;
	size_t len;
	int little_endian;
	uint32_t entry_offset;
	uint32_t num_entries;
};

/* Checks the prologue (magic 0xcafec0c0, byte order, version 2) of the
 * len bytes at buf. Returns 0, or -1 with a message in err. */
int perfdata_open(struct perfdata *pd, const void *buf, size_t len, char *err, size_t errlen);

/* Copies the string entry called name into out (NUL-terminated, cut to
 * outlen - 1 bytes). Returns 0, or -1 when there is no such string entry. */
int perfdata_string(const struct perfdata *pd, const char *name, char *out, size_t outlen);

/* Reads the scalar long entry called name. Returns 0, or -1. */
int perfdata_long(const struct perfdata *pd, const char *name, int64_t *out);

/* Reads the whole file at path into a malloc'd buffer (at most 16 MB).
 * Returns 0, or -1 with a message in err. */
int perfdata_read_file(const char *path, unsigned char **buf, size_t *len, char *err,
		       size_t errlen);

/* Reads DIR/NAME as perfdata_read_file does, when DIR is a directory (not
 * a symbolic link) owned by uid and NAME a regular file (not a link) owned
 * by uid: what the JVM of that uid made; any other user may have put a
 * file there (docs/live-profiling.md). Returns 0, or -1 with a message. */
int perfdata_read_owned(const char *dir, const char *name, uid_t uid, unsigned char **buf,
			size_t *len, char *err, size_t errlen);

#endif
