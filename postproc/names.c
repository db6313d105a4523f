/*
 * names.c - Java names from JVM descriptors (see names.h).
 */
#include "postproc/names.h"

#include <stdio.h>
#include <string.h>

/* Appends s[0..n) to buf at *pos, truncating; *pos counts the full length. */
static void put(char *buf, size_t len, size_t *pos, const char *s, size_t n)
{
	if (*pos < len) {
		size_t room = len - 1 - *pos;
		size_t k = n < room ? n : room;

		memcpy(buf + *pos, s, k);
		buf[*pos + k] = '\0';
	}
	*pos += n;
}

static const char *primitive(char c)
{
	switch (c) {
	case 'B':
		return "byte";
	case 'C':
		return "char";
	case 'D':
		return "double";
	case 'F':
		return "float";
	case 'I':
		return "int";
	case 'J':
		return "long";
	case 'S':
		return "short";
	case 'Z':
		return "boolean";
	case 'V':
		return "void";
	}
	return NULL;
}

/* Copies s[0..n) with '/' turned into '.'. */
static void put_dotted(char *buf, size_t len, size_t *pos, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put(buf, len, pos, s[i] == '/' ? "." : s + i, 1);
}

size_t names_class(const char *desc, char *buf, size_t len)
{
	size_t pos = 0, dims = 0, n;
	const char *p, *prim = NULL;

	if (len)
		buf[0] = '\0';
	if (!desc)
		return 0;
	n = strlen(desc);
	while (dims < n && desc[dims] == '[')
		dims++;
	p = desc + dims;
	n -= dims;
	if (n >= 2 && p[0] == 'L' && p[n - 1] == ';') {
		put_dotted(buf, len, &pos, p + 1, n - 2);
	} else if (dims && n == 1 && (prim = primitive(p[0]))) {
		put(buf, len, &pos, prim, strlen(prim));
	} else {
		/* not a descriptor: a plain name */
		put_dotted(buf, len, &pos, desc, dims + n);
		return pos;
	}
	for (size_t i = 0; i < dims; i++)
		put(buf, len, &pos, "[]", 2);
	return pos;
}

size_t names_method(const char *class_desc, const char *method, const char *sig, char *buf,
		    size_t len)
{
	size_t pos = 0;

	if (len)
		buf[0] = '\0';
	if (class_desc && *class_desc) {
		pos = names_class(class_desc, buf, len);
		put(buf, len, &pos, ".", 1);
	}
	if (method)
		put(buf, len, &pos, method, strlen(method));
	if (sig && *sig)
		put(buf, len, &pos, sig, strlen(sig));
	return pos;
}

size_t names_params(const char *sig, int simple, char *buf, size_t len)
{
	size_t pos = 0;
	const char *p = sig ? strchr(sig, '(') : NULL;

	if (len)
		buf[0] = '\0';
	put(buf, len, &pos, "(", 1);
	for (p = p ? p + 1 : ""; *p && *p != ')';) {
		const char *start = p, *shown, *dot, *prim;
		char one[1024], name[1024];
		size_t n;

		while (*p == '[')
			p++;
		if (*p == 'L' && strchr(p, ';'))
			p = strchr(p, ';');
		else if (!*p || (*p == 'L'))
			break; /* not a descriptor: stop at what was read */
		n = (size_t)(++p - start);
		if (n >= sizeof(one))
			n = sizeof(one) - 1;
		memcpy(one, start, n);
		one[n] = '\0';
		if (n == 1 && (prim = primitive(one[0])))
			snprintf(name, sizeof(name), "%s", prim);
		else
			names_class(one, name, sizeof(name));
		shown = simple && (dot = strrchr(name, '.')) ? dot + 1 : name;
		if (pos > 1)
			put(buf, len, &pos, ", ", 2);
		put(buf, len, &pos, shown, strlen(shown));
	}
	put(buf, len, &pos, ")", 1);
	return pos;
}

size_t names_return(const char *sig, int simple, char *buf, size_t len)
{
	const char *p = sig ? strrchr(sig, ')') : NULL, *shown, *dot, *prim;
	char name[1024];
	size_t pos = 0;

	if (len)
		buf[0] = '\0';
	if (!p || !p[1])
		return 0;
	p++;
	if (!p[1] && (prim = primitive(p[0])) != NULL)
		snprintf(name, sizeof(name), "%s", prim);
	else
		names_class(p, name, sizeof(name));
	shown = simple && (dot = strrchr(name, '.')) ? dot + 1 : name;
	put(buf, len, &pos, shown, strlen(shown));
	return pos;
}
