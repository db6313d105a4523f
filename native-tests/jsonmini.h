/*
 * jsonmini.h - a small strict JSON parser for the export tests: parses a
 * document (RFC 8259: objects, arrays, strings with escapes, numbers,
 * true/false/null, nothing after the value) into a tree of jv nodes, so
 * that tests can check the schema of what an export wrote.
 */
#ifndef JCAL_TEST_JSONMINI_H
#define JCAL_TEST_JSONMINI_H

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	enum jv_type type;
	double num;	  /* JV_NUM, JV_BOOL */
	char *str;	  /* JV_STR (decoded, \u escapes as UTF-8) */
	struct jv **item; /* JV_ARR, JV_OBJ values */
	char **key;	  /* JV_OBJ keys */
	size_t n;
};

struct jp {
	const char *p, *end;
	int err;
};

static void jv_free(struct jv *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		jv_free(v->item[i]);
		if (v->key)
			free(v->key[i]);
	}
	free(v->item);
	free(v->key);
	free(v->str);
	free(v);
}

static void jp_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static void jp_utf8(char **s, size_t *n, unsigned cp)
{
	char *o = *s + *n;

	if (cp < 0x80) {
		*o = (char)cp;
		*n += 1;
	} else if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		*n += 2;
	} else {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		*n += 3;
	}
}

static char *jp_string(struct jp *j)
{
	size_t cap = 16, n = 0;
	char *s;

	if (j->p >= j->end || *j->p != '"') {
		j->err = 1;
		return NULL;
	}
	j->p++;
	s = malloc(cap);
	while (s && j->p < j->end && *j->p != '"') {
		unsigned char c = (unsigned char)*j->p++;

		if (n + 8 > cap) {
			char *t = realloc(s, cap *= 2);

			if (!t) {
				free(s);
				return NULL;
			}
			s = t;
		}
		if (c < 0x20) {
			j->err = 1;
			break;
		}
		if (c != '\\') {
			s[n++] = (char)c;
			continue;
		}
		if (j->p >= j->end) {
			j->err = 1;
			break;
		}
		c = (unsigned char)*j->p++;
		switch (c) {
		case '"':
		case '\\':
		case '/':
			s[n++] = (char)c;
			break;
		case 'b':
			s[n++] = '\b';
			break;
		case 'f':
			s[n++] = '\f';
			break;
		case 'n':
			s[n++] = '\n';
			break;
		case 'r':
			s[n++] = '\r';
			break;
		case 't':
			s[n++] = '\t';
			break;
		case 'u': {
			unsigned cp = 0;

			for (int i = 0; i < 4; i++) {
				if (j->p >= j->end || !isxdigit((unsigned char)*j->p)) {
					j->err = 1;
					break;
				}
				cp = cp * 16 +
				     (unsigned)(isdigit((unsigned char)*j->p)
						    ? *j->p - '0'
						    : (tolower((unsigned char)*j->p) - 'a' + 10));
				j->p++;
			}
			jp_utf8(&s, &n, cp);
			break;
		}
		default:
			j->err = 1;
		}
		if (j->err)
			break;
	}
	if (!s || j->err || j->p >= j->end) {
		j->err = 1;
		free(s);
		return NULL;
	}
	j->p++;
	s[n] = '\0';
	return s;
}

static struct jv *jp_value(struct jp *j, int depth);

static int jp_add(struct jv *v, struct jv *item, char *key)
{
	struct jv **ni = realloc(v->item, (v->n + 1) * sizeof(*ni));

	if (!ni)
		return -1;
	v->item = ni;
	if (v->type == JV_OBJ) {
		char **nk = realloc(v->key, (v->n + 1) * sizeof(*nk));

		if (!nk)
			return -1;
		v->key = nk;
		v->key[v->n] = key;
	}
	v->item[v->n++] = item;
	return 0;
}

static struct jv *jp_value(struct jp *j, int depth)
{
	struct jv *v;

	jp_ws(j);
	if (j->p >= j->end || depth > 4000) {
		j->err = 1;
		return NULL;
	}
	v = calloc(1, sizeof(*v));
	if (!v) {
		j->err = 1;
		return NULL;
	}
	if (*j->p == '{' || *j->p == '[') {
		int obj = *j->p == '{';
		char close = obj ? '}' : ']';

		v->type = obj ? JV_OBJ : JV_ARR;
		j->p++;
		jp_ws(j);
		if (j->p < j->end && *j->p == close) {
			j->p++;
			return v;
		}
		for (;;) {
			char *key = NULL;
			struct jv *item;

			jp_ws(j);
			if (obj) {
				key = jp_string(j);
				jp_ws(j);
				if (!key || j->p >= j->end || *j->p != ':') {
					free(key);
					j->err = 1;
					break;
				}
				j->p++;
			}
			item = jp_value(j, depth + 1);
			if (!item || jp_add(v, item, key)) {
				jv_free(item);
				free(key);
				j->err = 1;
				break;
			}
			jp_ws(j);
			if (j->p < j->end && *j->p == ',') {
				j->p++;
				continue;
			}
			if (j->p < j->end && *j->p == close) {
				j->p++;
				break;
			}
			j->err = 1;
			break;
		}
	} else if (*j->p == '"') {
		v->type = JV_STR;
		v->str = jp_string(j);
	} else if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "false", 5)) {
		v->type = JV_BOOL;
		v->num = *j->p == 't';
		j->p += *j->p == 't' ? 4 : 5;
	} else if (!strncmp(j->p, "null", 4)) {
		j->p += 4;
	} else if (*j->p == '-' || isdigit((unsigned char)*j->p)) {
		const char *s = j->p;
		char *e;

		if (*s == '-')
			s++;
		if (s >= j->end || !isdigit((unsigned char)*s) ||
		    (*s == '0' && s + 1 < j->end && isdigit((unsigned char)s[1])))
			j->err = 1;
		v->type = JV_NUM;
		v->num = strtod(j->p, &e);
		j->p = e;
	} else {
		j->err = 1;
	}
	if (j->err) {
		jv_free(v);
		return NULL;
	}
	return v;
}

/* Parses s[0..n); NULL when it is not exactly one JSON value. */
static struct jv *jv_parse(const char *s, size_t n)
{
	struct jp j = {s, s + n, 0};
	struct jv *v = jp_value(&j, 0);

	jp_ws(&j);
	if (v && (j.err || j.p != j.end)) {
		jv_free(v);
		return NULL;
	}
	return v;
}

/* Member key of object v, or NULL. */
static const struct jv *jv_get(const struct jv *v, const char *key)
{
	if (!v || v->type != JV_OBJ)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->key[i], key))
			return v->item[i];
	return NULL;
}

static int jv_is(const struct jv *v, enum jv_type t)
{
	return v && v->type == t;
}

#endif
