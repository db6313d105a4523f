/*
 * crc_fast.h - the CRC-32 jcal-post checks trace chunks with: ISA-L's,
 * which folds with carry-less multiplies (tens of GB/s, where zlib's
 * crc32() does a few), giving the values of zlib's crc32().
 */
#ifndef JCAL_CRC_FAST_H
#define JCAL_CRC_FAST_H

#include <stddef.h>
#include <stdint.h>

/* zlib's crc32(crc, buf, len), faster; crc when len is 0. */
uint32_t crc_fast(uint32_t crc, const uint8_t *buf, size_t len);

#endif
