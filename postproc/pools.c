/*
 * pools.c - the threads of one pool grouped into one tree (see pools.h):
 * each thread's pool by name_norm_pool, counted in a hash, then one group
 * thread per pool of two threads or more, its tree a tree_group of theirs.
 */
#include "postproc/pools.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "postproc/name_norm.h"
#include "postproc/tree_group.h"

/* A pool: its key (the pool's name, and its input in a merged profile),
 * its threads, its group once made. */
struct pool {
	char *key;
	size_t klen; /* the pool's name: key[0..klen) */
	size_t n;
	int shared; /* counted among the pools of two threads or more */
	struct model_thread *group;
	UT_hash_handle hh;
};

static void pools_free(struct pool **h)
{
	struct pool *p, *tmp;

	HASH_ITER (hh, *h, p, tmp) {
		HASH_DEL(*h, p);
		free(p->key);
		free(p);
	}
}

/* The name a thread's pool is found by: its own name in a merged profile
 * (the input goes in the key), none for a group already or a thread that
 * no record named ("thread-#N"). */
static const char *pool_source(const struct model_thread *t)
{
	char placeholder[32];

	if (t->group)
		return NULL;
	snprintf(placeholder, sizeof(placeholder), "thread-#%" PRIu32, t->serial);
	if (!t->plain && !strcmp(t->name, placeholder))
		return NULL;
	return t->plain ? t->plain : t->name;
}

/* The pool of t, counted; *out NULL when t is in none. Returns 0 or -1. */
static int pool_count(struct pool **h, const struct model *m, const struct model_thread *t,
		      struct pool **out)
{
	const char *name = pool_source(t);
	int pooled = 0;
	size_t len;
	char *key;
	struct pool *p;

	*out = NULL;
	if (!name)
		return 0;
	len = name_norm_pool(name, NULL, 0, &pooled);
	if (!pooled)
		return 0;
	key = malloc(len + 24);
	if (!key)
		return -1;
	name_norm_pool(name, key, len + 1, &pooled);
	snprintf(key + len, 24, "\1%" PRIu32, m->ninputs ? t->input : 0);
	HASH_FIND_STR(*h, key, p);
	if (p) {
		free(key);
		p->n++;
		*out = p;
		return 0;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		free(key);
		return -1;
	}
	p->key = key;
	p->klen = len;
	p->n = 1;
	HASH_ADD_KEYPTR(hh, *h, p->key, strlen(p->key), p);
	*out = p;
	return 0;
}

/* The group thread of pool p, named after its first thread t. */
static struct model_thread *group_new(const struct model *m, struct pool *p,
				      const struct model_thread *t)
{
	struct model_thread *g = calloc(1, sizeof(*g));
	int klen = (int)p->klen, r;

	if (!g)
		return NULL;
	g->serial = t->serial;
	g->own_serial = t->own_serial;
	g->input = t->input;
	g->flags = t->flags;
	g->group = 1;
	g->has_tree = 1;
	g->pool_serials = malloc(p->n * sizeof(*g->pool_serials));
	if (m->ninputs) {
		r = asprintf(&g->plain, "%.*s (%zu threads)", klen, p->key, p->n);
		if (r >= 0 && asprintf(&g->name, "%s [%s]", g->plain, m->inputs[t->input].tag) < 0)
			g->name = NULL;
	} else if (asprintf(&g->name, "%.*s (%zu threads)", klen, p->key, p->n) < 0) {
		g->name = NULL;
	}
	if (!g->name || !g->pool_serials || (m->ninputs && !g->plain)) {
		model_thread_free(g);
		return NULL;
	}
	return g;
}

/* Adds thread t to its pool's group, made at its first thread (then
 * *made is 1); trees[] holds the groups' trees by their index in
 * m->pools. Returns 0 or -1. */
static int group_add(struct model *m, struct pool *p, struct model_thread *t,
		     struct tree_group *trees, int *made)
{
	struct model_thread *g = p->group;

	*made = 0;
	if (!g) {
		if (!(g = group_new(m, p, t)))
			return -1;
		g->pool_index = m->npools;
		m->pools[m->npools++] = g;
		p->group = g;
		*made = 1;
		if (tree_group_init(&trees[g->pool_index], m->nmetrics ? m->nmetrics : 1))
			return -1;
	}
	g->pool_serials[g->nfolded++] = t->serial;
	g->flags &= t->flags; /* virtual or daemon only when every thread is */
	if (tree_group_add(&trees[g->pool_index], &t->tree, t->serial, 0, NULL, NULL))
		return -1;
	calltree_free(&t->tree); /* the group holds its figures now */
	return 0;
}

/* The pools of two threads or more among list[0..n) (of[i] t's pool, set
 * to NULL for a thread alone in its own). */
static size_t pools_shared(struct pool **of, size_t n)
{
	size_t groups = 0;

	for (size_t i = 0; i < n; i++) {
		if (of[i] && of[i]->n < 2)
			of[i] = NULL;
		else if (of[i] && !of[i]->shared) {
			of[i]->shared = 1;
			groups++;
		}
	}
	return groups;
}

/* Replaces each shared pool's threads in list by its group. */
static int pools_fill(struct model *m, struct model_thread **list, size_t *n, struct pool **of,
		      struct tree_group *trees, struct pools_info *info)
{
	size_t k = 0;

	for (size_t i = 0; i < *n; i++) {
		int made;

		if (!of[i]) {
			list[k++] = list[i];
			continue;
		}
		if (group_add(m, of[i], list[i], trees, &made))
			return -1;
		if (made)
			list[k++] = of[i]->group;
		info->threads++;
	}
	*n = k;
	info->groups = m->npools;
	for (size_t i = 0; i < m->npools; i++) {
		if (tree_group_finish(&trees[i]))
			return -1;
		tree_group_take(&trees[i], &m->pools[i]->tree);
	}
	return 0;
}

int pools_group(struct model *m, struct model_thread **list, size_t *n, struct pools_info *info)
{
	struct pool *h = NULL, **of = calloc(*n ? *n : 1, sizeof(*of));
	struct tree_group *trees = NULL;
	size_t groups = 0;
	int err = -1;

	memset(info, 0, sizeof(*info));
	if (!of || m->pools)
		goto out;
	for (size_t i = 0; i < *n; i++)
		if (pool_count(&h, m, list[i], &of[i]))
			goto out;
	groups = pools_shared(of, *n);
	if (!groups) {
		err = 0;
		goto out;
	}
	m->pools = calloc(groups, sizeof(*m->pools));
	trees = calloc(groups, sizeof(*trees));
	if (m->pools && trees)
		err = pools_fill(m, list, n, of, trees, info);
out:
	for (size_t i = 0; trees && i < groups; i++)
		tree_group_free(&trees[i]);
	free(trees);
	free(of);
	pools_free(&h);
	return err;
}

void pools_serials(const struct model_thread *t, char *buf, size_t len)
{
	size_t pos = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < t->nfolded && t->pool_serials;) {
		size_t j = i;
		char run[64];
		int w;

		while (j + 1 < t->nfolded && t->pool_serials[j + 1] == t->pool_serials[j] + 1)
			j++;
		if (j > i)
			w = snprintf(run, sizeof(run), "%s#%" PRIu32 "-#%" PRIu32, i ? ", " : "",
				     t->pool_serials[i], t->pool_serials[j]);
		else
			w = snprintf(run, sizeof(run), "%s#%" PRIu32, i ? ", " : "",
				     t->pool_serials[i]);
		i = j + 1;
		/* room for this run, and for ", ..." after it when more follow */
		if (pos + (size_t)w + (i < t->nfolded ? 5 : 0) >= len) {
			if (pos + 5 < len)
				snprintf(buf + pos, len - pos, ", ...");
			return;
		}
		memcpy(buf + pos, run, (size_t)w + 1);
		pos += (size_t)w;
	}
}
