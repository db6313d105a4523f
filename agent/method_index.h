/*
 * method_index.h - the lock-free jmethodID -> method look-up of the event
 * path: an open-addressing table that only grows, read without a lock by
 * every thread, written under the method table's mutex.
 *
 * Keys are never removed (HotSpot never reuses a jmethodID), so a reader
 * probing until it meets an empty slot has either found the key or knows
 * that the table it read did not hold it then; a miss sends the caller to
 * the locked path, which inserts. Growing copies every entry into a table
 * twice the size and publishes it; old tables stay allocated until
 * method_index_free (a reader may still be probing one), at most the size
 * of the current one in all.
 */
#ifndef JCAL_METHOD_INDEX_H
#define JCAL_METHOD_INDEX_H

#include <stddef.h>

struct method_index_table;

struct method_index {
	struct method_index_table *_Atomic cur;
	size_t count; /* entries (writers only) */
};

/* Starts empty. Returns 0, or -1 when memory runs out. */
int method_index_init(struct method_index *ix);
/* The value of key, or NULL. Any thread, no lock; key must not be NULL. */
void *method_index_find(struct method_index *ix, const void *key);
/* Adds key -> value (key not present yet). Writers must be serialised by
 * the caller; readers may run at the same time. Returns 0, or -1 when
 * memory runs out (the key is then not indexed: readers miss it). */
int method_index_add(struct method_index *ix, const void *key, void *value);
/* Frees every table; no reader may run. */
void method_index_free(struct method_index *ix);

#endif
