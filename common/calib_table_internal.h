/*
 * calib_table_internal.h - what the files of the calibration table share
 * (calib_table.c, calib_table_write.c, calib_table_parse.c,
 * calib_table_ops.c, calib_dir.c); included by no other file.
 */
#ifndef JCAL_CALIB_TABLE_INT_H
#define JCAL_CALIB_TABLE_INT_H

#include "common/calib_table.h"

#define VERSION_LINE "jcal-calibration 3"   /* written when a key has a fit */
#define VERSION_LINE_2 "jcal-calibration 2" /* written otherwise; read */
#define VERSION_LINE_1 "jcal-calibration 1" /* no q; read */
#define VERSION_PREFIX "jcal-calibration "

/* Copies src into dst (len bytes), control characters as blanks, blanks
 * at both ends removed. */
void calib_clean_copy(char *dst, size_t len, const char *src);

/* comp = max(0, min - env). */
uint64_t calib_table_comp_of(uint64_t min, uint64_t env);

/* Clamps an entry's numbers to CALIB_NUM_MAX. */
void calib_entry_limit(struct calib_entry *e);

#endif
