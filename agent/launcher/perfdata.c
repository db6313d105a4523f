/*
 * perfdata.c - the HotSpot PerfData format, as the JVM lays it out
 * (docs/live-profiling.md, "Which JVMs jcal sees"): a 32-byte prologue
 *   u4 magic 0xcafec0c0 (always big-endian), u1 byte_order (0 big, 1 little),
 *   u1 major, u1 minor, u1 accessible, i4 used, i4 overflow, i8 mod_time,
 *   i4 entry_offset, i4 num_entries
 * then num_entries entries from entry_offset, each
 *   i4 entry_length, i4 name_offset, i4 vector_length, u1 data_type,
 *   u1 flags, u1 units, u1 variability, i4 data_offset
 * with the NUL-terminated name and the data at the given offsets from the
 * entry's start. Strings are byte vectors ('B', vector_length > 0), longs
 * 'J' scalars. Every offset is checked against the buffer.
 */
#include "agent/launcher/perfdata.h"
#include "agent/launcher/launcher_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROLOGUE_SIZE 32
#define ENTRY_HEADER_SIZE 20
#define MAX_FILE (16u << 20)

static uint32_t get_u4(const struct perfdata *pd, size_t off)
{
	const unsigned char *p = pd->buf + off;
	if (pd->little_endian)
		return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		       (uint32_t)p[3] << 24;
	return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}

static uint64_t get_u8(const struct perfdata *pd, size_t off)
{
	uint64_t lo = get_u4(pd, off), hi = get_u4(pd, off + 4);
	return pd->little_endian ? hi << 32 | lo : lo << 32 | hi;
}

int perfdata_open(struct perfdata *pd, const void *buf, size_t len, char *err, size_t errlen)
{
	const unsigned char *b = buf;
	memset(pd, 0, sizeof(*pd));
	if (len < PROLOGUE_SIZE)
		return launcher_fail(err, errlen, "too short for a PerfData prologue (%zu bytes)",
				     len);
	if (b[0] != 0xca || b[1] != 0xfe || b[2] != 0xc0 || b[3] != 0xc0)
		return launcher_fail(err, errlen, "no PerfData magic 0xcafec0c0");
	if (b[4] > 1)
		return launcher_fail(err, errlen, "unknown PerfData byte order %u", b[4]);
	if (b[5] != 2)
		return launcher_fail(err, errlen, "unsupported PerfData version %u.%u", b[5], b[6]);
	pd->buf = b;
	pd->len = len;
	pd->little_endian = b[4] == 1;
	pd->entry_offset = get_u4(pd, 24);
	pd->num_entries = get_u4(pd, 28);
	if (pd->entry_offset < PROLOGUE_SIZE || pd->entry_offset > len)
		return launcher_fail(err, errlen, "PerfData entry offset %u out of range",
				     pd->entry_offset);
	return 0;
}

/* The entry whose name is name: its start offset in *at, -1 when none. */
static int find_entry(const struct perfdata *pd, const char *name, size_t *at)
{
	size_t off = pd->entry_offset, nlen = strlen(name);
	for (uint32_t i = 0; i < pd->num_entries; i++) {
		if (off > pd->len || pd->len - off < ENTRY_HEADER_SIZE)
			return -1;
		uint32_t elen = get_u4(pd, off), noff = get_u4(pd, off + 4);
		if (elen < ENTRY_HEADER_SIZE || elen > pd->len - off)
			return -1;
		if (noff >= ENTRY_HEADER_SIZE && noff < elen && elen - noff > nlen &&
		    memcmp(pd->buf + off + noff, name, nlen + 1) == 0) {
			*at = off;
			return 0;
		}
		off += elen;
	}
	return -1;
}

int perfdata_string(const struct perfdata *pd, const char *name, char *out, size_t outlen)
{
	size_t at;
	if (outlen == 0 || find_entry(pd, name, &at))
		return -1;
	uint32_t elen = get_u4(pd, at), vlen = get_u4(pd, at + 8), doff = get_u4(pd, at + 16);
	if (pd->buf[at + 12] != 'B' || vlen == 0 || doff < ENTRY_HEADER_SIZE || doff > elen ||
	    vlen > elen - doff)
		return -1;
	const unsigned char *s = pd->buf + at + doff;
	size_t n = 0;
	while (n < vlen && s[n] != '\0' && n + 1 < outlen)
		n++;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

int perfdata_long(const struct perfdata *pd, const char *name, int64_t *out)
{
	size_t at;
	if (find_entry(pd, name, &at))
		return -1;
	uint32_t elen = get_u4(pd, at), vlen = get_u4(pd, at + 8), doff = get_u4(pd, at + 16);
	if (pd->buf[at + 12] != 'J' || vlen != 0 || doff < ENTRY_HEADER_SIZE || doff > elen ||
	    elen - doff < 8)
		return -1;
	*out = (int64_t)get_u8(pd, at + doff);
	return 0;
}

/* Reads the open file fd (path: for messages) when it is a regular file
 * of at most 16 MB, owned by want_uid unless that is -1; closes fd. */
static int read_open(int fd, const char *path, long long want_uid, unsigned char **buf, size_t *len,
		     char *err, size_t errlen)
{
	struct stat sb;
	if (fd < 0)
		return launcher_fail(err, errlen, "%s: %s", path, strerror(errno));
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size > (off_t)MAX_FILE) {
		close(fd);
		return launcher_fail(err, errlen, "%s: not a PerfData file", path);
	}
	if (want_uid >= 0 && sb.st_uid != (uid_t)want_uid) {
		close(fd);
		return launcher_fail(err, errlen, "%s: owned by uid %u, not the JVM's %lld", path,
				     (unsigned)sb.st_uid, want_uid);
	}
	size_t got = 0;
	unsigned char *b = (unsigned char *)launcher_read_fd(fd, (size_t)sb.st_size, &got);
	if (!b)
		return launcher_fail(err, errlen, "%s: out of memory", path);
	*buf = b;
	*len = got;
	return 0;
}

int perfdata_read_file(const char *path, unsigned char **buf, size_t *len, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	return read_open(fd, path, -1, buf, len, err, errlen);
}

int perfdata_read_owned(const char *dir, const char *name, uid_t uid, unsigned char **buf,
			size_t *len, char *err, size_t errlen)
{
	struct stat sb;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return launcher_fail(err, errlen, "%s: %s", dir, strerror(errno));
	if (fstat(dfd, &sb) || sb.st_uid != uid) {
		close(dfd);
		return launcher_fail(err, errlen, "%s: not owned by the JVM's uid %u", dir,
				     (unsigned)uid);
	}
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	int e = errno;
	close(dfd);
	errno = e;
	char path[4096 + 64];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return read_open(fd, path, uid, buf, len, err, errlen);
}
