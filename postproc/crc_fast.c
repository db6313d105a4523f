/*
 * crc_fast.c - ISA-L's CRC-32 for jcal-post's trace reader (crc_fast.h).
 */
#include "postproc/crc_fast.h"

#include <isa-l/crc.h>

uint32_t crc_fast(uint32_t crc, const uint8_t *buf, size_t len)
{
	/* crc32_gzip_refl is the reflected IEEE CRC of gzip and zlib, which
	 * takes and returns the CRC in zlib's form (no inversion to undo) */
	return len ? crc32_gzip_refl(crc, buf, (uint64_t)len) : crc;
}
