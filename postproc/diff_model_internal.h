/*
 * diff_model_internal.h - what the files of jcal-post diff's model share
 * (diff_model.c, diff_model_add.c): the index of names by key and the
 * interning of a name.
 */
#ifndef JCAL_DIFF_MODEL_INTERNAL_H
#define JCAL_DIFF_MODEL_INTERNAL_H

#include <uthash.h>

#include "postproc/diff_model.h"

struct diff_name_idx {
	const char *key; /* the name's own key string (or a set's own copy) */
	uint32_t id;
	UT_hash_handle hh;
};

/* The id of the name of kind and key, added when new with the given
 * parts (copied; class_sig, method, sig NULL but for methods; display
 * NULL for methods, whose display diff_model_finish sets). Returns
 * DIFF_NONE when out of memory. */
uint32_t diff_model_intern(struct diff_model *dm, enum diff_name_kind kind, const char *key,
			   const char *display, const char *class_sig, const char *method,
			   const char *sig);

/* Adds key to the set *set; returns 1 when it was new, 0 when there, -1
 * when out of memory. */
int diff_model_set_add(struct diff_name_idx **set, const char *key);

#endif
