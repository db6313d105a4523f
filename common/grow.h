/*
 * grow.h - the growable array of jcal: grow(&a, &cap, need) makes room for
 * need elements in the malloc'ed array a of cap elements, doubling cap (the
 * first allocation holds at least GROW_FIRST elements). The caller keeps
 * the count of elements in use.
 */
#ifndef JCAL_GROW_H
#define JCAL_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GROW_FIRST 16

/* Returns 0, or -1 with errno ENOMEM and *pp, *cap unchanged when memory or
 * size_t runs out. pp points to the array pointer (any object type). */
static inline int grow_array(void *pp, size_t *cap, size_t need, size_t elem)
{
	size_t nc = *cap ? *cap : GROW_FIRST;
	void *p;

	memcpy(&p, pp, sizeof(p)); /* no aliasing of T ** as void ** */
	if (need <= *cap && p)
		return 0;
	while (nc < need)
		nc = nc > SIZE_MAX / 2 ? need : nc * 2;
	if (!elem || nc > SIZE_MAX / elem || !(p = realloc(p, nc * elem))) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(pp, &p, sizeof(p));
	*cap = nc;
	return 0;
}

#define grow(pp, cap, need) grow_array((pp), (cap), (need), sizeof(**(pp)))

#endif
