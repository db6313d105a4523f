/*
 * overloads.c - the suffix that tells apart methods sharing their class and
 * name (see overloads.h): methods are grouped by name, then by the suffix
 * of each level, until every suffix is unique in its group.
 */
#include "postproc/overloads.h"

#include <stdlib.h>
#include <string.h>

#include "postproc/names.h"

/* How many methods have a key ("class\1name[\1suffix]"). */
struct key_count {
	char *key;
	size_t n;
	UT_hash_handle hh;
};

static char *join(const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = c ? strlen(c) : 0;
	char *s = malloc(la + lb + lc + 3);

	if (!s)
		return NULL;
	memcpy(s, a, la);
	s[la] = '\1';
	memcpy(s + la + 1, b, lb);
	s[la + 1 + lb] = '\0';
	if (c) {
		s[la + 1 + lb] = '\1';
		memcpy(s + la + 2 + lb, c, lc + 1);
	}
	return s;
}

/* Counts key in *h; returns the entry, or NULL (no memory; key freed). */
static struct key_count *count(struct key_count **h, char *key)
{
	struct key_count *e;

	if (!key)
		return NULL;
	HASH_FIND_STR(*h, key, e);
	if (e) {
		free(key);
		e->n++;
		return e;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		free(key);
		return NULL;
	}
	e->key = key;
	e->n = 1;
	HASH_ADD_KEYPTR(hh, *h, e->key, strlen(e->key), e);
	return e;
}

static void counts_free(struct key_count **h)
{
	struct key_count *e, *tmp;

	HASH_ITER (hh, *h, e, tmp) {
		HASH_DEL(*h, e);
		free(e->key);
		free(e);
	}
}

/* The suffix of level 1 (simple parameter names), 2 (qualified), 3 (simple
 * parameter and return type names: "(): String", for methods that differ
 * by their return type only, as a bridge method and the method it calls)
 * or 4 (qualified parameters and return type); malloc'ed, or NULL. Never
 * the JVM descriptor: that is --sig's. */
static char *suffix(const struct model_method *mm, int level)
{
	int simple = level == 1 || level == 3;
	size_t n = names_params(mm->sig, simple, NULL, 0), r = 0;
	char *s;

	if (level >= 3)
		r = names_return(mm->sig, simple, NULL, 0) + 2;
	s = malloc(n + r + 1);
	if (!s)
		return NULL;
	names_params(mm->sig, simple, s, n + 1);
	if (level >= 3) {
		s[n] = ':';
		s[n + 1] = ' ';
		names_return(mm->sig, simple, s + n + 2, r - 1);
	}
	return s;
}

static int counted(const struct model_method *mm)
{
	return mm->defined && !mm->aliased && mm->class_sig && mm->name;
}

/* Gives each method still marked in todo the suffix of level; those whose
 * suffix is unique in their group are done (todo cleared). */
static int level_pass(struct model_method *methods, int level, unsigned char *todo, size_t nm)
{
	struct key_count *h = NULL, *e;
	struct model_method *mm, *tmp;
	size_t i = 0;
	int err = 0;

	HASH_ITER (hh, methods, mm, tmp) {
		if (i < nm && todo[i]) {
			free(mm->overload);
			mm->overload = suffix(mm, level);
			if (!mm->overload ||
			    !count(&h, join(mm->class_sig, mm->name, mm->overload)))
				err = -1;
		}
		i++;
	}
	i = 0;
	HASH_ITER (hh, methods, mm, tmp) {
		if (!err && i < nm && todo[i]) {
			char *key = join(mm->class_sig, mm->name, mm->overload);

			if (!key) {
				err = -1;
				break;
			}
			HASH_FIND_STR(h, key, e);
			free(key);
			if (e && e->n == 1)
				todo[i] = 0;
		}
		i++;
	}
	counts_free(&h);
	return err;
}

int overloads_mark(struct model_method *methods)
{
	struct key_count *h = NULL, *e;
	struct model_method *mm, *tmp;
	size_t nm = HASH_COUNT(methods), i = 0;
	unsigned char *todo = calloc(nm ? nm : 1, 1);
	int err = 0;

	if (!todo)
		return -1;
	HASH_ITER (hh, methods, mm, tmp) {
		free(mm->overload);
		mm->overload = NULL;
		if (counted(mm) && !count(&h, join(mm->class_sig, mm->name, NULL)))
			err = -1;
	}
	HASH_ITER (hh, methods, mm, tmp) {
		if (!err && counted(mm)) {
			char *key = join(mm->class_sig, mm->name, NULL);

			if (!key) {
				err = -1;
				break;
			}
			HASH_FIND_STR(h, key, e);
			free(key);
			todo[i] = e && e->n > 1;
		}
		i++;
	}
	counts_free(&h);
	for (int level = 1; level <= 4 && !err; level++)
		err = level_pass(methods, level, todo, nm);
	free(todo);
	return err;
}
