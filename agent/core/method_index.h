/*
 * method_index.h - the lock-free jmethodID -> method look-up of the event
 * path: an open-addressing table that only grows, read without a lock by
 * every thread, written under the method table's mutex.
 *
 * A removed key (its class was unloaded; HotSpot never hands the same
 * jmethodID out again) stays in its slot with a NULL value, so a reader
 * probing until it meets an empty slot has either found the key or knows
 * that the table it read did not hold it then; a miss (or NULL) sends the
 * caller to the locked path, which inserts. When the table is half full, a
 * rebuild copies the live entries into a new table with room for as many
 * again and publishes it, so removed keys stop costing memory at the next
 * rebuild.
 *
 * No table is freed while the index lives: a reader may have read the
 * current table just before a rebuild replaced it and still be probing
 * it, for as long as its thread is descheduled. A replaced table becomes
 * a spare, which a later rebuild to the same size empties and refills
 * instead of allocating one; each table carries a sequence count, odd
 * while it is being refilled, that readers read before and after their
 * probe and look again when it changed (a seqlock). So memory stays
 * bounded (at most two tables of each size ever reached, four times the
 * largest table in all) however many classes come and go, and a reader
 * never reads freed memory nor takes another key's value.
 */
#ifndef JCAL_METHOD_INDEX_H
#define JCAL_METHOD_INDEX_H

#include <stddef.h>

struct method_index_table;

struct method_index {
	struct method_index_table *_Atomic cur;
	struct method_index_table *spares; /* replaced tables (writers only) */
	size_t count;	   /* keys in the current table, removed ones too (writers only) */
	size_t live;	   /* keys not removed */
	unsigned rebuilds; /* tables replaced so far */
	unsigned tables;   /* tables allocated: the current one and the spares */
};

/* Starts empty. Returns 0, or -1 when memory runs out. */
int method_index_init(struct method_index *ix);
/* The value of key, or NULL (not there, or the table was refilled under
 * every look: ask the locked path). Any thread, no lock; key must not be
 * NULL. */
void *method_index_find(struct method_index *ix, const void *key);
/* Adds key -> value (key not present yet). Writers must be serialised by
 * the caller; readers may run at the same time. Returns 0, or -1 when
 * memory runs out (the key is then not indexed: readers miss it). */
int method_index_add(struct method_index *ix, const void *key, void *value);
/* Removes key (a NULL value for readers from now on); writers only. */
void method_index_remove(struct method_index *ix, const void *key);
/* Slots of the current table (for tests and status). */
size_t method_index_slots(struct method_index *ix);
/* Frees every table; no reader may run. */
void method_index_free(struct method_index *ix);

#endif
